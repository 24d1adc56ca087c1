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
	memset(h, 0, sizeof(*h));
}

/* Every slot empty: all bits set is TP_HASH_EMPTY. */
static void
hash_empty(struct tp_hash_slot *slots, size_t cap)
{
	memset(slots, 0xff, cap * sizeof(*slots));
}

void
tp_hash_clear(struct tp_hash *h)
{
	if (h->slots != NULL)
		hash_empty(h->slots, h->cap);
	h->count = 0;
	h->has_empty = 0;
}

uint64_t *
tp_hash_get(const struct tp_hash *h, uint64_t key)
{
	struct tp_hash_slot *s;
	size_t i, mask;

	if (key == TP_HASH_EMPTY)
		return h->has_empty ? (uint64_t *)&h->empty_val : NULL;
	if (h->cap == 0)
		return NULL;
	mask = h->cap - 1;
	for (i = hash_mix(key) & mask;; i = (i + 1) & mask) {
		s = &h->slots[i];
		if (s->key == key)
			return &s->val;
		if (s->key == TP_HASH_EMPTY)
			return NULL;
	}
}

static int
hash_grow(struct tp_hash *h)
{
	struct tp_hash_slot *old = h->slots, *s;
	size_t i, j, oldcap = h->cap, ncap = oldcap ? oldcap * 2 : 16, mask;

	if ((h->slots = malloc(ncap * sizeof(*h->slots))) == NULL) {
		h->slots = old;
		return -1;
	}
	hash_empty(h->slots, ncap);
	h->cap = ncap;
	mask = ncap - 1;
	for (i = 0; i < oldcap; i++) {
		if ((s = &old[i])->key == TP_HASH_EMPTY)
			continue;
		for (j = hash_mix(s->key) & mask;
		    h->slots[j].key != TP_HASH_EMPTY; j = (j + 1) & mask)
			;
		h->slots[j] = *s;
	}
	free(old);
	return 0;
}

int
tp_hash_put(struct tp_hash *h, uint64_t key, uint64_t val)
{
	struct tp_hash_slot *s;
	size_t i, mask;

	if (key == TP_HASH_EMPTY) {
		h->count += !h->has_empty;
		h->has_empty = 1;
		h->empty_val = val;
		return 0;
	}
	if ((h->count + 1) * 4 > h->cap * 3 && hash_grow(h) == -1)
		return -1;
	mask = h->cap - 1;
	for (i = hash_mix(key) & mask;; i = (i + 1) & mask) {
		s = &h->slots[i];
		if (s->key == key) {
			s->val = val;
			return 0;
		}
		if (s->key == TP_HASH_EMPTY)
			break;
	}
	s->key = key;
	s->val = val;
	h->count++;
	return 0;
}

int
tp_hash_del(struct tp_hash *h, uint64_t key)
{
	size_t i, j, k, mask;

	if (key == TP_HASH_EMPTY) {
		if (!h->has_empty)
			return -1;
		h->has_empty = 0;
		h->count--;
		return 0;
	}
	if (h->cap == 0)
		return -1;
	mask = h->cap - 1;
	for (i = hash_mix(key) & mask; h->slots[i].key != key;
	    i = (i + 1) & mask)
		if (h->slots[i].key == TP_HASH_EMPTY)
			return -1;
	h->slots[i].key = TP_HASH_EMPTY;
	h->count--;
	/* Shift back later members of the cluster that probed past i. */
	for (j = (i + 1) & mask; h->slots[j].key != TP_HASH_EMPTY;
	    j = (j + 1) & mask) {
		k = hash_mix(h->slots[j].key) & mask;
		if ((j > i && (k <= i || k > j)) || (j < i && (k <= i && k > j))) {
			h->slots[i] = h->slots[j];
			h->slots[j].key = TP_HASH_EMPTY;
			i = j;
		}
	}
	return 0;
}

int
tp_hash_next(const struct tp_hash *h, size_t *iter, uint64_t *key,
    uint64_t *val)
{
	/* The slots in order, then the empty key's. */
	for (; *iter < h->cap; (*iter)++) {
		if (h->slots[*iter].key == TP_HASH_EMPTY)
			continue;
		*key = h->slots[*iter].key;
		*val = h->slots[*iter].val;
		(*iter)++;
		return 1;
	}
	if (*iter == h->cap && h->has_empty) {
		*key = TP_HASH_EMPTY;
		*val = h->empty_val;
		(*iter)++;
		return 1;
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
