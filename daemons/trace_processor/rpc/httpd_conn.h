/*
 * Connection limits for the trace processor's HTTP server: how many
 * connections it holds and how long a peer may take, so that slow or
 * idle peers cannot hold the daemon (slowloris) and a new client, such as
 * a /status probe, is always served.
 *
 * Every connection evhttp accepts is tracked from its first byte:
 *
 *   idle  --first byte-->  head  --blank line-->  body  --request-->  idle
 *   (idle_ms)              (header_ms)            (body_ms)
 *
 * A connection that overstays its phase is shut down (counted). At
 * max_conns, a new connection evicts the oldest one that is idle or
 * still sending headers; when every one is busy with a body or a reply,
 * the new one is shut down instead. Replies being written and WebSockets
 * are left alone: their peer has shown it is a client.
 */
#ifndef FARO_TP_HTTPD_CONN_H
#define FARO_TP_HTTPD_CONN_H

#include <stddef.h>
#include <stdint.h>

struct bufferevent;
struct event_base;
struct evhttp;
struct httpd_conns;

struct httpd_limits {
	unsigned	 max_conns;
	unsigned	 header_ms;	/* first byte to the end of headers */
	unsigned	 body_ms;	/* end of headers to the whole request */
	unsigned	 idle_ms;	/* no request under way */
};

/* The defaults (see trace_processor(1)). */
#define HTTPD_MAX_CONNS		512
#define HTTPD_HEADER_MS		10000
#define HTTPD_BODY_MS		60000
#define HTTPD_IDLE_MS		60000

void		 httpd_limits_init(struct httpd_limits *);

/* Tracks the connections of http (installs its bufferevent callback). */
struct httpd_conns *httpd_conns_new(struct event_base *, struct evhttp *,
		    const struct httpd_limits *);
void		 httpd_conns_free(struct httpd_conns *);

/* A whole request arrived on bev: its connection is idle again. */
void		 httpd_conns_request_done(struct httpd_conns *,
		    struct bufferevent *);
/* bev became a WebSocket: no more HTTP timeouts. */
void		 httpd_conns_exempt(struct httpd_conns *, struct bufferevent *);

struct httpd_conn_stats {
	size_t		 open;		/* connections held now */
	uint64_t	 timed_out;	/* shut down for overstaying */
	uint64_t	 evicted;	/* shut down to make room */
	uint64_t	 refused;	/* shut down at once, all busy */
};
void		 httpd_conns_stats(struct httpd_conns *,
		    struct httpd_conn_stats *);

#endif
