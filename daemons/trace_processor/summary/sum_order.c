/*
 * The order upstream's summary comes out in: metric bundles (and the
 * modules it includes) are kept in a base::FlatHashMap keyed by string and
 * walked slot by slot, so the output follows the keys' hashes, not the
 * order of the specs. To give the same bytes we place the keys the way
 * that map does: 64-bit MurmurHash of the bytes, open addressing with
 * quadratic probing (h + 2i^2 + i), capacity 1024 at the first insert,
 * grown 8x (2x once slots take over 1 MiB) when 75% full, rehashing in
 * slot order.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sum_int.h"

/* sizeof(std::string) + sizeof(std::vector<>): the map's slot size. */
#define ORDER_SLOT_BYTES	56u

static uint64_t
order_murmur(const void *in, size_t len)
{
	const uint64_t m = 0xc6a4a7935bd1e995ULL;
	const uint8_t *p = in;
	uint64_t h = 0xe17a1465ULL ^ (len * m), k;
	size_t i;

	for (i = 0; i < len / 8; i++, p += 8) {
		memcpy(&k, p, 8);
		k *= m;
		k ^= k >> 47;
		k *= m;
		h ^= k;
		h *= m;
	}
	switch (len & 7) {
	case 7: h ^= (uint64_t)p[6] << 48;	/* FALLTHROUGH */
	case 6: h ^= (uint64_t)p[5] << 40;	/* FALLTHROUGH */
	case 5: h ^= (uint64_t)p[4] << 32;	/* FALLTHROUGH */
	case 4: h ^= (uint64_t)p[3] << 24;	/* FALLTHROUGH */
	case 3: h ^= (uint64_t)p[2] << 16;	/* FALLTHROUGH */
	case 2: h ^= (uint64_t)p[1] << 8;	/* FALLTHROUGH */
	case 1:
		h ^= (uint64_t)p[0];
		h *= m;
	}
	h ^= h >> 47;
	h *= m;
	h ^= h >> 47;
	return h;
}

struct order_map {
	ssize_t		*slot;		/* key index, -1 when free */
	size_t		 cap;
	size_t		 size;
};

static void
order_place(struct order_map *om, const uint64_t *hash, size_t key)
{
	size_t i, idx;

	for (i = 0; i < om->cap; i++) {
		idx = (size_t)(hash[key] + 2 * i * i + i) & (om->cap - 1);
		if (om->slot[idx] == -1) {
			om->slot[idx] = (ssize_t)key;
			om->size++;
			return;
		}
	}
}

static int
order_grow(struct order_map *om, const uint64_t *hash)
{
	struct order_map nm;
	size_t i, factor;

	factor = om->cap * ORDER_SLOT_BYTES < (1u << 20) ? 8 : 2;
	nm.cap = om->cap * factor > 1024 ? om->cap * factor : 1024;
	nm.size = 0;
	if ((nm.slot = reallocarray(NULL, nm.cap, sizeof(*nm.slot))) == NULL)
		return -1;
	for (i = 0; i < nm.cap; i++)
		nm.slot[i] = -1;
	for (i = 0; i < om->cap; i++)
		if (om->slot[i] != -1)
			order_place(&nm, hash, (size_t)om->slot[i]);
	free(om->slot);
	*om = nm;
	return 0;
}

int
sum_hash_order(char *const *keys, size_t n, size_t *order)
{
	struct order_map om = { NULL, 0, 0 };
	uint64_t *hash;
	size_t i, k = 0;

	if ((hash = reallocarray(NULL, n ? n : 1, sizeof(*hash))) == NULL)
		return -1;
	for (i = 0; i < n; i++) {
		hash[i] = order_murmur(keys[i], strlen(keys[i]));
		if (om.size >= om.cap * 75 / 100 &&
		    order_grow(&om, hash) == -1) {
			free(hash);
			return -1;
		}
		order_place(&om, hash, i);
	}
	for (i = 0; i < om.cap; i++)
		if (om.slot[i] != -1)
			order[k++] = (size_t)om.slot[i];
	free(om.slot);
	free(hash);
	return 0;
}
