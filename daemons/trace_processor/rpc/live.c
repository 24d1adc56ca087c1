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

#include "traceconfig/traceconfig.h"
#include "libipc/consumer_endpoint.h"
#include "libipc/consumer_read.h"
#include "libipc/ipc_client.h"
#include "libipc/ipc_sockname.h"
#include "libshm/pbw.h"
#include "protos/perfetto/ipc/consumer_port.pb-c.h"
#include "live.h"
#include "base/log.h"
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

/*
 * The window's ledger: one entry per ReadBuffers reply, what it brought
 * and the newest timestamp read by then. Entries leave oldest first when
 * the window is over its bytes or its age; the engine then drops the rows
 * older than what the entries that left had read.
 */
struct live_ent {
	uint64_t	 t_ms;		/* when it arrived */
	size_t		 bytes;		/* framed packet bytes */
	size_t		 packets;
	int64_t		 ts_hi;		/* newest ts read */
};

/*
 * What a checkpoint may release: each read follows a Flush, so once the
 * read is over, whatever producers wrote before the Flush was asked for
 * is in (records with an older timestamp that come later are late:
 * dropped and counted). A producer that does not answer the Flush in
 * time, or a traced without Flush, gets LIVE_LAG_NS.
 */
#define LIVE_LAG_NS	(2 * 1000000000LL)
#define LIVE_FLUSH_MS	1000		/* Flush timeout, at most */
/* Between scrapes, the engine catches up with the window this often. */
#define LIVE_MAINTAIN_MS	1000

struct live {
	struct event_base	*base;
	struct tp_config	 cfg;
	struct metrics		*mx;
	struct live_opts	 opts;
	char			 sock[512];
	uint8_t			*enable_req;	/* EnableTracingRequest */
	size_t			 enable_len;
	struct ipc_client	*cl;
	struct consumer_ep	 ep;
	int64_t			 flush_ts;	/* boot time the Flush was asked */
	int			 flush_ok;
	int64_t			 safe_ts;	/* tp_checkpoint's upto */
	int			 bound;
	int			 tracing;
	int			 reading;
	struct event		*tick;
	struct event		*reconnect;
	/* The engine (owned by rpc) and its window, oldest first. */
	struct tp		*tp;
	int			 tp_used;	/* a session fed it */
	struct live_ent		*ents;
	size_t			 ehead, en, ecap;
	size_t			 wbytes, wpkts;
	int64_t			 horizon;	/* rows before it go */
	uint64_t		 maintained_ms;
	/* Packets of one reply, framed as a Trace, parsed in one go. */
	uint8_t			*batch;
	size_t			 batchlen, batchcap, batchpkts;
	/* Packets joined from ReadBuffers slices. */
	struct consumer_read	 rd;
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

/* Producers stamp their data with CLOCK_BOOTTIME by default. */
static int64_t
boot_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
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

/* ---- the engine and its window -------------------------------------- */

/* A fresh engine for a new session: sequence ids and clocks restart. */
static int
live_engine_new(struct live *l)
{
	struct tp *tp;
	char *err = NULL;

	if ((tp = tp_new(&l->cfg, &err)) == NULL) {
		log_warnx("%s: %s", __func__, err ? err : "?");
		free(err);
		return -1;
	}
	rpc_fix_engine(l->rpc, tp, "live");
	l->tp = tp;
	l->tp_used = 0;
	/* What the old engine held left the window. */
	l->st.evicted += l->wpkts;
	l->ehead = l->en = 0;
	l->wbytes = l->wpkts = 0;
	l->horizon = INT64_MIN;
	l->safe_ts = INT64_MIN;
	l->gen++;
	return 0;
}

static void
live_evict(struct live *l, uint64_t now)
{
	struct live_ent *e;
	uint64_t max_age = (uint64_t)l->opts.window_s * 1000;

	while (l->en > 0) {
		e = &l->ents[l->ehead];
		if (l->wbytes <= l->opts.window_bytes &&
		    (max_age == 0 || e->t_ms + max_age >= now))
			break;
		l->wbytes -= e->bytes;
		l->wpkts -= e->packets;
		l->st.evicted += e->packets;
		if (e->ts_hi != INT64_MIN && e->ts_hi + 1 > l->horizon)
			l->horizon = e->ts_hi + 1;
		l->ehead = (l->ehead + 1) % l->ecap;
		l->en--;
		l->gen++;
	}
}

static int
live_ent_add(struct live *l, size_t bytes, size_t packets, int64_t ts_hi)
{
	struct live_ent *n;
	size_t i;

	if (l->en == l->ecap) {
		size_t ncap = l->ecap ? l->ecap * 2 : 64;

		if ((n = reallocarray(NULL, ncap, sizeof(*n))) == NULL)
			return -1;
		for (i = 0; i < l->en; i++)
			n[i] = l->ents[(l->ehead + i) % l->ecap];
		free(l->ents);
		l->ents = n;
		l->ecap = ncap;
		l->ehead = 0;
	}
	n = &l->ents[(l->ehead + l->en) % l->ecap];
	n->t_ms = now_ms();
	n->bytes = bytes;
	n->packets = packets;
	n->ts_hi = ts_hi;
	l->en++;
	l->wbytes += bytes;
	l->wpkts += packets;
	live_evict(l, n->t_ms);
	return 0;
}

static void
live_batch_packet(struct live *l, const uint8_t *data, size_t len)
{
	uint8_t hdr[PBW_PACKET_HDR_MAX];
	size_t h = pbw_trace_packet_header(hdr, len), need;

	need = l->batchlen + h + len;
	if (need > l->batchcap) {
		size_t cap = l->batchcap ? l->batchcap : 65536;
		uint8_t *nb;

		while (cap < need)
			cap *= 2;
		if ((nb = realloc(l->batch, cap)) == NULL) {
			log_warnx("%s: out of memory, packet dropped",
			    __func__);
			return;
		}
		l->batch = nb;
		l->batchcap = cap;
	}
	memcpy(l->batch + l->batchlen, hdr, h);
	memcpy(l->batch + l->batchlen + h, data, len);
	l->batchlen += h + len;
	l->batchpkts++;
	l->st.packets++;
	l->st.bytes += len;
}

/* The packets of one reply into the engine, in one piece (its inserts
 * batch across packets), and into the window's ledger. */
static void
live_batch_parse(struct live *l)
{
	if (l->batchpkts == 0)
		return;
	if (l->tp != NULL && tp_parse(l->tp, l->batch, l->batchlen) == -1) {
		/* The stream is broken for this engine: start another. */
		log_warnx("%s: %s", __func__, tp_error(l->tp));
		(void)live_engine_new(l);
	} else if (l->tp != NULL) {
		l->tp_used = 1;
		if (live_ent_add(l, l->batchlen, l->batchpkts,
		    tp_newest_ts(l->tp)) == -1)
			log_warnx("%s: out of memory", __func__);
	}
	l->batchlen = l->batchpkts = 0;
	l->gen++;
}

/*
 * Makes what was read visible (up to safe_ts) and drops what
 * the window let go.
 */
static void
live_maintain(struct live *l, uint64_t now)
{
	live_evict(l, now);
	l->maintained_ms = now;
	if (l->tp == NULL)
		return;
	if (tp_checkpoint(l->tp, l->safe_ts) == -1)
		log_warnx("%s: checkpoint: %s", __func__, tp_error(l->tp));
	if (l->horizon != INT64_MIN &&
	    tp_evict_before(l->tp, l->horizon) == -1)
		log_warnx("%s: evict: %s", __func__, tp_error(l->tp));
	l->st.engine_bytes = tp_mem_bytes(l->tp);
}

/* A whole packet of the read: into the batch the engine parses. */
static int
live_read_packet(void *arg, const uint8_t *pkt, size_t len)
{
	live_batch_packet(arg, pkt, len);
	return 0;
}

/* One ReadBuffers reply; a packet larger than the window is dropped. */
static void
live_reply_untrusted(struct live *l, const uint8_t *buf, size_t len)
{
	if (consumer_read_reply_untrusted(&l->rd, buf, len, live_read_packet,
	    l) == -1)
		log_warnx("%s: malformed ReadBuffersResponse", __func__);
	live_batch_parse(l);
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
	live_reply_untrusted(l, res->data, res->len);
	if (!res->has_more) {
		int64_t lag = boot_ns() - LIVE_LAG_NS, safe;

		l->reading = 0;
		l->st.reads++;
		safe = l->flush_ok && l->flush_ts > lag ? l->flush_ts : lag;
		if (safe > l->safe_ts)
			l->safe_ts = safe;
		/* Without scrapes too, the engine follows the window. */
		if (now_ms() >= l->maintained_ms + LIVE_MAINTAIN_MS)
			live_maintain(l, now_ms());
	}
}

static void
live_read(struct live *l)
{
	if (consumer_ep_invoke(&l->ep, CM_READ, NULL, -1, 0,
	    live_on_read, l) != 0)
		l->reading = 1;
	else
		l->reading = 0;
}

/* The Flush is over (or timed out): what it asked for is in the buffers. */
static void
live_on_flush(struct ipc_client *cl, struct ipc_result *res, void *arg)
{
	struct live *l = arg;

	(void)cl;
	l->flush_ok = res->success;
	if (!l->bound || !l->tracing) {
		l->reading = 0;
		return;
	}
	live_read(l);
}

static void
live_on_tick(evutil_socket_t fd, short ev, void *arg)
{
	struct live *l = arg;

	(void)fd;
	(void)ev;
	if (now_ms() >= l->maintained_ms + LIVE_MAINTAIN_MS)
		live_maintain(l, now_ms());
	else
		live_evict(l, now_ms());
	if (!l->bound || !l->tracing || l->reading)
		return;
	/* Optional: without it, what was read is LIVE_LAG_NS behind. */
	if (consumer_ep_has(&l->ep, CM_FLUSH)) {
		Perfetto__Protos__FlushRequest fr =
		    PERFETTO__PROTOS__FLUSH_REQUEST__INIT;

		fr.has_timeout_ms = 1;
		fr.timeout_ms = l->opts.period_ms < LIVE_FLUSH_MS ?
		    l->opts.period_ms : LIVE_FLUSH_MS;
		l->flush_ts = boot_ns();
		if (consumer_ep_invoke(&l->ep, CM_FLUSH, &fr.base, -1, 0,
		    live_on_flush, l) != 0)
			l->reading = 1;
		return;
	}
	l->flush_ok = 0;
	live_read(l);
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

	if (consumer_ep_bind(&l->ep, cl, b) == -1) {
		log_warnx("%s: traced has no ConsumerPort", __func__);
		return;
	}
	if (!consumer_ep_has(&l->ep, CM_ENABLE) ||
	    !consumer_ep_has(&l->ep, CM_READ)) {
		log_warnx("%s: ConsumerPort lacks EnableTracing/ReadBuffers",
		    __func__);
		return;
	}
	l->bound = 1;
	/* A new session: its sequences and clocks start again. */
	if (l->tp == NULL || l->tp_used)
		(void)live_engine_new(l);
	if (consumer_ep_invoke_raw(&l->ep, CM_ENABLE, l->enable_req,
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
	memset(&l->ep, 0, sizeof(l->ep));	/* its client goes now */
	consumer_read_reset(&l->rd);
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
		if ((buf = traceconfig_read_file(l->opts.config_path, &len, e,
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
	tc = traceconfig_parse_untrusted(text, len, name, txt, 0, e, sizeof(e));
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
	l->cfg.streaming = 1;
	l->mx = mx;
	l->opts = *opts;
	if (l->opts.period_ms == 0)
		l->opts.period_ms = 1000;
	consumer_read_init(&l->rd, l->opts.window_bytes);
	snprintf(l->sock, sizeof(l->sock), "%s", opts->consumer_sock ?
	    opts->consumer_sock : ipc_sockname(IPC_PORT_CONSUMER));
	l->horizon = INT64_MIN;
	if (live_load_config(l, err) == -1 ||
	    (l->rpc = rpc_new(cfg, NULL, NULL, mx, err)) == NULL ||
	    (l->tick = event_new(base, -1, EV_PERSIST, live_on_tick, l)) ==
	    NULL ||
	    (l->reconnect = evtimer_new(base, live_on_reconnect, l)) ==
	    NULL || (l->metrics_text = evbuffer_new()) == NULL ||
	    live_engine_new(l) == -1) {
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
	if (l == NULL)
		return;
	if (l->cl != NULL)
		ipc_client_free(l->cl);
	if (l->tick != NULL)
		event_free(l->tick);
	if (l->reconnect != NULL)
		event_free(l->reconnect);
	/* The engine goes with the RPC that serves it. */
	rpc_free(l->rpc);
	free(l->ents);
	free(l->batch);
	if (l->metrics_text != NULL)
		evbuffer_free(l->metrics_text);
	consumer_read_free(&l->rd);
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
 * A refresh: the engine made current (checkpoint, eviction) and the
 * metrics computed on it, if something changed and the last refresh is
 * old enough.
 */
static void
live_refresh(struct live *l)
{
	struct pbbuf w;
	char *err = NULL;
	uint64_t now = now_ms();

	if (l->rpc_gen == l->gen || (l->st.refreshes > 0 &&
	    now < l->refreshed_ms + l->opts.refresh_ms))
		return;
	live_maintain(l, now);
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
	    "# TYPE faro_live_engine_bytes gauge\n"
	    "faro_live_engine_bytes %zu\n"
	    "# TYPE faro_live_connected gauge\n"
	    "faro_live_connected %d\n"
	    "# TYPE faro_live_tracing gauge\n"
	    "faro_live_tracing %d\n",
	    (unsigned long long)st.packets, (unsigned long long)st.bytes,
	    (unsigned long long)st.evicted, (unsigned long long)st.reads,
	    (unsigned long long)st.refreshes, st.window_packets,
	    st.window_bytes, st.engine_bytes, st.connected, st.tracing);
	n = evbuffer_get_length(l->metrics_text);
	if (n > 0)
		evbuffer_add(out, evbuffer_pullup(l->metrics_text, -1), n);
	evbuffer_add_printf(out, "# EOF\n");
	return 0;
}
