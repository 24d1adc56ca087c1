/*
 * Live metrics: see live.h.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event2/buffer.h>
#include <event2/event.h>

#include "cli/config_load.h"
#include "ipc_client.h"
#include "ipc_sockname.h"
#include "live.h"
#include "log.h"
#include "metrics/metrics.h"
#include "metrics/pbbuf.h"
#include "pbdec.h"
#include "rpc.h"

/* What the built-in config records: the inputs of the built-in metrics. */
static const char live_default_config[] =
    "buffers { size_kb: 16384 fill_policy: RING_BUFFER }\n"
    "data_sources { config { name: \"linux.ftrace\" ftrace_config {\n"
    "  ftrace_events: \"sched/sched_switch\"\n"
    "  ftrace_events: \"sched/sched_waking\"\n"
    "  ftrace_events: \"block/block_rq_issue\"\n"
    "  ftrace_events: \"block/block_rq_complete\"\n"
    "} } }\n"
    "data_sources { config { name: \"linux.process_stats\"\n"
    "  process_stats_config { scan_all_processes_on_start: true\n"
    "    proc_stats_poll_ms: 1000 } } }\n"
    "data_sources { config { name: \"track_event\" } }\n"
    "flush_period_ms: 1000\n"
    "incremental_state_config { clear_period_ms: 5000 }\n";

/* The metrics served: everything built in except trace_metadata. */
static const char *const live_metrics[] = {
	"trace_stats", "linux_cpu", "linux_memory", "linux_io",
	"linux_slices",
};

struct live_pkt {
	struct live_pkt	*next;
	uint64_t	 t_ms;		/* when it arrived */
	size_t		 len;
	uint8_t		 data[];	/* framed as Trace.packet */
};

struct live {
	struct event_base	*base;
	struct tp_config	 cfg;
	struct metrics		*mx;
	struct live_opts	 opts;
	char			 sock[512];
	uint8_t			*enable_req;	/* EnableTracingRequest */
	size_t			 enable_len;
	struct ipc_client	*cl;
	uint32_t		 sid;
	uint32_t		 m_enable, m_read;
	int			 bound;
	int			 tracing;
	int			 reading;
	struct event		*tick;
	struct event		*reconnect;
	/* The window, oldest first. */
	struct live_pkt		*head, *tail;
	size_t			 wbytes, wpkts;
	/* A packet still arriving in slices. */
	uint8_t			*part;
	size_t			 partlen, partcap;
	int			 part_bad;
	/* Refreshing. */
	uint64_t		 gen, rpc_gen;
	uint64_t		 refreshed_ms;
	struct rpc		*rpc;
	struct evbuffer		*metrics_text;	/* of the last refresh */
	struct live_stats	 st;
};

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

void
live_opts_init(struct live_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->period_ms = 1000;
	o->window_bytes = 32u << 20;
	o->window_s = 600;
	o->refresh_ms = 10000;
}

static void	live_connect(struct live *);

/* ---- the window ------------------------------------------------------ */

static void
live_evict(struct live *l, uint64_t now)
{
	struct live_pkt *p;
	uint64_t max_age = (uint64_t)l->opts.window_s * 1000;

	while ((p = l->head) != NULL && (l->wbytes > l->opts.window_bytes ||
	    (max_age > 0 && p->t_ms + max_age < now))) {
		l->head = p->next;
		if (l->head == NULL)
			l->tail = NULL;
		l->wbytes -= p->len;
		l->wpkts--;
		l->st.evicted++;
		free(p);
		l->gen++;
	}
}

static void
live_push_packet(struct live *l, const uint8_t *data, size_t len)
{
	struct live_pkt *p;
	uint8_t hdr[11];
	size_t h = 0;
	uint64_t v = len;

	hdr[h++] = 0x0a;	/* Trace.packet = 1 */
	while (v >= 0x80) {
		hdr[h++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	hdr[h++] = (uint8_t)v;
	if ((p = malloc(sizeof(*p) + h + len)) == NULL) {
		log_warnx("%s: out of memory, packet dropped", __func__);
		return;
	}
	p->next = NULL;
	p->t_ms = now_ms();
	p->len = h + len;
	memcpy(p->data, hdr, h);
	memcpy(p->data + h, data, len);
	if (l->tail != NULL)
		l->tail->next = p;
	else
		l->head = p;
	l->tail = p;
	l->wbytes += p->len;
	l->wpkts++;
	l->st.packets++;
	l->st.bytes += len;
	l->gen++;
	live_evict(l, p->t_ms);
}

/* ReadBuffersResponse: slices { data = 1; last_slice_for_packet = 2 }. */
static void
live_slices_untrusted(struct live *l, const uint8_t *buf, size_t len)
{
	struct pb it, is;
	struct pb_field f, g;
	const uint8_t *data;
	size_t dlen;
	int last;

	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		if (f.id != 2 || f.wire != PB_LEN)
			continue;
		data = NULL;
		dlen = 0;
		last = 0;
		pb_init(&is, f.data, f.len);
		while (pb_next_untrusted(&is, &g) == 1) {
			if (g.id == 1 && g.wire == PB_LEN) {
				data = g.data;
				dlen = g.len;
			} else if (g.id == 2 && g.wire == PB_VARINT)
				last = g.u != 0;
		}
		if (is.err || l->partlen + dlen > l->opts.window_bytes) {
			/* Drop the packet, not the stream. */
			l->part_bad = 1;
		} else if (dlen > 0) {
			if (l->partcap - l->partlen < dlen) {
				size_t cap = l->partcap ? l->partcap : 4096;
				uint8_t *np;

				while (cap - l->partlen < dlen)
					cap *= 2;
				if ((np = realloc(l->part, cap)) == NULL)
					l->part_bad = 1;
				else {
					l->part = np;
					l->partcap = cap;
				}
			}
			if (!l->part_bad) {
				memcpy(l->part + l->partlen, data, dlen);
				l->partlen += dlen;
			}
		}
		if (last) {
			if (!l->part_bad)
				live_push_packet(l, l->part, l->partlen);
			l->partlen = 0;
			l->part_bad = 0;
		}
	}
	if (it.err)
		log_warnx("%s: malformed ReadBuffersResponse", __func__);
}

/* ---- the consumer ---------------------------------------------------- */

static void
live_on_read(struct ipc_client *cl, struct ipc_result *res, void *arg)
{
	struct live *l = arg;

	(void)cl;
	if (!res->success) {
		l->reading = 0;
		log_debug("%s: %s", __func__, res->error ? res->error : "?");
		return;
	}
	live_slices_untrusted(l, res->data, res->len);
	if (!res->has_more) {
		l->reading = 0;
		l->st.reads++;
	}
}

static void
live_on_tick(evutil_socket_t fd, short ev, void *arg)
{
	struct live *l = arg;

	(void)fd;
	(void)ev;
	live_evict(l, now_ms());
	if (!l->bound || !l->tracing || l->reading)
		return;
	if (ipc_client_invoke(l->cl, l->sid, l->m_read, NULL, 0, -1, 0,
	    live_on_read, l) != 0)
		l->reading = 1;
}

static void
live_on_enable(struct ipc_client *cl, struct ipc_result *res, void *arg)
{
	struct live *l = arg;
	struct pb it;
	struct pb_field f;

	(void)cl;
	/* The reply comes when the session ends. */
	l->tracing = 0;
	if (!res->success) {
		log_warnx("%s: EnableTracing: %s", __func__,
		    res->error ? res->error : "failed");
		return;
	}
	pb_init(&it, res->data, res->len);
	while (pb_next_untrusted(&it, &f) == 1)
		if (f.id == 3 && f.wire == PB_LEN)
			log_warnx("%s: traced: %.*s", __func__, (int)f.len,
			    (const char *)f.data);
	log_info("%s: the session ended", __func__);
}

static void
live_on_bind(struct ipc_client *cl, const struct ipc_binding *b, void *arg)
{
	struct live *l = arg;

	if (b == NULL) {
		log_warnx("%s: traced has no ConsumerPort", __func__);
		return;
	}
	l->sid = b->service_id;
	l->m_enable = ipc_binding_method_id(b, "EnableTracing");
	l->m_read = ipc_binding_method_id(b, "ReadBuffers");
	if (l->m_enable == 0 || l->m_read == 0) {
		log_warnx("%s: ConsumerPort lacks EnableTracing/ReadBuffers",
		    __func__);
		return;
	}
	l->bound = 1;
	if (ipc_client_invoke(cl, l->sid, l->m_enable, l->enable_req,
	    l->enable_len, -1, 0, live_on_enable, l) == 0) {
		log_warnx("%s: EnableTracing could not be sent", __func__);
		return;
	}
	l->tracing = 1;
	log_info("%s: tracing through %s", __func__, l->sock);
}

static void
live_on_reconnect(evutil_socket_t fd, short ev, void *arg)
{
	(void)fd;
	(void)ev;
	live_connect(arg);
}

static void
live_on_event(struct ipc_client *cl, enum ipc_client_event ev, void *arg)
{
	struct live *l = arg;
	struct timeval tv = { 2, 0 };

	if (ev == IPC_CLIENT_CONNECTED) {
		l->st.connected = 1;
		return;
	}
	log_warnx("%s: traced went away: %s", __func__,
	    ipc_client_strerror(cl));
	l->st.connected = 0;
	l->bound = l->tracing = l->reading = 0;
	l->partlen = 0;
	ipc_client_free(cl);
	l->cl = NULL;
	/* A new session once traced is back; the window stays. */
	evtimer_add(l->reconnect, &tv);
}

static void
live_connect(struct live *l)
{
	if ((l->cl = ipc_client_new(l->base, l->sock, IPC_CLIENT_RETRY,
	    live_on_event, l)) == NULL) {
		log_warnx("%s: cannot use %s", __func__, l->sock);
		return;
	}
	ipc_client_bind(l->cl, "ConsumerPort", live_on_bind, l);
}

/* EnableTracingRequest { trace_config = 1 } from the config file. */
static int
live_load_config(struct live *l, char **err)
{
	Perfetto__Protos__TraceConfig *tc;
	struct pbbuf w;
	char e[512], *buf = NULL;
	const char *text = live_default_config, *name = "built-in";
	size_t len = sizeof(live_default_config) - 1, n;
	uint8_t *packed;
	int txt = 1;

	if (l->opts.config_path != NULL) {
		if ((buf = config_read_file(l->opts.config_path, &len, e,
		    sizeof(e))) == NULL) {
			*err = strdup(e);
			return -1;
		}
		text = buf;
		name = l->opts.config_path;
		n = strlen(name);
		/* .pb is a binary TraceConfig, anything else text. */
		txt = !(n > 3 && strcmp(name + n - 3, ".pb") == 0);
	}
	tc = config_parse_untrusted(text, len, name, txt, 0, e, sizeof(e));
	free(buf);
	if (tc == NULL) {
		*err = strdup(e);
		return -1;
	}
	n = perfetto__protos__trace_config__get_packed_size(tc);
	if ((packed = malloc(n ? n : 1)) == NULL) {
		perfetto__protos__trace_config__free_unpacked(tc, NULL);
		*err = strdup("out of memory");
		return -1;
	}
	perfetto__protos__trace_config__pack(tc, packed);
	perfetto__protos__trace_config__free_unpacked(tc, NULL);
	pbb_init(&w);
	pbb_bytes(&w, 1, packed, n);
	free(packed);
	if (w.oom) {
		pbb_free(&w);
		*err = strdup("out of memory");
		return -1;
	}
	l->enable_req = pbb_take(&w, &l->enable_len);
	return 0;
}

struct live *
live_new(struct event_base *base, const struct tp_config *cfg,
    struct metrics *mx, const struct live_opts *opts, char **err)
{
	struct live *l;
	struct timeval tv;

	*err = NULL;
	if ((l = calloc(1, sizeof(*l))) == NULL) {
		*err = strdup("out of memory");
		return NULL;
	}
	l->base = base;
	l->cfg = *cfg;
	l->cfg.progress = NULL;
	l->mx = mx;
	l->opts = *opts;
	if (l->opts.period_ms == 0)
		l->opts.period_ms = 1000;
	snprintf(l->sock, sizeof(l->sock), "%s", opts->consumer_sock ?
	    opts->consumer_sock : ipc_sockname(IPC_PORT_CONSUMER));
	if (live_load_config(l, err) == -1 ||
	    (l->rpc = rpc_new(cfg, NULL, NULL, mx, err)) == NULL ||
	    (l->tick = event_new(base, -1, EV_PERSIST, live_on_tick, l)) ==
	    NULL ||
	    (l->reconnect = evtimer_new(base, live_on_reconnect, l)) ==
	    NULL || (l->metrics_text = evbuffer_new()) == NULL) {
		if (*err == NULL)
			*err = strdup("out of memory");
		live_free(l);
		return NULL;
	}
	tv.tv_sec = l->opts.period_ms / 1000;
	tv.tv_usec = (suseconds_t)(l->opts.period_ms % 1000) * 1000;
	event_add(l->tick, &tv);
	live_connect(l);
	return l;
}

void
live_free(struct live *l)
{
	struct live_pkt *p;

	if (l == NULL)
		return;
	if (l->cl != NULL)
		ipc_client_free(l->cl);
	if (l->tick != NULL)
		event_free(l->tick);
	if (l->reconnect != NULL)
		event_free(l->reconnect);
	while ((p = l->head) != NULL) {
		l->head = p->next;
		free(p);
	}
	rpc_free(l->rpc);
	if (l->metrics_text != NULL)
		evbuffer_free(l->metrics_text);
	free(l->part);
	free(l->enable_req);
	free(l);
}

struct rpc *
live_rpc(struct live *l)
{
	return l->rpc;
}

void
live_get_stats(const struct live *l, struct live_stats *st)
{
	*st = l->st;
	st->window_packets = l->wpkts;
	st->window_bytes = l->wbytes;
	st->tracing = l->tracing;
}

/*
 * Imports the window into a fresh engine and renders its metrics, if the
 * window changed and the last refresh is old enough.
 */
static void
live_refresh(struct live *l)
{
	struct live_pkt *p;
	struct pbbuf w;
	char *err = NULL;
	uint64_t now = now_ms();

	if (l->rpc_gen == l->gen || (l->st.refreshes > 0 &&
	    now < l->refreshed_ms + l->opts.refresh_ms))
		return;
	rpc_reset(l->rpc);
	for (p = l->head; p != NULL; p = p->next)
		if (rpc_parse(l->rpc, p->data, p->len, &err) == -1) {
			log_warnx("%s: %s", __func__, err ? err : "?");
			free(err);
			err = NULL;
			break;
		}
	if (rpc_eof(l->rpc, &err) == -1) {
		log_warnx("%s: %s", __func__, err ? err : "?");
		free(err);
		err = NULL;
	}
	l->rpc_gen = l->gen;
	l->refreshed_ms = now;
	l->st.refreshes++;
	evbuffer_drain(l->metrics_text, evbuffer_get_length(l->metrics_text));
	pbb_init(&w);
	if (metrics_compute(l->mx, rpc_db(l->rpc), live_metrics,
	    sizeof(live_metrics) / sizeof(live_metrics[0]), &w, &err) == -1) {
		log_warnx("%s: %s", __func__, err ? err : "?");
		free(err);
	} else if (openmetrics_render(l->mx, w.buf, w.len, "faro",
	    l->metrics_text) == -1)
		log_warnx("%s: cannot render the metrics", __func__);
	pbb_free(&w);
}

int
live_render(void *arg, struct evbuffer *out)
{
	struct live *l = arg;
	struct live_stats st;
	size_t n;

	live_refresh(l);
	live_get_stats(l, &st);
	evbuffer_add_printf(out,
	    "# TYPE faro_live_packets counter\n"
	    "faro_live_packets_total %llu\n"
	    "# TYPE faro_live_bytes counter\n"
	    "faro_live_bytes_total %llu\n"
	    "# TYPE faro_live_evicted_packets counter\n"
	    "faro_live_evicted_packets_total %llu\n"
	    "# TYPE faro_live_reads counter\n"
	    "faro_live_reads_total %llu\n"
	    "# TYPE faro_live_refreshes counter\n"
	    "faro_live_refreshes_total %llu\n"
	    "# TYPE faro_live_window_packets gauge\n"
	    "faro_live_window_packets %zu\n"
	    "# TYPE faro_live_window_bytes gauge\n"
	    "faro_live_window_bytes %zu\n"
	    "# TYPE faro_live_connected gauge\n"
	    "faro_live_connected %d\n"
	    "# TYPE faro_live_tracing gauge\n"
	    "faro_live_tracing %d\n",
	    (unsigned long long)st.packets, (unsigned long long)st.bytes,
	    (unsigned long long)st.evicted, (unsigned long long)st.reads,
	    (unsigned long long)st.refreshes, st.window_packets,
	    st.window_bytes, st.connected, st.tracing);
	n = evbuffer_get_length(l->metrics_text);
	if (n > 0)
		evbuffer_add(out, evbuffer_pullup(l->metrics_text, -1), n);
	evbuffer_add_printf(out, "# EOF\n");
	return 0;
}
