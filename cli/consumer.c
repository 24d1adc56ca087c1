/* faro's consumer connection to traced; see consumer.h for the flows. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event2/event.h>

#include "protos/perfetto/ipc/consumer_port.pb-c.h"

#include "libipc/consumer_endpoint.h"
#include "libipc/ipc_client.h"
#include "libipc/ipc_sockname.h"
#include "base/log.h"
#include "cli/consumer.h"
#include "cli/progress.h"
#include "cli/query.h"
#include "cli/unserved.h"

typedef Perfetto__Protos__TraceConfig TraceConfig;

/* Extra time after the session's duration before faro gives up on traced. */
#define TRACE_GRACE_MS		60000
#define CLONE_TIMEOUT_MS	30000
/* Longest silence from traced while reading the buffers back. */
#define READ_IDLE_MS		30000

struct session {
	struct event_base	*base;
	const struct faro_opts	*o;
	TraceConfig		*cfg;
	struct output		*out;
	struct consumer_notify	*notify;
	const char		*sock;
	struct ipc_client	*cl;
	int			 connected;
	struct consumer_ep	 ep;
	int			 write_into_file;
	int			 done;
	int			 exit_code;
	int			 stopping;	/* signals seen */
	int			 reading;	/* ReadBuffers under way */
	uint64_t		 stats_req;	/* GetTraceStats in flight */
	struct event		*ev_timeout;
	struct event		*ev_tick;
	struct event		*ev_int;
	struct event		*ev_term;
	struct progress		 prog;
	uint8_t			*query_buf;	/* QueryServiceState replies */
	size_t			 query_len;
	char			 err[1024];
};

void
consumer_notify_send(struct consumer_notify *n, int status)
{
	uint8_t b = (uint8_t)status;

	if (n == NULL)
		return;
	if (n->notify_fd != -1) {
		if (write(n->notify_fd, &b, 1) != 1)
			log_warn("consumer_notify_send: notify fd");
		close(n->notify_fd);
		n->notify_fd = -1;
	}
	if (n->bg_fd != -1) {
		if (write(n->bg_fd, &b, 1) != 1)
			log_warn("consumer_notify_send: background pipe");
		close(n->bg_fd);
		n->bg_fd = -1;
	}
}

/* Ends the run: the loop stops and faro exits with code. */
static void
session_finish(struct session *s, int code)
{
	if (s->done)
		return;
	s->done = 1;
	s->exit_code = code;
	progress_clear(&s->prog);
	event_base_loopbreak(s->base);
}

static void
session_fail(struct session *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
session_fail(struct session *s, const char *fmt, ...)
{
	va_list ap;

	progress_clear(&s->prog);
	va_start(ap, fmt);
	vsnprintf(s->err, sizeof(s->err), fmt, ap);
	va_end(ap);
	log_warnx("%s", s->err);
	session_finish(s, FARO_EXIT_ERROR);
}

static uint64_t
invoke(struct session *s, enum consumer_method m,
    const ProtobufCMessage *args, int fd, ipc_result_fn *cb)
{
	uint64_t id;

	if (!consumer_ep_has(&s->ep, m)) {
		session_fail(s, "traced at %s has no ConsumerPort.%s method",
		    s->sock, consumer_method_name(m));
		return 0;
	}
	id = consumer_ep_invoke(&s->ep, m, args, fd, 0, cb, s);
	if (id == 0)
		session_fail(s, "cannot send %s to traced",
		    consumer_method_name(m));
	return id;
}

/*
 * A failed reply on a connection that is gone means traced went away
 * (pending requests fail before the disconnection event): say that.
 */
static int
connection_lost(struct session *s, struct ipc_client *cl,
    struct ipc_result *res)
{
	if (res->success || ipc_client_connected(cl))
		return 0;
	session_fail(s, "Disconnected from traced at %s before the end of the "
	    "session (%s)", s->sock, res->error != NULL ? res->error :
	    "connection closed");
	return 1;
}

/* The reply failed at the IPC level: say which request and why. */
static int
reply_failed(struct session *s, struct ipc_client *cl, struct ipc_result *res,
    const char *what)
{
	if (res->success)
		return 0;
	if (connection_lost(s, cl, res))
		return 1;
	session_fail(s, "%s failed: %s", what,
	    res->error != NULL ? res->error : "traced refused the request");
	return 1;
}

static void
arm_timeout(struct session *s, uint64_t ms)
{
	struct timeval tv = { (time_t)(ms / 1000),
	    (suseconds_t)(ms % 1000) * 1000 };

	evtimer_add(s->ev_timeout, &tv);
}

/* The trace is complete in the output file: report and exit 0. */
static void
session_complete(struct session *s)
{
	char err[512];
	uint64_t size;

	if (s->out == NULL) {
		log_info("Trace written into the output file");
		session_finish(s, FARO_EXIT_OK);
		return;
	}
	size = s->write_into_file ? output_file_size(s->out) : s->out->bytes;
	if (output_flush(s->out, err, sizeof(err)) == -1) {
		session_fail(s, "%s", err);
		return;
	}
	progress_clear(&s->prog);
	if (s->write_into_file && strcmp(s->out->path, "-") == 0)
		log_info("Trace written into stdout");
	else if (s->write_into_file)
		log_info("Trace written into %s (%" PRIu64 " bytes)",
		    output_name(s->out), size);
	else
		log_info("Wrote %" PRIu64 " bytes into %s", size,
		    output_name(s->out));
	session_finish(s, FARO_EXIT_OK);
}

static void
on_read_buffers(struct ipc_client *cl, struct ipc_result *res, void *arg)
{
	struct session *s = arg;
	char err[512];

	if (s->done || reply_failed(s, cl, res, "ReadBuffers"))
		return;
	if (output_reply_untrusted(s->out, res->data, res->len, err,
	    sizeof(err)) == -1) {
		session_fail(s, "ReadBuffers: %s", err);
		return;
	}
	s->prog.bytes = s->out->bytes;
	if (res->has_more)
		arm_timeout(s, READ_IDLE_MS);	/* traced is still sending */
	else
		session_complete(s);
}

/* The session is over on traced's side: collect what it holds. */
static void
session_read_back(struct session *s)
{
	Perfetto__Protos__ReadBuffersRequest req =
	    PERFETTO__PROTOS__READ_BUFFERS_REQUEST__INIT;

	if (s->write_into_file || s->out == NULL) {
		session_complete(s);
		return;
	}
	s->reading = 1;
	if (invoke(s, CM_READ, &req.base, -1, on_read_buffers) != 0)
		arm_timeout(s, READ_IDLE_MS);
}

static void
on_enable_tracing(struct ipc_client *cl, struct ipc_result *res, void *arg)
{
	struct session *s = arg;
	Perfetto__Protos__EnableTracingResponse *r;

	if (s->done || connection_lost(s, cl, res))
		return;
	if (!res->success) {
		session_fail(s, "traced refused the session%s%s",
		    res->error != NULL ? ": " : "",
		    res->error != NULL ? res->error : "");
		return;
	}
	r = perfetto__protos__enable_tracing_response__unpack(NULL, res->len,
	    res->data);
	if (r == NULL) {
		session_fail(s, "EnableTracing: traced sent a malformed reply");
		return;
	}
	if (r->error != NULL && r->error[0] != '\0' && s->write_into_file &&
	    s->out != NULL && output_file_size(s->out) > 0) {
		/* traced wrote some, then could not: what it wrote stays. */
		session_fail(s, "Trace into %s ended early: %s; the file keeps "
		    "a valid trace of %" PRIu64 " bytes", output_name(s->out),
		    r->error, output_file_size(s->out));
		perfetto__protos__enable_tracing_response__free_unpacked(r,
		    NULL);
		return;
	}
	if (r->error != NULL && r->error[0] != '\0') {
		/* consumer_run removes the output file if still empty. */
		if (s->write_into_file && s->out != NULL)
			session_fail(s, "traced refused the session or could "
			    "not write into %s: %s", output_name(s->out),
			    r->error);
		else
			session_fail(s, "traced refused the session: %s",
			    r->error);
		perfetto__protos__enable_tracing_response__free_unpacked(r,
		    NULL);
		return;
	}
	perfetto__protos__enable_tracing_response__free_unpacked(r, NULL);
	progress_clear(&s->prog);
	log_debug("on_enable_tracing: session ended, reading back");
	session_read_back(s);
}

static void
on_disable(struct ipc_client *cl, struct ipc_result *res, void *arg)
{
	struct session *s = arg;

	/* The end shows up as the EnableTracing reply; only report failure. */
	if (!s->done && !res->success)
		log_warnx("DisableTracing failed: %s",
		    res->error != NULL ? res->error : "refused");
}

static void
session_disable(struct session *s)
{
	Perfetto__Protos__DisableTracingRequest req =
	    PERFETTO__PROTOS__DISABLE_TRACING_REQUEST__INIT;

	invoke(s, CM_DISABLE, &req.base, -1, on_disable);
}

static void
on_flush(struct ipc_client *cl, struct ipc_result *res, void *arg)
{
	struct session *s = arg;

	if (s->done)
		return;
	if (!res->success)
		log_warnx("Final flush unsuccessful.");
	session_disable(s);
}

/* Stops the session, keeping its data: flush first, then disable. */
static void
session_stop(struct session *s)
{
	Perfetto__Protos__FlushRequest req =
	    PERFETTO__PROTOS__FLUSH_REQUEST__INIT;

	if (!consumer_ep_has(&s->ep, CM_FLUSH)) {
		session_disable(s);
		return;
	}
	invoke(s, CM_FLUSH, &req.base, -1, on_flush);
}

static void
on_signal(evutil_socket_t sig, short what, void *arg)
{
	struct session *s = arg;

	if (s->done)
		return;
	progress_clear(&s->prog);
	s->stopping++;
	if (!s->connected || s->o->mode == FARO_MODE_QUERY ||
	    s->o->mode == FARO_MODE_IS_DETACHED ||
	    s->o->mode == FARO_MODE_CLONE || s->reading > 1) {
		session_fail(s, "interrupted");
		return;
	}
	if (s->reading) {
		/* Already reading back; a second signal gives up. */
		s->reading++;
		log_warnx("reading the trace back; interrupt again to abort");
		return;
	}
	switch (s->stopping) {
	case 1:
		log_info("%s received: disabling tracing.",
		    sig == SIGINT ? "SIGINT" : "SIGTERM");
		session_stop(s);
		break;
	case 2:
		log_info("disabling tracing without waiting for the flush; "
		    "interrupt again to abort");
		session_disable(s);
		break;
	default:
		session_fail(s, "interrupted: the trace may be incomplete");
		break;
	}
}

static void
on_timeout(evutil_socket_t fd, short what, void *arg)
{
	struct session *s = arg;

	if (s->reading)
		session_fail(s, "Timed out while waiting for trace data from "
		    "the service, aborting (%" PRIu64 " bytes written to %s)",
		    s->out->bytes, output_name(s->out));
	else if (s->o->mode == FARO_MODE_CLONE)
		session_fail(s, "Timed out while waiting for the clone from "
		    "the service, aborting");
	else
		session_fail(s, "Timed out while waiting for trace from the "
		    "service, aborting");
}

static void
on_stats(struct ipc_client *cl, struct ipc_result *res, void *arg)
{
	struct session *s = arg;
	Perfetto__Protos__GetTraceStatsResponse *r;
	uint64_t sum = 0;
	size_t i;

	s->stats_req = 0;
	if (s->done || !res->success)
		return;
	r = perfetto__protos__get_trace_stats_response__unpack(NULL,
	    res->len, res->data);
	if (r == NULL)
		return;
	if (r->trace_stats != NULL)
		for (i = 0; i < r->trace_stats->n_buffer_stats; i++)
			sum += r->trace_stats->buffer_stats[i]->bytes_written;
	perfetto__protos__get_trace_stats_response__free_unpacked(r, NULL);
	s->prog.bytes = sum;
}

/* Once a second on a terminal: refresh the progress line. */
static void
on_tick(evutil_socket_t fd, short what, void *arg)
{
	struct session *s = arg;
	Perfetto__Protos__GetTraceStatsRequest req =
	    PERFETTO__PROTOS__GET_TRACE_STATS_REQUEST__INIT;

	if (s->done || s->reading || s->stopping)
		return;
	if (s->write_into_file && s->out != NULL)
		s->prog.bytes = output_file_size(s->out);
	else if (s->stats_req == 0)
		s->stats_req = consumer_ep_invoke(&s->ep, CM_STATS, &req.base,
		    -1, 0, on_stats, s);
	progress_draw(&s->prog);
}

static void
on_events(struct ipc_client *cl, struct ipc_result *res, void *arg)
{
	struct session *s = arg;
	Perfetto__Protos__ObserveEventsResponse *r;
	const Perfetto__Protos__ObservableEvents *ev;
	size_t i;

	if (s->done || !res->success)
		return;
	r = perfetto__protos__observe_events_response__unpack(NULL, res->len,
	    res->data);
	if (r == NULL)
		return;
	if ((ev = r->events) != NULL) {
		for (i = 0; i < ev->n_instance_state_changes; i++) {
			const Perfetto__Protos__ObservableEvents__DataSourceInstanceStateChange
			    *c = ev->instance_state_changes[i];

			if (c->state ==
			    PERFETTO__PROTOS__OBSERVABLE_EVENTS__DATA_SOURCE_INSTANCE_STATE__DATA_SOURCE_INSTANCE_STATE_STARTED)
				s->prog.ds_started++;
			else if (s->prog.ds_started > 0)
				s->prog.ds_started--;
		}
		if (ev->all_data_sources_started) {
			log_debug("on_events: all data sources started");
			consumer_notify_send(s->notify, CONSUMER_WAIT_OK);
		}
	}
	perfetto__protos__observe_events_response__free_unpacked(r, NULL);
	progress_draw(&s->prog);
}

static void
on_detach(struct ipc_client *cl, struct ipc_result *res, void *arg)
{
	struct session *s = arg;

	if (s->done || connection_lost(s, cl, res))
		return;
	if (!res->success) {
		session_fail(s, "Session detach failed%s%s",
		    res->error != NULL ? ": " : "",
		    res->error != NULL ? res->error : "");
		return;
	}
	log_debug("on_detach: detached");
	session_finish(s, FARO_EXIT_OK);
}

static void
session_detach(struct session *s, const char *key)
{
	Perfetto__Protos__DetachRequest req =
	    PERFETTO__PROTOS__DETACH_REQUEST__INIT;

	req.key = (char *)key;
	invoke(s, CM_DETACH, &req.base, -1, on_detach);
}

/*
 * Gathers QueryServiceState replies: large states come in several, whose
 * bytes concatenated decode as one message with the parts merged. Returns
 * the state once the last has come; NULL while more are due (*why NULL)
 * or on error (*why says what).
 */
static Perfetto__Protos__QueryServiceStateResponse *
query_gather(struct session *s, struct ipc_result *res, const char **why)
{
	Perfetto__Protos__QueryServiceStateResponse *r;
	uint8_t *nb;

	*why = NULL;
	if (res->len > 0) {
		if (s->query_len + res->len > (64u << 20) ||
		    (nb = realloc(s->query_buf, s->query_len + res->len)) ==
		    NULL) {
			*why = "service state too large";
			return NULL;
		}
		s->query_buf = nb;
		memcpy(s->query_buf + s->query_len, res->data, res->len);
		s->query_len += res->len;
	}
	if (res->has_more)
		return NULL;
	r = perfetto__protos__query_service_state_response__unpack(NULL,
	    s->query_len, s->query_buf);
	free(s->query_buf);
	s->query_buf = NULL;
	s->query_len = 0;
	if (r == NULL)
		*why = "QueryServiceState: traced sent a malformed reply";
	return r;
}

/* The service state asked for as the session starts: warn, never fail. */
static void
on_unserved_query(struct ipc_client *cl, struct ipc_result *res, void *arg)
{
	struct session *s = arg;
	Perfetto__Protos__QueryServiceStateResponse *r;
	const char *why;

	if (s->done || !res->success)
		return;
	if ((r = query_gather(s, res, &why)) == NULL) {
		if (why != NULL)
			log_debug("on_unserved_query: %s", why);
		return;
	}
	progress_clear(&s->prog);
	unserved_warn(s->cfg, r->service_state);
	perfetto__protos__query_service_state_response__free_unpacked(r, NULL);
}

static void
start_trace(struct session *s)
{
	Perfetto__Protos__EnableTracingRequest req =
	    PERFETTO__PROTOS__ENABLE_TRACING_REQUEST__INIT;
	Perfetto__Protos__ObserveEventsRequest oreq =
	    PERFETTO__PROTOS__OBSERVE_EVENTS_REQUEST__INIT;
	Perfetto__Protos__QueryServiceStateRequest qreq =
	    PERFETTO__PROTOS__QUERY_SERVICE_STATE_REQUEST__INIT;
	Perfetto__Protos__ObservableEvents__Type types[2];
	uint64_t dur = s->cfg->duration_ms, ms;
	size_t i;

	/* Without a duration, triggers bound the session. */
	if (dur == 0 && s->cfg->trigger_config != NULL) {
		uint32_t maxd = 0;

		for (i = 0; i < s->cfg->trigger_config->n_triggers; i++)
			if (s->cfg->trigger_config->triggers[i]->stop_delay_ms >
			    maxd)
				maxd = s->cfg->trigger_config->triggers[i]->
				    stop_delay_ms;
		dur = (uint64_t)s->cfg->trigger_config->trigger_timeout_ms +
		    maxd;
	}
	oreq.n_events_to_observe = 0;
	oreq.events_to_observe = types;
	if (s->notify->notify_fd != -1 || s->notify->bg_fd != -1)
		types[oreq.n_events_to_observe++] =
		    PERFETTO__PROTOS__OBSERVABLE_EVENTS__TYPE__TYPE_ALL_DATA_SOURCES_STARTED;
	if (s->prog.fd != -1)
		types[oreq.n_events_to_observe++] =
		    PERFETTO__PROTOS__OBSERVABLE_EVENTS__TYPE__TYPE_DATA_SOURCES_INSTANCES;
	if (oreq.n_events_to_observe > 0)
		consumer_ep_invoke(&s->ep, CM_OBSERVE,
		    &oreq.base, -1, 0, on_events, s);

	if (dur != 0)
		log_info("Connected to traced at %s, TTL: %" PRIu64 "s",
		    s->sock, (dur + 999) / 1000);
	else
		log_info("Connected to traced at %s, starting tracing",
		    s->sock);
	req.trace_config = s->cfg;
	if (invoke(s, CM_ENABLE, &req.base,
	    s->write_into_file ? s->out->fd : -1, on_enable_tracing) == 0)
		return;
	/*
	 * traced answers in order: a refused session fails first, else the
	 * state tells which data sources no producer offers.
	 */
	if (consumer_ep_has(&s->ep, CM_QUERY))
		consumer_ep_invoke(&s->ep, CM_QUERY, &qreq.base, -1, 0,
		    on_unserved_query, s);
	if (s->o->detach_key != NULL) {
		session_detach(s, s->o->detach_key);
		return;
	}
	if (dur != 0) {
		ms = dur + TRACE_GRACE_MS + s->cfg->flush_timeout_ms +
		    s->cfg->data_source_stop_timeout_ms;
		arm_timeout(s, ms);
	}
	if (s->prog.fd != -1) {
		struct timeval tv = { 1, 0 };

		progress_init(&s->prog, s->prog.fd, (uint32_t)dur);
		evtimer_add(s->ev_tick, &tv);
	}
}

static void
on_attach_end(struct ipc_client *cl, struct ipc_result *res, void *arg)
{
	struct session *s = arg;

	/* attach_notification_only: the reply says the session ended. */
	on_enable_tracing(cl, res, arg);
	(void)s;
}

static void
on_attach(struct ipc_client *cl, struct ipc_result *res, void *arg)
{
	struct session *s = arg;
	Perfetto__Protos__AttachResponse *r;
	Perfetto__Protos__EnableTracingRequest req =
	    PERFETTO__PROTOS__ENABLE_TRACING_REQUEST__INIT;

	if (s->done || connection_lost(s, cl, res))
		return;
	if (!res->success) {
		/* --is_detached answers "no" quietly: that is its purpose. */
		if (s->o->mode != FARO_MODE_IS_DETACHED)
			log_warnx("Session re-attach failed%s%s. Check service "
			    "logs for details", res->error != NULL ? ": " : "",
			    res->error != NULL ? res->error : "");
		session_finish(s, FARO_EXIT_NOT_DETACHED);
		return;
	}
	if (s->o->mode == FARO_MODE_IS_DETACHED) {
		session_detach(s, s->o->attach_key);
		return;
	}
	r = perfetto__protos__attach_response__unpack(NULL, res->len,
	    res->data);
	s->write_into_file = 1;
	if (r != NULL && r->trace_config != NULL &&
	    !r->trace_config->write_into_file)
		log_warnx("the attached session does not write into a file: "
		    "its data stays in traced's buffers");
	if (r != NULL)
		perfetto__protos__attach_response__free_unpacked(r, NULL);
	req.has_attach_notification_only = 1;
	req.attach_notification_only = 1;
	if (invoke(s, CM_ENABLE, &req.base, -1, on_attach_end) == 0)
		return;
	if (s->o->stop) {
		s->stopping = 1;
		session_stop(s);
	}
}

static void
start_attach(struct session *s)
{
	Perfetto__Protos__AttachRequest req =
	    PERFETTO__PROTOS__ATTACH_REQUEST__INIT;

	req.key = (char *)s->o->attach_key;
	invoke(s, CM_ATTACH, &req.base, -1, on_attach);
}

static void
on_clone(struct ipc_client *cl, struct ipc_result *res, void *arg)
{
	struct session *s = arg;
	Perfetto__Protos__CloneSessionResponse *r;
	char name[128];

	if (s->done || connection_lost(s, cl, res))
		return;
	if (s->o->clone_name != NULL)
		snprintf(name, sizeof(name), "\"%s\"", s->o->clone_name);
	else
		snprintf(name, sizeof(name), "%" PRIu64, s->o->clone_tsid);
	r = res->success ? perfetto__protos__clone_session_response__unpack(
	    NULL, res->len, res->data) : NULL;
	if (r == NULL || !r->success) {
		session_fail(s, "Failed to clone tracing session %s: %s", name,
		    r != NULL && r->error != NULL ? r->error :
		    res->error != NULL ? res->error : "refused by traced");
		if (r != NULL)
			perfetto__protos__clone_session_response__free_unpacked(
			    r, NULL);
		return;
	}
	s->write_into_file = r->was_write_into_file;
	perfetto__protos__clone_session_response__free_unpacked(r, NULL);
	session_read_back(s);
}

static void
start_clone(struct session *s)
{
	Perfetto__Protos__CloneSessionRequest req =
	    PERFETTO__PROTOS__CLONE_SESSION_REQUEST__INIT;

	if (s->o->clone_name != NULL) {
		req.selector_case =
		    PERFETTO__PROTOS__CLONE_SESSION_REQUEST__SELECTOR_UNIQUE_SESSION_NAME;
		req.unique_session_name = (char *)s->o->clone_name;
	} else {
		req.selector_case =
		    PERFETTO__PROTOS__CLONE_SESSION_REQUEST__SELECTOR_SESSION_ID;
		req.session_id = s->o->clone_tsid;
	}
	if (s->o->clone_for_bugreport) {
		req.has_skip_trace_filter = req.has_for_bugreport = 1;
		req.skip_trace_filter = req.for_bugreport = 1;
	}
	/* traced decides whether it writes the clone into the file itself. */
	if (invoke(s, CM_CLONE, &req.base, s->out->fd, on_clone) != 0)
		arm_timeout(s, CLONE_TIMEOUT_MS);
}

static void
on_query(struct ipc_client *cl, struct ipc_result *res, void *arg)
{
	struct session *s = arg;
	Perfetto__Protos__QueryServiceStateResponse *r;
	const char *why;

	if (s->done || connection_lost(s, cl, res))
		return;
	if (!res->success) {
		session_fail(s, "Failed to query the service state%s%s",
		    res->error != NULL ? ": " : "",
		    res->error != NULL ? res->error : "");
		return;
	}
	if ((r = query_gather(s, res, &why)) == NULL) {
		if (why != NULL)
			session_fail(s, "%s", why);
		return;
	}
	if (query_print(stdout, r->service_state, s->o->query_long,
	    s->o->query_raw) == -1)
		session_fail(s, "cannot write to stdout: %s", strerror(errno));
	else
		session_finish(s, FARO_EXIT_OK);
	perfetto__protos__query_service_state_response__free_unpacked(r, NULL);
}

static void
start_query(struct session *s)
{
	Perfetto__Protos__QueryServiceStateRequest req =
	    PERFETTO__PROTOS__QUERY_SERVICE_STATE_REQUEST__INIT;

	invoke(s, CM_QUERY, &req.base, -1, on_query);
}

static void
on_bind(struct ipc_client *cl, const struct ipc_binding *b, void *arg)
{
	struct session *s = arg;

	if (s->done)
		return;
	if (consumer_ep_bind(&s->ep, cl, b) == -1) {
		session_fail(s, "traced at %s does not offer the ConsumerPort "
		    "service (is it a producer socket?)", s->sock);
		return;
	}
	switch (s->o->mode) {
	case FARO_MODE_TRACE:
		start_trace(s);
		break;
	case FARO_MODE_ATTACH:
	case FARO_MODE_IS_DETACHED:
		start_attach(s);
		break;
	case FARO_MODE_CLONE:
		start_clone(s);
		break;
	case FARO_MODE_QUERY:
		start_query(s);
		break;
	}
}

/*
 * Why a connect failed: what is at the path says it best (no socket, a
 * plain file, no permission); else libipc's reason.
 */
static void
explain_connect_failure(struct session *s, const char *ipc_why)
{
	struct stat st;
	const char *why;

	if (s->sock[0] == '@')
		why = "no traced listens on this abstract socket";
	else if (stat(s->sock, &st) == -1)
		why = errno == ENOENT ? "no such socket" : strerror(errno);
	else if (!S_ISSOCK(st.st_mode))
		why = "not a socket";
	else if (access(s->sock, W_OK) == -1)
		why = "permission denied (are you in traced's consumer group?)";
	else if (ipc_why != NULL && strstr(ipc_why, "refused") == NULL)
		why = ipc_why;
	else
		why = "connection refused";
	session_fail(s, "Could not connect to the traced consumer socket %s "
	    "(%s). Is traced running? Set PERFETTO_CONSUMER_SOCK_NAME to use "
	    "another socket.", s->sock, why);
}

static void
on_client_event(struct ipc_client *cl, enum ipc_client_event ev, void *arg)
{
	struct session *s = arg;

	switch (ev) {
	case IPC_CLIENT_CONNECTED:
		s->connected = 1;
		log_debug("on_client_event: connected to %s", s->sock);
		if (ipc_client_bind(cl, "ConsumerPort", on_bind, s) == -1)
			session_fail(s, "cannot bind ConsumerPort");
		break;
	case IPC_CLIENT_DISCONNECTED:
		s->cl = NULL;	/* final event: free the client here */
		if (!s->done) {
			const char *why = ipc_client_strerror(cl);

			if (!s->connected)
				explain_connect_failure(s, why);
			else
				session_fail(s, "Disconnected from traced at "
				    "%s before the end of the session (%s)",
				    s->sock, why != NULL ? why :
				    "connection closed");
		}
		ipc_client_free(cl);
		break;
	}
}

int
consumer_run(struct event_base *base, const struct faro_opts *o,
    TraceConfig *cfg, struct output *out, struct consumer_notify *notify)
{
	struct session s;
	struct consumer_notify none = { -1, -1 };
	char err[512];

	memset(&s, 0, sizeof(s));
	s.base = base;
	s.o = o;
	s.cfg = cfg;
	s.out = out;
	s.notify = notify != NULL ? notify : &none;
	s.sock = ipc_sockname(IPC_PORT_CONSUMER);
	s.exit_code = FARO_EXIT_ERROR;
	s.write_into_file = cfg != NULL && cfg->write_into_file;
	progress_init(&s.prog, o->mode == FARO_MODE_TRACE ? STDERR_FILENO : -1,
	    cfg != NULL ? cfg->duration_ms : 0);

	s.ev_timeout = evtimer_new(base, on_timeout, &s);
	s.ev_tick = event_new(base, -1, EV_PERSIST, on_tick, &s);
	s.ev_int = evsignal_new(base, SIGINT, on_signal, &s);
	s.ev_term = evsignal_new(base, SIGTERM, on_signal, &s);
	if (s.ev_timeout == NULL || s.ev_tick == NULL || s.ev_int == NULL ||
	    s.ev_term == NULL || evsignal_add(s.ev_int, NULL) == -1 ||
	    evsignal_add(s.ev_term, NULL) == -1) {
		log_warnx("consumer_run: cannot set up events");
		goto out;
	}
	signal(SIGPIPE, SIG_IGN);
	s.cl = ipc_client_new(base, s.sock, 0, on_client_event, &s);
	if (s.cl == NULL) {
		log_warnx("Could not connect to the traced consumer socket %s "
		    "(unusable path). Set PERFETTO_CONSUMER_SOCK_NAME to use "
		    "another socket.", s.sock);
		goto out;
	}
	event_base_dispatch(base);
	if (!s.done)
		log_warnx("consumer_run: event loop ended early");
out:
	progress_clear(&s.prog);
	if (s.cl != NULL)
		ipc_client_free(s.cl);
	if (out != NULL && output_close(out, s.exit_code != FARO_EXIT_OK, err,
	    sizeof(err)) == -1 && s.exit_code == FARO_EXIT_OK) {
		log_warnx("%s", err);
		s.exit_code = FARO_EXIT_ERROR;
	}
	consumer_notify_send(s.notify, s.exit_code == FARO_EXIT_OK ?
	    CONSUMER_WAIT_OK : CONSUMER_WAIT_ERROR);
	if (s.ev_timeout != NULL)
		event_free(s.ev_timeout);
	if (s.ev_tick != NULL)
		event_free(s.ev_tick);
	if (s.ev_int != NULL)
		event_free(s.ev_int);
	if (s.ev_term != NULL)
		event_free(s.ev_term);
	free(s.query_buf);
	return s.exit_code;
}
