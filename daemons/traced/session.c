/*
 * Tracing sessions: one TraceConfig from a consumer, its central buffers,
 * its data source instances on producers, and the clock that drives it.
 *
 *   EnableTracing ----> CONFIGURED --StartTracing / START trigger--> STARTED
 *                           |                                          |
 *                           |       DisableTracing, duration_ms,       |
 *                           |       STOP trigger (+ stop_delay_ms),    |
 *                           |       file cap reached                   v
 *                           +-----------------------------------> STOPPING
 *                                          all stop acks or timeout    |
 *                                                                      v
 *                       FreeBuffers / consumer gone <---------- DISABLED
 *
 * Instances follow their session: set up at EnableTracing (and whenever a
 * matching data source registers later), started with the session,
 * stopped when it stops. A producer may only write into the buffers of
 * sessions it has instances in.
 */
#include "config.h"

#include <sys/time.h>

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "base/log.h"
#include "traceconfig/producer_match.h"
#include "traced.h"

typedef Perfetto__Protos__TraceConfig			TraceConfig;
typedef Perfetto__Protos__TraceConfig__DataSource	TraceConfigDS;
typedef Perfetto__Protos__DataSourceConfig		DataSourceConfig;

static void	session_start_timers(struct tsession *);
static void	session_finish_disable(struct tsession *);
static void	session_end_error(struct tsession *, const char *);
static void	session_maybe_all_started(struct tsession *);

uint64_t
session_now_ns(clockid_t clk)
{
	struct timespec	ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void
session_timer(struct tsession *s, struct event **ev, uint32_t ms,
    event_callback_fn cb)
{
	struct timeval	tv;

	if (*ev == NULL && (*ev = evtimer_new(s->svc->base, cb, s)) == NULL) {
		log_warnx("%s: evtimer_new failed", __func__);
		return;
	}
	tv.tv_sec = ms / 1000;
	tv.tv_usec = (suseconds_t)(ms % 1000) * 1000;
	evtimer_add(*ev, &tv);
}

static void
session_timer_free(struct event **ev)
{
	if (*ev != NULL) {
		event_free(*ev);
		*ev = NULL;
	}
}

void
session_timer_stop(struct event *ev)
{
	if (ev != NULL)
		evtimer_del(ev);
}

static const char *
session_state_name(enum tsession_state st)
{
	switch (st) {
	case TS_CONFIGURED:	return "configured";
	case TS_STARTED:	return "started";
	case TS_STOPPING:	return "stopping";
	case TS_DISABLED:	return "disabled";
	}
	return "?";
}

struct tsession *
session_find_detached(struct traced *svc, uid_t uid, const char *key)
{
	struct tsession	*s;

	TAILQ_FOREACH(s, &svc->sessions, entry)
		if (s->consumer == NULL && s->detach_key != NULL &&
		    s->uid == uid && strcmp(s->detach_key, key) == 0)
			return s;
	return NULL;
}

/* The sequence id a (producer, writer) pair shows in this session. */
uint32_t
session_seq_id(struct tsession *s, uint16_t producer_id, uint16_t writer_id)
{
	struct tseq	*n;
	size_t		 i;

	for (i = 0; i < s->nseqs; i++)
		if (s->seqs[i].producer_id == producer_id &&
		    s->seqs[i].writer_id == writer_id)
			return s->seqs[i].seq_id;
	n = reallocarray(s->seqs, s->nseqs + 1, sizeof(*n));
	if (n == NULL)
		return 0;
	s->seqs = n;
	n[s->nseqs].producer_id = producer_id;
	n[s->nseqs].writer_id = writer_id;
	n[s->nseqs].seq_id = s->next_seq_id++;
	return n[s->nseqs++].seq_id;
}

void
session_lifecycle(struct tsession *s, enum tlifecycle ev)
{
	size_t	n = s->nlifecycle[ev];

	/* Keep the most recent stamps; old ones scroll out. */
	if (n == TL_MAX_STAMPS) {
		memmove(&s->lifecycle[ev][0], &s->lifecycle[ev][1],
		    sizeof(s->lifecycle[ev][0]) * (TL_MAX_STAMPS - 1));
		n--;
	}
	s->lifecycle[ev][n] = session_now_ns(CLOCK_BOOTTIME);
	s->nlifecycle[ev] = n + 1;
}

/* ---- instances ----------------------------------------------------- */

static struct tinstance *
session_instance_find(struct tsession *s, const struct tproducer *p,
    uint64_t id)
{
	struct tinstance	*inst;

	TAILQ_FOREACH(inst, &s->instances, entry)
		if (inst->producer == p && inst->id == id)
			return inst;
	return NULL;
}

static void
session_instance_free(struct tinstance *inst)
{
	TAILQ_REMOVE(&inst->session->instances, inst, entry);
	free(inst->ds_name);
	free(inst->config);
	free(inst);
}

static void
session_instance_state(struct tinstance *inst, enum tinstance_state st)
{
	inst->state = st;
	if (inst->session->consumer != NULL)
		consumer_port_instance_state(inst->session->consumer, inst);
}

/*
 * The DataSourceConfig a producer gets: the consumer's, plus what the
 * service decides (global target buffer, session id, timeouts). Unknown
 * fields of the consumer's config pass through untouched.
 */
static int
session_instance_config(struct tsession *s, const TraceConfigDS *cds,
    uint16_t buffer, uint8_t **out, size_t *outlen)
{
	DataSourceConfig	*c;
	uint8_t			*buf;
	size_t			 len;

	len = perfetto__protos__data_source_config__get_packed_size(
	    cds->config);
	if ((buf = malloc(len ? len : 1)) == NULL)
		return -1;
	perfetto__protos__data_source_config__pack(cds->config, buf);
	c = perfetto__protos__data_source_config__unpack(NULL, len, buf);
	free(buf);
	if (c == NULL)
		return -1;
	c->has_target_buffer = 1;
	c->target_buffer = buffer;
	c->has_tracing_session_id = 1;
	c->tracing_session_id = s->id;
	c->has_trace_duration_ms = 1;
	c->trace_duration_ms = s->duration_ms;
	c->has_stop_timeout_ms = 1;
	c->stop_timeout_ms = s->cfg->has_data_source_stop_timeout_ms &&
	    s->cfg->data_source_stop_timeout_ms ?
	    s->cfg->data_source_stop_timeout_ms :
	    TRACED_DEFAULT_STOP_TIMEOUT_MS;
	c->has_enable_extra_guardrails = 1;
	c->enable_extra_guardrails = s->cfg->has_enable_extra_guardrails &&
	    s->cfg->enable_extra_guardrails;
	c->has_session_initiator = 1;
	c->session_initiator =
	    PERFETTO__PROTOS__DATA_SOURCE_CONFIG__SESSION_INITIATOR__SESSION_INITIATOR_UNSPECIFIED;
	len = perfetto__protos__data_source_config__get_packed_size(c);
	if ((buf = malloc(len ? len : 1)) == NULL) {
		perfetto__protos__data_source_config__free_unpacked(c, NULL);
		return -1;
	}
	perfetto__protos__data_source_config__pack(c, buf);
	perfetto__protos__data_source_config__free_unpacked(c, NULL);
	*out = buf;
	*outlen = len;
	return 0;
}

/* Sets up (and, in a started session, starts) ds for config entry cds. */
static struct tinstance *
session_instance_setup(struct tsession *s, const TraceConfigDS *cds,
    struct tdatasource *ds)
{
	struct tproducer	*p = ds->producer;
	struct tinstance	*inst;
	const char		*cause;
	uint32_t		 idx;

	if (s->svc->lockdown && p->uid != s->svc->uid) {
		log_debug("%s: lockdown: not enabling producer %u", __func__,
		    p->id);
		return NULL;
	}
	if (!traceconfig_producer_match(cds, p->name))
		return NULL;
	if (session_config_target_buffer(s->cfg, cds, &idx, &cause) == -1)
		return NULL;
	if ((inst = calloc(1, sizeof(*inst))) == NULL ||
	    (inst->ds_name = strdup(ds->name)) == NULL) {
		free(inst);
		return NULL;
	}
	inst->session = s;
	inst->producer = p;
	inst->id = ++s->svc->last_instance_id;
	inst->buffer = s->buffers[idx];
	inst->will_notify_on_start = ds->will_notify_on_start;
	inst->will_notify_on_stop = ds->will_notify_on_stop;
	inst->handles_incremental_state_clear =
	    ds->handles_incremental_state_clear;
	inst->no_flush = ds->no_flush;
	inst->state = TI_CONFIGURED;
	if (session_instance_config(s, cds, inst->buffer, &inst->config,
	    &inst->config_len) == -1) {
		free(inst->ds_name);
		free(inst);
		return NULL;
	}
	TAILQ_INSERT_TAIL(&s->instances, inst, entry);
	if (p->smb == NULL && smb_setup(p, s->cfg) == -1) {
		log_warnx("%s: no SMB for producer %u", __func__, p->id);
		session_instance_free(inst);
		return NULL;
	}
	log_debug("%s: session %" PRIu64 ": %s on producer %u (%s), "
	    "buffer %u", __func__, s->id, ds->name, p->id,
	    p->name ? p->name : "", inst->buffer);
	if (s->consumer != NULL)
		consumer_port_instance_state(s->consumer, inst);
	service_producer_allow(p, inst->buffer);
	producer_port_setup_ds(p, inst);
	return inst;
}

static void
session_instance_start(struct tsession *s, struct tinstance *inst)
{
	session_instance_state(inst, inst->will_notify_on_start ?
	    TI_STARTING : TI_STARTED);
	producer_port_start_ds(inst->producer, inst);
	(void)s;
}

static void
session_instance_stop(struct tinstance *inst, int immediately)
{
	enum tinstance_state	prev = inst->state;

	if (prev == TI_STOPPED || prev == TI_STOPPING)
		return;
	if (inst->will_notify_on_stop && !immediately)
		session_instance_state(inst, TI_STOPPING);
	else
		session_instance_state(inst, TI_STOPPED);
	producer_port_stop_ds(inst->producer, inst->id);
}

static int
session_all_stopped(const struct tsession *s)
{
	struct tinstance	*inst;

	TAILQ_FOREACH(inst, &s->instances, entry)
		if (inst->state != TI_STOPPED)
			return 0;
	return 1;
}

/* ---- enable / start -------------------------------------------------- */

/* Applies lockdown_mode as upstream does: before any other check. */
static void
session_lockdown(struct traced *svc, const TraceConfig *cfg)
{
	if (!cfg->has_lockdown_mode)
		return;
	if (cfg->lockdown_mode ==
	    PERFETTO__PROTOS__TRACE_CONFIG__LOCKDOWN_MODE_OPERATION__LOCKDOWN_SET)
		svc->lockdown = 1;
	else if (cfg->lockdown_mode ==
	    PERFETTO__PROTOS__TRACE_CONFIG__LOCKDOWN_MODE_OPERATION__LOCKDOWN_CLEAR)
		svc->lockdown = 0;
}

static void
session_trigger_timeout_cb(evutil_socket_t fd, short ev, void *arg)
{
	struct tsession	*s = arg;

	(void)fd; (void)ev;
	/* No START trigger came: the session ends without data. */
	if (s->state == TS_CONFIGURED) {
		log_info("%s: session %" PRIu64 ": no start trigger",
		    __func__, s->id);
		session_disable(s, NULL);
	}
}

/*
 * EnableTracing: cfg becomes the session's (freed on error too); fd is
 * the output file for write_into_file, or -1 (closed on error).
 */
/*
 * The session's trace filter, if its config has one. A filter that does
 * not load refuses the session, as upstream: better no trace than one
 * with the data the consumer asked to cut.
 */
int
session_filter_setup(struct tsession *s, const char **cause)
{
	if (s->cfg->trace_filter == NULL)
		return 0;
	if ((s->filter_stats.discarded = calloc(s->nbuffers ? s->nbuffers : 1,
	    sizeof(uint64_t))) == NULL) {
		*cause = "out of memory";
		return -1;
	}
	if ((s->filter = trace_filter_new(s->cfg->trace_filter, cause)) ==
	    NULL)
		return -1;
	return 0;
}

int
session_enable(struct tconsumer *c, TraceConfig *cfg, int fd,
    const char **cause)
{
	struct traced	*svc = c->svc;
	struct tsession	*s = NULL;
	struct tdatasource *ds;
	uint32_t	 period;
	size_t		 i;
	int		 discard, mode;

	session_lockdown(svc, cfg);
	if (c->session != NULL) {
		*cause = "another tracing session is already active on this "
		    "connection (forgot FreeBuffers?)";
		goto fail;
	}
	if (session_config_check(svc, c->uid, cfg, fd != -1, cause) == -1)
		goto fail;
	/* An exclusive session ends every other one, as upstream. */
	if (cfg->has_exclusive_prio && cfg->exclusive_prio > 0) {
		struct tsession	*o;

		while ((o = TAILQ_FIRST(&svc->sessions)) != NULL) {
			if (o->consumer != NULL)
				consumer_port_tracing_disabled(o->consumer,
				    "aborted for a higher-priority exclusive "
				    "session");
			o->disabled_notified = 1;
			session_free(o);
		}
	}
	if ((s = calloc(1, sizeof(*s))) == NULL ||
	    (s->buffers = calloc(cfg->n_buffers ? cfg->n_buffers : 1,
	    sizeof(*s->buffers))) == NULL) {
		*cause = "out of memory";
		goto fail;
	}
	s->svc = svc;
	s->cfg = cfg;
	s->uid = c->uid;
	s->file.fd = -1;
	s->next_seq_id = TRACED_SERVICE_SEQ_ID + 1;
	s->should_emit_sync = 1;
	TAILQ_INIT(&s->instances);
	TAILQ_INIT(&s->flushes);
	s->duration_ms = cfg->has_duration_ms ? cfg->duration_ms : 0;
	for (i = 0; i < cfg->n_buffers; i++) {
		discard = cfg->buffers[i]->has_fill_policy &&
		    cfg->buffers[i]->fill_policy ==
		    PERFETTO__PROTOS__TRACE_CONFIG__BUFFER_CONFIG__FILL_POLICY__DISCARD;
		if (service_buffer_alloc(svc, s,
		    (size_t)cfg->buffers[i]->size_kb * 1024, discard,
		    &s->buffers[i]) == -1) {
			*cause = "failed to allocate tracing buffers: out of "
			    "memory or too many buffers";
			goto fail;
		}
		s->nbuffers++;
	}
	if (session_filter_setup(s, cause) == -1)
		goto fail;
	/* Deprecated upstream, still honoured: the consumer picks the UUID. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
	if (cfg->has_trace_uuid_msb || cfg->has_trace_uuid_lsb) {
		s->uuid_msb = cfg->trace_uuid_msb;
		s->uuid_lsb = cfg->trace_uuid_lsb;
	}
#pragma GCC diagnostic pop
	if (s->uuid_msb == 0 && s->uuid_lsb == 0) {
		uint64_t r[2];

		arc4random_buf(r, sizeof(r));
		/* A version 4 UUID, as upstream makes. */
		r[1] = (r[1] & ~0xf000ull) | 0x4000ull;
		r[0] = (r[0] & ~(0xc0ull << 56)) | (0x80ull << 56);
		s->uuid_msb = (int64_t)r[1];
		s->uuid_lsb = (int64_t)r[0];
	}
	s->flush_period_ms = cfg->has_flush_period_ms ? cfg->flush_period_ms :
	    0;
	if (cfg->has_write_into_file && cfg->write_into_file) {
		if (trace_file_open(&s->file, fd,
		    cfg->has_max_file_size_bytes ? cfg->max_file_size_bytes :
		    0) == -1) {
			*cause = "out of memory";
			goto fail;
		}
		fd = -1;
		s->writing_file = 1;
		period = cfg->has_file_write_period_ms ?
		    cfg->file_write_period_ms : 0;
		if (period == 0)
			period = TRACED_DEFAULT_WRITE_PERIOD_MS;
		if (period < TRACED_MIN_WRITE_PERIOD_MS)
			period = TRACED_MIN_WRITE_PERIOD_MS;
		s->write_period_ms = period;
		/*
		 * Upstream's automatic flush mode: short write periods get a
		 * periodic flush, long ones a flush before each write.
		 */
		if (!cfg->has_write_flush_mode || cfg->write_flush_mode ==
		    PERFETTO__PROTOS__TRACE_CONFIG__WRITE_FLUSH_MODE__WRITE_FLUSH_AUTO ||
		    cfg->write_flush_mode ==
		    PERFETTO__PROTOS__TRACE_CONFIG__WRITE_FLUSH_MODE__WRITE_FLUSH_UNSPECIFIED) {
			if (period <= TRACED_DEFAULT_WRITE_PERIOD_MS)
				s->flush_period_ms =
				    TRACED_DEFAULT_WRITE_PERIOD_MS;
			else {
				s->flush_period_ms = 0;
				s->flush_before_write = 1;
			}
		} else if (cfg->write_flush_mode ==
		    PERFETTO__PROTOS__TRACE_CONFIG__WRITE_FLUSH_MODE__WRITE_FLUSH_ENABLED) {
			s->flush_period_ms = 0;
			s->flush_before_write = 1;
		}
	} else if (fd != -1) {
		close(fd);
		fd = -1;
	}
	s->id = ++svc->last_session_id;
	s->consumer = c;
	c->session = s;
	TAILQ_INSERT_TAIL(&svc->sessions, s, entry);
	svc->nsessions++;

	/* Each producer reads its setups and starts at once. */
	producer_port_hold_all(svc, 1);
	for (i = 0; i < cfg->n_data_sources; i++) {
		const TraceConfigDS *cds = cfg->data_sources[i];

		if (cds->config == NULL || cds->config->name == NULL)
			continue;
		TAILQ_FOREACH(ds, &svc->datasources, entry)
			if (strcmp(ds->name, cds->config->name) == 0)
				session_instance_setup(s, cds, ds);
	}
	mode = session_config_trigger_mode(cfg);
	s->trigger_mode = mode;
	if (mode == 1)
		session_timer(s, &s->ev_trigger_timeout,
		    cfg->trigger_config->trigger_timeout_ms,
		    session_trigger_timeout_cb);
	else if (mode == 2)
		s->duration_ms = cfg->trigger_config->trigger_timeout_ms;
	s->state = TS_CONFIGURED;
	log_info("%s: session %" PRIu64 " configured: %zu data sources, "
	    "%zu buffers, duration %u ms, uid %u%s%s", __func__, s->id,
	    cfg->n_data_sources, s->nbuffers, s->duration_ms,
	    (unsigned)s->uid, cfg->unique_session_name ? ", name " : "",
	    cfg->unique_session_name ? cfg->unique_session_name : "");
	if (!(cfg->has_deferred_start && cfg->deferred_start) && mode != 1)
		session_start(s);
	producer_port_hold_all(svc, 0);
	return 0;
fail:
	if (fd != -1)
		close(fd);
	if (s != NULL) {
		for (i = 0; i < s->nbuffers; i++)
			service_buffer_free(svc, s->buffers[i]);
		trace_file_close(&s->file);
		trace_filter_free(s->filter);
		free(s->filter_stats.discarded);
		free(s->buffers);
		free(s);
	}
	perfetto__protos__trace_config__free_unpacked(cfg, NULL);
	return -1;
}

static void
session_duration_cb(evutil_socket_t fd, short ev, void *arg)
{
	struct tsession	*s = arg;

	(void)fd; (void)ev;
	/* In STOP_TRACING mode a received trigger owns the stop. */
	if (s->trigger_mode == 2 && s->ntriggers > 0)
		return;
	session_flush_and_disable(s);
}

static void
session_flush_period_cb(evutil_socket_t fd, short ev, void *arg)
{
	struct tsession	*s = arg;

	(void)fd; (void)ev;
	if (s->state != TS_STARTED)
		return;
	flush_start(s, 0, 0, NULL, NULL);
	session_timer(s, &s->ev_flush_period, s->flush_period_ms,
	    session_flush_period_cb);
}

static void
session_write_now(struct tsession *s)
{
	if (!s->writing_file)
		return;
	if (readback_to_file(s) == -1) {
		/*
		 * Cap reached or the file broke: stop, as upstream; a broken
		 * file is the session's end reason the consumer hears.
		 */
		log_info("%s: session %" PRIu64 ": output file %s", __func__,
		    s->id, s->file.full ? "reached max_file_size_bytes" :
		    s->file.why);
		s->writing_file = 0;
		trace_file_close(&s->file);
		if (s->state == TS_STARTED)
			session_disable(s, s->file.error ? s->file.why : NULL);
		else if (s->file.error)
			session_end_error(s, s->file.why);
	}
}

static void
session_write_flushed(struct tsession *s, int success, void *arg)
{
	(void)success; (void)arg;
	if (s == NULL || s->state == TS_DISABLED)
		return;
	session_write_now(s);
}

static uint32_t
session_next_write_ms(const struct tsession *s)
{
	struct timespec	ts;
	uint64_t	ms;

	/* Align writes to wall-clock multiples of the period (upstream). */
	clock_gettime(CLOCK_REALTIME, &ts);
	ms = (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
	return s->write_period_ms - (uint32_t)(ms % s->write_period_ms);
}

static void
session_write_cb(evutil_socket_t fd, short ev, void *arg)
{
	struct tsession	*s = arg;

	(void)fd; (void)ev;
	if (!s->writing_file || s->state == TS_DISABLED)
		return;
	if (s->flush_before_write)
		flush_start(s, 0, 0, session_write_flushed, NULL);
	else
		session_write_now(s);
	if (s->writing_file)
		session_timer(s, &s->ev_write, session_next_write_ms(s),
		    session_write_cb);
}

static void
session_snapshot_cb(evutil_socket_t fd, short ev, void *arg)
{
	struct tsession	*s = arg;
	uint32_t	 ms = TRACED_DEFAULT_SNAPSHOT_MS;

	(void)fd; (void)ev;
	if (s->state != TS_STARTED)
		return;
	s->should_emit_sync = 1;
	if (s->cfg->builtin_data_sources == NULL ||
	    !s->cfg->builtin_data_sources->disable_clock_snapshotting)
		service_packets_snapshot_clocks(s);
	if (s->cfg->builtin_data_sources != NULL &&
	    s->cfg->builtin_data_sources->snapshot_interval_ms)
		ms = s->cfg->builtin_data_sources->snapshot_interval_ms;
	session_timer(s, &s->ev_snapshot, ms, session_snapshot_cb);
}

static void
session_clear_incr_cb(evutil_socket_t fd, short ev, void *arg)
{
	struct tsession		*s = arg;
	struct tinstance	*inst, *j;
	uint64_t		*ids;
	size_t			 n;

	(void)fd; (void)ev;
	if (s->state != TS_STARTED)
		return;
	/* One command per producer, listing its instances that care. */
	TAILQ_FOREACH(inst, &s->instances, entry) {
		if (!inst->handles_incremental_state_clear ||
		    inst->state != TI_STARTED)
			continue;
		for (j = TAILQ_FIRST(&s->instances); j != inst;
		    j = TAILQ_NEXT(j, entry))
			if (j->producer == inst->producer &&
			    j->handles_incremental_state_clear &&
			    j->state == TI_STARTED)
				break;
		if (j != inst)
			continue;	/* producer already done */
		n = 0;
		for (j = inst; j != NULL; j = TAILQ_NEXT(j, entry))
			n++;
		if ((ids = calloc(n, sizeof(*ids))) == NULL)
			continue;
		n = 0;
		for (j = inst; j != NULL; j = TAILQ_NEXT(j, entry))
			if (j->producer == inst->producer &&
			    j->handles_incremental_state_clear &&
			    j->state == TI_STARTED)
				ids[n++] = j->id;
		producer_port_clear_incremental(inst->producer, ids, n);
		free(ids);
	}
	session_timer(s, &s->ev_clear_incr,
	    s->cfg->incremental_state_config->clear_period_ms,
	    session_clear_incr_cb);
}

/*
 * Nothing waits on a data source that registered will_notify_on_start
 * (the session runs, its data is kept), but one that has not acked
 * StartDataSource after TRACED_ALL_STARTED_TIMEOUT_MS is named in the
 * trace: a slow_starting_data_sources service event, as upstream.
 */
static void
session_all_started_cb(evutil_socket_t fd, short ev, void *arg)
{
	struct tsession	*s = arg;

	(void)fd; (void)ev;
	if (s->did_notify_all_started || s->consumer == NULL)
		return;
	log_info("%s: session %" PRIu64 ": data sources slow to start",
	    __func__, s->id);
	service_packets_slow_start(s);
}

/* The timeout after which slow starters are named (upstream's 20 s). */
static uint32_t
session_all_started_timeout_ms(void)
{
#ifdef FARO_TEST_HOOKS
	const char	*e = getenv("FARO_TEST_START_TIMEOUT_MS");

	if (e != NULL && atoi(e) > 0)
		return (uint32_t)atoi(e);
#endif
	return TRACED_ALL_STARTED_TIMEOUT_MS;
}

static void
session_start_timers(struct tsession *s)
{
	const TraceConfig	*cfg = s->cfg;

	if (s->duration_ms > 0)
		session_timer(s, &s->ev_duration, s->duration_ms,
		    session_duration_cb);
	if (s->writing_file)
		session_timer(s, &s->ev_write, session_next_write_ms(s),
		    session_write_cb);
	if (s->flush_period_ms > 0)
		session_timer(s, &s->ev_flush_period, s->flush_period_ms,
		    session_flush_period_cb);
	if (cfg->incremental_state_config != NULL &&
	    cfg->incremental_state_config->clear_period_ms > 0)
		session_timer(s, &s->ev_clear_incr,
		    cfg->incremental_state_config->clear_period_ms,
		    session_clear_incr_cb);
	session_timer(s, &s->ev_snapshot,
	    cfg->builtin_data_sources != NULL &&
	    cfg->builtin_data_sources->snapshot_interval_ms ?
	    cfg->builtin_data_sources->snapshot_interval_ms :
	    TRACED_DEFAULT_SNAPSHOT_MS, session_snapshot_cb);
	if (s->consumer != NULL)
		session_timer(s, &s->ev_all_started,
		    session_all_started_timeout_ms(), session_all_started_cb);
}

void
session_start(struct tsession *s)
{
	struct tinstance	*inst, *next;

	if (s->state != TS_CONFIGURED) {
		log_warnx("%s: session %" PRIu64 " is %s", __func__, s->id,
		    session_state_name(s->state));
		return;
	}
	s->state = TS_STARTED;
	s->start_realtime_ns = session_now_ns(CLOCK_REALTIME);
	if (s->cfg->builtin_data_sources == NULL ||
	    !s->cfg->builtin_data_sources->disable_clock_snapshotting)
		service_packets_snapshot_clocks(s);
	session_lifecycle(s, TL_TRACING_STARTED);
	session_start_timers(s);
	TAILQ_FOREACH_SAFE(inst, &s->instances, entry, next)
		if (inst->state == TI_CONFIGURED)
			session_instance_start(s, inst);
	log_info("%s: session %" PRIu64 " started", __func__, s->id);
	session_maybe_all_started(s);
}

static void
session_maybe_all_started(struct tsession *s)
{
	struct tinstance	*inst;

	if (s->did_notify_all_started || s->state != TS_STARTED)
		return;
	TAILQ_FOREACH(inst, &s->instances, entry)
		if (inst->state != TI_STARTED)
			return;
	s->did_notify_all_started = 1;
	session_lifecycle(s, TL_ALL_STARTED);
	if (s->consumer != NULL)
		consumer_port_all_started(s->consumer);
}

/* ---- stop ----------------------------------------------------------- */

static void
session_stop_timeout_cb(evutil_socket_t fd, short ev, void *arg)
{
	struct tsession	*s = arg;

	(void)fd; (void)ev;
	if (s->state != TS_STOPPING)
		return;
	log_info("%s: session %" PRIu64 ": timed out waiting for stop "
	    "acknowledgements", __func__, s->id);
	session_finish_disable(s);
}

/* Why the session ends, for the consumer: the first reason wins. */
static void
session_end_error(struct tsession *s, const char *error)
{
	if (error != NULL && s->end_error[0] == '\0')
		snprintf(s->end_error, sizeof(s->end_error), "%s", error);
}

void
session_disable(struct tsession *s, const char *error)
{
	struct tinstance	*inst;
	int			 immediately = 0;
	uint32_t		 ms;

	session_end_error(s, error);
	switch (s->state) {
	case TS_DISABLED:
		return;
	case TS_STOPPING:
		return;
	case TS_CONFIGURED:
		immediately = 1;
		break;
	case TS_STARTED:
		break;
	}
	TAILQ_FOREACH(inst, &s->instances, entry)
		session_instance_stop(inst, immediately);
	session_timer_stop(s->ev_snapshot);
	if (session_all_stopped(s)) {
		session_finish_disable(s);
		return;
	}
	s->state = TS_STOPPING;
	ms = s->cfg->has_data_source_stop_timeout_ms &&
	    s->cfg->data_source_stop_timeout_ms ?
	    s->cfg->data_source_stop_timeout_ms :
	    TRACED_DEFAULT_STOP_TIMEOUT_MS;
	session_timer(s, &s->ev_stop_timeout, ms, session_stop_timeout_cb);
}

static void
session_finish_disable(struct tsession *s)
{
	struct tinstance	*inst;
	struct tproducer	*p;

	TAILQ_FOREACH(inst, &s->instances, entry)
		if (inst->state != TI_STOPPED)
			session_instance_state(inst, TI_STOPPED);
	s->state = TS_DISABLED;
	session_timer_stop(s->ev_duration);
	session_timer_stop(s->ev_flush_period);
	session_timer_stop(s->ev_write);
	session_timer_stop(s->ev_trigger_timeout);
	session_timer_stop(s->ev_stop_timeout);
	session_timer_stop(s->ev_snapshot);
	session_timer_stop(s->ev_clear_incr);
	session_timer_stop(s->ev_trigger_stop);
	session_timer_stop(s->ev_all_started);
	/* What producers left in their SMBs still belongs to the trace. */
	TAILQ_FOREACH(p, &s->svc->producers, entry)
		commit_scrape(p, s);
	session_lifecycle(s, TL_TRACING_DISABLED);
	s->should_emit_stats = 1;
	if (s->writing_file) {
		if (readback_to_file(s) == -1) {
			log_info("%s: session %" PRIu64 ": output file "
			    "incomplete", __func__, s->id);
			if (s->file.error)
				session_end_error(s, s->file.why);
		}
		s->writing_file = 0;
		trace_file_close(&s->file);
	}
	log_info("%s: session %" PRIu64 " disabled", __func__, s->id);
	if (s->consumer != NULL && !s->disabled_notified) {
		s->disabled_notified = 1;
		consumer_port_tracing_disabled(s->consumer, s->end_error[0] != '\0' ?
		    s->end_error : NULL);
	}
}

static void
session_final_flush_done(struct tsession *s, int success, void *arg)
{
	(void)arg;
	if (s == NULL)
		return;
	s->final_flush_outcome = success ? 1 : 2;
	session_disable(s, NULL);
}

void
session_flush_and_disable(struct tsession *s)
{
	if (s->state != TS_STARTED) {
		session_disable(s, NULL);
		return;
	}
	if (flush_start(s, 0, 0, session_final_flush_done, NULL) == -1)
		session_disable(s, NULL);
}

/* FreeBuffers, a consumer gone, or traced exiting. */
void
session_free(struct tsession *s)
{
	struct traced		*svc = s->svc;
	struct tinstance	*inst;
	size_t			 i;

	if (s->state != TS_DISABLED) {
		TAILQ_FOREACH(inst, &s->instances, entry)
			session_instance_stop(inst, 1);
		s->disabled_notified = 1;	/* nobody to tell */
		session_finish_disable(s);
	}
	flush_session_gone(s);
	while ((inst = TAILQ_FIRST(&s->instances)) != NULL)
		session_instance_free(inst);
	for (i = 0; i < s->nbuffers; i++)
		service_buffer_free(svc, s->buffers[i]);
	session_timer_free(&s->ev_duration);
	session_timer_free(&s->ev_flush_period);
	session_timer_free(&s->ev_write);
	session_timer_free(&s->ev_trigger_timeout);
	session_timer_free(&s->ev_stop_timeout);
	session_timer_free(&s->ev_snapshot);
	session_timer_free(&s->ev_clear_incr);
	session_timer_free(&s->ev_trigger_stop);
	session_timer_free(&s->ev_all_started);
	trace_file_close(&s->file);
	if (s->consumer != NULL)
		s->consumer->session = NULL;
	TAILQ_REMOVE(&svc->sessions, s, entry);
	svc->nsessions--;
	log_info("%s: session %" PRIu64 " freed", __func__, s->id);
	for (i = 0; i < s->ntriggers; i++) {
		free(s->triggers[i].name);
		free(s->triggers[i].producer_name);
	}
	free(s->triggers);
	free(s->seqs);
	free(s->pending_clocks);
	free(s->slow_start);
	free(s->buffers);
	free(s->detach_key);
	trace_filter_free(s->filter);
	free(s->filter_stats.discarded);
	perfetto__protos__trace_config__free_unpacked(s->cfg, NULL);
	free(s);
}

/* ---- producer events ------------------------------------------------- */

void
session_instance_started(struct tproducer *p, uint64_t id)
{
	struct tsession		*s;
	struct tinstance	*inst;

	TAILQ_FOREACH(s, &p->svc->sessions, entry) {
		if ((inst = session_instance_find(s, p, id)) == NULL ||
		    s->state != TS_STARTED)
			continue;
		if (inst->state != TI_STARTING)
			continue;
		session_instance_state(inst, TI_STARTED);
		session_maybe_all_started(s);
	}
}

void
session_instance_stopped(struct tproducer *p, uint64_t id)
{
	struct tsession		*s, *next;
	struct tinstance	*inst;

	TAILQ_FOREACH_SAFE(s, &p->svc->sessions, entry, next) {
		if ((inst = session_instance_find(s, p, id)) == NULL ||
		    inst->state != TI_STOPPING)
			continue;
		session_instance_state(inst, TI_STOPPED);
		if (s->state == TS_STOPPING && session_all_stopped(s))
			session_finish_disable(s);
	}
}

/* A data source just registered: join the sessions that want it. */
void
session_datasource_added(struct tdatasource *ds)
{
	struct traced		*svc = ds->producer->svc;
	struct tsession		*s;
	struct tinstance	*inst;
	size_t			 i;

	TAILQ_FOREACH(s, &svc->sessions, entry) {
		if (s->state != TS_CONFIGURED && s->state != TS_STARTED)
			continue;
		for (i = 0; i < s->cfg->n_data_sources; i++) {
			const TraceConfigDS *cds = s->cfg->data_sources[i];

			if (cds->config == NULL || cds->config->name == NULL ||
			    strcmp(cds->config->name, ds->name) != 0)
				continue;
			producer_port_hold(ds->producer, 1);
			inst = session_instance_setup(s, cds, ds);
			if (inst != NULL && s->state == TS_STARTED)
				session_instance_start(s, inst);
			producer_port_hold(ds->producer, 0);
		}
	}
}

/* Instances of a data source going away (unregistered or producer gone). */
void
session_datasource_removed(struct tdatasource *ds)
{
	struct traced		*svc = ds->producer->svc;
	struct tsession		*s, *snext;
	struct tinstance	*inst, *next;

	TAILQ_FOREACH_SAFE(s, &svc->sessions, entry, snext) {
		TAILQ_FOREACH_SAFE(inst, &s->instances, entry, next) {
			if (inst->producer != ds->producer ||
			    strcmp(inst->ds_name, ds->name) != 0)
				continue;
			if (inst->state != TI_STOPPED) {
				session_instance_state(inst, TI_STOPPED);
				producer_port_stop_ds(inst->producer, inst->id);
			}
			session_instance_free(inst);
		}
		if (s->state == TS_STOPPING && session_all_stopped(s))
			session_finish_disable(s);
		else
			session_maybe_all_started(s);
	}
}

/* ---- detach / attach ------------------------------------------------- */

int
session_detach(struct tconsumer *c, const char *key, const char **cause)
{
	struct tsession	*s = c->session;

	if (s == NULL) {
		*cause = "no session to detach";
		return -1;
	}
	if (key == NULL || *key == '\0') {
		*cause = "empty detach key";
		return -1;
	}
	if (session_find_detached(c->svc, c->uid, key) != NULL) {
		*cause = "a session is already detached with this key";
		return -1;
	}
	if ((s->detach_key = strdup(key)) == NULL) {
		*cause = "out of memory";
		return -1;
	}
	s->consumer = NULL;
	c->session = NULL;
	log_info("%s: session %" PRIu64 " detached", __func__, s->id);
	return 0;
}

struct tsession *
session_attach(struct tconsumer *c, const char *key, const char **cause)
{
	struct tsession	*s;

	if (c->session != NULL) {
		*cause = "this connection already has a session";
		return NULL;
	}
	if (key == NULL ||
	    (s = session_find_detached(c->svc, c->uid, key)) == NULL) {
		*cause = "no detached session with this key";
		return NULL;
	}
	free(s->detach_key);
	s->detach_key = NULL;
	s->consumer = c;
	c->session = s;
	log_info("%s: session %" PRIu64 " attached", __func__, s->id);
	return s;
}

/* ---- ChangeTraceConfig ------------------------------------------------ */

static int
session_strv_copy(char ***dst, size_t *ndst, char *const *src, size_t n)
{
	char	**v;
	size_t	  i;

	if ((v = calloc(n ? n : 1, sizeof(*v))) == NULL)
		return -1;
	for (i = 0; i < n; i++)
		if ((v[i] = strdup(src[i] ? src[i] : "")) == NULL) {
			while (i > 0)
				free(v[--i]);
			free(v);
			return -1;
		}
	for (i = 0; i < *ndst; i++)
		free((*dst)[i]);
	free(*dst);
	*dst = v;
	*ndst = n;
	return 0;
}

/*
 * As upstream, only the producer filters of data sources already in the
 * config may change; producers that now match get instances (started if
 * the session runs). Existing instances are left alone.
 */
int
session_change_config(struct tsession *s, const TraceConfig *ncfg,
    const char **cause)
{
	struct tdatasource	*ds;
	struct tinstance	*inst;
	size_t			 i, j;

	if (s->state != TS_STARTED && s->state != TS_CONFIGURED) {
		*cause = "the session is not running";
		return -1;
	}
	for (i = 0; i < ncfg->n_data_sources; i++) {
		const TraceConfigDS *nds = ncfg->data_sources[i];
		TraceConfigDS *ods = NULL;

		if (nds->config == NULL || nds->config->name == NULL)
			continue;
		for (j = 0; j < s->cfg->n_data_sources; j++)
			if (s->cfg->data_sources[j]->config != NULL &&
			    s->cfg->data_sources[j]->config->name != NULL &&
			    strcmp(s->cfg->data_sources[j]->config->name,
			    nds->config->name) == 0) {
				ods = s->cfg->data_sources[j];
				break;
			}
		if (ods == NULL)
			continue;	/* new data sources are not allowed */
		if (session_strv_copy(&ods->producer_name_filter,
		    &ods->n_producer_name_filter, nds->producer_name_filter,
		    nds->n_producer_name_filter) == -1 ||
		    session_strv_copy(&ods->producer_name_regex_filter,
		    &ods->n_producer_name_regex_filter,
		    nds->producer_name_regex_filter,
		    nds->n_producer_name_regex_filter) == -1) {
			*cause = "out of memory";
			return -1;
		}
		TAILQ_FOREACH(ds, &s->svc->datasources, entry) {
			if (strcmp(ds->name, ods->config->name) != 0)
				continue;
			TAILQ_FOREACH(inst, &s->instances, entry)
				if (inst->producer == ds->producer &&
				    strcmp(inst->ds_name, ds->name) == 0)
					break;
			if (inst != NULL)
				continue;
			producer_port_hold(ds->producer, 1);
			inst = session_instance_setup(s, ods, ds);
			if (inst != NULL && s->state == TS_STARTED)
				session_instance_start(s, inst);
			producer_port_hold(ds->producer, 0);
		}
	}
	return 0;
}
