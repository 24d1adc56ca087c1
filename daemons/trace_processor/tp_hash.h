/*
 * Open-addressing hash map from 64-bit keys to 64-bit values: the
 * per-import lookup tables (track uuids, pids, tids, interned ids, flow
 * ids) that keep SQL off the hot path. Any key may be stored: an empty
 * slot holds TP_HASH_EMPTY, and that key itself is kept beside the slots,
 * so a probe reads one array (one cache miss, not two).
 */
#ifndef FARO_TP_HASH_H
#define FARO_TP_HASH_H

#include <stddef.h>
#include <stdint.h>

struct tp_hash_slot {
	uint64_t	key;
	uint64_t	val;
};

#define TP_HASH_EMPTY	UINT64_MAX

struct tp_hash {
	struct tp_hash_slot	*slots;
	size_t			 cap;	/* power of two */
	size_t			 count;	/* with the empty key's */
	int			 has_empty;
	uint64_t		 empty_val;	/* TP_HASH_EMPTY's value */
};

void	 tp_hash_init(struct tp_hash *);
void	 tp_hash_free(struct tp_hash *);
void	 tp_hash_clear(struct tp_hash *);
/* NULL when absent. The pointer is valid until the next insertion. */
uint64_t *tp_hash_get(const struct tp_hash *, uint64_t key);
/* Inserts or replaces; -1 on allocation failure. */
int	 tp_hash_put(struct tp_hash *, uint64_t key, uint64_t val);
int	 tp_hash_del(struct tp_hash *, uint64_t key);
/* Each key and value in turn, from *iter = 0; 0 past the last. */
int	 tp_hash_next(const struct tp_hash *, size_t *iter, uint64_t *key,
	    uint64_t *val);

/* MurmurHash3's 64-bit finalizer: spreads an integer key. */
static inline uint64_t
tp_hash_mix(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ULL;
	k ^= k >> 33;
	return k;
}

/* A hash of bytes, for keys made of strings (never shown: it may change). */
uint64_t tp_hash_bytes(uint64_t seed, const void *, size_t);

#endif
