/*
 * TrackEvent: the "track_event" data source, category enabling per
 * session, and the packets each event becomes. The layout follows what
 * the upstream SDK writes, so the Perfetto UI and trace_processor read
 * it the same way:
 *
 *   sequence start (first packet, cleared state, lost packets):
 *     TracePacket { timestamp (BOOTTIME), timestamp_clock_id = BOOTTIME,
 *       sequence_flags = INCREMENTAL_STATE_CLEARED,
 *       first_packet_on_sequence, trace_packet_defaults {
 *         timestamp_clock_id = 64,
 *         track_event_defaults { track_uuid = this thread's track } },
 *       clock_snapshot { BOOTTIME = b, 64 = t, is_incremental } }
 *     TracePacket { track_descriptor { thread: pid, tid, name } }
 *     TracePacket { track_descriptor { process: pid, name } }
 *   custom track, first use on the sequence:
 *     TracePacket { track_descriptor { uuid, parent, name, [counter] } }
 *   each event:
 *     TracePacket { timestamp, sequence_flags = NEEDS_INCREMENTAL_STATE,
 *       interned_data { names, categories, annotation names new here },
 *       track_event { type, category_iids, name_iid, [track_uuid],
 *         debug_annotations, flow_ids, counter value } }
 *
 * Strings are interned by address, per sequence (writer). Timestamps
 * are deltas on clock 64, the event clock (clock.c) made incremental, as
 * the upstream SDK writes them; times the app gives (FARO_TIMESTAMP) are
 * written whole, on BOOTTIME. A session whose TrackEventConfig sets
 * disable_incremental_timestamps gets every time whole, on BOOTTIME (the
 * sequence's default clock then; no clock 64, no snapshot), as upstream.
 */
#include "config.h"

#include <sys/prctl.h>
#include <sys/syscall.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>
#include <unistd.h>

#include "protos/perfetto/config/track_event/track_event_config.pb-c.h"

#include "faro_int.h"
#include "base/log.h"

/* TracePacket */
#define TP_TIMESTAMP		8
#define TP_TRACK_EVENT		11
#define TP_INTERNED_DATA	12
#define TP_SEQUENCE_FLAGS	13
#define TP_DEFAULTS		59
#define TP_TRACK_DESCRIPTOR	60
#define TP_CLOCK_SNAPSHOT	6
#define TP_CLOCK_ID		58
#define CLOCK_INCREMENTAL_ID	64	/* sequence-scoped */
#define SEQ_CLEARED		1
#define SEQ_NEEDS		2
/* TracePacketDefaults */
#define TPD_CLOCK_ID		58
#define TPD_TE_DEFAULTS		11
#define CLOCK_BOOTTIME_ID	6
/* TrackDescriptor */
#define TD_UUID			1
#define TD_NAME			2
#define TD_PROCESS		3
#define TD_THREAD		4
#define TD_PARENT		5
#define TD_COUNTER		8
/* TrackEvent */
#define TE_CATEGORY_IIDS	3
#define TE_DEBUG		4
#define TE_TYPE			9
#define TE_NAME_IID		10
#define TE_TRACK_UUID		11
#define TE_NAME			23
#define TE_COUNTER_VALUE	30
#define TE_DOUBLE_COUNTER	44
#define TE_FLOW_IDS		47
#define TE_TERM_FLOW_IDS	48
/* DebugAnnotation */
#define DA_NAME_IID		1
#define DA_BOOL			2
#define DA_UINT			3
#define DA_INT			4
#define DA_DOUBLE		5
#define DA_STRING		6
#define DA_POINTER		7
#define DA_NAME			10
#define DA_DICT_ENTRIES		11
#define DA_ARRAY_VALUES		12
/* TrackEvent and its defaults: thread time */
#define TE_EXTRA_COUNTER_VALUES	12
#define TE_EXTRA_COUNTER_UUIDS	31
#define COUNTER_THREAD_TIME_NS	1

/* Interning kinds: InternedData field numbers. */
#define K_CATEGORY		1
#define K_NAME			2
#define K_DEBUG_NAME		3

#define MAX_NEW_INTERNED	16
#define MAX_DICT_DEPTH		6

static struct {
	struct faro_ds		 *ds;
	struct faro_te_category **cats;
	size_t			  ncats;
	Perfetto__Protos__TrackEventConfig *cfg[FARO_DS_MAX_INSTANCES];
	int			  started[FARO_DS_MAX_INSTANCES];
	int			  thread_time[FARO_DS_MAX_INSTANCES];
	int			  absolute[FARO_DS_MAX_INSTANCES];
} te;

/* Categories made at run time (faro_te_category_dynamic). */
struct dyn_cat {
	struct faro_te_category	 c;
	struct dyn_cat		*next;
};
static struct dyn_cat	*dyn_cats;
static pthread_mutex_t	 dyn_mtx = PTHREAD_MUTEX_INITIALIZER;

/* ---- tracks ---- */

static uint64_t
hash_str(const char *s, uint64_t h)
{
	for (h ^= 0xcbf29ce484222325ull; s != NULL && *s; s++)
		h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
	return h;
}

uint64_t
faro_process_track_uuid(void)
{
	return faro_g.process_uuid;
}

static uint64_t
thread_uuid(pid_t tid)
{
	return faro_g.process_uuid ^ (uint64_t)tid;
}

uint64_t
faro_thread_track_uuid(void)
{
	return thread_uuid((pid_t)syscall(SYS_gettid));
}

void
faro_track_init_uuid(struct faro_track *t, uint64_t uuid, const char *name,
    const struct faro_track *parent)
{
	memset(t, 0, sizeof(*t));
	t->uuid = uuid;
	t->name = name;
	t->parent_uuid = parent != NULL ? parent->uuid : 0;
}

void
faro_track_init(struct faro_track *t, const char *name,
    const struct faro_track *parent)
{
	faro_track_init_uuid(t, hash_str(name, faro_g.process_uuid ^
	    (parent ? parent->uuid : 0)), name, parent);
}

void
faro_counter_track_init(struct faro_track *t, const char *name,
    const char *unit_name)
{
	faro_track_init(t, name, NULL);
	t->uuid = hash_str("counter", t->uuid);
	t->is_counter = 1;
	t->unit_name = unit_name;
}

/* ---- the data source ---- */

static void
cats_apply(unsigned slot)
{
	for (size_t i = 0; i < te.ncats; i++) {
		struct faro_te_category *c = te.cats[i];

		if (te.started[slot] && te.cfg[slot] != NULL &&
		    te_category_enabled(te.cfg[slot], c->name, c->tags))
			atomic_fetch_or((_Atomic uint32_t *)&c->enabled,
			    1u << slot);
		else
			atomic_fetch_and((_Atomic uint32_t *)&c->enabled,
			    ~(1u << slot));
	}
}

static void *
te_on_setup(struct faro_ds *ds, unsigned slot,
    const struct faro_ds_config *dc, void *user)
{
	static const uint8_t empty[1];
	Perfetto__Protos__TrackEventConfig *c;

	c = perfetto__protos__track_event_config__unpack(NULL,
	    dc->track_event_config_len, dc->track_event_config ?
	    dc->track_event_config : empty);
	if (c == NULL)
		log_warnx("%s: bad track_event_config, defaults used",
		    __func__);
	pthread_mutex_lock(&faro_g.mtx);
	if (te.cfg[slot] != NULL)
		perfetto__protos__track_event_config__free_unpacked(
		    te.cfg[slot], NULL);
	te.cfg[slot] = c != NULL ? c :
	    perfetto__protos__track_event_config__unpack(NULL, 0, empty);
	te.thread_time[slot] = te.cfg[slot] != NULL &&
	    te.cfg[slot]->has_enable_thread_time_sampling &&
	    te.cfg[slot]->enable_thread_time_sampling;
	te.absolute[slot] = te.cfg[slot] != NULL &&
	    te.cfg[slot]->has_disable_incremental_timestamps &&
	    te.cfg[slot]->disable_incremental_timestamps;
	pthread_mutex_unlock(&faro_g.mtx);
	return NULL;
}

static void
te_on_start(struct faro_ds *ds, unsigned slot, void *data, void *user)
{
	pthread_mutex_lock(&faro_g.mtx);
	te.started[slot] = 1;
	cats_apply(slot);
	pthread_mutex_unlock(&faro_g.mtx);
}

static void
te_on_destroy(struct faro_ds *ds, unsigned slot, void *data, void *user)
{
	pthread_mutex_lock(&faro_g.mtx);
	te.started[slot] = 0;
	cats_apply(slot);
	if (te.cfg[slot] != NULL)
		perfetto__protos__track_event_config__free_unpacked(
		    te.cfg[slot], NULL);
	te.cfg[slot] = NULL;
	pthread_mutex_unlock(&faro_g.mtx);
}

/* Stops writing at once: categories off before the writers go. */
static int
te_on_stop(struct faro_ds *ds, unsigned slot, void *data, void *user)
{
	pthread_mutex_lock(&faro_g.mtx);
	te.started[slot] = 0;
	cats_apply(slot);
	pthread_mutex_unlock(&faro_g.mtx);
	return FARO_DS_STOP_DONE;
}

int
faro_te_register(struct faro_te_category *const *cats, size_t n)
{
	struct faro_ds_args a;
	struct faro_te_category **nc;
	const char *cause;

	if (!atomic_load(&faro_g.up))
		return -1;
	if (te.ds == NULL) {
		memset(&a, 0, sizeof(a));
		a.struct_size = sizeof(a);
		a.policy = FARO_POLICY_DROP;
		a.handles_incremental_state_clear = 1;
		a.on_setup = te_on_setup;
		a.on_start = te_on_start;
		a.on_stop = te_on_stop;
		a.on_destroy = te_on_destroy;
		if ((te.ds = faro_ds_register("track_event", &a, &cause)) ==
		    NULL) {
			log_warnx("%s: %s", __func__, cause);
			return -1;
		}
	}
	pthread_mutex_lock(&faro_g.mtx);
	if ((nc = reallocarray(te.cats, te.ncats + n, sizeof(*nc))) == NULL) {
		pthread_mutex_unlock(&faro_g.mtx);
		return -1;
	}
	te.cats = nc;
	for (size_t i = 0; i < n; i++) {
		cats[i]->index = (uint32_t)te.ncats;
		te.cats[te.ncats++] = cats[i];
	}
	/* Sessions already running see the new categories too. */
	for (unsigned s = 0; s < FARO_DS_MAX_INSTANCES; s++)
		cats_apply(s);
	pthread_mutex_unlock(&faro_g.mtx);
	return 0;
}

struct faro_te_category *
faro_te_category_dynamic(const char *name)
{
	struct faro_te_category *c;
	struct dyn_cat *d;

	if (name == NULL || !atomic_load(&faro_g.up))
		return NULL;
	pthread_mutex_lock(&dyn_mtx);
	for (d = dyn_cats; d != NULL; d = d->next)
		if (strcmp(d->c.name, name) == 0)
			break;
	if (d == NULL && (d = calloc(1, sizeof(*d))) != NULL) {
		c = &d->c;
		if ((c->name = strdup(name)) == NULL ||
		    faro_te_register(&c, 1) == -1) {
			free((char *)c->name);
			free(d);
			d = NULL;
		} else {
			d->next = dyn_cats;
			dyn_cats = d;
		}
	}
	pthread_mutex_unlock(&dyn_mtx);
	return d != NULL ? &d->c : NULL;
}

void
faro_thread_track_name(const char *name)
{
	struct faro_tls *t;

	if ((t = faro_tls_get()) == NULL)
		return;
	faro_tls_enter(t);
	snprintf(t->track_name, sizeof(t->track_name), "%s",
	    name != NULL ? name : "");
	t->name_gen++;
	faro_tls_leave(t);
}

void
te_free_all(void)
{
	struct dyn_cat *d;

	for (unsigned s = 0; s < FARO_DS_MAX_INSTANCES; s++) {
		if (te.cfg[s] != NULL)
			perfetto__protos__track_event_config__free_unpacked(
			    te.cfg[s], NULL);
		te.cfg[s] = NULL;
		te.started[s] = 0;
	}
	for (size_t i = 0; i < te.ncats; i++)
		te.cats[i]->enabled = 0;
	free(te.cats);
	te.cats = NULL;
	te.ncats = 0;
	te.ds = NULL;
	pthread_mutex_lock(&dyn_mtx);
	while ((d = dyn_cats) != NULL) {
		dyn_cats = d->next;
		free((char *)d->c.name);
		free(d);
	}
	pthread_mutex_unlock(&dyn_mtx);
}

/* ---- sequence state ---- */

void
te_seq_clear(struct te_seq *s)
{
	memset(s, 0, sizeof(*s));
}

/*
 * The slot holding (kind, key), or the empty one where it would go (there
 * always is one: TE_INTERN_MAX < TE_INTERN_SLOTS).
 */
static struct te_intern_ent *
intern_slot(struct te_seq *s, uint32_t kind, const void *key)
{
	uint64_t h = ((uint64_t)(uintptr_t)key ^ kind) * 0x9e3779b97f4a7c15ull;
	unsigned i = (unsigned)(h >> 54) & (TE_INTERN_SLOTS - 1);

	for (;; i = (i + 1) & (TE_INTERN_SLOTS - 1)) {
		struct te_intern_ent *e = &s->tab[i];

		if ((e->key == key && e->kind == kind) || e->key == NULL)
			return e;
	}
}

/* iid of (kind, key); *isnew when assigned now. 0 when the table is full. */
static uint32_t
intern(struct te_seq *s, uint32_t kind, const void *key, int *isnew)
{
	struct te_intern_ent *e = intern_slot(s, kind, key);

	*isnew = 0;
	if (e->key == key && e->kind == kind)
		return e->iid;
	if (s->used >= TE_INTERN_MAX)
		return 0;
	s->used++;
	e->key = key;
	e->kind = kind;
	e->iid = ++s->next_iid[kind];
	*isnew = 1;
	return e->iid;
}

/* What emit learned from the extras, once for every instance. */
struct ev {
	struct faro_te_category		*cat;
	int				 type;
	const char			*name;
	const struct faro_te_arg	*args;	/* NULL: no extras */
	const struct faro_track		*track;
	uint64_t			 ts;
	int				 ts_given;	/* ts is BOOTTIME (the app's) */
	uint64_t			 boot;		/* BOOTTIME read, 0: not yet */
	int				 dyn;		/* name not interned */
	int				 is_double;
	int64_t				 iv;
	double				 dv;
};

/*
 * A packet's time: a delta on the sequence's clock, or a BOOTTIME one
 * whole (the sequence's default clock in absolute sessions).
 */
static void
write_ts(struct faro_ds_ctx *w, struct pbw *p, uint64_t ts, int given)
{
	struct te_seq *s = w->te;

	if (given) {
		pbw_varint(p, TP_TIMESTAMP, ts);
		if (!te.absolute[w->slot])
			pbw_varint(p, TP_CLOCK_ID, CLOCK_BOOTTIME_ID);
		return;
	}
	if (ts < s->last_ts)
		ts = s->last_ts;	/* clock.c switching to the TSC */
	pbw_varint(p, TP_TIMESTAMP, ts - s->last_ts);
	s->last_ts = ts;
}

static void
write_track_descriptor(struct faro_ds_ctx *w, const struct faro_track *t,
    const struct ev *e)
{
	struct pbw *p = shm_writer_packet_begin(w->sw);

	write_ts(w, p, e->ts, e->ts_given);
	pbw_nested_begin(p, TP_TRACK_DESCRIPTOR);
	pbw_varint(p, TD_UUID, t->uuid);
	pbw_varint(p, TD_PARENT, t->parent_uuid ? t->parent_uuid :
	    faro_g.process_uuid);
	if (t->name != NULL)
		pbw_string(p, TD_NAME, t->name);
	if (t->is_counter) {
		pbw_nested_begin(p, TD_COUNTER);
		if (t->unit_name != NULL)
			pbw_string(p, 6, t->unit_name);	/* unit_name */
		pbw_nested_end(p);
	}
	pbw_nested_end(p);
	shm_writer_packet_end(w->sw);
}

static int
track_seen(const struct te_seq *s, uint64_t uuid)
{
	for (unsigned i = 0; i < s->nseen; i++)
		if (s->seen[i] == uuid)
			return 1;
	return 0;
}

static void
track_used(struct faro_ds_ctx *w, const struct faro_track *t,
    const struct ev *e)
{
	struct te_seq *s = w->te;

	if (track_seen(s, t->uuid))
		return;
	if (s->nseen < TE_SEEN_TRACKS)
		s->seen[s->nseen++] = t->uuid;
	write_track_descriptor(w, t, e);
}

/*
 * Starts the sequence over: defaults, the clock snapshot that maps the
 * event clock to BOOTTIME, thread and process descriptors.
 */
static uint64_t
thread_time_uuid(pid_t tid)
{
	return hash_str("thread_time", thread_uuid(tid));
}

/*
 * The thread's track. A name the app gave (faro_thread_track_name) names
 * the track and the thread in the trace (what the UI shows), not the
 * thread itself.
 */
static void
write_thread_descriptor(struct faro_ds_ctx *w, uint64_t ts, int given)
{
	struct faro_tls *tl = w->tls;
	struct pbw *p = shm_writer_packet_begin(w->sw);
	char name[17];

	w->name_gen = tl->name_gen;
	write_ts(w, p, ts, given);
	pbw_nested_begin(p, TP_TRACK_DESCRIPTOR);
	pbw_varint(p, TD_UUID, thread_uuid(tl->tid));
	pbw_varint(p, TD_PARENT, faro_g.process_uuid);
	if (tl->track_name[0] != '\0')
		pbw_string(p, TD_NAME, tl->track_name);
	pbw_nested_begin(p, TD_THREAD);
	pbw_int32(p, 1, faro_g.pid);			/* pid */
	pbw_int32(p, 2, tl->tid);			/* tid */
	memset(name, 0, sizeof(name));
	if (tl->track_name[0] != '\0')
		pbw_string(p, 5, tl->track_name);	/* thread_name */
	else if (prctl(PR_GET_NAME, name) == 0 && name[0] != '\0')
		pbw_string(p, 5, name);
	pbw_nested_end(p);
	pbw_nested_end(p);
	shm_writer_packet_end(w->sw);
}

/* The thread's CPU time, incremental, as the upstream SDK describes it. */
static void
write_thread_time_descriptor(struct faro_ds_ctx *w, uint64_t ts, int given)
{
	struct pbw *p = shm_writer_packet_begin(w->sw);

	write_ts(w, p, ts, given);
	pbw_nested_begin(p, TP_TRACK_DESCRIPTOR);
	pbw_varint(p, TD_UUID, thread_time_uuid(w->tls->tid));
	pbw_varint(p, TD_PARENT, thread_uuid(w->tls->tid));
	pbw_string(p, TD_NAME, "thread_time");
	pbw_nested_begin(p, TD_COUNTER);
	pbw_varint(p, 1, COUNTER_THREAD_TIME_NS);	/* type */
	pbw_bool(p, 5, 1);				/* is_incremental */
	pbw_nested_end(p);
	pbw_nested_end(p);
	shm_writer_packet_end(w->sw);
}

static int64_t
thread_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == -1)
		return 0;
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The tracks every sequence describes first: its thread's, the process. */
static void
seq_descriptors(struct faro_ds_ctx *w, uint64_t ts, int given)
{
	struct pbw *p;

	write_thread_descriptor(w, ts, given);
	if (te.thread_time[w->slot])
		write_thread_time_descriptor(w, ts, given);
	p = shm_writer_packet_begin(w->sw);
	write_ts(w, p, ts, given);
	pbw_nested_begin(p, TP_TRACK_DESCRIPTOR);
	pbw_varint(p, TD_UUID, faro_g.process_uuid);
	pbw_nested_begin(p, TD_PROCESS);
	pbw_int32(p, 1, faro_g.pid);
	pbw_string(p, 6, faro_g.process_name);		/* process_name */
	pbw_nested_end(p);
	pbw_nested_end(p);
	shm_writer_packet_end(w->sw);
}

static void
seq_start(struct faro_ds_ctx *w, struct pbw *p, const struct ev *e)
{
	pid_t tid = w->tls->tid;
	uint64_t now, boot, t;
	int abs = te.absolute[w->slot];

	now = faro_clock_now();
	boot = faro_now_ns();
	/* The snapshot is taken at the event's own time when it has one. */
	t = !e->ts_given && e->ts <= now ? e->ts : now;
	boot -= now - t;
	if (abs)
		boot = e->ts;	/* BOOTTIME already (write_event) */
	te_seq_clear(w->te);
	w->reset = 0;
	w->te->last_ts = t;
	pbw_varint(p, TP_TIMESTAMP, boot);
	pbw_varint(p, TP_CLOCK_ID, CLOCK_BOOTTIME_ID);
	pbw_varint(p, TP_SEQUENCE_FLAGS, SEQ_CLEARED);
	pbw_nested_begin(p, TP_DEFAULTS);
	pbw_varint(p, TPD_CLOCK_ID, abs ? CLOCK_BOOTTIME_ID :
	    CLOCK_INCREMENTAL_ID);
	pbw_nested_begin(p, TPD_TE_DEFAULTS);
	pbw_varint(p, 11, thread_uuid(tid));		/* track_uuid */
	if (te.thread_time[w->slot])
		pbw_varint(p, TE_EXTRA_COUNTER_UUIDS, thread_time_uuid(tid));
	pbw_nested_end(p);
	pbw_nested_end(p);
	if (abs) {
		/* Times are BOOTTIME already: nothing to map. */
		shm_writer_packet_end(w->sw);
		seq_descriptors(w, boot, 1);
		return;
	}
	pbw_nested_begin(p, TP_CLOCK_SNAPSHOT);
	pbw_nested_begin(p, 1);				/* clocks */
	pbw_varint(p, 1, CLOCK_BOOTTIME_ID);		/* clock_id */
	pbw_varint(p, 2, boot);				/* timestamp */
	pbw_nested_end(p);
	pbw_nested_begin(p, 1);
	pbw_varint(p, 1, CLOCK_INCREMENTAL_ID);
	pbw_varint(p, 2, t);
	pbw_bool(p, 3, 1);				/* is_incremental */
	pbw_nested_end(p);
	pbw_nested_end(p);
	shm_writer_packet_end(w->sw);
	/* trace_processor reads nothing else of a packet with a snapshot. */
	seq_descriptors(w, t, 0);
}

static void
event_preamble(struct faro_ds_ctx *w, const struct ev *e, int dropped)
{
	struct pbw *p;

	if (w->first || dropped || w->reset ||
	    w->te->used >= TE_INTERN_MAX - MAX_NEW_INTERNED) {
		p = shm_writer_packet_begin(w->sw);
		if (w->first)
			pbw_bool(p, 87, 1);	/* first_packet_on_sequence */
		if (dropped)
			pbw_varint(p, 42, 1);	/* previous_packet_dropped */
		w->first = 0;
		seq_start(w, p, e);
	} else if (w->name_gen != w->tls->name_gen)
		write_thread_descriptor(w, e->ts, e->ts_given);
	if (e->track != NULL)
		track_used(w, e->track, e);
}

/*
 * Before an event, when the sequence must start over (first packet,
 * cleared state, packets lost, interning table full) or the event's
 * custom track is new here. -1: no memory; 1: the SMB is still exhausted
 * and this preamble was lost, so the event is dropped (counted once, as
 * the app's packet) and the next one starts the sequence over again. The
 * preamble itself is libfaro's, not the app's: it is not counted in
 * dropped_packets.
 */
static int
event_prepare(struct faro_ds_ctx *w, const struct ev *e, int dropped)
{
	uint64_t lost;
	int rc = 0;

	if (w->te == NULL && (w->te = calloc(1, sizeof(*w->te))) == NULL)
		return -1;
	lost = shm_writer_overhead_lost(w->sw);
	shm_writer_overhead(w->sw, 1);
	event_preamble(w, e, dropped);
	shm_writer_overhead(w->sw, 0);
	if (shm_writer_overhead_lost(w->sw) != lost) {
		w->reset = 1;
		shm_writer_count_lost(w->sw);
		rc = 1;
	}
	return rc;
}

/* Lookup only: an iid already sent on this sequence, or 0. */
static uint32_t
intern_find(struct te_seq *s, uint32_t kind, const void *key)
{
	struct te_intern_ent *e = intern_slot(s, kind, key);

	return e->key == key && e->kind == kind ? e->iid : 0;
}

struct new_iid {
	uint32_t	 kind, iid;
	const char	*s;
};

static void
write_interned(struct pbw *p, const struct new_iid *n, size_t nn)
{
	if (nn == 0)
		return;
	pbw_nested_begin(p, TP_INTERNED_DATA);
	for (size_t i = 0; i < nn; i++) {
		pbw_nested_begin(p, n[i].kind);
		pbw_varint(p, 1, n[i].iid);
		pbw_string(p, 2, n[i].s);
		pbw_nested_end(p);
	}
	pbw_nested_end(p);
}

static void
write_value(struct pbw *p, const struct faro_te_arg *a)
{
	switch (a->kind) {
	case FARO_TA_BOOL:
		pbw_bool(p, DA_BOOL, a->v.i != 0);
		break;
	case FARO_TA_INT:
		pbw_int64(p, DA_INT, a->v.i);
		break;
	case FARO_TA_UINT:
		pbw_varint(p, DA_UINT, a->v.u);
		break;
	case FARO_TA_DOUBLE:
		pbw_double(p, DA_DOUBLE, a->v.d);
		break;
	case FARO_TA_STRING:
		pbw_string(p, DA_STRING, a->v.s ? a->v.s : "(null)");
		break;
	case FARO_TA_PTR:
		pbw_varint(p, DA_POINTER, (uint64_t)(uintptr_t)a->v.p);
		break;
	}
}

static int
arg_opens(int kind)
{
	return kind == FARO_TA_DICT_BEGIN || kind == FARO_TA_ARRAY_BEGIN;
}

static int
arg_closes(int kind)
{
	return kind == FARO_TA_DICT_END || kind == FARO_TA_ARRAY_END;
}

/* The extra closing the container a opens (or the list's end). */
static const struct faro_te_arg *
arg_skip(const struct faro_te_arg *a)
{
	int depth = 0;

	for (; a->kind; a++) {
		if (arg_opens(a->kind))
			depth++;
		else if (arg_closes(a->kind) && --depth == 0)
			return a;
	}
	return a - 1;
}

/* Interns the top-level annotation names; new ones go to nw. */
static size_t
intern_arg_names(struct te_seq *s, const struct faro_te_arg *args,
    struct new_iid *nw, size_t nn)
{
	uint32_t iid;
	int isnew;

	for (const struct faro_te_arg *a = args; a->kind; a++) {
		if (a->kind > FARO_TA_DICT_BEGIN && a->kind != FARO_TA_ARRAY_BEGIN)
			continue;
		if (a->name != NULL && nn < MAX_NEW_INTERNED) {
			iid = intern(s, K_DEBUG_NAME, a->name, &isnew);
			if (isnew)
				nw[nn++] = (struct new_iid){ K_DEBUG_NAME, iid,
				    a->name };
		}
		if (arg_opens(a->kind))
			a = arg_skip(a);
	}
	return nn;
}

/*
 * Flow ids and debug annotations, in the order given. open[] says what
 * each open level is (1: an array, whose elements have no names). A
 * nameless annotation where a name is needed, and a container past
 * MAX_DICT_DEPTH, are left out with what they hold.
 */
static void
write_extras(struct faro_ds_ctx *w, struct pbw *p,
    const struct faro_te_arg *args)
{
	int open[MAX_DICT_DEPTH], depth = 0;
	uint32_t iid;

	for (const struct faro_te_arg *a = args; a->kind; a++) {
		switch (a->kind) {
		case FARO_TA_FLOW:
			pbw_fixed64(p, TE_FLOW_IDS, a->v.u);
			continue;
		case FARO_TA_TERMINATING_FLOW:
			pbw_fixed64(p, TE_TERM_FLOW_IDS, a->v.u);
			continue;
		case FARO_TA_DICT_END:
		case FARO_TA_ARRAY_END:
			if (depth > 0) {
				pbw_nested_end(p);
				depth--;
			}
			continue;
		case FARO_TA_TRACK:
		case FARO_TA_TIMESTAMP:
		case FARO_TA_DYNAMIC_NAME:
			continue;
		}
		if ((a->name == NULL && (depth == 0 || !open[depth - 1])) ||
		    (arg_opens(a->kind) && depth >= MAX_DICT_DEPTH)) {
			if (arg_opens(a->kind))
				a = arg_skip(a);
			continue;
		}
		if (depth == 0) {
			pbw_nested_begin(p, TE_DEBUG);
			if ((iid = intern_find(w->te, K_DEBUG_NAME,
			    a->name)) != 0)
				pbw_varint(p, DA_NAME_IID, iid);
			else
				pbw_string(p, DA_NAME, a->name);
		} else if (open[depth - 1])
			pbw_nested_begin(p, DA_ARRAY_VALUES);
		else {
			pbw_nested_begin(p, DA_DICT_ENTRIES);
			pbw_string(p, DA_NAME, a->name);
		}
		if (arg_opens(a->kind)) {
			open[depth++] = a->kind == FARO_TA_ARRAY_BEGIN;
			continue;	/* closed by its END */
		}
		write_value(p, a);
		pbw_nested_end(p);
	}
	while (depth-- > 0)
		pbw_nested_end(p);
}

/*
 * An event with nothing new to intern and no extras, encoded here whole
 * and copied into the chunk at once (track_event's length in one byte).
 * Every field is a varint but a double counter: under 100 bytes.
 */
static void
write_small(struct faro_ds_ctx *w, const struct ev *e, uint32_t cat_iid,
    uint32_t name_iid)
{
	struct te_seq *s = w->te;
	uint8_t b[112], *q = b, *len, *body;
	uint64_t d;

	q = pbw_put_varint(q, pbw_tag(TP_TIMESTAMP, PBW_WT_VARINT));
	if (e->ts_given) {
		q = pbw_put_varint(q, e->ts);
		if (!te.absolute[w->slot]) {
			q = pbw_put_varint(q, pbw_tag(TP_CLOCK_ID,
			    PBW_WT_VARINT));
			*q++ = CLOCK_BOOTTIME_ID;
		}
	} else {
		d = e->ts > s->last_ts ? e->ts - s->last_ts : 0;
		q = pbw_put_varint(q, d);
		s->last_ts += d;
	}
	*q++ = pbw_tag(TP_SEQUENCE_FLAGS, PBW_WT_VARINT);
	*q++ = SEQ_NEEDS;
	*q++ = pbw_tag(TP_TRACK_EVENT, PBW_WT_BYTES);
	len = q++;
	body = q;
	q = pbw_put_varint(q, pbw_tag(TE_TYPE, PBW_WT_VARINT));
	*q++ = (uint8_t)e->type;
	if (cat_iid != 0) {
		*q++ = pbw_tag(TE_CATEGORY_IIDS, PBW_WT_VARINT);
		q = pbw_put_varint(q, cat_iid);
	}
	if (name_iid != 0) {
		*q++ = pbw_tag(TE_NAME_IID, PBW_WT_VARINT);
		q = pbw_put_varint(q, name_iid);
	}
	if (e->track != NULL) {
		*q++ = pbw_tag(TE_TRACK_UUID, PBW_WT_VARINT);
		q = pbw_put_varint(q, e->track->uuid);
	}
	if (e->type == FARO_TE_TYPE_COUNTER && e->is_double) {
		q = pbw_put_varint(q, pbw_tag(TE_DOUBLE_COUNTER,
		    PBW_WT_FIXED64));
		memcpy(q, &e->dv, 8);
		q += 8;
	} else if (e->type == FARO_TE_TYPE_COUNTER) {
		q = pbw_put_varint(q, pbw_tag(TE_COUNTER_VALUE,
		    PBW_WT_VARINT));
		q = pbw_put_varint(q, (uint64_t)e->iv);
	}
	if (te.thread_time[w->slot] && e->track == NULL) {
		int64_t cpu = thread_cpu_ns();

		*q++ = pbw_tag(TE_EXTRA_COUNTER_VALUES, PBW_WT_VARINT);
		q = pbw_put_varint(q, (uint64_t)(cpu - s->last_cpu_ns));
		s->last_cpu_ns = cpu;
	}
	*len = (uint8_t)(q - body);	/* < 128: a one-byte varint */
	shm_writer_packet_copy(w->sw, b, (size_t)(q - b));
}

static void	write_event_at(struct faro_ds_ctx *, const struct ev *);

/*
 * Writes one event for instance w. An absolute session takes the event at
 * BOOTTIME, read once per event when the event clock is the TSC.
 */
static void
write_event(struct faro_ds_ctx *w, struct ev *e)
{
	struct ev a;

	if (__builtin_expect(!te.absolute[w->slot] || e->ts_given, 1)) {
		write_event_at(w, e);
		return;
	}
	if (e->boot == 0)
		e->boot = atomic_load_explicit(&faro_clk.tsc,
		    memory_order_relaxed) ? faro_now_ns() : e->ts;
	a = *e;
	a.ts = e->boot;
	a.ts_given = 1;
	write_event_at(w, &a);
}

static void
write_event_at(struct faro_ds_ctx *w, const struct ev *e)
{
	struct new_iid nw[MAX_NEW_INTERNED];
	struct te_seq *s = w->te;
	uint32_t cat_iid = 0, name_iid = 0;
	size_t nn = 0;
	int isnew, dropped;
	struct pbw *p;

	dropped = shm_writer_take_dropped(w->sw);
	if (__builtin_expect(s == NULL || w->first || w->reset || dropped ||
	    s->used >= TE_INTERN_MAX - MAX_NEW_INTERNED ||
	    w->name_gen != w->tls->name_gen ||
	    (e->track != NULL && !track_seen(s, e->track->uuid)), 0)) {
		if (event_prepare(w, e, dropped) != 0)
			return;
		s = w->te;
	}
	if (e->type != FARO_TE_TYPE_END) {
		cat_iid = intern(s, K_CATEGORY, e->cat, &isnew);
		if (isnew)
			nw[nn++] = (struct new_iid){ K_CATEGORY, cat_iid,
			    e->cat->name };
		if (e->name != NULL && !e->dyn) {
			name_iid = intern(s, K_NAME, e->name, &isnew);
			if (isnew)
				nw[nn++] = (struct new_iid){ K_NAME, name_iid,
				    e->name };
		}
	}
	if (nn == 0 && e->args == NULL && (e->type == FARO_TE_TYPE_END ||
	    (cat_iid != 0 && (e->name == NULL || name_iid != 0)))) {
		write_small(w, e, cat_iid, name_iid);
		return;
	}
	p = shm_writer_packet_begin(w->sw);
	write_ts(w, p, e->ts, e->ts_given);
	pbw_varint(p, TP_SEQUENCE_FLAGS, SEQ_NEEDS);
	/* Annotation names first, so interned_data precedes track_event. */
	if (e->args != NULL)
		nn = intern_arg_names(s, e->args, nw, nn);
	write_interned(p, nw, nn);
	pbw_nested_begin(p, TP_TRACK_EVENT);
	pbw_varint(p, TE_TYPE, (uint64_t)e->type);
	if (cat_iid != 0)
		pbw_varint(p, TE_CATEGORY_IIDS, cat_iid);
	else if (e->type != FARO_TE_TYPE_END)
		pbw_string(p, 22, e->cat->name);	/* categories */
	if (e->name != NULL && e->type != FARO_TE_TYPE_END) {
		if (name_iid != 0)
			pbw_varint(p, TE_NAME_IID, name_iid);
		else
			pbw_string(p, TE_NAME, e->name);
	}
	if (e->track != NULL)
		pbw_varint(p, TE_TRACK_UUID, e->track->uuid);
	if (e->type == FARO_TE_TYPE_COUNTER) {
		if (e->is_double)
			pbw_double(p, TE_DOUBLE_COUNTER, e->dv);
		else
			pbw_int64(p, TE_COUNTER_VALUE, e->iv);
	}
	if (te.thread_time[w->slot] && e->track == NULL) {
		int64_t cpu = thread_cpu_ns();

		pbw_int64(p, TE_EXTRA_COUNTER_VALUES, cpu - s->last_cpu_ns);
		s->last_cpu_ns = cpu;
	}
	if (e->args != NULL)
		write_extras(w, p, e->args);
	pbw_nested_end(p);
	shm_writer_packet_end(w->sw);
}

static void
emit(struct ev *e)
{
	struct faro_tls *t;
	struct faro_ds_ctx *w;
	uint32_t mask;

	if (e->args != NULL && e->args->kind == FARO_TA_END_)
		e->args = NULL;
	for (const struct faro_te_arg *a = e->args; a && a->kind; a++)
		switch (a->kind) {
		case FARO_TA_TIMESTAMP:
			e->ts = a->v.u;
			e->ts_given = e->ts != 0;
			break;
		case FARO_TA_TRACK:
			if (a->v.t != NULL && e->track == NULL)
				e->track = a->v.t;
			break;
		case FARO_TA_DYNAMIC_NAME:
			e->dyn = 1;
			break;
		}
	if (!e->ts_given)
		e->ts = faro_clock_now();
	if (te.ds == NULL || (t = faro_tls_get()) == NULL)
		return;
	faro_tls_enter(t);
	mask = atomic_load_explicit((_Atomic uint32_t *)&e->cat->enabled,
	    memory_order_relaxed);
	for (unsigned i = 0; mask != 0; i++, mask >>= 1)
		if ((mask & 1) && (w = faro_ds_writer(t, te.ds, i)) != NULL)
			write_event(w, e);
	faro_tls_leave(t);
}

void
faro_te_emit(struct faro_te_category *cat, int type, const char *name,
    const struct faro_te_arg *args)
{
	struct ev e = { .cat = cat, .type = type, .name = name, .args = args };

	emit(&e);
}

void
faro_te_counter(struct faro_te_category *cat, const struct faro_track *track,
    int is_double, int64_t iv, double dv)
{
	struct ev e = { .cat = cat, .type = FARO_TE_TYPE_COUNTER,
	    .track = track, .is_double = is_double, .iv = iv, .dv = dv };

	if (track == NULL)
		return;
	emit(&e);
}
