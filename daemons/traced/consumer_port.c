/*
 * ConsumerPort: the RPC face of traced towards consumers (the faro and
 * perfetto commands, SDK consumers), method for method as upstream's
 * consumer_port.proto (ids 1..15 in declaration order). A consumer is
 * trusted to ask, not to see others' data: it owns at most one session
 * per connection and sees only sessions of its own uid.
 *
 * Replies that wait: EnableTracing is answered when the session is
 * disabled; ReadBuffers streams slices, paced by the connection's
 * backlog; Flush answers when every producer acknowledged (or failure on
 * timeout); ObserveEvents is a stream of state changes.
 */
#include "config.h"

#include <sys/time.h>

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "base/log.h"
#include "libipc/ipc_host.h"
#include "traced.h"
#include "libshm/trace_buffer.h"
#include "protos/perfetto/ipc/consumer_port.pb-c.h"
#include "protos/perfetto/common/data_source_descriptor.pb-c.h"

typedef Perfetto__Protos__ReadBuffersResponse__Slice	Slice;

/* A ReadBuffers reply under construction. */
#define CPORT_REPLY_MAX		(TRACED_REPLY_MAX - 1024)
#define CPORT_READ_BUDGET	(1024 * 1024)
#define CPORT_BACKLOG_MAX	(4 * 1024 * 1024)
#define CPORT_MAX_SLICES	4096

struct consumer_port_read {
	struct tconsumer	*consumer;
	struct ipc_reply	*reply;
	struct event		*ev;
	Slice			 slices[CPORT_MAX_SLICES];
	Slice			*slicep[CPORT_MAX_SLICES];
	uint8_t			*data;		/* slice payloads, copied */
	size_t			 nslices;
	size_t			 used;
	int			 failed;
};

#define CPORT_ARGS(type, fn, call)					\
	((type *)ipc_call_args_untrusted((call),			\
	    &perfetto__protos__##fn##__descriptor))

static struct tconsumer *
consumer_port_consumer(struct ipc_call *call, struct traced *svc)
{
	struct tconsumer	*c;

	c = service_consumer_by_conn(svc, call->peer->conn_id);
	if (c == NULL) {
		c = service_consumer_connect(svc, call->peer->conn_id,
		    call->peer->uid, call->peer->pid);
		if (c == NULL)
			ipc_reply_fail(call->reply);
	}
	return c;
}

/* ---- notifications from the session code ------------------------- */

static void
consumer_port_send_disabled(struct ipc_reply *r, const char *error)
{
	Perfetto__Protos__EnableTracingResponse res =
	    PERFETTO__PROTOS__ENABLE_TRACING_RESPONSE__INIT;

	res.state_case = PERFETTO__PROTOS__ENABLE_TRACING_RESPONSE__STATE_DISABLED;
	res.disabled = 1;
	if (error != NULL)
		res.error = (char *)error;
	ipc_reply_send_msg(r, &res.base, 0, -1);
}

void
consumer_port_tracing_disabled(struct tconsumer *c, const char *error)
{
	if (c->enable_reply == NULL)
		return;
	consumer_port_send_disabled(c->enable_reply, error);
	c->enable_reply = NULL;
}

static void
consumer_port_observe_send(struct tconsumer *c,
    Perfetto__Protos__ObservableEvents *ev)
{
	Perfetto__Protos__ObserveEventsResponse res =
	    PERFETTO__PROTOS__OBSERVE_EVENTS_RESPONSE__INIT;

	res.events = ev;
	if (ipc_reply_send_msg(c->observe_reply, &res.base, 1, -1) == -1) {
		ipc_reply_free(c->observe_reply);
		c->observe_reply = NULL;
	}
}

void
consumer_port_instance_state(struct tconsumer *c, struct tinstance *inst)
{
	Perfetto__Protos__ObservableEvents ev =
	    PERFETTO__PROTOS__OBSERVABLE_EVENTS__INIT;
	Perfetto__Protos__ObservableEvents__DataSourceInstanceStateChange ch =
	    PERFETTO__PROTOS__OBSERVABLE_EVENTS__DATA_SOURCE_INSTANCE_STATE_CHANGE__INIT;
	Perfetto__Protos__ObservableEvents__DataSourceInstanceStateChange *chp =
	    &ch;

	if (c->observe_reply == NULL || !(c->observe_mask &
	    PERFETTO__PROTOS__OBSERVABLE_EVENTS__TYPE__TYPE_DATA_SOURCES_INSTANCES))
		return;
	/* Only settled states are reported, as upstream. */
	if (inst->state != TI_CONFIGURED && inst->state != TI_STARTED &&
	    inst->state != TI_STOPPED)
		return;
	ch.producer_name = inst->producer->name;
	ch.data_source_name = inst->ds_name;
	ch.has_state = 1;
	ch.state = inst->state == TI_STARTED ?
	    PERFETTO__PROTOS__OBSERVABLE_EVENTS__DATA_SOURCE_INSTANCE_STATE__DATA_SOURCE_INSTANCE_STATE_STARTED :
	    PERFETTO__PROTOS__OBSERVABLE_EVENTS__DATA_SOURCE_INSTANCE_STATE__DATA_SOURCE_INSTANCE_STATE_STOPPED;
	ev.n_instance_state_changes = 1;
	ev.instance_state_changes = &chp;
	consumer_port_observe_send(c, &ev);
}

void
consumer_port_all_started(struct tconsumer *c)
{
	Perfetto__Protos__ObservableEvents ev =
	    PERFETTO__PROTOS__OBSERVABLE_EVENTS__INIT;

	if (c->observe_reply == NULL || !(c->observe_mask &
	    PERFETTO__PROTOS__OBSERVABLE_EVENTS__TYPE__TYPE_ALL_DATA_SOURCES_STARTED))
		return;
	ev.has_all_data_sources_started = 1;
	ev.all_data_sources_started = 1;
	consumer_port_observe_send(c, &ev);
}

static void
consumer_port_read_free(struct consumer_port_read *rd)
{
	if (rd->reply != NULL)
		ipc_reply_free(rd->reply);
	if (rd->ev != NULL)
		event_free(rd->ev);
	free(rd->data);
	free(rd);
}

void
consumer_port_consumer_gone(struct tconsumer *c)
{
	if (c->enable_reply != NULL)
		ipc_reply_free(c->enable_reply);
	if (c->observe_reply != NULL)
		ipc_reply_free(c->observe_reply);
	if (c->read != NULL)
		consumer_port_read_free(c->read);
	c->enable_reply = c->observe_reply = NULL;
	c->read = NULL;
}

/* ---- ReadBuffers --------------------------------------------------- */

static int
consumer_port_read_flush(struct consumer_port_read *rd, int has_more)
{
	Perfetto__Protos__ReadBuffersResponse res =
	    PERFETTO__PROTOS__READ_BUFFERS_RESPONSE__INIT;
	size_t	i, off = 0;
	int	rc;

	for (i = 0; i < rd->nslices; i++) {
		rd->slices[i].data.data = rd->data + off;
		off += rd->slices[i].data.len;
		rd->slicep[i] = &rd->slices[i];
	}
	res.n_slices = rd->nslices;
	res.slices = rd->slicep;
	rc = ipc_reply_send_msg(rd->reply, &res.base, has_more, -1);
	rd->nslices = 0;
	rd->used = 0;
	if (!has_more)
		rd->reply = NULL;	/* released by the final send */
	if (rc == -1)
		rd->failed = 1;
	return rc;
}

static int
consumer_port_read_slice(struct consumer_port_read *rd, const uint8_t *p,
    size_t len, int last)
{
	Slice	*s;

	/* protobuf overhead per slice: tags, lengths, the bool. */
	if (rd->nslices == CPORT_MAX_SLICES ||
	    rd->used + len + rd->nslices * 16 + 16 > CPORT_REPLY_MAX) {
		if (rd->nslices > 0 && consumer_port_read_flush(rd, 1) == -1)
			return -1;
	}
	s = &rd->slices[rd->nslices++];
	perfetto__protos__read_buffers_response__slice__init(s);
	s->has_data = 1;
	s->data.len = len;
	memcpy(rd->data + rd->used, p, len);
	rd->used += len;
	if (last) {
		s->has_last_slice_for_packet = 1;
		s->last_slice_for_packet = 1;
	}
	return 0;
}

/* One packet: cut into slices that fit in a frame. */
static int
consumer_port_read_sink(void *arg, const uint8_t *body, size_t blen,
    const uint8_t *trailer, size_t tlen)
{
	struct consumer_port_read	*rd = arg;
	size_t			 n;

	while (blen > 0) {
		n = blen < TRACED_MAX_SLICE ? blen : TRACED_MAX_SLICE;
		if (consumer_port_read_slice(rd, body, n, n == blen && tlen == 0) == -1)
			return -1;
		body += n;
		blen -= n;
	}
	if (tlen > 0 && consumer_port_read_slice(rd, trailer, tlen, 1) == -1)
		return -1;
	return 0;
}

static void
consumer_port_read_step(evutil_socket_t fd, short ev, void *arg)
{
	struct consumer_port_read	*rd = arg;
	struct tconsumer	*c = rd->consumer;
	struct tsession		*s = c->session;
	struct timeval		 tv = { 0, 0 };
	int			 more = 0;

	(void)fd; (void)ev;
	/* Pace on the client: do not queue more than it reads. */
	if (ipc_reply_backlog(rd->reply) > CPORT_BACKLOG_MAX) {
		tv.tv_usec = 5000;
		evtimer_add(rd->ev, &tv);
		return;
	}
	if (s != NULL && !s->writing_file &&
	    readback_session(s, CPORT_READ_BUDGET, consumer_port_read_sink, rd,
	    &more) == -1)
		more = 0;
	if (rd->failed || !ipc_reply_alive(rd->reply))
		more = 0;
	if (more) {
		evtimer_add(rd->ev, &tv);
		return;
	}
	if (!rd->failed)
		consumer_port_read_flush(rd, 0);
	c->read = NULL;
	consumer_port_read_free(rd);
}

static void
consumer_port_read_buffers(struct ipc_call *call, void *arg)
{
	struct traced		*svc = arg;
	struct tconsumer	*c;
	struct consumer_port_read	*rd;
	struct timeval		 tv = { 0, 0 };

	if ((c = consumer_port_consumer(call, svc)) == NULL)
		return;
	if (c->read != NULL) {
		/* One read at a time per connection. */
		ipc_reply_fail(call->reply);
		return;
	}
	if ((rd = calloc(1, sizeof(*rd))) == NULL ||
	    (rd->data = malloc(CPORT_REPLY_MAX)) == NULL ||
	    (rd->ev = evtimer_new(svc->base, consumer_port_read_step, rd)) == NULL) {
		if (rd != NULL)
			free(rd->data);
		free(rd);
		ipc_reply_fail(call->reply);
		return;
	}
	rd->consumer = c;
	rd->reply = call->reply;
	c->read = rd;
	evtimer_add(rd->ev, &tv);
}

/* ---- methods ------------------------------------------------------- */

static void
consumer_port_enable_tracing(struct ipc_call *call, void *arg)
{
	struct traced		*svc = arg;
	struct tconsumer	*c;
	Perfetto__Protos__EnableTracingRequest *req;
	Perfetto__Protos__TraceConfig *cfg;
	const char		*cause;
	int			 fd = -1;

	if ((c = consumer_port_consumer(call, svc)) == NULL ||
	    (req = CPORT_ARGS(Perfetto__Protos__EnableTracingRequest,
	    enable_tracing_request, call)) == NULL)
		return;
	if (req->has_attach_notification_only &&
	    req->attach_notification_only) {
		/* After Attach: only wait for the end of the session. */
		if (c->session == NULL || c->session->state == TS_DISABLED)
			consumer_port_send_disabled(call->reply, NULL);
		else {
			if (c->enable_reply != NULL)
				ipc_reply_free(c->enable_reply);
			c->enable_reply = call->reply;
		}
		goto out;
	}
	if (req->trace_config == NULL) {
		consumer_port_send_disabled(call->reply, "no trace config");
		goto out;
	}
	cfg = req->trace_config;
	req->trace_config = NULL;
	if (cfg->has_write_into_file && cfg->write_into_file)
		fd = ipc_call_take_fd(call);
	if (session_enable(c, cfg, fd, &cause) == -1) {
		log_warnx("%s: refused: %s", __func__, cause);
		consumer_port_send_disabled(call->reply, cause);
		goto out;
	}
	if (c->enable_reply != NULL)
		ipc_reply_free(c->enable_reply);
	c->enable_reply = call->reply;
	/* The session may already be over (e.g. no start trigger). */
	if (c->session != NULL && c->session->state == TS_DISABLED)
		consumer_port_tracing_disabled(c, NULL);
out:
	perfetto__protos__enable_tracing_request__free_unpacked(req, NULL);
}

static void
consumer_port_start_tracing(struct ipc_call *call, void *arg)
{
	struct traced		*svc = arg;
	struct tconsumer	*c;

	if ((c = consumer_port_consumer(call, svc)) == NULL)
		return;
	if (c->session == NULL) {
		ipc_reply_fail(call->reply);
		return;
	}
	if (c->session->state == TS_CONFIGURED)
		session_start(c->session);
	ipc_reply_send_empty(call->reply,
	    &perfetto__protos__start_tracing_response__descriptor);
}

static void
consumer_port_change_trace_config(struct ipc_call *call, void *arg)
{
	struct traced		*svc = arg;
	struct tconsumer	*c;
	Perfetto__Protos__ChangeTraceConfigRequest *req;
	const char		*cause;

	if ((c = consumer_port_consumer(call, svc)) == NULL ||
	    (req = CPORT_ARGS(Perfetto__Protos__ChangeTraceConfigRequest,
	    change_trace_config_request, call)) == NULL)
		return;
	if (c->session == NULL || req->trace_config == NULL ||
	    session_change_config(c->session, req->trace_config,
	    &cause) == -1) {
		ipc_reply_fail(call->reply);
	} else
		ipc_reply_send_empty(call->reply,
		    &perfetto__protos__change_trace_config_response__descriptor);
	perfetto__protos__change_trace_config_request__free_unpacked(req, NULL);
}

static void
consumer_port_disable_tracing(struct ipc_call *call, void *arg)
{
	struct traced		*svc = arg;
	struct tconsumer	*c;

	if ((c = consumer_port_consumer(call, svc)) == NULL)
		return;
	if (c->session != NULL)
		session_disable(c->session, NULL);
	ipc_reply_send_empty(call->reply,
	    &perfetto__protos__disable_tracing_response__descriptor);
}

static void
consumer_port_free_buffers(struct ipc_call *call, void *arg)
{
	struct traced		*svc = arg;
	struct tconsumer	*c;

	if ((c = consumer_port_consumer(call, svc)) == NULL)
		return;
	if (c->session != NULL) {
		/* The answer to EnableTracing, if still owed, comes first. */
		consumer_port_tracing_disabled(c, NULL);
		session_free(c->session);
	}
	ipc_reply_send_empty(call->reply,
	    &perfetto__protos__free_buffers_response__descriptor);
}

static void
consumer_port_flush_done(struct tsession *s, int success, void *arg)
{
	struct ipc_reply	*r = arg;
	ProtobufCMessage	 m;

	(void)s;
	if (!success) {
		ipc_reply_fail(r);
		return;
	}
	protobuf_c_message_init(&perfetto__protos__flush_response__descriptor,
	    &m);
	ipc_reply_send_msg(r, &m, 0, -1);
}

static void
consumer_port_flush(struct ipc_call *call, void *arg)
{
	struct traced		*svc = arg;
	struct tconsumer	*c;
	Perfetto__Protos__FlushRequest *req;

	if ((c = consumer_port_consumer(call, svc)) == NULL ||
	    (req = CPORT_ARGS(Perfetto__Protos__FlushRequest, flush_request,
	    call)) == NULL)
		return;
	if (c->session == NULL || flush_start(c->session, req->timeout_ms,
	    req->flags, consumer_port_flush_done, call->reply) == -1)
		ipc_reply_fail(call->reply);
	perfetto__protos__flush_request__free_unpacked(req, NULL);
}

static void
consumer_port_detach(struct ipc_call *call, void *arg)
{
	struct traced		*svc = arg;
	struct tconsumer	*c;
	Perfetto__Protos__DetachRequest *req;
	const char		*cause;

	if ((c = consumer_port_consumer(call, svc)) == NULL ||
	    (req = CPORT_ARGS(Perfetto__Protos__DetachRequest, detach_request,
	    call)) == NULL)
		return;
	if (session_detach(c, req->key, &cause) == -1) {
		log_warnx("%s: %s", __func__, cause);
		ipc_reply_fail(call->reply);
	} else
		ipc_reply_send_empty(call->reply,
		    &perfetto__protos__detach_response__descriptor);
	perfetto__protos__detach_request__free_unpacked(req, NULL);
}

static void
consumer_port_attach(struct ipc_call *call, void *arg)
{
	struct traced		*svc = arg;
	struct tconsumer	*c;
	struct tsession		*s;
	Perfetto__Protos__AttachRequest *req;
	Perfetto__Protos__AttachResponse res =
	    PERFETTO__PROTOS__ATTACH_RESPONSE__INIT;
	const char		*cause;

	if ((c = consumer_port_consumer(call, svc)) == NULL ||
	    (req = CPORT_ARGS(Perfetto__Protos__AttachRequest, attach_request,
	    call)) == NULL)
		return;
	if ((s = session_attach(c, req->key, &cause)) == NULL) {
		log_warnx("%s: %s", __func__, cause);
		ipc_reply_fail(call->reply);
	} else {
		res.trace_config = s->cfg;
		ipc_reply_send_msg(call->reply, &res.base, 0, -1);
	}
	perfetto__protos__attach_request__free_unpacked(req, NULL);
}

static void
consumer_port_get_trace_stats(struct ipc_call *call, void *arg)
{
	struct traced		*svc = arg;
	struct tconsumer	*c;
	Perfetto__Protos__GetTraceStatsResponse res =
	    PERFETTO__PROTOS__GET_TRACE_STATS_RESPONSE__INIT;

	if ((c = consumer_port_consumer(call, svc)) == NULL)
		return;
	if (c->session == NULL ||
	    (res.trace_stats = service_packets_stats_new(c->session)) == NULL) {
		ipc_reply_fail(call->reply);
		return;
	}
	ipc_reply_send_msg(call->reply, &res.base, 0, -1);
	service_packets_stats_free(res.trace_stats);
}

static void
consumer_port_observe_events(struct ipc_call *call, void *arg)
{
	struct traced		*svc = arg;
	struct tconsumer	*c;
	Perfetto__Protos__ObserveEventsRequest *req;
	Perfetto__Protos__ObserveEventsResponse res =
	    PERFETTO__PROTOS__OBSERVE_EVENTS_RESPONSE__INIT;
	size_t			 i;

	if ((c = consumer_port_consumer(call, svc)) == NULL ||
	    (req = CPORT_ARGS(Perfetto__Protos__ObserveEventsRequest,
	    observe_events_request, call)) == NULL)
		return;
	/* A new request ends the previous stream. */
	if (c->observe_reply != NULL) {
		ipc_reply_send_msg(c->observe_reply, &res.base, 0, -1);
		c->observe_reply = NULL;
	}
	c->observe_mask = 0;
	for (i = 0; i < req->n_events_to_observe; i++)
		c->observe_mask |= (uint32_t)req->events_to_observe[i];
	if (c->observe_mask == 0)
		ipc_reply_send_msg(call->reply, &res.base, 0, -1);
	else {
		c->observe_reply = call->reply;
		/* Tell a late observer what already happened. */
		if (c->session != NULL && c->session->did_notify_all_started)
			consumer_port_all_started(c);
	}
	perfetto__protos__observe_events_request__free_unpacked(req, NULL);
}

static const char *
consumer_port_state_name(enum tsession_state st)
{
	switch (st) {
	case TS_CONFIGURED:	return "CONFIGURED";
	case TS_STARTED:	return "STARTED";
	case TS_STOPPING:	return "STOPPING";
	case TS_DISABLED:	return "DISABLED";
	}
	return "UNKNOWN";
}

static void
consumer_port_query_service_state(struct ipc_call *call, void *arg)
{
	struct traced		*svc = arg;
	struct tconsumer	*c;
	Perfetto__Protos__QueryServiceStateRequest *req;
	Perfetto__Protos__QueryServiceStateResponse res =
	    PERFETTO__PROTOS__QUERY_SERVICE_STATE_RESPONSE__INIT;
	Perfetto__Protos__TracingServiceState st =
	    PERFETTO__PROTOS__TRACING_SERVICE_STATE__INIT;
	Perfetto__Protos__TracingServiceState__Producer *pr = NULL, **prp = NULL;
	Perfetto__Protos__TracingServiceState__DataSource *ds = NULL, **dsp = NULL;
	Perfetto__Protos__TracingServiceState__TracingSession *ts = NULL,
	    **tsp = NULL;
	Perfetto__Protos__DataSourceDescriptor **descs = NULL;
	uint32_t		*kb = NULL;
	struct tproducer	*p;
	struct tdatasource	*d;
	struct tsession		*s;
	struct tinstance	*inst;
	size_t			 n, i, nkb = 0, first, batch;
	int			 sessions_only;

	if ((c = consumer_port_consumer(call, svc)) == NULL ||
	    (req = CPORT_ARGS(Perfetto__Protos__QueryServiceStateRequest,
	    query_service_state_request, call)) == NULL)
		return;
	sessions_only = req->has_sessions_only && req->sessions_only;
	perfetto__protos__query_service_state_request__free_unpacked(req, NULL);

	n = svc->nproducers;
	if (!sessions_only && n > 0) {
		pr = calloc(n, sizeof(*pr));
		prp = calloc(n, sizeof(*prp));
		if (pr == NULL || prp == NULL)
			goto fail;
		i = 0;
		TAILQ_FOREACH(p, &svc->producers, entry) {
			perfetto__protos__tracing_service_state__producer__init(
			    &pr[i]);
			pr[i].has_id = pr[i].has_pid = pr[i].has_uid = 1;
			pr[i].id = p->id;
			pr[i].pid = (int32_t)p->pid;
			pr[i].uid = (int32_t)p->uid;
			pr[i].name = p->name;
			pr[i].sdk_version = p->sdk_version;
			prp[i] = &pr[i];
			i++;
		}
		st.n_producers = i;
		st.producers = prp;
	}
	n = svc->ndatasources;
	if (!sessions_only && n > 0) {
		ds = calloc(n, sizeof(*ds));
		dsp = calloc(n, sizeof(*dsp));
		descs = calloc(n, sizeof(*descs));
		if (ds == NULL || dsp == NULL || descs == NULL)
			goto fail;
		i = 0;
		TAILQ_FOREACH(d, &svc->datasources, entry) {
			perfetto__protos__tracing_service_state__data_source__init(
			    &ds[i]);
			descs[i] = perfetto__protos__data_source_descriptor__unpack(
			    NULL, d->desc_len, d->desc);
			ds[i].ds_descriptor = descs[i];
			ds[i].has_producer_id = 1;
			ds[i].producer_id = d->producer->id;
			dsp[i] = &ds[i];
			i++;
		}
		st.n_data_sources = i;
		st.data_sources = dsp;
	}
	n = svc->nsessions;
	TAILQ_FOREACH(s, &svc->sessions, entry)
		nkb += s->nbuffers;
	if (n > 0) {
		ts = calloc(n, sizeof(*ts));
		tsp = calloc(n, sizeof(*tsp));
		kb = calloc(nkb ? nkb : 1, sizeof(*kb));
		if (ts == NULL || tsp == NULL || kb == NULL)
			goto fail;
		i = 0;
		nkb = 0;
		TAILQ_FOREACH(s, &svc->sessions, entry) {
			/* Others' sessions are not ours to see (root sees). */
			if (c->uid != 0 && s->uid != c->uid)
				continue;
			perfetto__protos__tracing_service_state__tracing_session__init(
			    &ts[i]);
			ts[i].has_id = ts[i].has_consumer_uid = 1;
			ts[i].id = s->id;
			ts[i].consumer_uid = (int32_t)s->uid;
			ts[i].state = (char *)consumer_port_state_name(s->state);
			ts[i].unique_session_name = s->cfg->unique_session_name;
			ts[i].buffer_size_kb = kb + nkb;
			for (size_t b = 0; b < s->nbuffers; b++)
				kb[nkb++] = s->cfg->buffers[b]->size_kb;
			ts[i].n_buffer_size_kb = s->nbuffers;
			ts[i].has_duration_ms = 1;
			ts[i].duration_ms = s->duration_ms;
			ts[i].has_num_data_sources = 1;
			ts[i].num_data_sources = 0;
			TAILQ_FOREACH(inst, &s->instances, entry)
				ts[i].num_data_sources++;
			if (s->start_realtime_ns != 0) {
				ts[i].has_start_realtime_ns = 1;
				ts[i].start_realtime_ns =
				    (int64_t)s->start_realtime_ns;
			}
			ts[i].has_is_started = 1;
			ts[i].is_started = s->state == TS_STARTED;
			if (s->state == TS_STARTED)
				st.num_sessions_started++;
			tsp[i] = &ts[i];
			i++;
		}
		st.n_tracing_sessions = i;
		st.tracing_sessions = tsp;
	}
	st.has_supports_tracing_sessions = 1;
	st.supports_tracing_sessions = 1;
	st.has_num_sessions = st.has_num_sessions_started = 1;
	st.num_sessions = (int32_t)svc->nsessions;
	st.tracing_service_version = (char *)"faro traced " PACKAGE_VERSION;
	res.service_state = &st;

	/*
	 * One frame holds 128 KiB: send the data sources in batches, the
	 * rest with the first, as upstream does.
	 */
	n = st.n_data_sources;
	first = 0;
	do {
		batch = n - first;
		st.data_sources = dsp != NULL ? dsp + first : NULL;
		st.n_data_sources = batch;
		while (batch > 1 &&
		    perfetto__protos__query_service_state_response__get_packed_size(
		    &res) > TRACED_REPLY_MAX - 256) {
			batch /= 2;
			st.n_data_sources = batch;
		}
		first += batch;
		ipc_reply_send_msg(call->reply, &res.base, first < n, -1);
		st.n_producers = 0;
		st.n_tracing_sessions = 0;
		st.tracing_service_version = NULL;
		st.has_num_sessions = st.has_num_sessions_started = 0;
		st.has_supports_tracing_sessions = 0;
	} while (first < n);
	goto out;
fail:
	ipc_reply_fail(call->reply);
out:
	if (descs != NULL)
		for (i = 0; i < svc->ndatasources; i++)
			if (descs[i] != NULL)
				perfetto__protos__data_source_descriptor__free_unpacked(
				    descs[i], NULL);
	free(descs);
	free(pr); free(prp); free(ds); free(dsp); free(ts); free(tsp); free(kb);
}

static void
consumer_port_query_capabilities(struct ipc_call *call, void *arg)
{
	struct traced		*svc = arg;
	Perfetto__Protos__QueryCapabilitiesResponse res =
	    PERFETTO__PROTOS__QUERY_CAPABILITIES_RESPONSE__INIT;
	Perfetto__Protos__TracingServiceCapabilities caps =
	    PERFETTO__PROTOS__TRACING_SERVICE_CAPABILITIES__INIT;
	Perfetto__Protos__ObservableEvents__Type ev[] = {
	    PERFETTO__PROTOS__OBSERVABLE_EVENTS__TYPE__TYPE_DATA_SOURCES_INSTANCES,
	    PERFETTO__PROTOS__OBSERVABLE_EVENTS__TYPE__TYPE_ALL_DATA_SOURCES_STARTED,
	};

	if (consumer_port_consumer(call, svc) == NULL)
		return;
	caps.has_has_query_capabilities = 1;
	caps.has_query_capabilities = 1;
	caps.n_observable_events = 2;
	caps.observable_events = ev;
	/* output_path would make traced open files by path: never. */
	caps.has_has_trace_config_output_path = 1;
	caps.has_trace_config_output_path = 0;
	caps.has_has_clone_session = 1;
	caps.has_clone_session = 1;
	res.capabilities = &caps;
	ipc_reply_send_msg(call->reply, &res.base, 0, -1);
}

static void
consumer_port_save_trace_for_bugreport(struct ipc_call *call, void *arg)
{
	Perfetto__Protos__SaveTraceForBugreportResponse res =
	    PERFETTO__PROTOS__SAVE_TRACE_FOR_BUGREPORT_RESPONSE__INIT;

	if (consumer_port_consumer(call, arg) == NULL)
		return;
	res.has_success = 1;
	res.success = 0;
	res.msg = (char *)"SaveTraceForBugreport is not supported by faro traced";
	ipc_reply_send_msg(call->reply, &res.base, 0, -1);
}

/* A CloneSession waiting for the source session's flush. */
struct consumer_port_clone {
	struct traced		*svc;
	uint64_t		 conn_id;
	uint64_t		 src_id;
	struct ipc_reply	*reply;
	int			 fd;
	int			 skip_filter;	/* skip_trace_filter */
};

static void
consumer_port_clone_reply(struct ipc_reply *r, struct tsession *s, int was_file,
    const char *error)
{
	Perfetto__Protos__CloneSessionResponse res =
	    PERFETTO__PROTOS__CLONE_SESSION_RESPONSE__INIT;

	res.has_success = 1;
	res.success = s != NULL;
	if (s == NULL)
		res.error = (char *)error;
	else {
		res.has_uuid_msb = res.has_uuid_lsb = 1;
		res.uuid_msb = s->uuid_msb;
		res.uuid_lsb = s->uuid_lsb;
		res.has_was_write_into_file = 1;
		res.was_write_into_file = was_file;
	}
	ipc_reply_send_msg(r, &res.base, 0, -1);
}

static void
consumer_port_clone_flushed(struct tsession *src, int success, void *arg)
{
	struct consumer_port_clone	*cl = arg;
	struct tconsumer	*c;
	struct tsession		*s = NULL;
	const char		*cause = "the source session went away";
	int			 was_file = 0;

	(void)success;	/* a partial flush still makes a useful clone */
	c = service_consumer_by_conn(cl->svc, cl->conn_id);
	if (c == NULL) {
		ipc_reply_free(cl->reply);
		if (cl->fd != -1)
			close(cl->fd);
	} else {
		if (src != NULL) {
			s = session_clone(c, src, cl->fd, cl->skip_filter,
			    &was_file, &cause);
			cl->fd = -1;
		}
		if (cl->fd != -1)
			close(cl->fd);
		consumer_port_clone_reply(cl->reply, s, was_file, cause);
	}
	free(cl);
}

static void
consumer_port_clone_session(struct ipc_call *call, void *arg)
{
	struct traced		*svc = arg;
	struct tconsumer	*c;
	struct tsession		*s, *src = NULL;
	struct consumer_port_clone	*cl;
	Perfetto__Protos__CloneSessionRequest *req;
	const char		*cause = NULL;
	int			 fd, skip_filter;

	if ((c = consumer_port_consumer(call, svc)) == NULL ||
	    (req = CPORT_ARGS(Perfetto__Protos__CloneSessionRequest,
	    clone_session_request, call)) == NULL)
		return;
	fd = ipc_call_take_fd(call);
	TAILQ_FOREACH(s, &svc->sessions, entry) {
		if (s->cloned || (c->uid != 0 && s->uid != c->uid))
			continue;
		if (req->selector_case ==
		    PERFETTO__PROTOS__CLONE_SESSION_REQUEST__SELECTOR_SESSION_ID &&
		    s->id == req->session_id)
			src = s;
		if (req->selector_case ==
		    PERFETTO__PROTOS__CLONE_SESSION_REQUEST__SELECTOR_UNIQUE_SESSION_NAME &&
		    req->unique_session_name != NULL &&
		    s->cfg->unique_session_name != NULL &&
		    strcmp(s->cfg->unique_session_name,
		    req->unique_session_name) == 0)
			src = s;
	}
	/* Only the uid's own sessions (root: any) can be had unfiltered. */
	skip_filter = req->has_skip_trace_filter && req->skip_trace_filter;
	perfetto__protos__clone_session_request__free_unpacked(req, NULL);
	if (src == NULL)
		cause = "no session to clone with this id or name";
	else if (c->session != NULL)
		cause = "this connection already has a session";
	else if ((cl = calloc(1, sizeof(*cl))) == NULL)
		cause = "out of memory";
	if (cause != NULL) {
		if (fd != -1)
			close(fd);
		consumer_port_clone_reply(call->reply, NULL, 0, cause);
		return;
	}
	cl->svc = svc;
	cl->conn_id = c->conn_id;
	cl->src_id = src->id;
	cl->reply = call->reply;
	cl->fd = fd;
	cl->skip_filter = skip_filter;
	/* Flush first so the copy holds what producers still buffer. */
	if (src->state != TS_STARTED ||
	    flush_start(src, 0, 0, consumer_port_clone_flushed, cl) == -1)
		consumer_port_clone_flushed(src, 1, cl);
}

static void
consumer_port_disconnect(const struct ipc_peer *peer, void *arg)
{
	struct traced		*svc = arg;
	struct tconsumer	*c;

	if ((c = service_consumer_by_conn(svc, peer->conn_id)) != NULL)
		service_consumer_disconnect(c);
}

static const struct ipc_method consumer_port_methods[] = {
	{ "EnableTracing",		consumer_port_enable_tracing },
	{ "DisableTracing",		consumer_port_disable_tracing },
	{ "ReadBuffers",		consumer_port_read_buffers },
	{ "FreeBuffers",		consumer_port_free_buffers },
	{ "Flush",			consumer_port_flush },
	{ "StartTracing",		consumer_port_start_tracing },
	{ "ChangeTraceConfig",		consumer_port_change_trace_config },
	{ "Detach",			consumer_port_detach },
	{ "Attach",			consumer_port_attach },
	{ "GetTraceStats",		consumer_port_get_trace_stats },
	{ "ObserveEvents",		consumer_port_observe_events },
	{ "QueryServiceState",		consumer_port_query_service_state },
	{ "QueryCapabilities",		consumer_port_query_capabilities },
	{ "SaveTraceForBugreport",	consumer_port_save_trace_for_bugreport },
	{ "CloneSession",		consumer_port_clone_session },
};

int
consumer_port_register(struct traced *svc, struct ipc_host *host)
{
	return ipc_host_add_service_named(host,
	    &perfetto__protos__consumer_port__descriptor, consumer_port_methods,
	    sizeof(consumer_port_methods) / sizeof(consumer_port_methods[0]),
	    consumer_port_disconnect, svc);
}
