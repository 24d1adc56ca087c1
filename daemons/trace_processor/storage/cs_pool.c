/*
 * String pool (see cs_pool.h): texts in an arena of large blocks, an
 * open-addressing table of ids keyed by the text's hash, and per id the
 * text's address and length.
 */
#include <stdlib.h>
#include <string.h>

#include "cs_pool.h"
#include "tp_hash.h"

#define POOL_BLOCK	(1u << 20)	/* arena block; longer texts alone */

struct pool_str {
	const char	*p;
	uint32_t	 len;
	uint32_t	 hash;
};

struct cs_pool {
	struct pool_str	*strs;		/* by id; [0] is NULL */
	size_t		 nstrs, capstrs;
	uint32_t	*slots;		/* ids; 0: free */
	size_t		 cap;		/* power of two */
	char		**blocks;
	size_t		 nblocks, capblocks;
	char		*cur;		/* free room of the last block */
	size_t		 left;
	size_t		 bytes;
	/*
	 * The ids last interned, by the address and length asked with:
	 * writers pass the same constant names (an event's, a state's)
	 * again and again. A hit is still compared with the text.
	 */
	struct pool_hit {
		const char	*s;
		size_t		 len;
		uint32_t	 id;
	}		 recent[64];
	/* Short texts (a thread state, a cpu's name) by their bytes: they
	 * come from reused buffers, where their address tells nothing. */
	struct pool_short {
		uint64_t	 w;		/* the bytes, zero-padded */
		uint32_t	 len, id;
	}		 shorts[64];
};

struct cs_pool *
cs_pool_new(void)
{
	struct cs_pool *p = calloc(1, sizeof(*p));

	if (p == NULL)
		return NULL;
	p->capstrs = 1024;
	p->cap = 2048;
	p->strs = calloc(p->capstrs, sizeof(*p->strs));
	p->slots = calloc(p->cap, sizeof(*p->slots));
	if (p->strs == NULL || p->slots == NULL) {
		cs_pool_free(p);
		return NULL;
	}
	p->nstrs = 1;
	return p;
}

void
cs_pool_free(struct cs_pool *p)
{
	size_t i;

	if (p == NULL)
		return;
	for (i = 0; i < p->nblocks; i++)
		free(p->blocks[i]);
	free(p->blocks);
	free(p->strs);
	free(p->slots);
	free(p);
}

static uint32_t
pool_hash(const char *s, size_t len)
{
	uint64_t h = tp_hash_bytes(0, s, len);

	return (uint32_t)(h ^ (h >> 32));
}

static size_t
pool_slot(const struct cs_pool *p, const char *s, size_t len, uint32_t h)
{
	size_t i = h & (p->cap - 1);

	for (;; i = (i + 1) & (p->cap - 1)) {
		const struct pool_str *e;

		if (p->slots[i] == 0)
			return i;
		e = &p->strs[p->slots[i]];
		if (e->hash == h && e->len == len && memcmp(e->p, s, len) == 0)
			return i;
	}
}

uint32_t
cs_pool_find(const struct cs_pool *p, const char *s, size_t len)
{
	if (len > UINT32_MAX)
		return 0;
	return p->slots[pool_slot(p, s, len, pool_hash(s, len))];
}

static int
pool_rehash(struct cs_pool *p)
{
	size_t cap = p->cap * 2, i;
	uint32_t *slots = calloc(cap, sizeof(*slots));

	if (slots == NULL)
		return -1;
	for (i = 1; i < p->nstrs; i++) {
		size_t j = p->strs[i].hash & (cap - 1);

		while (slots[j] != 0)
			j = (j + 1) & (cap - 1);
		slots[j] = (uint32_t)i;
	}
	free(p->slots);
	p->slots = slots;
	p->cap = cap;
	return 0;
}

/* Room for len + 1 bytes that never move. */
static char *
pool_room(struct cs_pool *p, size_t len)
{
	size_t need = len + 1, bsz = need > POOL_BLOCK / 4 ? need : POOL_BLOCK;
	char *b, *r;

	if (need <= p->left) {
		r = p->cur;
		p->cur += need;
		p->left -= need;
		return r;
	}
	if (p->nblocks == p->capblocks) {
		size_t cap = p->capblocks ? p->capblocks * 2 : 16;
		char **nb = realloc(p->blocks, cap * sizeof(*nb));

		if (nb == NULL)
			return NULL;
		p->blocks = nb;
		p->capblocks = cap;
	}
	if ((b = malloc(bsz)) == NULL)
		return NULL;
	p->blocks[p->nblocks++] = b;
	p->bytes += bsz;
	/* A long text has its block alone; the current one stays open. */
	if (bsz == need)
		return b;
	p->cur = b + need;
	p->left = bsz - need;
	return b;
}

/* Id of s, for the next time it is asked: by its bytes if short (sh),
 * else by its address. */
static void
pool_remember(struct pool_hit *hit, struct pool_short *sh, const char *s,
    size_t len, uint64_t w, uint32_t id)
{
	if (sh != NULL) {
		sh->w = w;
		sh->len = (uint32_t)len;
		sh->id = id;
	} else {
		hit->s = s;
		hit->len = len;
		hit->id = id;
	}
}

uint32_t
cs_pool_intern(struct cs_pool *p, const char *s, size_t len)
{
	uint32_t h, id;
	size_t i;
	char *r;

	struct pool_hit *hit = &p->recent[((uintptr_t)s >> 3 ^ len) &
	    (sizeof(p->recent) / sizeof(p->recent[0]) - 1)];
	struct pool_short *sh = NULL;
	uint64_t w = 0;

	if (len <= sizeof(w)) {
		if (len > 0)
			memcpy(&w, s, len);
		sh = &p->shorts[((w ^ len) * 0x9e3779b97f4a7c15ULL) >> 58];
		if (sh->id != 0 && sh->w == w && sh->len == len)
			return sh->id;
	} else if (hit->id != 0 && hit->s == s && hit->len == len &&
	    memcmp(p->strs[hit->id].p, s, len) == 0)
		return hit->id;
	if (len > UINT32_MAX - 1 || p->nstrs >= UINT32_MAX)
		return 0;
	h = pool_hash(s, len);
	i = pool_slot(p, s, len, h);
	if (p->slots[i] != 0) {
		pool_remember(hit, sh, s, len, w, p->slots[i]);
		return p->slots[i];
	}
	if (p->nstrs == p->capstrs) {
		struct pool_str *ns = realloc(p->strs,
		    p->capstrs * 2 * sizeof(*ns));

		if (ns == NULL)
			return 0;
		p->strs = ns;
		p->capstrs *= 2;
	}
	if ((r = pool_room(p, len)) == NULL)
		return 0;
	memcpy(r, s, len);
	r[len] = '\0';
	id = (uint32_t)p->nstrs++;
	p->strs[id].p = r;
	p->strs[id].len = (uint32_t)len;
	p->strs[id].hash = h;
	p->slots[i] = id;
	/* At most half full, so that probes stay short. */
	if (p->nstrs * 2 > p->cap && pool_rehash(p) == -1) {
		p->nstrs--;
		p->slots[i] = 0;
		return 0;
	}
	pool_remember(hit, sh, s, len, w, id);
	return id;
}

const char *
cs_pool_get(const struct cs_pool *p, uint32_t id, size_t *len)
{
	if (id == 0 || id >= p->nstrs) {
		*len = 0;
		return NULL;
	}
	*len = p->strs[id].len;
	return p->strs[id].p;
}

size_t
cs_pool_bytes(const struct cs_pool *p)
{
	return p->bytes + p->capstrs * sizeof(*p->strs) +
	    p->cap * sizeof(*p->slots);
}

size_t
cs_pool_count(const struct cs_pool *p)
{
	return p->nstrs;
}

int
cs_pool_cmp(const struct cs_pool *p, uint32_t a, const char *b, size_t blen)
{
	size_t alen;
	const char *as = cs_pool_get(p, a, &alen);
	int c = memcmp(as, b, alen < blen ? alen : blen);

	if (c != 0)
		return c;
	return alen < blen ? -1 : alen > blen;
}
