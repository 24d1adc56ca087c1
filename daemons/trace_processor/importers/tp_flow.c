/*
 * Flows between slices, joined as upstream's flow tracker joins them, for
 * every importer (TrackEvent, its legacy v1 and v2 flows, JSON).
 *
 * A flow is known by a key and remembers the slice it last left
 * (tp->flows) and that slice's start (tp->flow_ts): each arrow then goes
 * from the earlier slice to the later, whatever order they were read in.
 * A TrackEvent flow id or a v2 bind_id is its own key and trace_id. A v1
 * flow (phases s, t, f) is known by its id, category and name: it gets a
 * key from the three and a number of its own, which upstream keeps as
 * trace_id, and its rows carry its name and category as args.
 *
 * A v1 end not bound to its enclosing slice waits for the next slice that
 * begins on its track (tp_tracks.c calls tp_flow_slice_began).
 */
#include <stdlib.h>
#include <string.h>

#include "tp_int.h"

/* v1 flows and ends waiting for their slice, beyond which both are
 * dropped (counted): a hostile trace cannot grow them without bound. */
#define MAX_V1		(1u << 20)
#define MAX_WAITS	(1u << 16)

struct v1_flow {
	char		*cat, *name;	/* NULL: none */
};

struct flow_wait {
	int64_t		 track;
	uint64_t	 key;
};

struct tp_flows {
	struct tp_hash	 v1_keys;	/* key -> index in v1 */
	struct v1_flow	*v1;
	size_t		 nv1, capv1;
	struct flow_wait *waits;
	size_t		 nwaits, capwaits;
};

static struct tp_flows *
flows_get(struct tp *tp)
{
	if (tp->flowst == NULL) {
		if ((tp->flowst = calloc(1, sizeof(*tp->flowst))) == NULL)
			return NULL;
		tp_hash_init(&tp->flowst->v1_keys);
	}
	return tp->flowst;
}

static uint64_t
str_hash(uint64_t h, const char *s)
{
	/* The NUL keeps a missing string apart from an empty one. */
	return s == NULL ? tp_hash_bytes(h, "", 0) :
	    tp_hash_bytes(h, s, strlen(s) + 1);
}

uint64_t
tp_flow_v1_key(struct tp *tp, uint64_t id, const char *cat, const char *name)
{
	struct tp_flows *fs = flows_get(tp);
	uint64_t key = str_hash(str_hash(tp_hash_bytes(0x7631, &id,
	    sizeof(id)), cat), name);
	struct v1_flow *v;

	if (fs == NULL || tp_hash_get(&fs->v1_keys, key) != NULL ||
	    fs->nv1 >= MAX_V1)
		return key;
	if (fs->nv1 == fs->capv1) {
		size_t ncap = fs->capv1 ? fs->capv1 * 2 : 16;
		void *p = realloc(fs->v1, ncap * sizeof(*fs->v1));

		if (p == NULL)
			return key;
		fs->v1 = p;
		fs->capv1 = ncap;
	}
	v = &fs->v1[fs->nv1];
	v->cat = cat != NULL ? strdup(cat) : NULL;
	v->name = name != NULL ? strdup(name) : NULL;
	if (tp_hash_put(&fs->v1_keys, key, fs->nv1) == 0)
		fs->nv1++;
	else {
		free(v->cat);
		free(v->name);
	}
	return key;
}

/* A v1 flow's args: its name and category. */
static int64_t
v1_args(struct tp *tp, const struct v1_flow *v)
{
	int64_t s = tp_arg_set_new(tp);

	if (v->name != NULL)
		tp_arg_str(tp, s, "name", "name", v->name, strlen(v->name),
		    NULL);
	else
		tp_arg_str_null(tp, s, "name");
	if (v->cat != NULL)
		tp_arg_str(tp, s, "cat", "cat", v->cat, strlen(v->cat), NULL);
	else
		tp_arg_str_null(tp, s, "cat");
	return s;
}

static void
flow_row(struct tp *tp, uint64_t key, int64_t out, int64_t in)
{
	uint64_t *idx = tp->flowst != NULL ?
	    tp_hash_get(&tp->flowst->v1_keys, key) : NULL;

	if (idx != NULL)
		tp_flow_insert(tp, out, in, (int64_t)*idx,
		    v1_args(tp, &tp->flowst->v1[*idx]));
	else
		tp_flow_insert(tp, out, in, (int64_t)key, TP_NULL);
}

int
tp_flow_active(struct tp *tp, uint64_t key)
{
	return tp_hash_get(&tp->flows, key) != NULL;
}

void
tp_flow_begin(struct tp *tp, uint64_t key, int64_t slice, int64_t ts)
{
	/* A second start of a live flow is ignored, as upstream. */
	if (tp_flow_active(tp, key)) {
		tp_stat_inc(tp, ST_FLOW_DUPLICATE_ID, 1);
		return;
	}
	(void)tp_hash_put(&tp->flows, key, (uint64_t)slice);
	(void)tp_hash_put(&tp->flow_ts, key, (uint64_t)ts);
}

/* Joins the flow's last slice and this one; step: the flow moves on. */
static void
flow_join(struct tp *tp, uint64_t key, int64_t slice, int64_t ts, int step,
    int close, enum tp_stat missing)
{
	uint64_t *prev = tp_hash_get(&tp->flows, key);
	uint64_t *pts = tp_hash_get(&tp->flow_ts, key);
	int64_t from;

	if (prev == NULL) {
		tp_stat_inc(tp, missing, 1);
		return;
	}
	from = (int64_t)*prev;
	if (pts != NULL && (int64_t)*pts > ts)
		flow_row(tp, key, slice, from);
	else
		flow_row(tp, key, from, slice);
	if (close) {
		(void)tp_hash_del(&tp->flows, key);
		(void)tp_hash_del(&tp->flow_ts, key);
	} else if (step) {
		(void)tp_hash_put(&tp->flows, key, (uint64_t)slice);
		(void)tp_hash_put(&tp->flow_ts, key, (uint64_t)ts);
	}
}

void
tp_flow_step(struct tp *tp, uint64_t key, int64_t slice, int64_t ts)
{
	flow_join(tp, key, slice, ts, 1, 0, ST_FLOW_STEP_WITHOUT_START);
}

void
tp_flow_end(struct tp *tp, uint64_t key, int64_t slice, int64_t ts, int close)
{
	flow_join(tp, key, slice, ts, 0, close, ST_FLOW_END_WITHOUT_START);
}

void
tp_flow_on_track(struct tp *tp, int op, uint64_t key, int64_t track,
    int64_t ts, int bind_enclosing)
{
	struct tp_flows *fs;
	int64_t slice, start = 0;

	if (op == TP_FLOW_END && !bind_enclosing) {
		if ((fs = flows_get(tp)) == NULL)
			return;
		if (fs->nwaits >= MAX_WAITS) {
			tp_stat_inc(tp, ST_FLOW_END_WITHOUT_START, 1);
			return;
		}
		if (fs->nwaits == fs->capwaits) {
			size_t ncap = fs->capwaits ? fs->capwaits * 2 : 16;
			void *p = realloc(fs->waits, ncap * sizeof(*fs->waits));

			if (p == NULL)
				return;
			fs->waits = p;
			fs->capwaits = ncap;
		}
		fs->waits[fs->nwaits].track = track;
		fs->waits[fs->nwaits++].key = key;
		return;
	}
	if ((slice = tp_slice_top(tp, track, ts, &start)) < 0) {
		tp_stat_inc(tp, ST_FLOW_NO_ENCLOSING_SLICE, 1);
		return;
	}
	if (op == TP_FLOW_BEGIN)
		tp_flow_begin(tp, key, slice, start);
	else if (op == TP_FLOW_STEP)
		tp_flow_step(tp, key, slice, start);
	else
		tp_flow_end(tp, key, slice, start, 0);
}

void
tp_flow_slice_began(struct tp *tp, int64_t track, int64_t slice)
{
	struct tp_flows *fs = tp->flowst;
	uint64_t *from;
	size_t i, n = 0;

	if (fs == NULL || fs->nwaits == 0)
		return;
	for (i = 0; i < fs->nwaits; i++) {
		if (fs->waits[i].track != track) {
			fs->waits[n++] = fs->waits[i];
			continue;
		}
		/* Joined as they come: this slice is the later one. */
		if ((from = tp_hash_get(&tp->flows, fs->waits[i].key)) != NULL)
			flow_row(tp, fs->waits[i].key, (int64_t)*from, slice);
		else
			tp_stat_inc(tp, ST_FLOW_END_WITHOUT_START, 1);
	}
	fs->nwaits = n;
}

void
tp_flow_free(struct tp *tp)
{
	struct tp_flows *fs = tp->flowst;
	size_t i;

	if (fs == NULL)
		return;
	for (i = 0; i < fs->nv1; i++) {
		free(fs->v1[i].cat);
		free(fs->v1[i].name);
	}
	free(fs->v1);
	free(fs->waits);
	tp_hash_free(&fs->v1_keys);
	free(fs);
	tp->flowst = NULL;
}
