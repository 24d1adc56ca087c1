/*
 * Tracks shared by async slices of one name (and process, when scoped),
 * as upstream's track compressor shares them: slices that overlap go on
 * tracks of their own, and a track whose slices have all ended is taken
 * again. Each slice is known by a cookie, which stays with the track it
 * last used.
 */
#include <stdlib.h>
#include <string.h>

#include "tp_int.h"

#define POOL_MAX_TRACKS	1024	/* overlapping cookies beyond: dropped */

struct pool_track {
	int64_t		 track;
	uint64_t	 cookie;
	int		 nest;		/* slices begun and not ended */
	int		 scoped;	/* for slices of known end, no cookie */
	int64_t		 end;		/* scoped: when its last slice ends */
	/* nested: the ends of its slices open, innermost last */
	int64_t		*ends;
	size_t		 nends, capends;
};

struct pool {
	struct tp_pool_key	 k;	/* k.name is our copy; k.dims unset */
	int64_t			 group;	/* its tracks' track_group_id */
	uint64_t		 dimh;	/* tp_dims_hash of the key's dims */
	struct pool_track	*t;
	size_t			 n, cap;
};

struct tp_track_pools {
	struct pool	*p;
	size_t		 n, cap;
	struct tp_hash	 by_key;	/* key_hash() -> index in p */
	/* legacy async: cookie (and upid) -> roots[], its first name; each
	 * name kept once (root_names: the name's hash -> roots[]) */
	struct tp_hash	 roots_map, root_names;
	char		**roots;
	size_t		 nroots, caproots;
};

static struct tp_track_pools *
pools_get(struct tp *tp)
{
	if (tp->pools == NULL && (tp->pools = calloc(1,
	    sizeof(*tp->pools))) != NULL) {
		tp_hash_init(&tp->pools->by_key);
		tp_hash_init(&tp->pools->roots_map);
		tp_hash_init(&tp->pools->root_names);
	}
	return tp->pools;
}

static int
same_str(const char *a, const char *b)
{
	return a == NULL || b == NULL ? a == b : strcmp(a, b) == 0;
}

static int
same_key(const struct pool *p, const struct tp_pool_key *b, uint64_t dimh)
{
	const struct tp_pool_key *a = &p->k;

	/* Merged siblings are one pool whatever their names (the first
	 * one's names the tracks). */
	return p->dimh == dimh && strcmp(a->kind, b->kind) == 0 &&
	    a->upid == b->upid && a->has_utid == b->has_utid &&
	    a->name_dim == b->name_dim && a->scope_dim == b->scope_dim &&
	    same_str(a->scope, b->scope) &&
	    a->merged == b->merged && (a->merged ? a->utid == b->utid &&
	    a->parent_uuid == b->parent_uuid &&
	    a->merge_type == b->merge_type : same_str(a->name, b->name) &&
	    (!a->has_utid || a->utid == b->utid));
}

static uint64_t
key_hash(const struct tp_pool_key *k, uint64_t dimh)
{
	uint64_t h = tp_hash_bytes((uint64_t)k->upid ^ (uint64_t)k->name_dim ^
	    dimh, k->kind, strlen(k->kind));

	if (!k->merged && k->has_utid)
		h ^= (uint64_t)k->utid * 0x9e3779b97f4a7c15ULL;
	if (!k->merged && k->name != NULL)
		h = tp_hash_bytes(h, k->name, strlen(k->name) + 1);
	else if (k->merged)
		h = tp_hash_bytes(h ^ (uint64_t)k->utid ^
		    (uint64_t)k->merge_type, &k->parent_uuid,
		    sizeof(k->parent_uuid));
	return k->scope == NULL ? h : tp_hash_bytes(h, k->scope,
	    strlen(k->scope));
}

/* The pool of key k, made on first use. A JSON or Chrome trace has one
 * per async name, so pools are found by hash; a hash two keys share
 * falls back to a scan. */
static struct pool *
pool_get(struct tp *tp, const struct tp_pool_key *k)
{
	struct tp_track_pools *ps = pools_get(tp);
	uint64_t h, *v, dimh = k->ndims ? tp_dims_hash(k->dims, k->ndims) : 0;
	size_t i;

	if (ps == NULL)
		return NULL;
	h = key_hash(k, dimh);
	if ((v = tp_hash_get(&ps->by_key, h)) != NULL) {
		if (same_key(&ps->p[*v], k, dimh))
			return &ps->p[*v];
		for (i = 0; i < ps->n; i++)
			if (same_key(&ps->p[i], k, dimh))
				return &ps->p[i];
	}
	if (ps->n == ps->cap) {
		size_t ncap = ps->cap ? ps->cap * 2 : 8;
		void *np = realloc(ps->p, ncap * sizeof(*ps->p));

		if (np == NULL)
			return NULL;
		ps->p = np;
		ps->cap = ncap;
	}
	memset(&ps->p[ps->n], 0, sizeof(ps->p[0]));
	ps->p[ps->n].k = *k;
	ps->p[ps->n].k.scope = NULL;
	ps->p[ps->n].k.dims = NULL;
	ps->p[ps->n].k.ndims = 0;
	ps->p[ps->n].dimh = dimh;
	/* Upstream numbers its compressor's sets of tracks as it makes
	 * them, each at its first use. */
	ps->p[ps->n].group = tp->track_groups++;
	if ((k->name != NULL &&
	    (ps->p[ps->n].k.name = strdup(k->name)) == NULL) ||
	    (k->scope != NULL &&
	    (ps->p[ps->n].k.scope = strdup(k->scope)) == NULL)) {
		free((char *)ps->p[ps->n].k.name);
		return NULL;
	}
	if (v == NULL)
		(void)tp_hash_put(&ps->by_key, h, ps->n);
	return &ps->p[ps->n++];
}

/* A new track of the pool; k is its key with the dims. */
static struct pool_track *
pool_track_new(struct tp *tp, struct pool *p, const struct tp_pool_key *k)
{
	struct pool_track *pt;
	int64_t set;

	if (p->n == POOL_MAX_TRACKS)
		return NULL;
	if (p->n == p->cap) {
		size_t ncap = p->cap ? p->cap * 2 : 4;
		void *np = realloc(p->t, ncap * sizeof(*p->t));

		if (np == NULL)
			return NULL;
		p->t = np;
		p->cap = ncap;
	}
	pt = &p->t[p->n];
	if ((pt->track = (p->k.merged || p->k.has_utid) &&
	    p->k.utid != TP_NULL ?
	    tp_track_new(tp, TT_THREAD, p->k.name, p->k.utid) :
	    p->k.upid == TP_NULL ?
	    tp_track_new(tp, TT_TRACK, p->k.name, TP_NULL) :
	    tp_track_new(tp, TT_PROCESS, p->k.name, p->k.upid)) < 0)
		return NULL;
	tp_track_kind(tp, pt->track, p->k.kind);
	tp->tracks[pt->track].group = p->group;
	/* Upstream's dimensions (a thread's or process's track's set
	 * already has its utid or upid); the index tells the pool's tracks
	 * apart. */
	set = tp_track_dim_set(tp, pt->track);
	if (p->k.merged) {
		tp_arg_int(tp, set, "parent_track_uuid", "parent_track_uuid",
		    p->k.parent_uuid, "int");
		/* Upstream's dimensions keep every integer as an int. */
		tp_arg_int(tp, set, "merge_key_type", "merge_key_type",
		    p->k.merge_type, "int");
		/* An unnamed track's merge key is a NULL string. */
		tp_arg_cstr_fixed(tp, set, "merge_key_value", p->k.scope);
	} else if (p->k.scope != NULL || p->k.scope_dim)
		tp_arg_cstr_fixed(tp, set, "scope", p->k.scope);
	if (p->k.name_dim)
		tp_arg_cstr_fixed(tp, set, "name", p->k.name);
	tp_track_dims_add(tp, pt->track, k->dims, k->ndims);
	tp_arg_int(tp, set, "track_compressor_idx",
	    "track_compressor_idx", (int64_t)p->n, "int");
	pt->cookie = 0;
	pt->nest = 0;
	pt->scoped = 0;
	pt->end = 0;
	pt->ends = NULL;
	pt->nends = pt->capends = 0;
	p->n++;
	return pt;
}

/* The pool's track for cookie: its own, else an idle one it adopts, else
 * a new one. */
static struct pool_track *
pool_track(struct tp *tp, struct pool *p, const struct tp_pool_key *k,
    uint64_t cookie)
{
	struct pool_track *pt;
	size_t i;

	for (i = 0; i < p->n; i++)
		if (!p->t[i].scoped && p->t[i].cookie == cookie)
			return &p->t[i];
	for (i = 0; i < p->n; i++)
		if (!p->t[i].scoped && p->t[i].nest == 0) {
			p->t[i].cookie = cookie;
			return &p->t[i];
		}
	if ((pt = pool_track_new(tp, p, k)) != NULL)
		pt->cookie = cookie;
	return pt;
}

int64_t
tp_track_pool_take(struct tp *tp, const struct tp_pool_key *k,
    uint64_t cookie, int step)
{
	struct pool *p = pool_get(tp, k);
	struct pool_track *pt;

	if (p != NULL && step == TP_POOL_FIRST && p->n > 0)
		return p->t[0].track;
	if (step == TP_POOL_FIRST)
		step = 0;
	if (p == NULL || (pt = pool_track(tp, p, k, cookie)) == NULL)
		return -1;
	if (step == TP_POOL_BEGIN_ONCE)
		pt->nest = 1;
	else if (step > 0 || pt->nest > 0)
		pt->nest += step;
	return pt->track;
}

int64_t
tp_track_pool_scoped(struct tp *tp, const struct tp_pool_key *k, int64_t ts,
    int64_t dur)
{
	struct pool *p = pool_get(tp, k);
	struct pool_track *pt = NULL;
	size_t i;

	if (p == NULL)
		return -1;
	for (i = 0; i < p->n && pt == NULL; i++)
		if (p->t[i].scoped && p->t[i].end <= ts)
			pt = &p->t[i];
	if (pt == NULL) {
		if ((pt = pool_track_new(tp, p, k)) == NULL)
			return -1;
		pt->scoped = 1;
	}
	pt->end = ts + dur;
	return pt->track;
}

/* Track pt takes a slice ending at end: 0, or -1 when out of memory. */
static int
nested_push(struct pool_track *pt, int64_t end)
{
	if (tp_grow((void **)&pt->ends, &pt->capends, pt->nends,
	    sizeof(*pt->ends)) == -1)
		return -1;
	pt->ends[pt->nends++] = end;
	return 0;
}

int64_t
tp_track_pool_nested(struct tp *tp, const struct tp_pool_key *k, int64_t ts,
    int64_t dur)
{
	struct pool *p = pool_get(tp, k);
	struct pool_track *pt;
	size_t i;

	if (p == NULL)
		return -1;
	/* The first track where it nests in the innermost slice still open
	 * or where none is; what ended by ts is closed first. */
	for (i = 0; i < p->n; i++) {
		pt = &p->t[i];
		if (!pt->scoped)
			continue;
		while (pt->nends > 0 && pt->ends[pt->nends - 1] <= ts)
			pt->nends--;
		if (pt->nends == 0 || ts + dur <= pt->ends[pt->nends - 1])
			return nested_push(pt, ts + dur) == -1 ? -1 :
			    pt->track;
	}
	if ((pt = pool_track_new(tp, p, k)) == NULL)
		return -1;
	pt->scoped = 1;
	return nested_push(pt, ts + dur) == -1 ? -1 : pt->track;
}

int64_t
tp_track_pool_begin(struct tp *tp, const char *kind, const char *name,
    uint64_t cookie)
{
	struct tp_pool_key k = { .kind = kind, .name = name,
	    .upid = TP_NULL };

	return tp_track_pool_take(tp, &k, cookie, 1);
}

int64_t
tp_track_pool_end(struct tp *tp, const char *kind, const char *name,
    uint64_t cookie)
{
	struct tp_pool_key k = { .kind = kind, .name = name,
	    .upid = TP_NULL };

	return tp_track_pool_take(tp, &k, cookie, -1);
}

/* The name of the first slice cookie ever had (per process when upid is
 * not TP_NULL), as upstream's compressor remembers it. */
static const char *
async_root(struct tp *tp, uint64_t cookie, int64_t upid, const char *name)
{
	struct tp_track_pools *ps = pools_get(tp);
	uint64_t key = upid == TP_NULL ? cookie : tp_hash_bytes(cookie, &upid,
	    sizeof(upid)), h, *v;
	char *copy;

	if (ps == NULL)
		return NULL;
	if ((v = tp_hash_get(&ps->roots_map, key)) != NULL)
		return ps->roots[*v];
	if (name == NULL)
		name = "";
	h = tp_hash_bytes(0, name, strlen(name));
	if ((v = tp_hash_get(&ps->root_names, h)) != NULL &&
	    strcmp(ps->roots[*v], name) == 0)
		return tp_hash_put(&ps->roots_map, key, *v) == -1 ? NULL :
		    ps->roots[*v];
	if (ps->nroots == ps->caproots) {
		size_t ncap = ps->caproots ? ps->caproots * 2 : 16;
		void *np = realloc(ps->roots, ncap * sizeof(char *));

		if (np == NULL)
			return NULL;
		ps->roots = np;
		ps->caproots = ncap;
	}
	if ((copy = strdup(name)) == NULL ||
	    tp_hash_put(&ps->roots_map, key, ps->nroots) == -1) {
		free(copy);
		return NULL;
	}
	if (v == NULL)
		(void)tp_hash_put(&ps->root_names, h, ps->nroots);
	return ps->roots[ps->nroots++] = copy;
}

int64_t
tp_track_async(struct tp *tp, const struct tp_async *a, int step)
{
	struct tp_pool_key k = { 0 };
	int64_t track, set;

	memset(&k, 0, sizeof(k));
	k.kind = a->process_scoped ? "legacy_async_process_slice" :
	    "legacy_async_global_slice";
	k.upid = a->process_scoped ? a->upid : TP_NULL;
	k.scope = a->scope;
	k.name_dim = 1;
	/* Upstream's legacy async tracks: (upid,) scope, name. */
	k.scope_dim = 1;
	/* A process's async track is a process track: its name may be
	 * translated, as upstream. */
	if ((k.name = async_root(tp, a->cookie, k.upid, a->process_scoped ?
	    tp_translate_process_track_name(tp, a->name) : a->name)) == NULL ||
	    (track = tp_track_pool_take(tp, &k, a->cookie, step)) < 0)
		return -1;
	if (tp->tracks[track].source_arg_set_id != TP_NULL)
		return track;
	set = tp_track_source_set(tp, track);
	tp_arg_str(tp, set, "source", "source", "chrome", 6, NULL);
	tp_arg_int(tp, set, "trace_id_is_process_scoped",
	    "trace_id_is_process_scoped", a->process_scoped, "bool");
	if (a->upid != TP_NULL)
		tp_arg_int(tp, set, "upid", "upid", a->upid, "uint");
	tp_arg_cstr_fixed(tp, set, "source_scope", a->scope);
	return track;
}

void
tp_track_pools_free(struct tp *tp)
{
	struct tp_track_pools *ps = tp->pools;
	size_t i, j;

	if (ps == NULL)
		return;
	for (i = 0; i < ps->n; i++) {
		for (j = 0; j < ps->p[i].n; j++)
			free(ps->p[i].t[j].ends);
		free((char *)ps->p[i].k.name);
		free((char *)ps->p[i].k.scope);
		free(ps->p[i].t);
	}
	free(ps->p);
	while (ps->nroots > 0)
		free(ps->roots[--ps->nroots]);
	free(ps->roots);
	tp_hash_free(&ps->roots_map);
	tp_hash_free(&ps->root_names);
	tp_hash_free(&ps->by_key);
	free(ps);
	tp->pools = NULL;
}
