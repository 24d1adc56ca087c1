/*
 * The order in which upstream's hash map of small integer keys holds
 * them (its FlatHashMap: open addressing from the key's hash, probed
 * quadratically, 1024 slots at first, 8 times more (2 from 1 MB of
 * entries) once 3/4 full, the old slots inserted again in order).
 * Upstream stores the args it keeps per process and per thread, then
 * those of slices still open, when it clears such maps at the end of the
 * trace, slot by slot: their arg set ids follow this order.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tp_int.h"

#define MIN_SLOTS	1024
/* The seed of upstream's hash combiner. */
#define SEED		0xe17a1465ULL

struct hmap {
	int64_t		*slot;		/* index into keys, -1: free */
	size_t		 cap, n;
};

/* A plain integer key is hashed alone; a typed id (a track's) through the
 * combiner. */
static uint64_t
key_hash(uint64_t key, int typed)
{
	/* upstream's hash of an integer */
	uint64_t h = tp_hash_mix(key);

	return typed ? SEED ^ (h + 0x9e3779b9ULL + (SEED << 6) + (SEED >> 2)) :
	    h;
}

static void
place(struct hmap *m, uint64_t h, int64_t idx)
{
	size_t step, at;

	for (step = 0; step < m->cap; step++) {
		at = (size_t)(h + 2 * step * step + step) & (m->cap - 1);
		if (m->slot[at] < 0) {
			m->slot[at] = idx;
			m->n++;
			return;
		}
	}
}

static int
reset(struct hmap *m, size_t cap)
{
	size_t i;

	if ((m->slot = calloc(cap, sizeof(*m->slot))) == NULL)
		return -1;
	for (i = 0; i < cap; i++)
		m->slot[i] = -1;
	m->cap = cap;
	m->n = 0;
	return 0;
}

static uint64_t
key_at(const void *keys, int wide, size_t i)
{
	return wide ? ((const uint64_t *)keys)[i] :
	    ((const uint32_t *)keys)[i];
}

/* keys: of 32 bits, or of 64 when wide. */
static size_t *
hashorder(const void *keys, int wide, size_t n, int typed,
    size_t entry_bytes)
{
	struct hmap m;
	int64_t *old;
	size_t *order, i, k = 0, oldcap;

	if ((order = calloc(n ? n : 1, sizeof(*order))) == NULL)
		return NULL;
	if (reset(&m, MIN_SLOTS) == -1) {
		free(order);
		return NULL;
	}
	for (i = 0; i < n; i++) {
		if (m.n >= m.cap * 75 / 100) {
			/* Grown: the old slots go in again, in order. */
			old = m.slot;
			oldcap = m.cap;
			if (reset(&m, oldcap * (oldcap * entry_bytes <
			    (1 << 20) ? 8 : 2)) == -1) {
				free(old);
				free(order);
				return NULL;
			}
			for (k = 0; k < oldcap; k++)
				if (old[k] >= 0)
					place(&m, key_hash(key_at(keys, wide,
					    (size_t)old[k]), typed), old[k]);
			free(old);
		}
		place(&m, key_hash(key_at(keys, wide, i), typed), (int64_t)i);
	}
	for (i = 0, k = 0; i < m.cap; i++)
		if (m.slot[i] >= 0)
			order[k++] = (size_t)m.slot[i];
	free(m.slot);
	return order;
}

size_t *
tp_hashorder(const uint32_t *keys, size_t n, int typed, size_t entry_bytes)
{
	return hashorder(keys, 0, n, typed, entry_bytes);
}

size_t *
tp_hashorder64(const uint64_t *keys, size_t n, size_t entry_bytes)
{
	return hashorder(keys, 1, n, 0, entry_bytes);
}
