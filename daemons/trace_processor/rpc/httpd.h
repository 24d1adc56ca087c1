/*
 * The trace processor's HTTP server (libevent evhttp), with upstream's
 * endpoints so that the Perfetto UI and Python API use it unchanged:
 *
 *   GET  /status                  StatusResult
 *   POST /parse                   trace bytes -> AppendTraceDataResult
 *   GET  /notify_eof              finalize the trace
 *   GET  /restore_initial_tables  drop what queries created
 *   POST /query                   QueryArgs -> QueryResult messages,
 *                                 chunked, one per batch
 *   POST /compute_metric          ComputeMetricArgs -> ComputeMetricResult
 *   POST /rpc                     TraceProcessorRpcStream in and out
 *   GET  /websocket               the same stream, one RPC stream message
 *                                 per binary WebSocket message
 *   GET  /metrics                 OpenMetrics text (--live only)
 *
 * Browsers: a request with an Origin header is served only when that
 * origin is allowed (the Perfetto UI's, as upstream, plus any added), and
 * the reply then carries Access-Control-Allow-Origin; OPTIONS preflights
 * are answered as upstream does. Other clients send no Origin.
 *
 * DNS rebinding: a request is served only when its Host names the
 * listening address (127.0.0.1, localhost, [::1], the address given, or
 * one added with httpd_allow_host), with our port if it has one.
 *
 * Slow and idle peers: see httpd_conn.h for the connection cap and the
 * header, body and idle deadlines.
 */
#ifndef FARO_TP_HTTPD_H
#define FARO_TP_HTTPD_H

#include <stddef.h>

#include "httpd_conn.h"

struct event_base;
struct evbuffer;
struct httpd;
struct rpc;

/* Fills out with the /metrics page; -1 makes it a 503. */
typedef int	 httpd_metrics_fn(void *arg, struct evbuffer *out);

/*
 * Listens on addr:port (port 0: any free port, see httpd_port). The rpc
 * stays the caller's. NULL with *err on failure.
 */
struct httpd	*httpd_new(struct event_base *, const char *addr, int port,
		    struct rpc *, char **err);
void		 httpd_free(struct httpd *);
int		 httpd_port(const struct httpd *);
int		 httpd_allow_origin(struct httpd *, const char *origin);
/* A Host name (or address) served besides the listening address's. */
int		 httpd_allow_host(struct httpd *, const char *host);
/* Before serving: replaces the default connection limits. */
int		 httpd_set_limits(struct httpd *, const struct httpd_limits *);
int		 httpd_conn_stats(struct httpd *, struct httpd_conn_stats *);
void		 httpd_set_metrics(struct httpd *, httpd_metrics_fn *, void *);

#endif
