/*
 * The trace processor's HTTP server: see httpd.h.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>

#include "httpd.h"
#include "httpd_conn.h"
#include "base/log.h"
#include "metrics/pbbuf.h"
#include "pbdec.h"
#include "query.h"
#include "rpc.h"
#include "base64.h"
#include "sha1.h"
#include "summary/summary.h"

/* Request bodies and WebSocket messages (upstream allows 64 MiB). */
#define HTTPD_MAX_BODY		((64u << 20) + 4096)
#define WS_MAX_PAYLOAD		(64u << 20)
/* The request line and headers: ours are a few hundred bytes. */
#define HTTPD_MAX_HEADERS	(64u << 10)

static const char *const default_origins[] = {
	"https://ui.perfetto.dev",
	"http://localhost:10000",
	"http://127.0.0.1:10000",
};

struct ws;

struct httpd {
	struct event_base		*base;
	struct evhttp			*http;
	struct evhttp_bound_socket	*sock;
	struct rpc			*rpc;
	char				**origins;
	size_t				 norigins;
	char				**hosts;	/* Host values served */
	size_t				 nhosts;
	int				 port;
	struct httpd_conns		*conns;
	httpd_metrics_fn		*metrics_fn;
	void				*metrics_arg;
	struct ws			*ws;	/* the open WebSocket */
};

/* A WebSocket taken over from evhttp after the handshake. */
struct ws {
	struct httpd			*h;
	struct evhttp_connection	*evcon;
	struct bufferevent		*bev;
	uint8_t				*msg;	/* fragments so far */
	size_t				 msglen;
	int				 closing;
};

static int
origin_allowed(struct httpd *h, const char *origin)
{
	size_t i;

	for (i = 0; i < h->norigins; i++)
		if (strcasecmp(h->origins[i], origin) == 0)
			return 1;
	return 0;
}

static int
list_add(char ***list, size_t *n, const char *s)
{
	char **nl;

	if ((nl = reallocarray(*list, *n + 1, sizeof(*nl))) == NULL)
		return -1;
	*list = nl;
	if ((nl[*n] = strdup(s)) == NULL)
		return -1;
	(*n)++;
	return 0;
}

static void
list_free(char **list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(list[i]);
	free(list);
}

int
httpd_allow_origin(struct httpd *h, const char *origin)
{
	return list_add(&h->origins, &h->norigins, origin);
}

int
httpd_allow_host(struct httpd *h, const char *host)
{
	char buf[128];

	/* An IPv6 literal appears bracketed in a Host header. */
	if (strchr(host, ':') != NULL && host[0] != '[') {
		if ((size_t)snprintf(buf, sizeof(buf), "[%s]", host) >=
		    sizeof(buf))
			return -1;
		host = buf;
	}
	return list_add(&h->hosts, &h->nhosts, host);
}

/*
 * A browser tricked by DNS rebinding sends the attacker's name as Host:
 * serve only the names of the listening address ("name" or "name:port"
 * with our port). No Host at all is an HTTP/1.0 client, not a browser.
 */
static int
host_allowed_untrusted(struct httpd *h, const char *host)
{
	const char *colon, *end;
	size_t i, len;
	char *ep;
	long port;

	if (host == NULL)
		return 1;
	end = host[0] == '[' ? strchr(host, ']') : NULL;
	colon = strchr(end != NULL ? end : host, ':');
	len = colon != NULL ? (size_t)(colon - host) : strlen(host);
	if (colon != NULL) {
		port = strtol(colon + 1, &ep, 10);
		if (ep == colon + 1 || *ep != '\0' || port != h->port)
			return 0;
	}
	for (i = 0; i < h->nhosts; i++)
		if (strlen(h->hosts[i]) == len &&
		    strncasecmp(h->hosts[i], host, len) == 0)
			return 1;
	return 0;
}

int
httpd_set_limits(struct httpd *h, const struct httpd_limits *lim)
{
	httpd_conns_free(h->conns);
	h->conns = httpd_conns_new(h->base, h->http, lim);
	return h->conns != NULL ? 0 : -1;
}

int
httpd_conn_stats(struct httpd *h, struct httpd_conn_stats *st)
{
	if (h->conns == NULL)
		return -1;
	httpd_conns_stats(h->conns, st);
	return 0;
}

void
httpd_set_metrics(struct httpd *h, httpd_metrics_fn *fn, void *arg)
{
	h->metrics_fn = fn;
	h->metrics_arg = arg;
}

static void
reply_pb(struct evhttp_request *req, const struct pbbuf *w)
{
	struct evbuffer *b = evbuffer_new();

	evhttp_add_header(evhttp_request_get_output_headers(req),
	    "Content-Type", "application/x-protobuf");
	if (b != NULL && w != NULL && w->len > 0)
		evbuffer_add(b, w->buf, w->len);
	evhttp_send_reply(req, HTTP_OK, "OK", b);
	if (b != NULL)
		evbuffer_free(b);
}

static void
reply_text(struct evhttp_request *req, int code, const char *reason,
    const char *text)
{
	struct evbuffer *b = evbuffer_new();

	evhttp_add_header(evhttp_request_get_output_headers(req),
	    "Content-Type", "text/plain; charset=utf-8");
	if (b != NULL)
		evbuffer_add(b, text, strlen(text));
	evhttp_send_reply(req, code, reason, b);
	if (b != NULL)
		evbuffer_free(b);
}

/* The body, contiguous; *len bytes (NULL when empty). */
static const uint8_t *
req_body(struct evhttp_request *req, size_t *len)
{
	struct evbuffer *in = evhttp_request_get_input_buffer(req);

	*len = evbuffer_get_length(in);
	if (*len == 0)
		return NULL;
	return evbuffer_pullup(in, -1);
}

/* ---- chunked replies ------------------------------------------------ */

static void
send_chunk(void *arg, const void *data, size_t len)
{
	struct evhttp_request *req = arg;
	struct evbuffer *b;

	if (data == NULL)
		return;	/* closing: the reply ends after this request */
	if ((b = evbuffer_new()) == NULL)
		return;
	evbuffer_add(b, data, len);
	evhttp_send_reply_chunk(req, b);
	evbuffer_free(b);
}

static void
handle_query(struct httpd *h, struct evhttp_request *req)
{
	const uint8_t *body, *sql = (const uint8_t *)"";
	size_t len, sqllen = 0;
	struct pb it;
	struct pb_field f;
	struct tpq *q;
	struct pbbuf w;
	int more;

	body = req_body(req, &len);
	pb_init(&it, body, len);
	while (pb_next_untrusted(&it, &f) == 1)
		if (f.id == 1 && f.wire == PB_LEN) {
			sql = f.data;
			sqllen = f.len;
		}
	if (it.err) {
		reply_text(req, HTTP_BADREQUEST, "Bad Request",
		    "malformed QueryArgs\n");
		return;
	}
	if ((q = tpq_start(rpc_db(h->rpc), (const char *)sql, sqllen)) ==
	    NULL) {
		reply_text(req, HTTP_INTERNAL, "Internal Server Error",
		    "out of memory\n");
		return;
	}
	evhttp_add_header(evhttp_request_get_output_headers(req),
	    "Content-Type", "application/x-protobuf");
	evhttp_send_reply_start(req, HTTP_OK, "OK");
	do {
		pbb_init(&w);
		more = tpq_next(q, &w);
		send_chunk(req, w.buf, w.len);
		pbb_free(&w);
	} while (more);
	evhttp_send_reply_end(req);
	tpq_free(q);
}

static void
handle_rpc(struct httpd *h, struct evhttp_request *req)
{
	const uint8_t *body;
	size_t len;

	if (h->ws != NULL) {
		/* The RPC has one stream state: the WebSocket holds it. */
		reply_text(req, 409, "Conflict",
		    "a WebSocket is using this trace processor\n");
		return;
	}
	body = req_body(req, &len);
	evhttp_add_header(evhttp_request_get_output_headers(req),
	    "Content-Type", "application/x-protobuf");
	evhttp_send_reply_start(req, HTTP_OK, "OK");
	rpc_stream_begin(h->rpc, send_chunk, req);
	if (body != NULL)
		rpc_stream_input_untrusted(h->rpc, body, len);
	rpc_stream_end(h->rpc);
	evhttp_send_reply_end(req);
}

/* ---- WebSocket -------------------------------------------------------- */

static void
ws_close(struct ws *ws)
{
	struct httpd *h = ws->h;

	if (h->ws == ws) {
		rpc_stream_end(h->rpc);
		h->ws = NULL;
	}
	free(ws->msg);
	/* Frees the bufferevent and the pending upgrade request too. */
	evhttp_connection_free(ws->evcon);
	free(ws);
}

static void
ws_send_frame(struct ws *ws, int opcode, const void *data, size_t len)
{
	uint8_t hdr[10];
	size_t n = 0;
	int i;

	hdr[n++] = (uint8_t)(0x80 | opcode);
	if (len < 126)
		hdr[n++] = (uint8_t)len;
	else if (len <= 0xffff) {
		hdr[n++] = 126;
		hdr[n++] = (uint8_t)(len >> 8);
		hdr[n++] = (uint8_t)len;
	} else {
		hdr[n++] = 127;
		for (i = 7; i >= 0; i--)
			hdr[n++] = (uint8_t)((uint64_t)len >> (8 * i));
	}
	bufferevent_write(ws->bev, hdr, n);
	if (len > 0)
		bufferevent_write(ws->bev, data, len);
}

/* The RPC's replies: one binary message each. */
static void
ws_rpc_send(void *arg, const void *data, size_t len)
{
	struct ws *ws = arg;

	if (data == NULL) {
		ws->closing = 1;
		ws_send_frame(ws, 0x8, NULL, 0);
		return;
	}
	ws_send_frame(ws, 0x2, data, len);
}

/* Parses whole frames from the input; -1 when the peer must go. */
static int
ws_read_frames_untrusted(struct ws *ws)
{
	struct evbuffer *in = bufferevent_get_input(ws->bev);
	uint8_t hdr[14], *payload, *nm;
	size_t avail, hlen, i;
	uint64_t plen;
	int opcode, fin;

	for (;;) {
		avail = evbuffer_get_length(in);
		if (avail < 2)
			return 0;
		evbuffer_copyout(in, hdr, avail < sizeof(hdr) ? avail :
		    sizeof(hdr));
		fin = hdr[0] & 0x80;
		opcode = hdr[0] & 0x0f;
		if (!(hdr[1] & 0x80)) {
			log_warnx("%s: unmasked client frame", __func__);
			return -1;
		}
		plen = hdr[1] & 0x7f;
		hlen = 2;
		if (plen == 126) {
			if (avail < 4)
				return 0;
			plen = (uint64_t)hdr[2] << 8 | hdr[3];
			hlen = 4;
		} else if (plen == 127) {
			if (avail < 10)
				return 0;
			for (plen = 0, i = 0; i < 8; i++)
				plen = plen << 8 | hdr[2 + i];
			hlen = 10;
		}
		if (plen > WS_MAX_PAYLOAD || ws->msglen + plen >
		    WS_MAX_PAYLOAD) {
			log_warnx("%s: message too large", __func__);
			return -1;
		}
		if (avail < hlen + 4 + plen)
			return 0;
		evbuffer_drain(in, hlen);
		evbuffer_remove(in, hdr, 4);	/* the mask */
		payload = evbuffer_pullup(in, (ssize_t)plen);
		if (plen > 0 && payload == NULL)
			return -1;
		for (i = 0; i < plen; i++)
			payload[i] ^= hdr[i % 4];
		switch (opcode) {
		case 0x0:	/* continuation */
		case 0x1:
		case 0x2:
			if (plen > 0) {
				if ((nm = realloc(ws->msg, ws->msglen +
				    plen)) == NULL)
					return -1;
				ws->msg = nm;
				memcpy(ws->msg + ws->msglen, payload, plen);
				ws->msglen += plen;
			}
			evbuffer_drain(in, plen);
			if (fin) {
				size_t n = ws->msglen;

				ws->msglen = 0;
				rpc_stream_input_untrusted(ws->h->rpc,
				    ws->msg, n);
				if (ws->closing)
					return -1;
			}
			break;
		case 0x8:	/* close: echo it */
			evbuffer_drain(in, plen);
			ws_send_frame(ws, 0x8, NULL, 0);
			ws->closing = 1;
			return 0;
		case 0x9:	/* ping */
			ws_send_frame(ws, 0xa, payload, plen);
			evbuffer_drain(in, plen);
			break;
		case 0xa:	/* pong */
			evbuffer_drain(in, plen);
			break;
		default:
			log_warnx("%s: bad opcode %d", __func__, opcode);
			return -1;
		}
	}
}

static void
ws_readcb(struct bufferevent *bev, void *arg)
{
	struct ws *ws = arg;

	(void)bev;
	if (ws->closing)
		return;
	if (ws_read_frames_untrusted(ws) == -1) {
		ws_close(ws);
		return;
	}
}

static void
ws_writecb(struct bufferevent *bev, void *arg)
{
	struct ws *ws = arg;

	/* The close frame has gone out: done. */
	if (ws->closing && evbuffer_get_length(bufferevent_get_output(bev)) ==
	    0)
		ws_close(ws);
}

static void
ws_eventcb(struct bufferevent *bev, short what, void *arg)
{
	(void)bev;
	if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR | BEV_EVENT_TIMEOUT))
		ws_close(arg);
}

static void
handle_websocket(struct httpd *h, struct evhttp_request *req,
    const char *origin)
{
	static const char guid[] = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
	struct evkeyvalq *hdrs = evhttp_request_get_input_headers(req);
	const char *key = evhttp_find_header(hdrs, "Sec-WebSocket-Key");
	const char *ver = evhttp_find_header(hdrs, "Sec-WebSocket-Version");
	char buf[128], accept[32];
	uint8_t dig[20];
	struct ws *ws;
	struct evbuffer *out;

	/* A browser's page may only reach us from an allowed origin. */
	if (origin == NULL) {
		reply_text(req, 403, "Forbidden", "Origin not allowed\n");
		return;
	}
	if (key == NULL || ver == NULL || strcmp(ver, "13") != 0 ||
	    strlen(key) > 64) {
		reply_text(req, HTTP_BADREQUEST, "Bad Request",
		    "bad WebSocket handshake\n");
		return;
	}
	if (h->ws != NULL) {
		/* One stream at a time: the engine has one state. */
		reply_text(req, 409, "Conflict",
		    "another WebSocket is using this trace processor\n");
		return;
	}
	snprintf(buf, sizeof(buf), "%s%s", key, guid);
	sha1_digest(buf, strlen(buf), dig);
	base64_encode(dig, sizeof(dig), accept);
	if ((ws = calloc(1, sizeof(*ws))) == NULL) {
		reply_text(req, HTTP_INTERNAL, "Internal Server Error",
		    "out of memory\n");
		return;
	}
	ws->h = h;
	ws->evcon = evhttp_request_get_connection(req);
	ws->bev = evhttp_connection_get_bufferevent(ws->evcon);
	/*
	 * Take the connection over from evhttp: it never answers this
	 * request; the socket is ours until ws_close frees it all.
	 */
	bufferevent_set_timeouts(ws->bev, NULL, NULL);
	if (h->conns != NULL)
		httpd_conns_exempt(h->conns, ws->bev);
	bufferevent_setcb(ws->bev, ws_readcb, ws_writecb, ws_eventcb, ws);
	bufferevent_enable(ws->bev, EV_READ | EV_WRITE);
	out = bufferevent_get_output(ws->bev);
	evbuffer_add_printf(out, "HTTP/1.1 101 Switching Protocols\r\n"
	    "Upgrade: websocket\r\nConnection: Upgrade\r\n"
	    "Sec-WebSocket-Accept: %s\r\n"
	    "Access-Control-Allow-Origin: %s\r\nVary: Origin\r\n\r\n",
	    accept, origin);
	h->ws = ws;
	rpc_stream_begin(h->rpc, ws_rpc_send, ws);
	/* Frames that came with the handshake. */
	if (evbuffer_get_length(bufferevent_get_input(ws->bev)) > 0)
		ws_readcb(ws->bev, ws);
}

/* ---- dispatch ------------------------------------------------------- */

static const char help_page[] =
    "faro trace_processor: Perfetto's trace processor RPC.\n"
    "Open https://ui.perfetto.dev and choose the native accelerator, or\n"
    "use perfetto.trace_processor.TraceProcessor(addr='HOST:PORT') from\n"
    "Python.\n";

/*
 * Endpoints of methods this engine refuses: the reply is the method's
 * result with its error set (rpc_refused), as the Python API reads it.
 */
static int
http_refused_method(const char *path)
{
	if (strcmp(path, "/disable_and_read_metatrace") == 0)
		return 9;	/* TPM_DISABLE_AND_READ_METATRACE */
	return 0;
}

static void
handle(struct evhttp_request *req, void *arg)
{
	struct httpd *h = arg;
	struct evkeyvalq *in = evhttp_request_get_input_headers(req);
	struct evkeyvalq *out = evhttp_request_get_output_headers(req);
	const char *origin = evhttp_find_header(in, "Origin");
	const char *upgrade = evhttp_find_header(in, "Upgrade");
	const char *host = evhttp_find_header(in, "Host");
	const char *path;
	enum evhttp_cmd_type cmd = evhttp_request_get_command(req);
	struct pbbuf w;
	const uint8_t *body;
	size_t len;
	char *err = NULL;
	int m;

	path = evhttp_uri_get_path(evhttp_request_get_evhttp_uri(req));
	if (path == NULL)
		path = "/";
	log_debug("%s: %s body=%zu origin=%s", __func__, path,
	    evbuffer_get_length(evhttp_request_get_input_buffer(req)),
	    origin ? origin : "");
	/* The whole request is in: its connection's deadline stops. */
	if (h->conns != NULL)
		httpd_conns_request_done(h->conns,
		    evhttp_connection_get_bufferevent(
		    evhttp_request_get_connection(req)));
	if (!host_allowed_untrusted(h, host)) {
		reply_text(req, 403, "Forbidden", "Host not allowed\n");
		return;
	}
	if (origin != NULL && origin_allowed(h, origin)) {
		evhttp_add_header(out, "Access-Control-Allow-Origin", origin);
		evhttp_add_header(out, "Vary", "Origin");
	} else if (origin != NULL && cmd != EVHTTP_REQ_OPTIONS) {
		/* Cross-site requests from elsewhere are refused (CSRF). */
		reply_text(req, 403, "Forbidden", "Origin not allowed\n");
		return;
	}
	if (cmd == EVHTTP_REQ_OPTIONS) {
		evhttp_add_header(out, "Access-Control-Allow-Methods",
		    "POST, GET, OPTIONS");
		evhttp_add_header(out, "Access-Control-Allow-Headers", "*");
		evhttp_add_header(out, "Access-Control-Max-Age", "86400");
		evhttp_add_header(out, "Access-Control-Allow-Private-Network",
		    "true");
		evhttp_send_reply(req, 204, "No Content", NULL);
		return;
	}
	evhttp_add_header(out, "Cache-Control", "no-cache");
	pbb_init(&w);
	if (strcmp(path, "/status") == 0) {
		rpc_status(h->rpc, &w);
		reply_pb(req, &w);
	} else if (strcmp(path, "/websocket") == 0 && upgrade != NULL &&
	    strcasecmp(upgrade, "websocket") == 0) {
		handle_websocket(h, req, origin);
	} else if (strcmp(path, "/rpc") == 0) {
		handle_rpc(h, req);
	} else if (strcmp(path, "/parse") == 0) {
		body = req_body(req, &len);
		rpc_parse(h->rpc, body ? body : (const uint8_t *)"", len, &err);
		rpc_append_result(h->rpc, err, &w);
		reply_pb(req, &w);
	} else if (strcmp(path, "/notify_eof") == 0) {
		if (rpc_eof(h->rpc, &err) == -1)
			log_warnx("%s: %s", __func__, err);
		reply_pb(req, NULL);
	} else if (strcmp(path, "/restore_initial_tables") == 0) {
		rpc_restore_initial_tables(h->rpc);
		reply_pb(req, NULL);
	} else if (strcmp(path, "/query") == 0) {
		handle_query(h, req);
	} else if (strcmp(path, "/register_sql_package") == 0) {
		body = req_body(req, &len);
		rpc_register_sql_package_untrusted(h->rpc, body, len, &w);
		reply_pb(req, &w);
	} else if (strcmp(path, "/compute_metric") == 0) {
		body = req_body(req, &len);
		rpc_compute_metric_untrusted(h->rpc, body, len, &w);
		reply_pb(req, &w);
	} else if (strcmp(path, "/trace_summary") == 0) {
		body = req_body(req, &len);
		summary_rpc_untrusted(rpc_db(h->rpc), body, len, &w);
		reply_pb(req, &w);
	} else if (strcmp(path, "/enable_metatrace") == 0) {
		/* Accepted; reading it back is refused, with the error set. */
		reply_pb(req, NULL);
	} else if ((m = http_refused_method(path)) != 0) {
		uint32_t field;

		(void)rpc_refused(m, &field, &w);
		reply_pb(req, &w);
	} else if (strcmp(path, "/export") == 0) {
		/* Upstream streams the export's bytes: no message to carry
		 * an error in, so the status says it. */
		reply_text(req, 501, "Not Implemented", "export is not"
		    " supported: the shell's -e FILE writes an SQLite file\n");
	} else if (strcmp(path, "/metrics") == 0 && h->metrics_fn != NULL) {
		struct evbuffer *b = evbuffer_new();

		if (b != NULL && h->metrics_fn(h->metrics_arg, b) == 0) {
			evhttp_add_header(out, "Content-Type",
			    "application/openmetrics-text; version=1.0.0; "
			    "charset=utf-8");
			evhttp_send_reply(req, HTTP_OK, "OK", b);
		} else
			reply_text(req, 503, "Service Unavailable",
			    "no data yet\n");
		if (b != NULL)
			evbuffer_free(b);
	} else if (strcmp(path, "/") == 0) {
		reply_text(req, HTTP_OK, "OK", help_page);
	} else
		reply_text(req, HTTP_NOTFOUND, "Not Found", "not found\n");
	free(err);
	pbb_free(&w);
}

struct httpd *
httpd_new(struct event_base *base, const char *addr, int port,
    struct rpc *rpc, char **err)
{
	static const char *const local_hosts[] = {
		"127.0.0.1", "localhost", "::1",
	};
	struct httpd_limits lim;
	struct httpd *h;
	size_t i;

	*err = NULL;
	if ((h = calloc(1, sizeof(*h))) == NULL ||
	    (h->http = evhttp_new(base)) == NULL) {
		free(h);
		*err = strdup("out of memory");
		return NULL;
	}
	h->base = base;
	h->rpc = rpc;
	for (i = 0; i < sizeof(default_origins) / sizeof(default_origins[0]);
	    i++)
		httpd_allow_origin(h, default_origins[i]);
	for (i = 0; i < sizeof(local_hosts) / sizeof(local_hosts[0]); i++)
		httpd_allow_host(h, local_hosts[i]);
	/* A wildcard is no name a client uses: see --http-allowed-host. */
	if (strcmp(addr, "0.0.0.0") != 0 && strcmp(addr, "::") != 0)
		httpd_allow_host(h, addr);
	evhttp_set_max_body_size(h->http, HTTPD_MAX_BODY);
	evhttp_set_max_headers_size(h->http, HTTPD_MAX_HEADERS);
	evhttp_set_allowed_methods(h->http, EVHTTP_REQ_GET | EVHTTP_REQ_POST |
	    EVHTTP_REQ_OPTIONS);
	evhttp_set_gencb(h->http, handle, h);
	if ((h->sock = evhttp_bind_socket_with_handle(h->http, addr,
	    (ev_uint16_t)port)) == NULL) {
		if (asprintf(err, "cannot listen on %s:%d", addr, port) == -1)
			*err = NULL;
		httpd_free(h);
		return NULL;
	}
	h->port = httpd_port(h);
	httpd_limits_init(&lim);
	if ((h->conns = httpd_conns_new(base, h->http, &lim)) == NULL) {
		*err = strdup("out of memory");
		httpd_free(h);
		return NULL;
	}
	return h;
}

int
httpd_port(const struct httpd *h)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	evutil_socket_t fd = evhttp_bound_socket_get_fd(h->sock);

	if (getsockname(fd, (struct sockaddr *)&ss, &sl) == -1)
		return -1;
	if (ss.ss_family == AF_INET)
		return ntohs(((struct sockaddr_in *)&ss)->sin_port);
	if (ss.ss_family == AF_INET6)
		return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	return -1;
}

void
httpd_free(struct httpd *h)
{
	if (h == NULL)
		return;
	if (h->ws != NULL)
		ws_close(h->ws);
	if (h->http != NULL)
		evhttp_free(h->http);
	/* After evhttp: it has let go of every connection by now. */
	httpd_conns_free(h->conns);
	list_free(h->origins, h->norigins);
	list_free(h->hosts, h->nhosts);
	free(h);
}
