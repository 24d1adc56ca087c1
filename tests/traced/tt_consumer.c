/*
 * A small consumer for tests: synchronous wrappers over ConsumerPort.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "libipc/consumer_read.h"
#include "libipc/ipc_client.h"
#include "libshm/pbw.h"
#include "traced_test.h"
#include "protos/perfetto/ipc/consumer_port.pb-c.h"

#define TT_WAIT_MS	10000


static void
tt_c_event(struct ipc_client *cl, enum ipc_client_event ev, void *arg)
{
	struct tt_consumer	*c = arg;

	(void)cl;
	if (ev == IPC_CLIENT_DISCONNECTED)
		c->disconnected = 1;
}

static void
tt_c_bound(struct ipc_client *cl, const struct ipc_binding *b, void *arg)
{
	struct tt_consumer	*c = arg;

	if (consumer_ep_bind(&c->ep, cl, b) == -1) {
		c->failed = 1;
		return;
	}
	c->bound = 1;
}

int
tt_consumer_connect(struct tt_consumer *c, struct event_base *base,
    const char *sock)
{
	memset(c, 0, sizeof(*c));
	c->base = base;
	if ((c->cl = ipc_client_new(base, sock, 0, tt_c_event, c)) == NULL)
		return -1;
	if (ipc_client_bind(c->cl, "ConsumerPort", tt_c_bound, c) == -1)
		return -1;
	tt_wait(base, &c->bound, TT_WAIT_MS);
	return c->bound ? 0 : -1;
}

void
tt_consumer_close(struct tt_consumer *c)
{
	if (c->cl != NULL)
		ipc_client_free(c->cl);
	c->cl = NULL;
}

static void
tt_c_enable_reply(struct ipc_client *cl, struct ipc_result *res, void *arg)
{
	struct tt_consumer	*c = arg;
	Perfetto__Protos__EnableTracingResponse *r;

	(void)cl;
	if (res->success && (r = perfetto__protos__enable_tracing_response__unpack(
	    NULL, res->len, res->data)) != NULL) {
		c->enable_disabled = r->state_case ==
		    PERFETTO__PROTOS__ENABLE_TRACING_RESPONSE__STATE_DISABLED;
		snprintf(c->enable_error, sizeof(c->enable_error), "%s",
		    r->error ? r->error : "");
		perfetto__protos__enable_tracing_response__free_unpacked(r,
		    NULL);
	} else
		snprintf(c->enable_error, sizeof(c->enable_error), "%s",
		    res->error ? res->error : "failed");
	if (!res->has_more)
		c->enable_done = 1;
}

int
tt_consumer_enable(struct tt_consumer *c,
    const Perfetto__Protos__TraceConfig *cfg, int fd)
{
	Perfetto__Protos__EnableTracingRequest req =
	    PERFETTO__PROTOS__ENABLE_TRACING_REQUEST__INIT;

	c->enable_done = 0;
	c->enable_disabled = 0;
	c->enable_error[0] = '\0';
	req.trace_config = (Perfetto__Protos__TraceConfig *)cfg;
	if (consumer_ep_invoke(&c->ep, CM_ENABLE, &req.base,
	    fd, 0, tt_c_enable_reply, c) == 0)
		return -1;
	return 0;
}

int
tt_consumer_enable_notify(struct tt_consumer *c)
{
	Perfetto__Protos__EnableTracingRequest req =
	    PERFETTO__PROTOS__ENABLE_TRACING_REQUEST__INIT;

	c->enable_done = 0;
	c->enable_disabled = 0;
	c->enable_error[0] = '\0';
	req.has_attach_notification_only = 1;
	req.attach_notification_only = 1;
	if (consumer_ep_invoke(&c->ep, CM_ENABLE, &req.base,
	    -1, 0, tt_c_enable_reply, c) == 0)
		return -1;
	return 0;
}

int
tt_consumer_enable_wait_error(struct tt_consumer *c,
    const Perfetto__Protos__TraceConfig *cfg, int fd, int timeout_ms)
{
	if (tt_consumer_enable(c, cfg, fd) == -1)
		return -1;
	tt_wait(c->base, &c->enable_done, timeout_ms);
	return c->enable_done && c->enable_error[0] != '\0' ? 0 : -1;
}

struct tt_ccall {
	struct tt_reply	*r;
	int		 done;
	int		 success;
};

static void
tt_c_reply(struct ipc_client *cl, struct ipc_result *res, void *arg)
{
	struct tt_ccall	*k = arg;
	struct tt_reply	*r = k->r;
	uint8_t		*n;
	size_t		*l;

	(void)cl;
	if (!res->success)
		k->success = 0;
	if (r != NULL && res->success) {
		/* Grow by doubling: a long stream stays linear. */
		n = r->data;
		if (r->len + res->len + 1 > r->cap) {
			size_t cap = r->cap ? r->cap : 4096;

			while (cap < r->len + res->len + 1)
				cap *= 2;
			if ((n = realloc(r->data, cap)) != NULL) {
				r->data = n;
				r->cap = cap;
			}
		}
		l = r->lens;
		if ((r->nreplies & (r->nreplies - 1)) == 0 &&
		    (l = realloc(r->lens, (r->nreplies ? r->nreplies * 2 : 1) *
		    sizeof(*l))) != NULL)
			r->lens = l;
		if (n != NULL && l != NULL) {
			if (res->len > 0)
				memcpy(r->data + r->len, res->data, res->len);
			r->len += res->len;
			r->lens[r->nreplies++] = res->len;
		}
	}
	if (!res->has_more)
		k->done = 1;
}

int
tt_consumer_call(struct tt_consumer *c, int method,
    const ProtobufCMessage *args, int fd, struct tt_reply *r, int timeout_ms)
{
	struct tt_ccall	k = { r, 0, 1 };
	uint64_t	id;

	if (r != NULL)
		memset(r, 0, sizeof(*r));
	id = consumer_ep_invoke(&c->ep, (enum consumer_method)method, args,
	    fd, 0, tt_c_reply, &k);
	if (id == 0)
		return -1;
	if (tt_wait(c->base, &k.done, timeout_ms ? timeout_ms : TT_WAIT_MS) ==
	    -1) {
		ipc_client_cancel(c->cl, id);
		return -1;
	}
	if (r != NULL)
		r->success = k.success;
	return k.success ? 0 : -1;
}

void
tt_reply_free(struct tt_reply *r)
{
	free(r->data);
	free(r->lens);
	memset(r, 0, sizeof(*r));
}

/* A growing byte buffer (geometric: reads of many packets stay linear). */
struct tt_buf {
	uint8_t	*p;
	size_t	 len, cap;
};

static int
tt_buf_put(struct tt_buf *b, const void *data, size_t len)
{
	uint8_t	*n;
	size_t	 cap;

	if (b->len + len > b->cap) {
		cap = b->cap ? b->cap : 4096;
		while (cap < b->len + len)
			cap *= 2;
		if ((n = realloc(b->p, cap)) == NULL)
			return -1;
		b->p = n;
		b->cap = cap;
	}
	if (len > 0)
		memcpy(b->p + b->len, data, len);
	b->len += len;
	return 0;
}

/* A whole packet: appended to the trace with its Trace framing. */
static int
tt_trace_packet(void *arg, const uint8_t *pkt, size_t len)
{
	struct tt_buf	*out = arg;
	uint8_t		 hdr[PBW_PACKET_HDR_MAX];
	size_t		 h = pbw_trace_packet_header(hdr, len);

	if (tt_buf_put(out, hdr, h) == -1)
		return -1;
	return tt_buf_put(out, pkt, len);
}

/* Joins the slices of every ReadBuffersResponse into Trace framing. */
int
tt_consumer_read(struct tt_consumer *c, uint8_t **trace, size_t *len)
{
	struct tt_reply		 r;
	struct consumer_read	 rd;
	struct tt_buf		 out = { NULL, 0, 0 };
	size_t			 off = 0, i;
	int			 rc = 0;

	if (tt_consumer_call(c, CM_READ, NULL, -1, &r, 30000) == -1) {
		tt_reply_free(&r);
		return -1;
	}
	consumer_read_init(&rd, SIZE_MAX);
	for (i = 0; i < (size_t)r.nreplies && rc == 0; off += r.lens[i], i++)
		rc = consumer_read_reply_untrusted(&rd, r.data + off,
		    r.lens[i], tt_trace_packet, &out);
	consumer_read_free(&rd);
	tt_reply_free(&r);
	if (rc != 0) {
		free(out.p);
		return -1;
	}
	*trace = out.p;
	*len = out.len;
	return 0;
}

static void
tt_c_observe(struct ipc_client *cl, struct ipc_result *res, void *arg)
{
	struct tt_consumer	*c = arg;
	Perfetto__Protos__ObserveEventsResponse *r;

	(void)cl;
	if (!res->success || (r = perfetto__protos__observe_events_response__unpack(
	    NULL, res->len, res->data)) == NULL)
		return;
	if (r->events != NULL) {
		c->observe_events++;
		if (r->events->all_data_sources_started)
			c->observe_all_started++;
		for (size_t i = 0; i < r->events->n_instance_state_changes;
		    i++) {
			if (r->events->instance_state_changes[i]->state ==
			    PERFETTO__PROTOS__OBSERVABLE_EVENTS__DATA_SOURCE_INSTANCE_STATE__DATA_SOURCE_INSTANCE_STATE_STARTED)
				c->observe_started++;
			else
				c->observe_stopped++;
		}
	}
	perfetto__protos__observe_events_response__free_unpacked(r, NULL);
}

int
tt_consumer_observe(struct tt_consumer *c, uint32_t mask)
{
	Perfetto__Protos__ObserveEventsRequest req =
	    PERFETTO__PROTOS__OBSERVE_EVENTS_REQUEST__INIT;
	Perfetto__Protos__ObservableEvents__Type t[2];
	size_t n = 0;

	if (mask & 1)
		t[n++] = 1;
	if (mask & 2)
		t[n++] = 2;
	req.n_events_to_observe = n;
	req.events_to_observe = t;
	return consumer_ep_invoke(&c->ep, CM_OBSERVE,
	    &req.base, -1, 0, tt_c_observe, c) == 0 ? -1 : 0;
}

Perfetto__Protos__TraceStats *
tt_consumer_stats(struct tt_consumer *c)
{
	Perfetto__Protos__GetTraceStatsResponse *res;
	Perfetto__Protos__TraceStats *st = NULL;
	struct tt_reply	 r;
	uint8_t		*buf;
	size_t		 len;

	if (tt_consumer_call(c, CM_STATS, NULL, -1, &r, 0) == -1)
		return NULL;
	res = perfetto__protos__get_trace_stats_response__unpack(NULL, r.len,
	    r.data);
	tt_reply_free(&r);
	if (res == NULL)
		return NULL;
	if (res->trace_stats != NULL) {
		/* Detach the stats from the response. */
		len = perfetto__protos__trace_stats__get_packed_size(
		    res->trace_stats);
		if ((buf = malloc(len + 1)) != NULL) {
			perfetto__protos__trace_stats__pack(res->trace_stats,
			    buf);
			st = perfetto__protos__trace_stats__unpack(NULL, len,
			    buf);
			free(buf);
		}
	}
	perfetto__protos__get_trace_stats_response__free_unpacked(res, NULL);
	return st;
}
