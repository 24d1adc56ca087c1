/*
 * Linear-probing hash map (see tp_hash.h), deletion by backward shift so
 * that probes never need tombstones.
 */
#include <stdlib.h>
#include <string.h>

#include "tp_hash.h"

static inline size_t
hash_mix(uint64_t k)
{
	return (size_t)tp_hash_mix(k);
}

void
tp_hash_init(struct tp_hash *h)
{
	memset(h, 0, sizeof(*h));
}

void
tp_hash_free(struct tp_hash *h)
{
	free(h->slots);
	free(h->used);
	memset(h, 0, sizeof(*h));
}

void
tp_hash_clear(struct tp_hash *h)
{
	if (h->used != NULL)
		memset(h->used, 0, h->cap);
	h->count = 0;
}

uint64_t *
tp_hash_get(const struct tp_hash *h, uint64_t key)
{
	size_t i, mask;

	if (h->cap == 0)
		return NULL;
	mask = h->cap - 1;
	for (i = hash_mix(key) & mask; h->used[i]; i = (i + 1) & mask)
		if (h->slots[i].key == key)
			return &h->slots[i].val;
	return NULL;
}

static int
hash_grow(struct tp_hash *h)
{
	struct tp_hash old = *h;
	size_t i, ncap = old.cap ? old.cap * 2 : 16;

	h->slots = malloc(ncap * sizeof(*h->slots));
	h->used = calloc(ncap, 1);
	if (h->slots == NULL || h->used == NULL) {
		free(h->slots);
		free(h->used);
		*h = old;
		return -1;
	}
	h->cap = ncap;
	h->count = 0;
	for (i = 0; i < old.cap; i++)
		if (old.used[i])
			(void)tp_hash_put(h, old.slots[i].key, old.slots[i].val);
	free(old.slots);
	free(old.used);
	return 0;
}

int
tp_hash_put(struct tp_hash *h, uint64_t key, uint64_t val)
{
	size_t i, mask;

	if ((h->count + 1) * 4 > h->cap * 3 && hash_grow(h) == -1)
		return -1;
	mask = h->cap - 1;
	for (i = hash_mix(key) & mask; h->used[i]; i = (i + 1) & mask) {
		if (h->slots[i].key == key) {
			h->slots[i].val = val;
			return 0;
		}
	}
	h->used[i] = 1;
	h->slots[i].key = key;
	h->slots[i].val = val;
	h->count++;
	return 0;
}

int
tp_hash_del(struct tp_hash *h, uint64_t key)
{
	size_t i, j, k, mask;

	if (h->cap == 0)
		return -1;
	mask = h->cap - 1;
	for (i = hash_mix(key) & mask; h->used[i]; i = (i + 1) & mask)
		if (h->slots[i].key == key)
			break;
	if (!h->used[i])
		return -1;
	h->used[i] = 0;
	h->count--;
	/* Shift back later members of the cluster that probed past i. */
	for (j = (i + 1) & mask; h->used[j]; j = (j + 1) & mask) {
		k = hash_mix(h->slots[j].key) & mask;
		if ((j > i && (k <= i || k > j)) || (j < i && (k <= i && k > j))) {
			h->slots[i] = h->slots[j];
			h->used[i] = 1;
			h->used[j] = 0;
			i = j;
		}
	}
	return 0;
}

uint64_t
tp_hash_bytes(uint64_t seed, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	uint64_t h = (seed ^ 0x9e3779b97f4a7c15ULL) + len, w;

	/* Eight bytes a step: strings are hashed on every row's path. */
	for (; len >= 8; p += 8, len -= 8) {
		memcpy(&w, p, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	w = 0;
	memcpy(&w, p, len);
	h = (h ^ w ^ (uint64_t)len << 56) * 0xc4ceb9fe1a85ec53ULL;
	return h ^ h >> 29;
}
