/*
 * Process counters whose track is made at the end of the trace.
 *
 * Upstream's trace processor inserts the value of a per-process counter
 * reported by a thread (JSON "C" events) when it parses it, but chooses
 * the track only once the whole trace is read, when the thread's
 * process is surely known. So those tracks get their ids after every
 * other track, in the order of their first value. We keep that order:
 * the counter row is queued now with no track, the track is interned in
 * tp_pending_resolve() and the rows are pointed at it.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "tp_int.h"

struct pending_key {
	int64_t		 upid;
	char		*name;
	const char	*kind;
	int64_t		 track;		/* -1 until resolved */
};

struct pending_row {
	int64_t		 counter;
	size_t		 key;
};

struct tp_pending {
	struct tp_hash		 index;		/* hash(upid, name) -> key */
	struct pending_key	*keys;
	size_t			 nkeys;
	struct pending_row	*rows;
	size_t			 nrows, caprows;
};

static struct tp_pending *
pending_get(struct tp *tp)
{
	if (tp->pending == NULL && (tp->pending = calloc(1,
	    sizeof(*tp->pending))) != NULL)
		tp_hash_init(&tp->pending->index);
	return tp->pending;
}

/* The key of (upid, name), added if new; (size_t)-1 when out of memory. */
static size_t
pending_key(struct tp_pending *p, int64_t upid, const char *name,
    const char *kind)
{
	/* 64-bit hashes stand for their keys, as for tracks. */
	uint64_t h = tp_hash_bytes((uint64_t)upid, name, strlen(name) + 1), *v;
	struct pending_key *k;

	if ((v = tp_hash_get(&p->index, h)) != NULL)
		return (size_t)*v;
	if ((k = realloc(p->keys, (p->nkeys + 1) * sizeof(*k))) == NULL)
		return (size_t)-1;
	p->keys = k;
	if ((k[p->nkeys].name = strdup(name)) == NULL ||
	    tp_hash_put(&p->index, h, p->nkeys) == -1)
		return (size_t)-1;
	k[p->nkeys].upid = upid;
	k[p->nkeys].kind = kind;
	k[p->nkeys].track = -1;
	return p->nkeys++;
}

void
tp_counter_pending(struct tp *tp, int64_t ts, int64_t upid, const char *name,
    const char *kind, double v)
{
	struct tp_pending *p = pending_get(tp);
	struct pending_row *r;
	size_t key, cap;
	int64_t track;

	if (p == NULL || (key = pending_key(p, upid, name, kind)) ==
	    (size_t)-1)
		goto now;
	if (p->nrows == p->caprows) {
		cap = p->caprows ? p->caprows * 2 : 256;
		if ((r = realloc(p->rows, cap * sizeof(*r))) == NULL)
			goto now;
		p->rows = r;
		p->caprows = cap;
	}
	p->rows[p->nrows].counter = tp->next_counter;
	p->rows[p->nrows].key = key;
	p->nrows++;
	tp_counter_insert(tp, ts, TP_NULL, v, TP_NULL);
	return;
now:
	/* Out of memory: keep the value, on a track made now. */
	track = tp_track_intern(tp, TT_PROCESS_COUNTER, name, upid);
	tp_track_kind(tp, track, kind);
	if (track >= 0)
		tp_counter_insert(tp, ts, track, v, TP_NULL);
}

int
tp_pending_resolve(struct tp *tp)
{
	struct tp_pending *p = tp->pending;
	struct pending_key *k;
	size_t i;

	if (p == NULL || p->nrows == 0)
		return 0;
	for (i = 0; i < p->nrows; i++) {
		k = &p->keys[p->rows[i].key];
		if (k->track == -1) {
			/* Upstream's dimensions: the process, the name. */
			struct tp_dim d = { "name", k->name, 0 };

			k->track = tp_track_intern(tp, TT_PROCESS_COUNTER,
			    k->name, k->upid);
			tp_track_kind(tp, k->track, k->kind);
			if (k->track >= 0)
				tp_track_dims_add(tp, k->track, &d, 1);
		}
	}
	for (i = 0; i < p->nrows; i++)
		tp_counter_set_track(tp, p->rows[i].counter,
		    p->keys[p->rows[i].key].track);
	p->nrows = 0;
	return 0;
}

void
tp_pending_free(struct tp *tp)
{
	struct tp_pending *p = tp->pending;
	size_t i;

	if (p == NULL)
		return;
	for (i = 0; i < p->nkeys; i++)
		free(p->keys[i].name);
	free(p->keys);
	free(p->rows);
	tp_hash_free(&p->index);
	free(p);
	tp->pending = NULL;
}
