/*
 * Tracks and the slices on them. Every importer (TrackEvent, JSON, ftrace
 * print, systrace) goes through these functions, so nesting, depth,
 * parent_id and stack_id mean the same thing whatever the source.
 *
 * A slice gets its id when it begins and its row when it leaves the
 * stack: its args are complete then (upstream stores a slice's args when
 * it leaves its stack, which orders the arg set ids). Slices still open
 * at the end get dur = -1, and so do open slices at a checkpoint until
 * their end replaces the row.
 */
#include <stdlib.h>
#include <string.h>

#include "tp_int.h"

/* Stack depth beyond which slices are dropped (hostile nesting). */
#define MAX_DEPTH	512

/*
 * The track type upstream gives a track of each kind when its maker says
 * no more: the track event API's (a thread's own track is where it
 * executes). Makers of other tracks name theirs (tp_track_kind).
 */
static const char *const track_type_names[] = {
	[TT_TRACK] = "global_merged_track_event",
	[TT_THREAD] = "thread_execution",
	[TT_PROCESS] = "process_track_event",
	[TT_CPU] = "cpu_track_event",
	[TT_COUNTER] = "global_counter_track_event",
	[TT_THREAD_COUNTER] = "thread_counter_track_event",
	[TT_PROCESS_COUNTER] = "process_counter_track_event",
	[TT_CPU_COUNTER] = "cpu_counter_track_event",
};

const char *
tp_track_type_name(enum tp_track_type t)
{
	return track_type_names[t];
}

/*
 * A track's arg sets are made on first use and stored before the next set
 * is done: upstream stores them when it makes the track, and their args
 * are all given by then.
 */
static int64_t
track_set(struct tp *tp, int64_t *set)
{
	if (*set == TP_NULL) {
		*set = tp_arg_set_new(tp);
		tp_arg_set_close_soon(tp, *set);
	}
	return *set;
}

int64_t
tp_track_dim_set(struct tp *tp, int64_t track)
{
	return track_set(tp, &tp->tracks[track].dim_set);
}

int64_t
tp_track_source_set(struct tp *tp, int64_t track)
{
	return track_set(tp, &tp->tracks[track].source_arg_set_id);
}

int64_t
tp_track_intern_dims(struct tp *tp, enum tp_track_type type, const char *name,
    int64_t scope, const char *const *kv, size_t npairs)
{
	size_t n = tp->ntracks, i;
	int64_t track = tp_track_intern(tp, type, name, scope), set;

	if (track < 0 || tp->ntracks == n)
		return track;
	set = tp_track_dim_set(tp, track);
	for (i = 0; i < npairs; i++)
		tp_arg_str(tp, set, kv[2 * i], kv[2 * i], kv[2 * i + 1],
		    strlen(kv[2 * i + 1]), NULL);
	return track;
}

int64_t
tp_track_intern_idim(struct tp *tp, enum tp_track_type type, const char *name,
    int64_t scope, const char *key, int64_t v)
{
	size_t n = tp->ntracks;
	/* The key's name is part of the discriminator: tracks of other
	 * dimensions never share one. */
	uint64_t discr = tp_hash_bytes((uint64_t)v, key, strlen(key) + 1);
	int64_t track = tp_track_intern_key(tp, type, name, scope, discr);

	if (track < 0 || tp->ntracks == n)
		return track;
	tp_arg_int(tp, tp_track_dim_set(tp, track), key, key, v, "int");
	return track;
}

const char tp_dim_null_str[] = "";

void
tp_track_dims_add(struct tp *tp, int64_t track, const struct tp_dim *dims,
    size_t n)
{
	int64_t set = tp_track_dim_set(tp, track);
	size_t i;

	for (i = 0; i < n; i++) {
		if (dims[i].s == TP_DIM_NULL_STR)
			tp_arg_str_null(tp, set, dims[i].key);
		else if (dims[i].s != NULL)
			tp_arg_str(tp, set, dims[i].key, dims[i].key,
			    dims[i].s, strlen(dims[i].s), NULL);
		else
			tp_arg_int(tp, set, dims[i].key, dims[i].key,
			    dims[i].v, "int");
	}
}

uint64_t
tp_dims_hash(const struct tp_dim *dims, size_t n)
{
	uint64_t h = n;
	size_t i;

	for (i = 0; i < n; i++) {
		h = tp_hash_bytes(h, dims[i].key, strlen(dims[i].key) + 1);
		if (dims[i].s == TP_DIM_NULL_STR)
			h = tp_hash_bytes(h ^ 2, "", 0);
		else if (dims[i].s != NULL)
			h = tp_hash_bytes(h, dims[i].s, strlen(dims[i].s) + 1);
		else
			h = tp_hash_bytes(h ^ 1, &dims[i].v, sizeof(dims[i].v));
	}
	return h;
}

int64_t
tp_track_intern_dimv(struct tp *tp, enum tp_track_type type, const char *kind,
    const char *name, int64_t scope, const struct tp_dim *dims, size_t n,
    int *created)
{
	size_t before = tp->ntracks;
	/* The kind is part of the discriminator: tracks of two kinds with the
	 * same dimensions never share one. */
	uint64_t discr = tp_dims_hash(dims, n) ^
	    (kind != NULL ? tp_hash_bytes(0, kind, strlen(kind) + 1) : 0);
	int64_t track = tp_track_intern_key(tp, type, name, scope, discr);

	if (created != NULL)
		*created = 0;
	if (track < 0 || tp->ntracks == before)
		return track;
	if (kind != NULL)
		tp->tracks[track].kind = kind;
	tp_track_dims_add(tp, track, dims, n);
	if (created != NULL)
		*created = 1;
	return track;
}

void
tp_track_unit(struct tp *tp, int64_t track, const char *unit)
{
	if (unit != NULL && track >= 0 && (size_t)track < tp->ntracks &&
	    tp->tracks[track].unit == NULL)
		tp->tracks[track].unit = strdup(unit);
}

void
tp_track_kind(struct tp *tp, int64_t track, const char *kind)
{
	if (track >= 0 && (size_t)track < tp->ntracks)
		tp->tracks[track].kind = kind;
}

/* A new track; lead: a dimension (a NULL string) its set has before its
 * thread's, process's or cpu's, as some of upstream's do; NULL: none. */
static int64_t
track_new(struct tp *tp, enum tp_track_type type, const char *name,
    int64_t scope, const char *lead)
{
	struct tp_track *t;

	if (tp->ntracks == tp->captracks) {
		size_t ncap = tp->captracks ? tp->captracks * 2 : 64;
		void *p = realloc(tp->tracks, ncap * sizeof(*t));

		if (p == NULL)
			return -1;
		tp->tracks = p;
		tp->captracks = ncap;
	}
	t = &tp->tracks[tp->ntracks];
	memset(t, 0, sizeof(*t));
	t->type = type;
	t->name = name ? strdup(name) : NULL;
	t->parent_id = TP_NULL;
	t->utid = t->upid = t->cpu = TP_NULL;
	t->dim_set = TP_NULL;
	t->source_arg_set_id = TP_NULL;
	t->group = TP_NULL;
	t->machine = tp->machine;
	t->multiplier = 1;
	switch (type) {
	case TT_THREAD:
	case TT_THREAD_COUNTER:
		t->utid = scope;
		break;
	case TT_PROCESS:
	case TT_PROCESS_COUNTER:
		t->upid = scope;
		break;
	case TT_CPU:
	case TT_CPU_COUNTER:
		t->cpu = scope;
		break;
	default:
		break;
	}
	/* What the track is of, as upstream's dimension_arg_set_id: made
	 * here, so that ids follow creation whenever tables are written. */
	if (t->utid != TP_NULL || t->upid != TP_NULL || t->cpu != TP_NULL ||
	    lead != NULL) {
		(void)track_set(tp, &t->dim_set);
		if (lead != NULL)
			tp_arg_str_null(tp, t->dim_set, lead);
		if (t->utid != TP_NULL)
			tp_arg_int(tp, t->dim_set, "utid", "utid", t->utid,
			    "int");
		if (t->upid != TP_NULL)
			tp_arg_int(tp, t->dim_set, "upid", "upid", t->upid,
			    "int");
		if (t->cpu != TP_NULL)
			tp_arg_int(tp, t->dim_set, "cpu", "cpu", t->cpu, "int");
	}
	return (int64_t)tp->ntracks++;
}

int64_t
tp_track_intern(struct tp *tp, enum tp_track_type type, const char *name,
    int64_t scope)
{
	return tp_track_intern_key(tp, type, name, scope, 0);
}

int64_t
tp_track_new(struct tp *tp, enum tp_track_type type, const char *name,
    int64_t scope)
{
	return track_new(tp, type, name, scope, NULL);
}

static int64_t
track_intern(struct tp *tp, enum tp_track_type type, const char *name,
    int64_t scope, uint64_t discr, const char *lead)
{
	uint64_t key, *v;
	int64_t id;

	/* Each machine has its own tracks. */
	key = tp_hash_bytes((uint64_t)type * 0x9e3779b97f4a7c15ULL ^
	    (uint64_t)scope ^ discr * 0xc2b2ae3d27d4eb4fULL ^
	    (uint64_t)tp->machine << 40, name ? name : "",
	    name ? strlen(name) + 1 : 0);
	if ((v = tp_hash_get(&tp->track_keys, key)) != NULL)
		return (int64_t)*v;
	if ((id = track_new(tp, type, name, scope, lead)) < 0)
		return -1;
	(void)tp_hash_put(&tp->track_keys, key, (uint64_t)id);
	return id;
}

int64_t
tp_track_intern_key(struct tp *tp, enum tp_track_type type, const char *name,
    int64_t scope, uint64_t discr)
{
	return track_intern(tp, type, name, scope, discr, NULL);
}

int64_t
tp_track_intern_lead(struct tp *tp, enum tp_track_type type, const char *name,
    int64_t scope, const char *lead)
{
	return track_intern(tp, type, name, scope, 0, lead);
}

int64_t
tp_thread_track(struct tp *tp, int64_t utid)
{
	return tp_track_intern(tp, TT_THREAD, NULL, utid);
}

int64_t
tp_track_legacy_instants(struct tp *tp, int64_t upid)
{
	int64_t track;

	/* Unnamed, and apart from the process's own track (discr). */
	if (upid == TP_NULL) {
		track = tp_track_intern_key(tp, TT_TRACK, NULL, TP_NULL,
		    0x676c6f62 /* "glob" */);
		tp_track_kind(tp, track, "legacy_chrome_global_instants");
	} else {
		track = tp_track_intern_key(tp, TT_PROCESS, NULL, upid,
		    0x70696e73 /* "pins" */);
		tp_track_kind(tp, track, "chrome_process_instant");
	}
	/* Upstream says where they come from. */
	if (track >= 0 && tp->tracks[track].source_arg_set_id == TP_NULL)
		tp_arg_str_fixed(tp, tp_track_source_set(tp, track),
		    "source", "chrome", 6);
	return track;
}

static int64_t
stack_hash(int64_t parent, const char *cat, const char *name)
{
	/* The terminating NUL keeps empty and missing names apart from
	 * the parent's hash. */
	uint64_t h = tp_hash_bytes((uint64_t)parent, cat ? cat : "",
	    cat ? strlen(cat) + 1 : 1);

	h = tp_hash_bytes(h, name ? name : "", name ? strlen(name) + 1 : 1);
	return (int64_t)(h & 0x7fffffffffffffffULL);
}

/*
 * The slice's row. final: its arg set is done now (the slice is leaving
 * the stack); otherwise (a checkpoint's row of an open slice) the row
 * shows the set only if it is stored already.
 */
static void
slice_write(struct tp *tp, int64_t track, struct tp_open_slice *s,
    size_t depth, int64_t parent_id, int64_t parent_stack, int final)
{
	struct tp_slice_row row = {
		.id = s->id, .ts = s->ts, .dur = s->dur, .track_id = track,
		.cat = s->cat, .name = s->name, .depth = (int64_t)depth,
		.stack_id = s->stack_id, .parent_stack_id = parent_stack,
		.parent_id = parent_id, .thread_ts = s->thread_ts,
		.thread_dur = s->thread_dur, .thread_ic = s->thread_ic,
		.thread_icd = s->thread_icd,
	};

	if (final)
		row.arg_set_id = s->arg_set_id = tp_arg_set_done(tp,
		    s->arg_set_id);
	else
		row.arg_set_id = tp_arg_set_stored(tp, s->arg_set_id);
	tp_slice_write(tp, &row);
}

/* The row of the slice at depth d of the track. */
static void
slice_write_at(struct tp *tp, int64_t track, size_t d, int final)
{
	struct tp_track *t = &tp->tracks[track];

	slice_write(tp, track, &t->stack[d], d,
	    d > 0 ? t->stack[d - 1].id : TP_NULL,
	    d > 0 ? t->stack[d - 1].stack_id : 0, final);
}

static void
slice_free(struct tp_open_slice *s)
{
	free(s->name);
	free(s->cat);
}

/* The top slice leaves the stack: its row is written, args and all. */
static void
slice_pop(struct tp *tp, int64_t track)
{
	struct tp_track *t = &tp->tracks[track];

	slice_write_at(tp, track, t->depth - 1, 1);
	slice_free(&t->stack[--t->depth]);
}

/*
 * The slice tp_slice_end ended for its caller to add end args to is
 * written now, before any other arg set is done: upstream stores its
 * args as soon as the end event's are in.
 */
void
tp_slice_end_done(struct tp *tp)
{
	struct tp_ended_slice *e = &tp->ended;
	int64_t track = e->track;

	if (track < 0)
		return;
	e->track = -1;
	slice_write(tp, track, &e->s, e->depth, e->parent_id,
	    e->parent_stack, 1);
	slice_free(&e->s);
}

/*
 * Complete (X) slices that ended by ts leave the stack before a slice of
 * duration dur (-1: not known yet) starts at ts. Intervals are closed on
 * the left and open on the right, so only an instant stays for another
 * instant at its time, which nests under it, as upstream.
 */
static void
stack_unwind(struct tp *tp, int64_t track, int64_t ts, int64_t dur)
{
	struct tp_track *t = &tp->tracks[track];
	struct tp_open_slice *s;

	while (t->depth > 0) {
		s = &t->stack[t->depth - 1];
		if (s->end < 0 || s->end > ts ||
		    (s->end == ts && s->end == s->ts && dur == 0))
			break;
		slice_pop(tp, track);
	}
}

/* A slice too deep to keep: logged with its parent's name and its own. */
static void
max_depth_log(struct tp *tp, const struct tp_track *t, int64_t ts,
    const char *name)
{
	const char *keys[2] = { "parent_slice_name", "current_slice_name" };
	const char *names[2] = { t->stack[t->depth - 1].name, name };
	int64_t set = tp_arg_set_new(tp);
	int i;

	for (i = 0; i < 2; i++)
		tp_arg_cstr_fixed(tp, set, keys[i], names[i]);
	tp_import_log(tp, ST_SLICE_MAX_DEPTH_EXCEEDED, ts, TP_NULL, set);
}

static struct tp_open_slice *
stack_push(struct tp *tp, int64_t track, int64_t ts, const char *cat,
    const char *name, int64_t arg_set_id, int64_t thread_ts)
{
	struct tp_track *t = &tp->tracks[track];
	struct tp_open_slice *s;
	int64_t pstack;

	if (t->depth >= MAX_DEPTH) {
		max_depth_log(tp, t, ts, name);
		return NULL;
	}
	if (t->depth == t->cap) {
		size_t ncap = t->cap ? t->cap * 2 : 8;
		void *p = realloc(t->stack, ncap * sizeof(*s));

		if (p == NULL)
			return NULL;
		t->stack = p;
		t->cap = ncap;
	}
	pstack = t->depth > 0 ? t->stack[t->depth - 1].stack_id : 0;
	s = &t->stack[t->depth++];
	memset(s, 0, sizeof(*s));
	s->id = tp->next_slice++;
	s->ts = ts;
	s->end = -1;
	s->dur = -1;
	s->thread_dur = TP_NULL;
	s->thread_ic = s->thread_icd = TP_NULL;
	s->arg_set_id = arg_set_id;
	s->thread_ts = thread_ts;
	s->name = name ? strdup(name) : NULL;
	s->cat = cat ? strdup(cat) : NULL;
	s->stack_id = stack_hash(pstack, cat, name);
	tp_flow_slice_began(tp, track, s->id);
	return s;
}

int64_t
tp_slice_begin(struct tp *tp, int64_t track, int64_t ts, const char *cat,
    const char *name, int64_t arg_set_id, int64_t thread_ts)
{
	struct tp_open_slice *s;

	tp_slice_end_done(tp);
	if (track < 0) {
		tp_arg_set_drop(tp, arg_set_id);
		return -1;
	}
	tp_seen_ts(tp, ts);
	stack_unwind(tp, track, ts, -1);
	name = tp_translate_slice_name(tp, name);
	if ((s = stack_push(tp, track, ts, cat, name, arg_set_id,
	    thread_ts)) == NULL) {
		tp_arg_set_drop(tp, arg_set_id);
		return -1;
	}
	return s->id;
}

/*
 * 1 when a complete slice [ts, ts + dur) cannot nest on track, what it
 * overlaps in *o (may be NULL). Past stack_unwind every slice left ends
 * after ts; one below a slice still open is not looked at, as upstream.
 */
int
tp_slice_overlaps(struct tp *tp, int64_t track, int64_t ts, int64_t dur,
    struct tp_overlap *o)
{
	const struct tp_open_slice *s;
	struct tp_track *t;
	size_t i;

	tp_slice_end_done(tp);
	if (track < 0 || dur < 0)
		return 0;
	stack_unwind(tp, track, ts, dur);
	t = &tp->tracks[track];
	for (i = t->depth; i-- > 0;) {
		s = &t->stack[i];
		if (s->end < 0)
			return 0;
		if (ts < s->end && ts + dur > s->end) {
			if (o != NULL)
				*o = (struct tp_overlap){ ts, s->end,
				    s->name, s->ts, s->end - s->ts };
			return 1;
		}
	}
	return 0;
}

int64_t
tp_slice_complete(struct tp *tp, int64_t track, int64_t ts, int64_t dur,
    const char *cat, const char *name, int64_t arg_set_id, int64_t thread_ts,
    int64_t thread_dur)
{
	struct tp_track *t;
	struct tp_open_slice *s;

	tp_slice_end_done(tp);
	if (track < 0 || dur < 0) {
		if (track >= 0)
			tp_import_log(tp, ST_SLICE_NEGATIVE_DURATION, ts,
			    TP_NULL, TP_NULL);
		tp_arg_set_drop(tp, arg_set_id);
		return -1;
	}
	tp_seen_ts(tp, ts);
	tp_seen_ts(tp, ts + dur);
	stack_unwind(tp, track, ts, dur);
	t = &tp->tracks[track];
	/* Ill-nested input: the child ends after its complete parent. */
	if (t->depth > 0 && t->stack[t->depth - 1].end >= 0 &&
	    ts + dur > t->stack[t->depth - 1].end)
		tp->overhang = 1;
	name = tp_translate_slice_name(tp, name);
	if ((s = stack_push(tp, track, ts, cat, name, arg_set_id,
	    thread_ts)) == NULL) {
		tp_arg_set_drop(tp, arg_set_id);
		return -1;
	}
	s->dur = dur;
	s->thread_dur = thread_dur;
	s->end = ts + dur;
	return s->id;
}

int64_t
tp_slice_end(struct tp *tp, int64_t track, int64_t ts, const char *name,
    int64_t thread_ts, int64_t *arg_set_out)
{
	struct tp_track *t;
	struct tp_open_slice *s;
	struct tp_ended_slice *e = &tp->ended;
	int64_t id;

	tp_slice_end_done(tp);
	if (track < 0)
		return -1;
	tp_seen_ts(tp, ts);
	stack_unwind(tp, track, ts, -1);
	t = &tp->tracks[track];
	/* Complete slices still open above cannot be ended by an E (one
	 * that ends later outlives the slice ended here). */
	while (t->depth > 0 && t->stack[t->depth - 1].end >= 0) {
		if (t->stack[t->depth - 1].end > ts)
			tp->overhang = 1;
		slice_pop(tp, track);
	}
	/* An end with nothing open: its begin predates the trace. Nothing
	 * was lost, so nothing is counted (as upstream's slice tracker). */
	if (t->depth == 0)
		return -1;
	s = &t->stack[t->depth - 1];
	(void)name;
	if (ts < s->ts) {
		tp_stat_inc(tp, ST_MISPLACED_END_EVENT, 1);
		return -1;
	}
	s->dur = ts - s->ts;
	s->thread_dur = thread_ts != TP_NULL && s->thread_ts != TP_NULL ?
	    thread_ts - s->thread_ts : TP_NULL;
	if (t->depth > 1 && t->stack[t->depth - 2].end >= 0 &&
	    ts > t->stack[t->depth - 2].end)
		tp->overhang = 1;
	id = s->id;
	tp->last_end_start = s->ts;
	if (arg_set_out == NULL) {
		slice_pop(tp, track);
		return id;
	}
	/* Off the stack, its row waits for the end args; its set is stored
	 * before the next event's, as upstream stores it at the end. */
	if (s->arg_set_id == TP_NULL)
		s->arg_set_id = tp_arg_set_new(tp);
	tp_arg_set_close_soon(tp, s->arg_set_id);
	*arg_set_out = s->arg_set_id;
	e->s = *s;
	e->track = track;
	e->depth = --t->depth;
	e->parent_id = e->depth > 0 ? t->stack[e->depth - 1].id : TP_NULL;
	e->parent_stack = e->depth > 0 ? t->stack[e->depth - 1].stack_id : 0;
	return id;
}

/*
 * Ends the innermost open slice on the track with this category and name
 * (NULL matches any), as upstream's slice tracker ends slices.
 * Open slices above it lost their ends: they end here too, counted as
 * misplaced. No match (its begin predates the trace): nothing to end, and
 * *set (when asked for the ended slice's arg set) stays TP_NULL.
 */
int64_t
tp_slice_end_matching(struct tp *tp, int64_t track, int64_t ts,
    const char *cat, const char *name, int64_t thread_ts, int64_t *set)
{
	int64_t d = tp_slice_find_open(tp, track, cat, name);
	size_t i, above = 0;

	if (set != NULL)
		*set = TP_NULL;
	if (d < 0)
		return -1;
	for (i = (size_t)d + 1; i < tp->tracks[track].depth; i++)
		if (tp->tracks[track].stack[i].end < 0)
			above++;
	if (above > 0)
		tp_stat_inc(tp, ST_MISPLACED_END_EVENT, 1);
	/* Each call ends the innermost open slice. */
	for (; above > 0; above--)
		(void)tp_slice_end(tp, track, ts, NULL, TP_NULL, NULL);
	return tp_slice_end(tp, track, ts, name, thread_ts, set);
}

int64_t
tp_slice_top(struct tp *tp, int64_t track, int64_t ts, int64_t *start)
{
	struct tp_track *t;

	tp_slice_end_done(tp);
	if (track < 0)
		return -1;
	stack_unwind(tp, track, ts, -1);
	t = &tp->tracks[track];
	if (t->depth == 0)
		return -1;
	*start = t->stack[t->depth - 1].ts;
	return t->stack[t->depth - 1].id;
}

int64_t
tp_slice_find_open(struct tp *tp, int64_t track, const char *cat,
    const char *name)
{
	struct tp_track *t;
	size_t i;

	if (track < 0)
		return -1;
	t = &tp->tracks[track];
	for (i = t->depth; i > 0; i--) {
		struct tp_open_slice *s = &t->stack[i - 1];

		/* Complete slices are not ended by an end event. */
		if (s->end >= 0)
			continue;
		if ((cat == NULL || (s->cat != NULL &&
		    strcmp(s->cat, cat) == 0)) && (name == NULL ||
		    s->name == NULL || strcmp(s->name, name) == 0))
			return (int64_t)(i - 1);
	}
	return -1;
}

void
tp_slice_instr_start(struct tp *tp, int64_t track, int64_t count,
    int64_t delta)
{
	struct tp_track *t;

	if (track < 0 || count == TP_NULL || (t = &tp->tracks[track])->depth ==
	    0)
		return;
	t->stack[t->depth - 1].thread_ic = count;
	t->stack[t->depth - 1].thread_icd = delta;
}

void
tp_slice_instr_end(struct tp *tp, int64_t track, const char *cat,
    const char *name, int64_t count)
{
	struct tp_open_slice *s;
	int64_t d;

	if (count == TP_NULL || (d = tp_slice_find_open(tp, track, cat,
	    name)) < 0)
		return;
	s = &tp->tracks[track].stack[d];
	if (s->thread_ic != TP_NULL)
		s->thread_icd = count - s->thread_ic;
}

int64_t
tp_slice_open_args(struct tp *tp, int64_t track, const char *cat,
    const char *name)
{
	int64_t d;
	struct tp_open_slice *s;

	tp_slice_end_done(tp);
	if ((d = tp_slice_find_open(tp, track, cat, name)) < 0)
		return TP_NULL;
	s = &tp->tracks[track].stack[d];
	if (s->arg_set_id == TP_NULL)
		s->arg_set_id = tp_arg_set_new(tp);
	return s->arg_set_id;
}

void
tp_slices_close_all(struct tp *tp)
{
	uint32_t *keys;
	size_t *order = NULL, i, n = 0;

	tp_slice_end_done(tp);
	/* In the order of upstream's map of the tracks that had slices
	 * (an entry: the id and the track's stack). */
	if ((keys = calloc(tp->ntracks + 1, sizeof(*keys))) != NULL) {
		for (i = 0; i < tp->ntracks; i++)
			if (tp->tracks[i].cap > 0)
				keys[n++] = (uint32_t)i;
		order = tp_hashorder(keys, n, 1, 52);
	}
	for (i = 0; order != NULL && i < n; i++)
		while (tp->tracks[keys[order[i]]].depth > 0)
			slice_pop(tp, (int64_t)keys[order[i]]);
	/* Out of memory: in track order. */
	for (i = 0; i < tp->ntracks; i++)
		while (tp->tracks[i].depth > 0)
			slice_pop(tp, (int64_t)i);
	free(order);
	free(keys);
}

void
tp_slices_write_open(struct tp *tp)
{
	size_t i, d;

	tp_slice_end_done(tp);
	for (i = 0; i < tp->ntracks; i++) {
		struct tp_track *t = &tp->tracks[i];

		/* An open slice's row does not change until it leaves the
		 * stack (its args are shown then). */
		for (d = 0; d < t->depth; d++) {
			if (t->stack[d].shown)
				continue;
			slice_write_at(tp, (int64_t)i, d, 0);
			t->stack[d].shown = 1;
		}
	}
}

void
tp_tracks_free(struct tp *tp)
{
	size_t i;

	if (tp->ended.track >= 0) {
		tp_arg_set_drop(tp, tp->ended.s.arg_set_id);
		slice_free(&tp->ended.s);
		tp->ended.track = -1;
	}
	for (i = 0; i < tp->ntracks; i++) {
		struct tp_track *t = &tp->tracks[i];

		while (t->depth > 0) {
			tp_arg_set_drop(tp, t->stack[t->depth - 1].arg_set_id);
			slice_free(&t->stack[--t->depth]);
		}
		free(t->stack);
		free(t->name);
		free(t->unit);
		free(t->desc);
	}
	free(tp->tracks);
	tp->tracks = NULL;
	tp->ntracks = tp->captracks = 0;
	tp_hash_free(&tp->track_keys);
	tp_hash_free(&tp->flows);
	tp_hash_free(&tp->flow_ts);
	tp_flow_free(tp);
	tp_track_pools_free(tp);
}
