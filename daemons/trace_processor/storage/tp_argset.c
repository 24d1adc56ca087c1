/*
 * Arg sets, kept as upstream's trace processor keeps them. The args of a
 * row gather in a pending set (a handle) until the row's owner says the
 * set is done; then a set equal to one stored before is not stored again
 * and gets that set's id, and a new one is stored with the id of its first
 * arg row. Equal means the same keys, value types and values in the same
 * order (flat keys aside), compared by a 64-bit digest as upstream does.
 * Within a set a key given again replaces its value in its place.
 *
 * A set can also be closed soon: it takes args until the next set is
 * done, and is stored first (a track's dimensions, a slice's end args:
 * upstream stores those at once, before the next event's). Its handle
 * then gives its id until its owner says done.
 *
 * Pending sets are short-lived (an event's args, a slice's until it
 * ends): their buffers are pooled and shrunk when released.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tp_int.h"

/* An arg's value as given. */
enum argval_kind { AV_INT, AV_REAL, AV_STR, AV_NULL };
struct argval {
	enum argval_kind	 kind;
	int64_t			 i;
	double			 d;
	const char		*s;
	size_t			 len;
};

/* A handle has this bit; stored arg_set_ids (row ids) never do. */
#define PENDING		(INT64_C(1) << 62)
#define GEN_MASK	0x3fffffffU
/* From this many args a set finds repeated keys by hash, not by scan. */
#define INDEX_FROM	32
/* A released buffer bigger than this goes back to the allocator. */
#define KEEP_ARGS	64
#define KEEP_STR	4096

/* One (flat_key, key, value_type), as interned. */
struct akey {
	char		*flat, *key, *type;
	int		 kind;		/* storage's (tp_arg_kind) */
	int		 flat_is_key;	/* the two texts are equal */
	uint64_t	 khash;		/* the key alone: identity in a set */
	uint64_t	 dig;		/* key and value type, for digests */
};

struct parg {
	uint32_t	 kid;
	uint32_t	 kind;		/* enum argval_kind */
	union {
		int64_t	 i;
		double	 d;
		struct {
			uint32_t off, len;
		}	 s;
	}		 u;
};

struct pset {
	struct parg	*a;
	uint32_t	 n, cap;
	char		*str;
	uint32_t	 slen, scap;
	struct tp_hash	*idx;		/* key hash -> arg, from INDEX_FROM */
	int64_t		 id;		/* once closed: its arg_set_id */
	uint32_t	 gen;
	uint8_t		 live, closed;
	uint32_t	 next_free;
};

/*
 * A set remembered by the bytes it was made from (tp_arg_memo_get): a
 * direct-mapped table, each slot compared byte for byte on a hit. It
 * starts at 16384 slots (2 MB) and grows while most lookups miss (a trace
 * of many more kinds of events than it holds), up to MEMO_MAX slots. A
 * recorded ftrace trace finds 79% of its sets at 1024 slots and 84% at
 * 16384, but a table that size leaves the second-level cache: the parse
 * thread asks for a record's slot some records ahead
 * (tp_arg_memo_ahead), which makes 16384 slots 0.97x the load's time of
 * 1024, where without it they were 1.04x. A slot's set that is found
 * again and again is kept from those that come by once (MEMO_HOT).
 */
#define MEMO_FIRST	16384
#define MEMO_MAX	262144
#define MEMO_ROUND	(1u << 16)	/* lookups between looks at the rate */
struct memo {
	int64_t		 id;		/* TP_NULL: a free slot */
	uint32_t	 hash, tag;
	uint16_t	 len;
	uint8_t		 hot;		/* hits, up to MEMO_HOT */
	uint8_t		 b[TP_ARG_MEMO_MAX + 5];	/* 5: padding */
};
#define MEMO_HOT	3
/* Two cache lines a slot, aligned: a lookup that misses reads one. */
#define MEMO_ALIGN	128
_Static_assert(sizeof(struct memo) == MEMO_ALIGN, "a slot is 128 bytes");

struct tp_argsets {
	struct akey	*keys;
	uint32_t	 nkeys, capkeys;
	struct tp_hash	 key_of;	/* hash of the triple -> kid */
	struct pset	*sets;
	uint32_t	 nsets, capsets;
	uint32_t	 free_head;	/* UINT32_MAX: none */
	int64_t		*soon;		/* handles closed at the next done */
	size_t		 nsoon, capsoon;
	struct tp_hash	 stored;	/* digest of a set -> its id */
	int64_t		 next_id;	/* the next arg row's id */
	int64_t		 misuse;	/* args given to no pending set */
	int		 debug;
	/* Digest bits a set's first probe keeps (tests: few bits make sets
	 * collide, which must change nothing): all of them but under
	 * FARO_TP_ARGSET_DIGEST_BITS. */
	uint64_t	 digest_mask;
	struct memo	*memo;		/* made on first use */
	size_t		 memo_slots;
	uint32_t	 round_looks, round_misses;
	uint64_t	 memo_hits, memo_misses;	/* for the debug line */
	/*
	 * The key ids last found, by the addresses of the strings asked
	 * with: importers name keys with the same constant strings again
	 * and again. A hit is still checked against the key's text.
	 */
	struct akey_hit {
		const char	*flat, *key, *type;
		int		 kind;
		int		 fixed;	/* texts vouched fixed at these addresses */
		uint32_t	 kid;
	}		 recent[256];
};

int
tp_argsets_init(struct tp *tp)
{
	struct tp_argsets *as;
	const char *bits;

	if ((as = calloc(1, sizeof(*as))) == NULL)
		return tp_seterr(tp, "%s: out of memory", __func__);
	tp_hash_init(&as->key_of);
	tp_hash_init(&as->stored);
	as->free_head = UINT32_MAX;
	as->debug = getenv("FARO_TP_ARGSET_DEBUG") != NULL;
	as->digest_mask = UINT64_MAX;
	if ((bits = getenv("FARO_TP_ARGSET_DIGEST_BITS")) != NULL &&
	    atoi(bits) > 0 && atoi(bits) < 64)
		as->digest_mask = (1ULL << atoi(bits)) - 1;
	tp->argsets = as;
	return 0;
}

static void
pset_free_buffers(struct pset *ps)
{
	free(ps->a);
	free(ps->str);
	if (ps->idx != NULL) {
		tp_hash_free(ps->idx);
		free(ps->idx);
	}
	ps->a = NULL;
	ps->str = NULL;
	ps->idx = NULL;
	ps->cap = ps->scap = 0;
}

void
tp_argsets_free(struct tp *tp)
{
	struct tp_argsets *as = tp->argsets;
	uint32_t i;

	if (as == NULL)
		return;
	if (as->debug) {
		uint32_t live = 0;

		for (i = 0; i < as->nsets; i++) {
			live += as->sets[i].live;
			if (as->sets[i].live && as->sets[i].n > 0)
				fprintf(stderr, "argset: pending %s%s\n",
				    as->keys[as->sets[i].a[0].kid].key,
				    as->sets[i].closed ? " (closed)" : "");
			else if (as->sets[i].live)
				fprintf(stderr, "argset: pending empty%s\n",
				    as->sets[i].closed ? " (closed)" : "");
		}
		fprintf(stderr, "argset: %lld misused, %u never done; "
		    "remembered sets: %llu hits, %llu misses\n",
		    (long long)as->misuse, live,
		    (unsigned long long)as->memo_hits,
		    (unsigned long long)as->memo_misses);
	}
	for (i = 0; i < as->nkeys; i++) {
		free(as->keys[i].flat);
		free(as->keys[i].key);
		free(as->keys[i].type);
	}
	free(as->keys);
	for (i = 0; i < as->nsets; i++)
		pset_free_buffers(&as->sets[i]);
	free(as->sets);
	free(as->soon);
	free(as->memo);
	tp_hash_free(&as->key_of);
	tp_hash_free(&as->stored);
	free(as);
	tp->argsets = NULL;
}

/* The sets stored so far are forgotten: a set made from now on is not
 * given the id of one stored before (whose rows may be evicted). */
void
tp_argsets_forget(struct tp *tp)
{
	tp_hash_clear(&tp->argsets->stored);
	free(tp->argsets->memo);
	tp->argsets->memo = NULL;
}

/* A table of n free slots, the entries of old (of oldn slots) moved in. */
static struct memo *
memo_table(size_t n, const struct memo *old, size_t oldn)
{
	struct memo *m;
	size_t i;

	if ((m = aligned_alloc(MEMO_ALIGN, n * sizeof(*m))) == NULL)
		return NULL;
	for (i = 0; i < n; i++)
		m[i].id = TP_NULL;
	for (i = 0; i < oldn; i++)
		if (old[i].id != TP_NULL)
			m[old[i].hash & (n - 1)] = old[i];
	return m;
}

uint32_t
tp_arg_memo_hash(uint32_t tag, const void *b, size_t len)
{
	/* A key never remembered is not read. */
	return len <= TP_ARG_MEMO_MAX ? (uint32_t)tp_hash_bytes(tag, b, len) :
	    0;
}

/* The slot of hash in the table as it is. */
static struct memo *
slot_of(const struct tp_argsets *as, uint32_t hash)
{
	return &as->memo[hash & (as->memo_slots - 1)];
}

/* The slot of a lookup: the table made, or grown, first. */
static struct memo *
memo_slot(struct tp_argsets *as, uint32_t hash)
{
	struct memo *m;

	if (as->memo == NULL) {
		if ((as->memo = memo_table(MEMO_FIRST, NULL, 0)) == NULL)
			return NULL;
		as->memo_slots = MEMO_FIRST;
		as->round_looks = as->round_misses = 0;
	}
	/* Most of a round missed: more kinds than slots, grow. */
	if (++as->round_looks == MEMO_ROUND) {
		if (as->round_misses > MEMO_ROUND / 2 &&
		    as->memo_slots < MEMO_MAX && (m = memo_table(
		    as->memo_slots * 4, as->memo, as->memo_slots)) != NULL) {
			free(as->memo);
			as->memo = m;
			as->memo_slots *= 4;
		}
		as->round_looks = as->round_misses = 0;
	}
	return slot_of(as, hash);
}

void
tp_arg_memo_ahead(struct tp *tp, uint32_t hash)
{
	struct tp_argsets *as = tp->argsets;
	const char *m;

	if (as->memo == NULL)
		return;
	m = (const char *)slot_of(as, hash);
	__builtin_prefetch(m);
	__builtin_prefetch(m + 64);
}

int64_t
tp_arg_memo_get(struct tp *tp, uint32_t tag, const void *b, size_t len,
    uint32_t hash)
{
	struct tp_argsets *as = tp->argsets;
	struct memo *m;

	if (len > TP_ARG_MEMO_MAX || (m = memo_slot(as, hash)) == NULL ||
	    m->id == TP_NULL || m->hash != hash || m->tag != tag ||
	    m->len != len || memcmp(m->b, b, len) != 0) {
		as->memo_misses++;
		as->round_misses++;
		return TP_NULL;
	}
	as->memo_hits++;
	if (m->hot < MEMO_HOT)
		m->hot++;
	/* What done would do first: store the sets closed soon. */
	if (as->nsoon > 0)
		tp_argsets_flush(tp);
	return m->id;
}

void
tp_arg_memo_put(struct tp *tp, uint32_t tag, const void *b, size_t len,
    uint32_t hash, int64_t id)
{
	struct tp_argsets *as = tp->argsets;
	struct memo *m;

	if (len > TP_ARG_MEMO_MAX || id == TP_NULL || (id & PENDING) ||
	    as->memo == NULL)
		return;
	m = slot_of(as, hash);
	/*
	 * A set found again and again keeps its slot from those that come
	 * by once (a print's set from a run of new sched_switch ones): each
	 * would-be replacement only cools it, by one of its hits.
	 */
	if (m->id != TP_NULL && m->hot > 0) {
		m->hot--;
		return;
	}
	m->hash = hash;
	m->id = id;
	m->tag = tag;
	m->len = (uint16_t)len;
	m->hot = 0;
	memcpy(m->b, b, len);
}

int64_t
tp_arg_set_new(struct tp *tp)
{
	struct tp_argsets *as = tp->argsets;
	struct pset *ps;
	uint32_t slot;

	if (as->free_head != UINT32_MAX) {
		slot = as->free_head;
		ps = &as->sets[slot];
		as->free_head = ps->next_free;
	} else {
		if (as->nsets == as->capsets) {
			uint32_t ncap = as->capsets ? as->capsets * 2 : 64;
			void *p;

			if (ncap <= as->capsets ||
			    (p = realloc(as->sets, ncap * sizeof(*ps))) ==
			    NULL) {
				tp_seterr(tp, "%s: out of memory", __func__);
				return TP_NULL;
			}
			as->sets = p;
			as->capsets = ncap;
		}
		slot = as->nsets++;
		ps = &as->sets[slot];
		memset(ps, 0, sizeof(*ps));
	}
	ps->live = 1;
	ps->closed = 0;
	ps->id = TP_NULL;
	ps->gen = (ps->gen + 1) & GEN_MASK;
	return PENDING | ((int64_t)ps->gen << 32) | (int64_t)slot;
}

/* The pending set of a handle, or NULL (no handle, or one done). */
static struct pset *
pset_of(struct tp_argsets *as, int64_t set)
{
	uint32_t slot = (uint32_t)(set & 0xffffffff);
	struct pset *ps;

	if (set == TP_NULL || set < 0 || !(set & PENDING) ||
	    slot >= as->nsets)
		return NULL;
	ps = &as->sets[slot];
	if (!ps->live || ps->gen != (uint32_t)((set >> 32) & GEN_MASK))
		return NULL;
	return ps;
}

static void
pset_release(struct tp_argsets *as, struct pset *ps)
{
	if (ps->cap > KEEP_ARGS || ps->scap > KEEP_STR || ps->idx != NULL)
		pset_free_buffers(ps);
	ps->n = ps->slen = 0;
	ps->live = 0;
	ps->next_free = as->free_head;
	as->free_head = (uint32_t)(ps - as->sets);
}

static int64_t akey_lookup(struct tp *, const char *, const char *,
    const char *, int);

/* The id of a (flat_key, key, value_type) holding a value of storage's
 * kind, interned on first use. */
static int64_t
akey_id(struct tp *tp, const char *flat, const char *key, const char *type,
    int kind, int fixed)
{
	struct tp_argsets *as = tp->argsets;
	struct akey_hit *r = &as->recent[((uintptr_t)key >> 3 ^
	    (uintptr_t)flat >> 5 ^ (uintptr_t)type >> 7 ^ (uintptr_t)kind) &
	    (sizeof(as->recent) / sizeof(as->recent[0]) - 1)];
	struct akey *k;
	int64_t id;

	if (r->key == key && r->flat == flat && r->type == type &&
	    r->kind == kind && r->kid < as->nkeys) {
		/* Fixed texts were compared when the entry was made. */
		if (r->fixed && fixed)
			return r->kid;
		k = &as->keys[r->kid];
		/* Most keys are their own flat key: one text to compare. */
		if (strcmp(k->key, key) == 0 && (flat == key ? k->flat_is_key :
		    strcmp(k->flat, flat) == 0) && strcmp(k->type, type) == 0) {
			r->fixed = fixed;
			return r->kid;
		}
	}
	if ((id = akey_lookup(tp, flat, key, type, kind)) >= 0) {
		r->flat = flat;
		r->key = key;
		r->type = type;
		r->kind = kind;
		r->fixed = fixed;
		r->kid = (uint32_t)id;
	}
	return id;
}

/* akey_id without the recent ones. */
static int64_t
akey_lookup(struct tp *tp, const char *flat, const char *key,
    const char *type, int kind)
{
	struct tp_argsets *as = tp->argsets;
	size_t fl = strlen(flat), kl = strlen(key), tl = strlen(type);
	uint64_t h = tp_hash_bytes(tp_hash_bytes(tp_hash_bytes((uint64_t)kind,
	    flat, fl + 1), key, kl + 1), type, tl), *v;
	struct akey *k;

	/* A colliding triple probes on to the next hash. */
	while ((v = tp_hash_get(&as->key_of, h)) != NULL) {
		k = &as->keys[*v];
		if (k->kind == kind && strcmp(k->flat, flat) == 0 &&
		    strcmp(k->key, key) == 0 && strcmp(k->type, type) == 0)
			return (int64_t)*v;
		h = h * 31 + 1;
	}
	if (as->nkeys == as->capkeys) {
		uint32_t ncap = as->capkeys ? as->capkeys * 2 : 64;
		void *p;

		if (ncap <= as->capkeys ||
		    (p = realloc(as->keys, ncap * sizeof(*k))) == NULL)
			return tp_seterr(tp, "%s: out of memory", __func__);
		as->keys = p;
		as->capkeys = ncap;
	}
	k = &as->keys[as->nkeys];
	memset(k, 0, sizeof(*k));
	k->flat = strdup(flat);
	k->key = strdup(key);
	k->type = strdup(type);
	if (k->flat == NULL || k->key == NULL || k->type == NULL ||
	    tp_hash_put(&as->key_of, h, as->nkeys) == -1) {
		free(k->flat);
		free(k->key);
		free(k->type);
		return tp_seterr(tp, "%s: out of memory", __func__);
	}
	k->kind = kind;
	k->flat_is_key = strcmp(flat, key) == 0;
	k->khash = tp_hash_bytes(0, key, kl);
	k->dig = tp_hash_mix(k->khash ^ tp_hash_bytes(1, type, tl));
	/* Written now: key ids stay dense whatever sets are stored. */
	tp_arg_key_write(tp, as->nkeys, flat, key, type, kind);
	return (int64_t)as->nkeys++;
}

/* The arg of set ps with the key of kid, or NULL. */
static struct parg *
pset_find(struct tp_argsets *as, struct pset *ps, uint32_t kid)
{
	uint64_t kh = as->keys[kid].khash, *v;
	uint32_t i;

	if (ps->idx != NULL)
		return (v = tp_hash_get(ps->idx, kh)) != NULL ?
		    &ps->a[*v] : NULL;
	for (i = 0; i < ps->n; i++)
		if (ps->a[i].kid == kid || as->keys[ps->a[i].kid].khash == kh)
			return &ps->a[i];
	return NULL;
}

static int
pset_index(struct tp_argsets *as, struct pset *ps)
{
	uint32_t i;

	if ((ps->idx = calloc(1, sizeof(*ps->idx))) == NULL)
		return -1;
	tp_hash_init(ps->idx);
	for (i = 0; i < ps->n; i++)
		if (tp_hash_put(ps->idx, as->keys[ps->a[i].kid].khash, i) ==
		    -1)
			return -1;
	return 0;
}

/* The value's bytes, into the set's arena. */
static int
pset_value(struct pset *ps, struct parg *a, const struct argval *v)
{
	a->kind = (uint32_t)v->kind;
	switch (v->kind) {
	case AV_INT:
		a->u.i = v->i;
		return 0;
	case AV_REAL:
		a->u.d = v->d;
		return 0;
	case AV_NULL:
		a->u.i = 0;
		return 0;
	case AV_STR:
		break;
	}
	if (v->len > UINT32_MAX - ps->slen)
		return -1;
	if (ps->scap - ps->slen < v->len) {
		size_t cap = ps->scap ? ps->scap : 256;
		char *p;

		while (cap - ps->slen < v->len)
			cap *= 2;
		if (cap > UINT32_MAX || (p = realloc(ps->str, cap)) == NULL)
			return -1;
		ps->str = p;
		ps->scap = (uint32_t)cap;
	}
	if (v->len > 0)
		memcpy(ps->str + ps->slen, v->s, v->len);
	a->u.s.off = ps->slen;
	a->u.s.len = (uint32_t)v->len;
	ps->slen += (uint32_t)v->len;
	return 0;
}

/* Adds an arg to a pending set; a key the set has takes the new value
 * (and flat key) in its place. */
static void
arg_add(struct tp *tp, int64_t set, const char *flat, const char *key,
    const char *type, const struct argval *v, int fixed)
{
	struct tp_argsets *as = tp->argsets;
	struct pset *ps = pset_of(as, set);
	struct parg *a;
	int64_t kid;

	if (ps == NULL || ps->closed) {
		as->misuse++;
		if (as->debug)
			fprintf(stderr, "argset: %s given to no pending set"
			    " (%llx)\n", key, (unsigned long long)set);
		return;
	}
	if ((kid = akey_id(tp, flat, key, type, tp_arg_kind(v->kind ==
	    AV_STR ? "" : NULL, v->kind == AV_REAL ? &v->d : NULL),
	    fixed)) < 0)
		return;
	if ((a = pset_find(as, ps, (uint32_t)kid)) != NULL) {
		/* Its old string bytes stay in the arena until release. */
		a->kid = (uint32_t)kid;
		if (pset_value(ps, a, v) == -1)
			tp_seterr(tp, "%s: out of memory", __func__);
		return;
	}
	if (ps->n == ps->cap) {
		uint32_t ncap = ps->cap ? ps->cap * 2 : 8;
		void *p;

		if (ncap <= ps->cap ||
		    (p = realloc(ps->a, ncap * sizeof(*a))) == NULL) {
			tp_seterr(tp, "%s: out of memory", __func__);
			return;
		}
		ps->a = p;
		ps->cap = ncap;
	}
	a = &ps->a[ps->n];
	a->kid = (uint32_t)kid;
	if (pset_value(ps, a, v) == -1) {
		tp_seterr(tp, "%s: out of memory", __func__);
		return;
	}
	ps->n++;
	if (ps->idx != NULL)
		(void)tp_hash_put(ps->idx, as->keys[kid].khash, ps->n - 1);
	else if (ps->n >= INDEX_FROM && pset_index(as, ps) == -1)
		tp_seterr(tp, "%s: out of memory", __func__);
}

/* One arg into a digest: a 64x64->128 multiply folds the value into
 * what came before (equal digests are checked arg by arg, so this needs
 * spread, not strength). */
static inline uint64_t
mix(uint64_t h, uint64_t x)
{
	__uint128_t r = (__uint128_t)(h ^ 0xa0761d6478bd642fULL) *
	    (x ^ 0xe7037ed1a0b428dbULL);

	return (uint64_t)r ^ (uint64_t)(r >> 64);
}

/* What makes two sets equal: keys, types, values, in order. */
static uint64_t
pset_digest(const struct tp_argsets *as, const struct pset *ps)
{
	uint64_t h = 0, x;
	uint32_t i;

	for (i = 0; i < ps->n; i++) {
		const struct parg *a = &ps->a[i];

		switch (a->kind) {
		case AV_INT:
			x = (uint64_t)a->u.i;
			break;
		case AV_REAL:
			memcpy(&x, &a->u.d, sizeof(x));
			break;
		case AV_STR:
			x = tp_hash_bytes(a->u.s.len, ps->str != NULL ?
			    ps->str + a->u.s.off : "", a->u.s.len);
			break;
		default:
			x = 0;
			break;
		}
		/* The rotated h keeps the history should a product be 0. */
		h = (h << 7 | h >> 57) ^
		    mix(h + as->keys[a->kid].dig + a->kind, x);
	}
	return tp_hash_mix(h);
}

/* Arg a's value as tp_arg_row_write and tp_arg_row_same take it. */
#define PARG_VALUE(ps, a)						\
	(a)->kind == AV_INT ? (a)->u.i : TP_NULL,			\
	(a)->kind == AV_STR ? ((ps)->str != NULL ?			\
	    (ps)->str + (a)->u.s.off : "") : NULL,			\
	(a)->kind == AV_STR ? (a)->u.s.len : 0,				\
	(a)->kind == AV_REAL ? &(a)->u.d : NULL

/* Whether the set stored as id holds exactly ps's args. */
static int
pset_same(struct tp *tp, const struct pset *ps, int64_t id)
{
	uint32_t i;

	/* A set's rows are consecutive: its last row of this set, the next
	 * row not (not a longer set beginning with these). */
	if (tp_arg_row_set(tp, id + ps->n - 1) != id ||
	    tp_arg_row_set(tp, id + ps->n) == id)
		return 0;
	for (i = 0; i < ps->n; i++)
		if (!tp_arg_row_same(tp, id + i, ps->a[i].kid,
		    PARG_VALUE(ps, &ps->a[i])))
			return 0;
	return 1;
}

/* Stores the set (or finds it stored) and keeps its id in it. */
static void
pset_close(struct tp *tp, struct pset *ps)
{
	struct tp_argsets *as = tp->argsets;
	uint64_t digest, *have;
	int64_t id;
	uint32_t i;

	if (ps->closed)
		return;
	ps->closed = 1;
	if (ps->n == 0)
		return;
	/* Equal digests are checked arg by arg: a set with another one's
	 * digest (by chance, or made so) probes on to the next digest. */
	for (digest = pset_digest(as, ps) & as->digest_mask;
	    (have = tp_hash_get(&as->stored, digest)) != NULL;
	    digest = digest * 31 + 1)
		if (pset_same(tp, ps, (int64_t)*have)) {
			ps->id = (int64_t)*have;
			goto out;
		}
	id = as->next_id;
	if (tp_hash_put(&as->stored, digest, (uint64_t)id) == -1) {
		tp_seterr(tp, "%s: out of memory", __func__);
		goto out;
	}
	ps->id = id;
	for (i = 0; i < ps->n; i++) {
		const struct parg *a = &ps->a[i];

		/* Storage's one writer of an arg row. */
		tp_arg_row_write(tp, as->next_id++, id, a->kid,
		    PARG_VALUE(ps, a));
	}
out:
	/* The args are stored: only the id is kept. */
	if (ps->cap > KEEP_ARGS || ps->scap > KEEP_STR || ps->idx != NULL)
		pset_free_buffers(ps);
	ps->n = ps->slen = 0;
}

void
tp_argsets_flush(struct tp *tp)
{
	struct tp_argsets *as = tp->argsets;
	struct pset *ps;
	size_t i;

	/* Dropped handles are skipped. */
	for (i = 0; i < as->nsoon; i++)
		if ((ps = pset_of(as, as->soon[i])) != NULL)
			pset_close(tp, ps);
	as->nsoon = 0;
}

void
tp_arg_set_close_soon(struct tp *tp, int64_t set)
{
	struct tp_argsets *as = tp->argsets;
	struct pset *ps = pset_of(as, set);

	if (ps == NULL || ps->closed)
		return;
	if (as->nsoon == as->capsoon) {
		size_t ncap = as->capsoon ? as->capsoon * 2 : 16;
		void *p = realloc(as->soon, ncap * sizeof(*as->soon));

		if (p == NULL) {
			/* Closed now rather than lost. */
			pset_close(tp, ps);
			return;
		}
		as->soon = p;
		as->capsoon = ncap;
	}
	as->soon[as->nsoon++] = set;
}

int64_t
tp_arg_set_done(struct tp *tp, int64_t set)
{
	struct tp_argsets *as = tp->argsets;
	struct pset *ps;
	int64_t id;

	if (set == TP_NULL || !(set & PENDING) || set < 0)
		return set;
	if ((ps = pset_of(as, set)) == NULL) {
		as->misuse++;
		if (as->debug)
			fprintf(stderr, "argset: %llx done twice\n",
			    (unsigned long long)set);
		return TP_NULL;
	}
	if (as->nsoon > 0)
		tp_argsets_flush(tp);
	pset_close(tp, ps);
	id = ps->id;
	pset_release(as, ps);
	return id;
}

void
tp_arg_set_drop(struct tp *tp, int64_t set)
{
	struct pset *ps = pset_of(tp->argsets, set);

	if (ps != NULL)
		pset_release(tp->argsets, ps);
}

/* The stored id of set: TP_NULL while it is pending. */
int64_t
tp_arg_set_stored(struct tp *tp, int64_t set)
{
	struct pset *ps;

	if (set == TP_NULL || set < 0 || !(set & PENDING))
		return set;
	ps = pset_of(tp->argsets, set);
	return ps != NULL && ps->closed ? ps->id : TP_NULL;
}

int64_t
tp_arg_set_settle(struct tp *tp, int64_t *set)
{
	struct pset *ps = pset_of(tp->argsets, *set);

	if (ps != NULL && ps->closed)
		*set = tp_arg_set_done(tp, *set);
	return tp_arg_set_stored(tp, *set);
}

void
tp_arg_int(struct tp *tp, int64_t set, const char *flat, const char *key,
    int64_t v, const char *type)
{
	struct argval av = { .kind = AV_INT, .i = v };

	arg_add(tp, set, flat, key, type ? type : "int", &av, 0);
}

void
tp_arg_real(struct tp *tp, int64_t set, const char *flat, const char *key,
    double v)
{
	struct argval av = { .kind = AV_REAL, .d = v };

	arg_add(tp, set, flat, key, "real", &av, 0);
}

void
tp_arg_str(struct tp *tp, int64_t set, const char *flat, const char *key,
    const char *s, size_t len, const char *type)
{
	struct argval av = { .kind = AV_STR, .s = s ? s : "",
	    .len = s ? len : 0 };

	arg_add(tp, set, flat, key, type ? type : "string", &av, 0);
}

void
tp_arg_str_null(struct tp *tp, int64_t set, const char *key)
{
	struct argval av = { .kind = AV_NULL };

	arg_add(tp, set, key, key, "string", &av, 0);
}

void
tp_arg_int_fixed(struct tp *tp, int64_t set, const char *key, int64_t v,
    const char *type)
{
	struct argval av = { .kind = AV_INT, .i = v };

	arg_add(tp, set, key, key, type, &av, 1);
}

void
tp_arg_real_fixed(struct tp *tp, int64_t set, const char *key, double v)
{
	struct argval av = { .kind = AV_REAL, .d = v };

	arg_add(tp, set, key, key, "real", &av, 1);
}

void
tp_arg_str_fixed(struct tp *tp, int64_t set, const char *key, const char *s,
    size_t len)
{
	struct argval av = { .kind = AV_STR, .s = s ? s : "",
	    .len = s ? len : 0 };

	arg_add(tp, set, key, key, "string", &av, 1);
}

void
tp_arg_cstr_fixed(struct tp *tp, int64_t set, const char *key, const char *s)
{
	if (s != NULL)
		tp_arg_str_fixed(tp, set, key, s, strlen(s));
	else
		tp_arg_str_null(tp, set, key);
}
