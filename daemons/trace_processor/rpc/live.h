/*
 * Live metrics: trace_processor --live attaches to traced as a consumer,
 * keeps a sliding window of the session's packets and serves the built-in
 * metrics of that window as OpenMetrics text on /metrics.
 *
 *   traced --ReadBuffers every period--> packets --> window (bounded by
 *   bytes and age; the oldest packets leave first)
 *   GET /metrics --> window changed? re-import it into a fresh engine
 *                --> metrics (linux_*, trace_stats) --> OpenMetrics
 *
 * The engine finalizes a trace once (tp_eof), so each refresh imports the
 * window again rather than appending to the previous import; the cost is
 * bounded by the window and paid at most once per refresh period (scrapes
 * in between get the last metrics; the live_* counters are always
 * current). Memory is the window plus one engine for it, whatever the
 * session's length. The
 * config should clear incremental state periodically so that packets
 * whose interning data has left the window can still be read.
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
	size_t		 window_bytes;	/* packets kept at most */
	uint32_t	 window_s;	/* and for at most this long */
	uint32_t	 refresh_ms;	/* re-import at most this often */
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
/* The RPC serving the last refreshed window (/query etc.). */
struct rpc	*live_rpc(struct live *);

struct live_stats {
	uint64_t	 packets;	/* received in all */
	uint64_t	 bytes;
	uint64_t	 evicted;	/* windowed out */
	uint64_t	 reads;		/* ReadBuffers completed */
	uint64_t	 refreshes;	/* window re-imported */
	size_t		 window_packets;
	size_t		 window_bytes;
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
