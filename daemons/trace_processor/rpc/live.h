/*
 * Live metrics: trace_processor --live attaches to traced as a consumer,
 * imports the session's packets as they come into one engine, windowed,
 * and serves the built-in metrics of the window as OpenMetrics text on
 * /metrics.
 *
 *   every period: Flush, then ReadBuffers --> tp_parse (one engine per
 *       session)
 *   every second, and at each refresh:
 *       tp_checkpoint (records older than the last Flush whose read is
 *           over are parsed and visible: producers wrote them before it)
 *       tp_evict_before (rows older than the window go)
 *   GET /metrics --> something new and the last refresh old enough?
 *       metrics (linux_*, trace_stats) --> OpenMetrics, kept for scrapes
 *       in between; the live_* counters are always current.
 *
 * The window is a ledger of what each read brought (bytes, packets, the
 * newest timestamp by then): entries leave when the window holds more
 * than window_bytes of packets or they are older than window_s, and the
 * engine drops the rows older than the newest timestamp of what left. So
 * the engine's memory follows the window, and a refresh costs the metrics
 * of the window, not an import of it. A session that starts again (traced
 * restarted) gets a fresh engine: its sequence ids and clocks restart.
 */
#ifndef FARO_TP_LIVE_H
#define FARO_TP_LIVE_H

#include <stddef.h>
#include <stdint.h>

#include "tp.h"

struct event_base;
struct evbuffer;
struct live;
struct metrics;
struct rpc;

struct live_opts {
	const char	*consumer_sock;	/* NULL: the usual place */
	const char	*config_path;	/* NULL: the built-in config */
	uint32_t	 period_ms;	/* ReadBuffers period */
	size_t		 window_bytes;	/* bytes of packets kept */
	uint32_t	 window_s;	/* and for at most this long */
	uint32_t	 refresh_ms;	/* metrics at most this often */
};

void		 live_opts_init(struct live_opts *);

/*
 * Connects (retrying while traced is away) and starts the session.
 * NULL with *err (malloc'd) when the config cannot be read.
 */
struct live	*live_new(struct event_base *, const struct tp_config *,
		    struct metrics *, const struct live_opts *, char **err);
void		 live_free(struct live *);

/* The /metrics page (an httpd_metrics_fn); refreshes the engine first. */
int		 live_render(void *live, struct evbuffer *out);
/* The RPC serving the live engine as it stands (/query etc.). */
struct rpc	*live_rpc(struct live *);

struct live_stats {
	uint64_t	 packets;	/* received in all */
	uint64_t	 bytes;
	uint64_t	 evicted;	/* windowed out */
	uint64_t	 reads;		/* ReadBuffers completed */
	uint64_t	 refreshes;	/* metrics computed */
	size_t		 window_packets;
	size_t		 window_bytes;
	size_t		 engine_bytes;	/* tp_mem_bytes, last upkeep */
	int		 connected;
	int		 tracing;	/* the session runs */
};
void		 live_get_stats(const struct live *, struct live_stats *);

/*
 * OpenMetrics text of a TraceMetrics message: each numeric field becomes
 * a gauge named prefix_<metric>_<message path>_<field>; string, enum and
 * id fields (pid, tid, dev, ...) of the enclosing messages become labels.
 */
int		 openmetrics_render(struct metrics *, const void *pb,
		    size_t len, const char *prefix, struct evbuffer *out);

#endif
