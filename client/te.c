/*
 * TrackEvent: the "track_event" data source, category enabling per
 * session, and the packets each event becomes. The layout follows what
 * the upstream SDK writes, so the Perfetto UI and trace_processor read
 * it the same way:
 *
 *   sequence start (first packet, cleared state, lost packets):
 *     TracePacket { timestamp, sequence_flags = INCREMENTAL_STATE_CLEARED,
 *       first_packet_on_sequence, trace_packet_defaults {
 *         timestamp_clock_id = BOOTTIME,
 *         track_event_defaults { track_uuid = this thread's track } },
 *       track_descriptor { thread: pid, tid, name } }
 *     TracePacket { track_descriptor { process: pid, name } }
 *   custom track, first use on the sequence:
 *     TracePacket { track_descriptor { uuid, parent, name, [counter] } }
 *   each event:
 *     TracePacket { timestamp, sequence_flags = NEEDS_INCREMENTAL_STATE,
 *       interned_data { names, categories, annotation names new here },
 *       track_event { type, category_iids, name_iid, [track_uuid],
 *         debug_annotations, flow_ids, counter value } }
 *
 * Strings are interned by address, per sequence (writer).
 */
#include "config.h"

#include <sys/prctl.h>
#include <sys/syscall.h>

#include <pthread.h>
#include <stdlib.h>
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
} te;

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

void
te_free_all(void)
{
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

static void
write_track_descriptor(struct faro_ds_ctx *w, const struct faro_track *t,
    uint64_t ts)
{
	struct pbw *p = shm_writer_packet_begin(w->sw);

	pbw_varint(p, TP_TIMESTAMP, ts);
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

static void
track_used(struct faro_ds_ctx *w, const struct faro_track *t, uint64_t ts)
{
	struct te_seq *s = w->te;

	for (unsigned i = 0; i < s->nseen; i++)
		if (s->seen[i] == t->uuid)
			return;
	if (s->nseen < TE_SEEN_TRACKS)
		s->seen[s->nseen++] = t->uuid;
	write_track_descriptor(w, t, ts);
}

/* Starts the sequence over: defaults, thread and process descriptors. */
static void
seq_start(struct faro_ds_ctx *w, struct pbw *p, uint64_t ts)
{
	char name[17];
	pid_t tid = w->tls->tid;

	te_seq_clear(w->te);
	w->reset = 0;
	pbw_varint(p, TP_TIMESTAMP, ts);
	pbw_varint(p, TP_SEQUENCE_FLAGS, SEQ_CLEARED);
	pbw_nested_begin(p, TP_DEFAULTS);
	pbw_varint(p, TPD_CLOCK_ID, CLOCK_BOOTTIME_ID);
	pbw_nested_begin(p, TPD_TE_DEFAULTS);
	pbw_varint(p, 11, thread_uuid(tid));		/* track_uuid */
	pbw_nested_end(p);
	pbw_nested_end(p);
	pbw_nested_begin(p, TP_TRACK_DESCRIPTOR);
	pbw_varint(p, TD_UUID, thread_uuid(tid));
	pbw_varint(p, TD_PARENT, faro_g.process_uuid);
	pbw_nested_begin(p, TD_THREAD);
	pbw_int32(p, 1, faro_g.pid);			/* pid */
	pbw_int32(p, 2, tid);				/* tid */
	memset(name, 0, sizeof(name));
	if (prctl(PR_GET_NAME, name) == 0 && name[0] != '\0')
		pbw_string(p, 5, name);			/* thread_name */
	pbw_nested_end(p);
	pbw_nested_end(p);
	shm_writer_packet_end(w->sw);

	p = shm_writer_packet_begin(w->sw);
	pbw_varint(p, TP_TIMESTAMP, ts);
	pbw_nested_begin(p, TP_TRACK_DESCRIPTOR);
	pbw_varint(p, TD_UUID, faro_g.process_uuid);
	pbw_nested_begin(p, TD_PROCESS);
	pbw_int32(p, 1, faro_g.pid);
	pbw_string(p, 6, faro_g.process_name);		/* process_name */
	pbw_nested_end(p);
	pbw_nested_end(p);
	shm_writer_packet_end(w->sw);
}

static void	event_preamble(struct faro_ds_ctx *, const struct faro_track *,
		    uint64_t);

/*
 * Before an event: start the sequence over if needed (first packet,
 * cleared state, packets lost, interning table full), then describe the
 * event's custom track if this sequence has not yet. -1: no memory; 1:
 * the SMB is still exhausted and this preamble was lost, so the event is
 * dropped (counted once, as the app's packet) and the next one starts the
 * sequence over again. The preamble itself is libfaro's, not the app's:
 * it is not counted in dropped_packets.
 */
static int
event_prepare(struct faro_ds_ctx *w, const struct faro_track *track,
    uint64_t ts)
{
	uint64_t lost;
	int rc = 0;

	if (w->te == NULL && (w->te = calloc(1, sizeof(*w->te))) == NULL)
		return -1;
	lost = shm_writer_overhead_lost(w->sw);
	shm_writer_overhead(w->sw, 1);
	event_preamble(w, track, ts);
	shm_writer_overhead(w->sw, 0);
	if (shm_writer_overhead_lost(w->sw) != lost) {
		w->reset = 1;
		shm_writer_count_lost(w->sw);
		rc = 1;
	}
	return rc;
}

static void
event_preamble(struct faro_ds_ctx *w, const struct faro_track *track,
    uint64_t ts)
{
	struct pbw *p;
	int dropped;

	dropped = shm_writer_take_dropped(w->sw);
	if (w->first || dropped || w->reset ||
	    w->te->used >= TE_INTERN_MAX - MAX_NEW_INTERNED) {
		p = shm_writer_packet_begin(w->sw);
		if (w->first)
			pbw_bool(p, 87, 1);	/* first_packet_on_sequence */
		if (dropped)
			pbw_varint(p, 42, 1);	/* previous_packet_dropped */
		w->first = 0;
		seq_start(w, p, ts);
	}
	if (track != NULL)
		track_used(w, track, ts);
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

/* Writes one event for instance w. */
static void
write_event(struct faro_ds_ctx *w, struct faro_te_category *cat, int type,
    const char *name, const struct faro_te_arg *args, uint64_t ts,
    const struct faro_track *track, int is_double, int64_t iv, double dv)
{
	struct new_iid nw[MAX_NEW_INTERNED];
	uint32_t cat_iid = 0, name_iid = 0, iid;
	size_t nn = 0;
	int isnew, dyn = 0, depth = 0;
	struct pbw *p;

	if (track == NULL)
		for (const struct faro_te_arg *a = args; a && a->kind; a++)
			if (a->kind == FARO_TA_TRACK && a->v.t != NULL)
				track = a->v.t;
	if (event_prepare(w, track, ts) != 0)
		return;
	p = shm_writer_packet_begin(w->sw);
	for (const struct faro_te_arg *a = args; a && a->kind; a++)
		if (a->kind == FARO_TA_DYNAMIC_NAME)
			dyn = 1;
	if (type != FARO_TE_TYPE_END) {
		cat_iid = intern(w->te, K_CATEGORY, cat, &isnew);
		if (isnew)
			nw[nn++] = (struct new_iid){ K_CATEGORY, cat_iid,
			    cat->name };
		if (name != NULL && !dyn) {
			name_iid = intern(w->te, K_NAME, name, &isnew);
			if (isnew)
				nw[nn++] = (struct new_iid){ K_NAME, name_iid,
				    name };
		}
	}
	pbw_varint(p, TP_TIMESTAMP, ts);
	pbw_varint(p, TP_SEQUENCE_FLAGS, SEQ_NEEDS);
	/* Annotation names first, so interned_data precedes track_event. */
	for (const struct faro_te_arg *a = args; a && a->kind; a++) {
		if (a->kind == FARO_TA_DICT_BEGIN)
			depth++;
		else if (a->kind == FARO_TA_DICT_END)
			depth--;
		if (depth > (a->kind == FARO_TA_DICT_BEGIN) || a->name == NULL ||
		    a->kind > FARO_TA_DICT_BEGIN || nn == MAX_NEW_INTERNED)
			continue;
		iid = intern(w->te, K_DEBUG_NAME, a->name, &isnew);
		if (isnew)
			nw[nn++] = (struct new_iid){ K_DEBUG_NAME, iid,
			    a->name };
	}
	write_interned(p, nw, nn);
	pbw_nested_begin(p, TP_TRACK_EVENT);
	pbw_varint(p, TE_TYPE, (uint64_t)type);
	if (cat_iid != 0)
		pbw_varint(p, TE_CATEGORY_IIDS, cat_iid);
	else if (type != FARO_TE_TYPE_END)
		pbw_string(p, 22, cat->name);		/* categories */
	if (name != NULL && type != FARO_TE_TYPE_END) {
		if (name_iid != 0)
			pbw_varint(p, TE_NAME_IID, name_iid);
		else
			pbw_string(p, TE_NAME, name);
	}
	if (track != NULL)
		pbw_varint(p, TE_TRACK_UUID, track->uuid);
	if (type == FARO_TE_TYPE_COUNTER) {
		if (is_double)
			pbw_double(p, TE_DOUBLE_COUNTER, dv);
		else
			pbw_int64(p, TE_COUNTER_VALUE, iv);
	}
	depth = 0;
	for (const struct faro_te_arg *a = args; a && a->kind; a++) {
		switch (a->kind) {
		case FARO_TA_FLOW:
			pbw_fixed64(p, TE_FLOW_IDS, a->v.u);
			continue;
		case FARO_TA_TERMINATING_FLOW:
			pbw_fixed64(p, TE_TERM_FLOW_IDS, a->v.u);
			continue;
		case FARO_TA_DICT_END:
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
		if (a->name == NULL || (a->kind == FARO_TA_DICT_BEGIN &&
		    depth >= MAX_DICT_DEPTH))
			continue;
		if (depth == 0) {
			pbw_nested_begin(p, TE_DEBUG);
			if ((iid = intern_find(w->te, K_DEBUG_NAME,
			    a->name)) != 0)
				pbw_varint(p, DA_NAME_IID, iid);
			else
				pbw_string(p, DA_NAME, a->name);
		} else {
			pbw_nested_begin(p, DA_DICT_ENTRIES);
			pbw_string(p, DA_NAME, a->name);
		}
		if (a->kind == FARO_TA_DICT_BEGIN) {
			depth++;	/* closed by DICT_END */
			continue;
		}
		write_value(p, a);
		pbw_nested_end(p);
	}
	while (depth-- > 0)
		pbw_nested_end(p);
	pbw_nested_end(p);
	shm_writer_packet_end(w->sw);
}

static void
emit(struct faro_te_category *cat, int type, const char *name,
    const struct faro_te_arg *args, const struct faro_track *track,
    int is_double, int64_t iv, double dv)
{
	struct faro_tls *t;
	struct faro_ds_ctx *w;
	uint32_t mask;
	uint64_t ts = 0;

	for (const struct faro_te_arg *a = args; a && a->kind; a++)
		if (a->kind == FARO_TA_TIMESTAMP)
			ts = a->v.u;
	if (ts == 0)
		ts = faro_now_ns();
	if (te.ds == NULL || (t = faro_tls_get()) == NULL)
		return;
	faro_tls_lock(t);
	mask = atomic_load((_Atomic uint32_t *)&cat->enabled);
	for (unsigned i = 0; mask != 0; i++, mask >>= 1)
		if ((mask & 1) && (w = faro_ds_writer(t, te.ds, i)) != NULL)
			write_event(w, cat, type, name, args, ts, track,
			    is_double, iv, dv);
	faro_tls_unlock(t);
}

void
faro_te_emit(struct faro_te_category *cat, int type, const char *name,
    const struct faro_te_arg *args)
{
	emit(cat, type, name, args, NULL, 0, 0, 0);
}

void
faro_te_counter(struct faro_te_category *cat, const struct faro_track *track,
    int is_double, int64_t iv, double dv)
{
	static const struct faro_te_arg none[] = { FARO_TE_ARGS_END_ };

	if (track == NULL)
		return;
	emit(cat, FARO_TE_TYPE_COUNTER, NULL, none, track, is_double, iv, dv);
}
