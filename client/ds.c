/*
 * Data sources: registration, the instances sessions create (driven by
 * the producer endpoint on the libfaro thread), the per-thread writers
 * app threads write with, and the public packet writer.
 */
#include "config.h"

#include <sys/syscall.h>

#include <linux/membarrier.h>

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "protos/perfetto/config/data_source_config.pb-c.h"

#include "faro_int.h"
#include "base/log.h"
#include "libipc/producer_endpoint.h"

/*
 * tls_self is valid only while tls_epoch matches faro_epoch: a thread
 * that outlives faro_shutdown must not touch what it freed.
 */
#define TLS_FAST	__attribute__((tls_model("initial-exec")))	/* no
				   __tls_get_addr call per event; a few bytes
				   of static TLS, fine even when dlopen'ed */
static _Thread_local struct faro_tls *tls_self TLS_FAST;
static _Thread_local unsigned tls_epoch TLS_FAST;
static atomic_uint faro_epoch = 1;
static pthread_key_t tls_key;
static int tls_key_made;

/* ---- threads ---- */

int faro_tls_asym;

/* faro_init, before any thread writes. */
void
faro_tls_asym_init(void)
{
	long q;

	if (faro_tls_asym)
		return;
	q = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
	if (q != -1 && (q & MEMBARRIER_CMD_PRIVATE_EXPEDITED) &&
	    syscall(SYS_membarrier,
	    MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0)
		faro_tls_asym = 1;
}

int
faro_tls_seize(struct faro_tls *t, int wait)
{
	atomic_store(&t->seized, 1);
	/* Registered, it cannot fail; if it did, say so rather than crash. */
	if (faro_tls_asym &&
	    syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) ==
	    -1)
		log_warn("%s: membarrier", __func__);
	while (atomic_load(&t->busy)) {
		if (!wait) {
			faro_tls_release(t);
			return -1;
		}
		sched_yield();
	}
	return 0;
}

void
faro_tls_release(struct faro_tls *t)
{
	atomic_store_explicit(&t->seized, 0, memory_order_release);
}

/* Thread exit: hand what this thread wrote to the service, leave the
 * writers to the libfaro thread to free. */
static void
tls_exit(void *arg)
{
	struct faro_tls *t = arg;

	faro_tls_enter(t);
	for (unsigned d = 0; d < FARO_MAX_DS; d++)
		for (unsigned i = 0; i < FARO_DS_MAX_INSTANCES; i++)
			if (t->w[d][i] != NULL && t->w[d][i]->sw != NULL)
				shm_writer_flush(t->w[d][i]->sw);
	t->dead = 1;
	faro_tls_leave(t);
	tls_self = NULL;
	faro_loop_wake();
}

struct faro_tls *
faro_tls_get(void)
{
	struct faro_tls *t = tls_self;

	if (t != NULL && tls_epoch == atomic_load_explicit(&faro_epoch,
	    memory_order_relaxed))
		return t;
	if (!atomic_load(&faro_g.up))
		return NULL;
	if ((t = calloc(1, sizeof(*t))) == NULL)
		return NULL;
	t->tid = (pid_t)syscall(SYS_gettid);
	pthread_mutex_lock(&faro_g.mtx);
	if (!tls_key_made) {
		/* Its destructor hands an exiting thread's writers back. */
		if (pthread_key_create(&tls_key, tls_exit) != 0) {
			pthread_mutex_unlock(&faro_g.mtx);
			free(t);
			return NULL;
		}
		tls_key_made = 1;
	}
	t->next = faro_g.tls;
	faro_g.tls = t;
	pthread_mutex_unlock(&faro_g.mtx);
	pthread_setspecific(tls_key, t);
	tls_self = t;
	tls_epoch = atomic_load(&faro_epoch);
	return t;
}

static void
ctx_free_writer(struct faro_ds_ctx *w)
{
	if (w->sw == NULL)
		return;
	atomic_fetch_add(&faro_g.dropped, shm_writer_dropped_packets(w->sw));
	if (faro_g.inproc)
		shm_writer_free(w->sw);	/* no service to tell */
	else
		producer_ep_writer_free(faro_g.ep, w->sw);
	w->sw = NULL;
}

static void
tls_free(struct faro_tls *t)
{
	for (unsigned d = 0; d < FARO_MAX_DS; d++)
		for (unsigned i = 0; i < FARO_DS_MAX_INSTANCES; i++) {
			if (t->w[d][i] == NULL)
				continue;
			ctx_free_writer(t->w[d][i]);
			free(t->w[d][i]->te);
			free(t->w[d][i]);
		}
	free(t);
}

/*
 * The calling thread's writer for instance 'slot' of ds, with t locked;
 * NULL when the instance is not started (or no writer can be had).
 */
struct faro_ds_ctx *
faro_ds_writer(struct faro_tls *t, struct faro_ds *ds, unsigned slot)
{
	struct faro_ds_inst *in = &ds->inst[slot];
	struct faro_ds_ctx *w;
	const char *cause;
	unsigned gen, cg;

	if (!(atomic_load(&ds->active) & (1u << slot)))
		return NULL;
	gen = atomic_load(&in->gen);
	if ((w = t->w[ds->index][slot]) == NULL) {
		if ((w = calloc(1, sizeof(*w))) == NULL)
			return NULL;
		w->ds = ds;
		w->slot = slot;
		w->tls = t;
		t->w[ds->index][slot] = w;
	}
	if (w->sw == NULL || w->gen != gen) {
		/* The libfaro thread freed the old one at stop. */
		w->sw = faro_g.inproc ? shm_writer_new(in->arb,
		    in->target_buffer, in->policy, &cause) :
		    producer_ep_writer_new_async(faro_g.ep, in->arb,
		    in->target_buffer, in->policy, &cause);
		if (w->sw == NULL)
			return NULL;
		w->gen = gen;
		w->first = 1;
		w->reset = 1;
		w->clear_gen = atomic_load(&in->clear_gen);
	}
	if ((cg = atomic_load_explicit(&in->clear_gen,
	    memory_order_relaxed)) != w->clear_gen) {
		w->clear_gen = cg;
		w->reset = 1;
	}
	return w;
}

/* ---- registration ---- */

struct faro_ds *
faro_ds_register(const char *name, const struct faro_ds_args *a,
    const char **cause)
{
	struct faro_ds *ds;
	const char *why;

	if (cause == NULL)
		cause = &why;
	if (!atomic_load(&faro_g.up)) {
		*cause = "faro_init first";
		return NULL;
	}
	if (name == NULL || *name == '\0' || a == NULL) {
		*cause = "name and arguments needed";
		return NULL;
	}
	if ((ds = calloc(1, sizeof(*ds))) == NULL ||
	    (ds->name = strdup(name)) == NULL) {
		free(ds);
		*cause = "out of memory";
		return NULL;
	}
	memcpy(&ds->args, a, a->struct_size < sizeof(ds->args) ?
	    a->struct_size : sizeof(ds->args));
	pthread_mutex_lock(&faro_g.mtx);
	for (unsigned i = 0; i < faro_g.nds; i++)
		if (strcmp(faro_g.ds[i]->name, name) == 0) {
			*cause = "data source already registered";
			goto fail;
		}
	if (faro_g.nds == FARO_MAX_DS) {
		*cause = "too many data sources";
		goto fail;
	}
	ds->index = faro_g.nds;
	faro_g.ds[faro_g.nds++] = ds;
	pthread_mutex_unlock(&faro_g.mtx);
	/* The libfaro thread registers it; in-process, starts it: wait. */
	if (faro_g.inproc)
		faro_loop_sync();
	else
		faro_loop_wake();
	return ds;
fail:
	pthread_mutex_unlock(&faro_g.mtx);
	free(ds->name);
	free(ds);
	return NULL;
}

uint32_t
faro_ds_active(const struct faro_ds *ds)
{
	return atomic_load_explicit(&((struct faro_ds *)ds)->active,
	    memory_order_relaxed);
}

void
faro_ds_trace(struct faro_ds *ds, faro_ds_trace_fn fn, void *arg)
{
	struct faro_tls *t;
	struct faro_ds_ctx *w;
	uint32_t mask;

	if ((mask = atomic_load_explicit(&ds->active,
	    memory_order_relaxed)) == 0)
		return;
	if ((t = faro_tls_get()) == NULL)
		return;
	faro_tls_enter(t);
	for (unsigned i = 0; i < FARO_DS_MAX_INSTANCES; i++)
		if ((mask & (1u << i)) && (w = faro_ds_writer(t, ds, i)) !=
		    NULL)
			fn(w, arg);
	faro_tls_leave(t);
}

void
faro_ds_stop_done(struct faro_ds *ds, unsigned inst)
{
	if (inst >= FARO_DS_MAX_INSTANCES)
		return;
	atomic_store(&ds->inst[inst].stop_done, 1);
	faro_loop_wake();
}

/* ---- inside faro_ds_trace ---- */

unsigned
faro_ctx_instance(const struct faro_ds_ctx *w)
{
	return w->slot;
}

void *
faro_ctx_data(const struct faro_ds_ctx *w)
{
	return w->ds->inst[w->slot].data;
}

int
faro_ctx_take_incremental_reset(struct faro_ds_ctx *w)
{
	int r = w->reset;

	w->reset = 0;
	return r;
}

struct faro_msg *
faro_ctx_packet_begin(struct faro_ds_ctx *w)
{
	w->pbw = shm_writer_packet_begin(w->sw);
	if (w->first) {
		pbw_bool(w->pbw, 87, 1);	/* first_packet_on_sequence */
		w->first = 0;
	}
	if (shm_writer_take_dropped(w->sw)) {
		pbw_varint(w->pbw, 42, 1);	/* previous_packet_dropped */
		w->reset = 1;			/* interned data may be lost */
	}
	return (struct faro_msg *)w->pbw;
}

void
faro_ctx_packet_end(struct faro_ds_ctx *w)
{
	if (w->pbw != NULL)
		shm_writer_packet_end(w->sw);
	w->pbw = NULL;
}

void
faro_ctx_flush(struct faro_ds_ctx *w)
{
	shm_writer_flush(w->sw);
}

#define M(m)	((struct pbw *)(m))
void faro_msg_uint(struct faro_msg *m, uint32_t f, uint64_t v)
{ pbw_varint(M(m), f, v); }
void faro_msg_int(struct faro_msg *m, uint32_t f, int64_t v)
{ pbw_int64(M(m), f, v); }
void faro_msg_sint(struct faro_msg *m, uint32_t f, int64_t v)
{ pbw_sint64(M(m), f, v); }
void faro_msg_bool(struct faro_msg *m, uint32_t f, int v)
{ pbw_bool(M(m), f, v); }
void faro_msg_fixed32(struct faro_msg *m, uint32_t f, uint32_t v)
{ pbw_fixed32(M(m), f, v); }
void faro_msg_fixed64(struct faro_msg *m, uint32_t f, uint64_t v)
{ pbw_fixed64(M(m), f, v); }
void faro_msg_sfixed32(struct faro_msg *m, uint32_t f, int32_t v)
{ pbw_fixed32(M(m), f, (uint32_t)v); }
void faro_msg_sfixed64(struct faro_msg *m, uint32_t f, int64_t v)
{ pbw_fixed64(M(m), f, (uint64_t)v); }
void faro_msg_float(struct faro_msg *m, uint32_t f, float v)
{ pbw_float(M(m), f, v); }
void faro_msg_double(struct faro_msg *m, uint32_t f, double v)
{ pbw_double(M(m), f, v); }
void faro_msg_string(struct faro_msg *m, uint32_t f, const char *s)
{ pbw_string(M(m), f, s ? s : ""); }
void faro_msg_bytes(struct faro_msg *m, uint32_t f, const void *p, size_t n)
{ pbw_bytes(M(m), f, p, n); }
void faro_msg_raw(struct faro_msg *m, const void *p, size_t n)
{ pbw_append(M(m), p, n); }
void faro_msg_nested_begin(struct faro_msg *m, uint32_t f)
{ pbw_nested_begin(M(m), f); }
void faro_msg_nested_end(struct faro_msg *m)
{ pbw_nested_end(M(m)); }
#undef M

/* ---- instances (libfaro thread) ---- */

static struct faro_ds *
ds_by_name(const char *name)
{
	for (unsigned i = 0; i < faro_g.nds; i++)
		if (name != NULL && strcmp(faro_g.ds[i]->name, name) == 0)
			return faro_g.ds[i];
	return NULL;
}

static struct faro_ds_inst *
inst_by_id(uint64_t id, struct faro_ds **dsp, unsigned *slot)
{
	for (unsigned d = 0; d < faro_g.nds; d++)
		for (unsigned i = 0; i < FARO_DS_MAX_INSTANCES; i++)
			if (faro_g.ds[d]->inst[i].state != INST_FREE &&
			    faro_g.ds[d]->inst[i].id == id) {
				*dsp = faro_g.ds[d];
				*slot = i;
				return &faro_g.ds[d]->inst[i];
			}
	return NULL;
}

/*
 * Ends an instance: no thread writes to it any more (their locks are
 * taken in turn), its writers are flushed and freed.
 */
static void
inst_teardown(struct faro_ds *ds, unsigned slot)
{
	struct faro_ds_inst *in = &ds->inst[slot];
	struct faro_tls *t;

	atomic_fetch_and(&ds->active, ~(1u << slot));
	atomic_fetch_add(&in->gen, 1);
	pthread_mutex_lock(&faro_g.mtx);
	for (t = faro_g.tls; t != NULL; t = t->next) {
		(void)faro_tls_seize(t, 1);
		if (t->w[ds->index][slot] != NULL)
			ctx_free_writer(t->w[ds->index][slot]);
		faro_tls_release(t);
	}
	pthread_mutex_unlock(&faro_g.mtx);
	if (ds->args.on_destroy != NULL)
		ds->args.on_destroy(ds, slot, in->data, ds->args.user);
	in->data = NULL;
	in->arb = NULL;
	in->state = INST_FREE;
	atomic_store(&in->stop_done, 0);
}

static void
ep_setup(struct producer_ep *ep, uint64_t id,
    const Perfetto__Protos__DataSourceConfig *cfg, void *arg)
{
	struct faro_ds_config dc;
	struct faro_ds *ds;
	struct faro_ds_inst *in;
	uint8_t *raw = NULL, *te = NULL;
	unsigned slot;

	if (cfg == NULL || (ds = ds_by_name(cfg->name)) == NULL)
		return;
	for (slot = 0; slot < FARO_DS_MAX_INSTANCES; slot++)
		if (ds->inst[slot].state == INST_FREE)
			break;
	if (slot == FARO_DS_MAX_INSTANCES) {
		log_warnx("%s: %s: more than %d sessions, instance %llu "
		    "ignored", __func__, ds->name, FARO_DS_MAX_INSTANCES,
		    (unsigned long long)id);
		return;
	}
	in = &ds->inst[slot];
	in->id = id;
	in->state = INST_SETUP;
	in->target_buffer = cfg->has_target_buffer ? cfg->target_buffer : 0;
	switch (cfg->has_buffer_exhausted_policy ?
	    cfg->buffer_exhausted_policy : 0) {
	case PERFETTO__PROTOS__DATA_SOURCE_CONFIG__BUFFER_EXHAUSTED_POLICY__BUFFER_EXHAUSTED_DROP:
		in->policy = SHM_POLICY_DROP;
		break;
	case PERFETTO__PROTOS__DATA_SOURCE_CONFIG__BUFFER_EXHAUSTED_POLICY__BUFFER_EXHAUSTED_STALL_THEN_ABORT:
	case PERFETTO__PROTOS__DATA_SOURCE_CONFIG__BUFFER_EXHAUSTED_POLICY__BUFFER_EXHAUSTED_STALL_THEN_DROP:
		in->policy = SHM_POLICY_STALL;
		break;
	default:
		in->policy = ds->args.policy == FARO_POLICY_STALL ?
		    SHM_POLICY_STALL : SHM_POLICY_DROP;
		break;
	}
	memset(&dc, 0, sizeof(dc));
	dc.raw_len = perfetto__protos__data_source_config__get_packed_size(
	    cfg);
	if ((raw = malloc(dc.raw_len + 1)) != NULL)
		perfetto__protos__data_source_config__pack(cfg, raw);
	else
		dc.raw_len = 0;
	dc.raw = raw;
	dc.name = ds->name;
	dc.target_buffer = in->target_buffer;
	dc.trace_duration_ms = cfg->trace_duration_ms;
	dc.tracing_session_id = cfg->tracing_session_id;
	dc.legacy_config = cfg->legacy_config ? cfg->legacy_config : "";
	if (cfg->track_event_config != NULL) {
		const ProtobufCMessage *m = &cfg->track_event_config->base;

		dc.track_event_config_len = protobuf_c_message_get_packed_size(
		    m);
		if ((te = malloc(dc.track_event_config_len + 1)) != NULL) {
			protobuf_c_message_pack(m, te);
			dc.track_event_config = te;
		}
	}
	in->data = ds->args.on_setup != NULL ?
	    ds->args.on_setup(ds, slot, &dc, ds->args.user) : NULL;
	free(raw);
	free(te);
}

static void
ep_start(struct producer_ep *ep, uint64_t id,
    const Perfetto__Protos__DataSourceConfig *cfg, void *arg)
{
	struct faro_ds *ds;
	struct faro_ds_inst *in;
	unsigned slot;

	if ((in = inst_by_id(id, &ds, &slot)) == NULL)
		return;
	if (in->state == INST_SETUP && (in->arb = faro_arbiter()) != NULL) {
		in->state = INST_STARTED;
		atomic_fetch_or(&ds->active, 1u << slot);
		if (ds->args.on_start != NULL)
			ds->args.on_start(ds, slot, in->data, ds->args.user);
	}
	if (ep != NULL)		/* NULL: the in-process session */
		producer_ep_notify_started(ep, id);
}

static void
ep_stop(struct producer_ep *ep, uint64_t id, void *arg)
{
	struct faro_ds *ds;
	struct faro_ds_inst *in;
	unsigned slot;
	int r = FARO_DS_STOP_DONE;

	if ((in = inst_by_id(id, &ds, &slot)) == NULL) {
		producer_ep_notify_stopped(ep, id);
		return;
	}
	if (in->state == INST_STOPPING)
		return;
	if (ds->args.on_stop != NULL)
		r = ds->args.on_stop(ds, slot, in->data, ds->args.user);
	/* Without a service there is nothing to wait for: the SMB goes. */
	if (r == FARO_DS_STOP_ASYNC && producer_ep_connected(ep) &&
	    !atomic_load(&in->stop_done)) {
		in->state = INST_STOPPING;
		return;
	}
	inst_teardown(ds, slot);
	producer_ep_notify_stopped(ep, id);
}

/* Asks each thread's writer of the instance to commit, unless it is
 * writing right now (the service scrapes what it holds). */
static void
inst_flush_writers(struct faro_ds *ds, unsigned slot)
{
	struct faro_tls *t;
	struct faro_ds_ctx *w;

	pthread_mutex_lock(&faro_g.mtx);
	for (t = faro_g.tls; t != NULL; t = t->next) {
		if (faro_tls_seize(t, 0) == -1)
			continue;
		if ((w = t->w[ds->index][slot]) != NULL && w->sw != NULL &&
		    w->gen == atomic_load(&ds->inst[slot].gen))
			shm_writer_flush(w->sw);
		faro_tls_release(t);
	}
	pthread_mutex_unlock(&faro_g.mtx);
}

static void
ep_flush(struct producer_ep *ep, uint64_t req, const uint64_t *ids,
    size_t nids, void *arg)
{
	struct faro_ds *ds;
	struct faro_ds_inst *in;
	unsigned slot;

	for (size_t i = 0; i < nids; i++) {
		if ((in = inst_by_id(ids[i], &ds, &slot)) == NULL ||
		    in->state == INST_SETUP)
			continue;
		if (ds->args.on_flush != NULL)
			ds->args.on_flush(ds, slot, in->data, ds->args.user);
		inst_flush_writers(ds, slot);
	}
	producer_ep_flush_done(ep, req);
}

static void
ep_clear(struct producer_ep *ep, const uint64_t *ids, size_t nids,
    void *arg)
{
	struct faro_ds *ds;
	struct faro_ds_inst *in;
	unsigned slot;

	for (size_t i = 0; i < nids; i++) {
		if ((in = inst_by_id(ids[i], &ds, &slot)) == NULL)
			continue;
		atomic_fetch_add(&in->clear_gen, 1);
		if (ds->args.on_clear_incremental_state != NULL)
			ds->args.on_clear_incremental_state(ds, slot, in->data,
			    ds->args.user);
	}
}

/* The service went away: ep_stop ran for what it knew; end the rest. */
static void
ep_disconnected(struct producer_ep *ep, void *arg)
{
	faro_ds_teardown_all();
}

const struct producer_ep_ops faro_ds_ep_ops = {
	.setup = ep_setup,
	.start = ep_start,
	.stop = ep_stop,
	.flush = ep_flush,
	.clear_incremental_state = ep_clear,
	.disconnected = ep_disconnected,
};

void
faro_ds_teardown_all(void)
{
	for (unsigned d = 0; d < faro_g.nds; d++)
		for (unsigned i = 0; i < FARO_DS_MAX_INSTANCES; i++)
			if (faro_g.ds[d]->inst[i].state != INST_FREE) {
				if (faro_g.ds[d]->inst[i].state ==
				    INST_STARTED &&
				    faro_g.ds[d]->args.on_stop != NULL)
					faro_g.ds[d]->args.on_stop(
					    faro_g.ds[d], i,
					    faro_g.ds[d]->inst[i].data,
					    faro_g.ds[d]->args.user);
				inst_teardown(faro_g.ds[d], i);
			}
}

/*
 * Work app threads asked for: new data sources to register, asynchronous
 * stops completed, exited threads' writers to free.
 */
void
faro_ds_housekeep(void)
{
	struct producer_ds pd;
	struct faro_tls **tp, *t;
	struct faro_ds *ds;

	for (unsigned d = 0; d < faro_g.nds; d++) {
		ds = faro_g.ds[d];
		if (!ds->registered && faro_g.inproc) {
			if (inproc_ds_start(ds) == 0)
				ds->registered = 1;
		} else if (!ds->registered) {
			memset(&pd, 0, sizeof(pd));
			pd.name = ds->name;
			pd.will_notify_on_start = 1;
			pd.will_notify_on_stop = 1;
			pd.handles_incremental_state_clear =
			    ds->args.handles_incremental_state_clear;
			if (producer_ep_add_ds(faro_g.ep, &pd) == 0)
				ds->registered = 1;
		}
		for (unsigned i = 0; i < FARO_DS_MAX_INSTANCES; i++)
			if (ds->inst[i].state == INST_STOPPING &&
			    atomic_load(&ds->inst[i].stop_done)) {
				uint64_t id = ds->inst[i].id;

				inst_teardown(ds, i);
				producer_ep_notify_stopped(faro_g.ep, id);
			}
	}
	pthread_mutex_lock(&faro_g.mtx);
	for (tp = &faro_g.tls; (t = *tp) != NULL; ) {
		if (t->dead) {
			*tp = t->next;
			tls_free(t);
		} else
			tp = &t->next;
	}
	pthread_mutex_unlock(&faro_g.mtx);
}

void
faro_ds_free_all(void)
{
	struct faro_tls *t;

	/* Live threads' destructors must not run on freed memory. */
	if (tls_key_made)
		pthread_key_delete(tls_key);
	tls_key_made = 0;
	atomic_fetch_add(&faro_epoch, 1);
	while ((t = faro_g.tls) != NULL) {
		faro_g.tls = t->next;
		tls_free(t);
	}
	tls_self = NULL;
	for (unsigned d = 0; d < faro_g.nds; d++) {
		free(faro_g.ds[d]->name);
		free(faro_g.ds[d]);
		faro_g.ds[d] = NULL;
	}
	faro_g.nds = 0;
}
