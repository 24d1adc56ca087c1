/*
 * check_tprpc: the trace processor's HTTP RPC through real HTTP requests
 * on a real socket: the per-method endpoints, the QueryResult cell
 * encoding, the /rpc stream (order, framing errors), CORS, the WebSocket
 * and table restoring. The server runs on its own thread and event base;
 * the test talks to it like any client.
 */
#include "config.h"

#include <sys/socket.h>

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <check.h>
#include <event2/event.h>
#include <event2/thread.h>

#include "http_client.h"
#include "metrics/metrics.h"
#include "metrics/pbbuf.h"
#include "pbdec.h"
#include "rpc/httpd.h"
#include "rpc/rpc.h"
#include "rpc/sha1.h"
#include "tp.h"

static const char json_trace[] =
    "{\"traceEvents\":["
    "{\"name\":\"work\",\"cat\":\"c\",\"ph\":\"X\",\"ts\":10,\"dur\":5,"
    "\"pid\":1,\"tid\":1},"
    "{\"name\":\"work\",\"cat\":\"c\",\"ph\":\"X\",\"ts\":20,\"dur\":15,"
    "\"pid\":1,\"tid\":1},"
    "{\"name\":\"idle\",\"cat\":\"c\",\"ph\":\"X\",\"ts\":40,\"dur\":2,"
    "\"pid\":1,\"tid\":2}]}";

struct server {
	pthread_t		 th;
	struct event_base	*base;
	struct metrics		*mx;
	struct rpc		*rpc;
	struct httpd		*h;
	int			 port;
	int			 joined;	/* the loop has stopped */
};

static struct server srv;

static void *
server_run(void *arg)
{
	struct server *s = arg;

	event_base_dispatch(s->base);
	return NULL;
}

/* A server with these connection limits (NULL: the defaults). */
static void
server_start_limits(const struct httpd_limits *lim)
{
	struct tp_config cfg;
	char *err = NULL;

	evthread_use_pthreads();
	tp_config_init(&cfg);
	memset(&srv, 0, sizeof(srv));
	srv.mx = metrics_new(&err);
	ck_assert_msg(srv.mx != NULL, "metrics_new: %s", err);
	srv.rpc = rpc_new(&cfg, NULL, NULL, srv.mx, &err);
	ck_assert_msg(srv.rpc != NULL, "rpc_new: %s", err);
	srv.base = event_base_new();
	srv.h = httpd_new(srv.base, "127.0.0.1", 0, srv.rpc, &err);
	ck_assert_msg(srv.h != NULL, "httpd_new: %s", err);
	srv.port = httpd_port(srv.h);
	ck_assert_int_gt(srv.port, 0);
	/* An origin added by the operator (--http-additional-cors-origins). */
	ck_assert_int_eq(httpd_allow_origin(srv.h, "http://extra.example:8080"),
	    0);
	/* A name added by the operator (--http-allowed-host). */
	ck_assert_int_eq(httpd_allow_host(srv.h, "trace.example"), 0);
	if (lim != NULL)
		ck_assert_int_eq(httpd_set_limits(srv.h, lim), 0);
	ck_assert_int_eq(pthread_create(&srv.th, NULL, server_run, &srv), 0);
}

static void
server_start(void)
{
	server_start_limits(NULL);
}

/* Stops the server's loop; what it holds stays for a look. */
static void
server_join(void)
{
	if (srv.joined)
		return;
	event_base_loopbreak(srv.base);
	pthread_join(srv.th, NULL);
	srv.joined = 1;
}

static void
server_stop(void)
{
	server_join();
	httpd_free(srv.h);
	rpc_free(srv.rpc);
	metrics_free(srv.mx);
	event_base_free(srv.base);
}

/* ---- decoding replies ----------------------------------------------- */

/* A QueryResult, rows rendered as "a|1|2.5|NULL\n" for easy checks. */
struct qres {
	char	*cols;		/* "a,b,c" */
	char	*rows;
	size_t	 nrows_cells;
	char	*error;
	int	 batches;
	int	 last_batches;
	uint32_t statements;
};

/* Appends to a string that remembers its length and room just after its
 * NUL (so appending stays linear on long results). */
static char	*sa_last;
static size_t	 sa_len, sa_cap;

static void
sappend(char **s, const char *t, size_t n)
{
	size_t old;

	if (*s != sa_last) {
		old = *s ? strlen(*s) : 0;
		sa_cap = old;
	} else
		old = sa_len;
	if (*s == NULL || old + n + 1 > sa_cap) {
		sa_cap = (old + n + 1) * 2;
		*s = realloc(*s, sa_cap);
	}
	memcpy(*s + old, t, n);
	(*s)[old + n] = '\0';
	sa_last = *s;
	sa_len = old + n;
}

static int ncols_seen;

static void
decode_batch(struct qres *q, const uint8_t *p, size_t n)
{
	struct pb it;
	struct pb_field f;
	const uint8_t *cells = NULL, *strs = NULL;
	size_t ncells = 0, nstrs = 0, i;
	struct pb_packed vk = { 0 }, dk = { 0 };
	int have_v = 0, have_d = 0;
	const uint8_t *blobs[64];
	size_t bloblen[64], nblobs = 0, bi = 0;
	char buf[64];

	pb_init(&it, p, n);
	while (pb_next_untrusted(&it, &f) == 1) {
		switch (f.id) {
		case 1:
			cells = f.data;
			ncells = f.len;
			break;
		case 2:
			pb_packed_init(&vk, &f);
			have_v = 1;
			break;
		case 3:
			pb_packed_init(&dk, &f);
			have_d = 1;
			break;
		case 4:
			if (nblobs < 64) {
				blobs[nblobs] = f.data;
				bloblen[nblobs++] = f.len;
			}
			break;
		case 5:
			strs = f.data;
			nstrs = f.len;
			break;
		case 6:
			q->last_batches += f.u != 0;
			break;
		}
	}
	ck_assert_int_eq(it.err, 0);
	q->batches++;
	for (i = 0; i < ncells; i++) {
		uint64_t u;

		switch (cells[i]) {
		case 1:
			sappend(&q->rows, "NULL", 4);
			break;
		case 2:
			ck_assert(have_v);
			ck_assert_int_eq(pb_packed_varint_untrusted(&vk, &u), 1);
			snprintf(buf, sizeof(buf), "%lld", (long long)u);
			sappend(&q->rows, buf, strlen(buf));
			break;
		case 3: {
			double d;

			ck_assert(have_d);
			ck_assert_int_eq(pb_packed_fixed64_untrusted(&dk, &u),
			    1);
			memcpy(&d, &u, 8);
			snprintf(buf, sizeof(buf), "%g", d);
			sappend(&q->rows, buf, strlen(buf));
			break;
		}
		case 4: {
			size_t l;

			ck_assert(strs != NULL && nstrs > 0);
			l = strnlen((const char *)strs, nstrs);
			ck_assert_uint_lt(l, nstrs);
			sappend(&q->rows, (const char *)strs, l);
			strs += l + 1;
			nstrs -= l + 1;
			break;
		}
		case 5:
			ck_assert_uint_lt(bi, nblobs);
			snprintf(buf, sizeof(buf), "blob%zu", bloblen[bi++]);
			sappend(&q->rows, buf, strlen(buf));
			(void)blobs;
			break;
		default:
			ck_abort_msg("bad cell type %d", cells[i]);
		}
		q->nrows_cells++;
		sappend(&q->rows, (q->nrows_cells % (size_t)ncols_seen) == 0 ?
		    "\n" : "|", 1);
	}
	/* Every typed value was used by a cell. */
	ck_assert_uint_eq(nstrs, 0);
}

static void
qres_decode(struct qres *q, const uint8_t *p, size_t n)
{
	struct pb it;
	struct pb_field f;

	pb_init(&it, p, n);
	while (pb_next_untrusted(&it, &f) == 1) {
		switch (f.id) {
		case 1:
			if (q->cols)
				sappend(&q->cols, ",", 1);
			else
				ncols_seen = 0;
			sappend(&q->cols, (const char *)f.data, f.len);
			ncols_seen++;
			break;
		case 2:
			free(q->error);
			q->error = strndup((const char *)f.data, f.len);
			break;
		case 3:
			if (ncols_seen == 0)
				ncols_seen = 1;
			decode_batch(q, f.data, f.len);
			break;
		case 4:
			q->statements = (uint32_t)f.u;
			break;
		}
	}
	ck_assert_int_eq(it.err, 0);
}

static void
qres_free(struct qres *q)
{
	free(q->cols);
	free(q->rows);
	free(q->error);
	memset(q, 0, sizeof(*q));
}

static void
query(const char *sql, struct qres *q)
{
	struct http_reply r;
	struct pbbuf w;

	memset(q, 0, sizeof(*q));
	ncols_seen = 0;
	pbb_init(&w);
	pbb_string(&w, 1, sql);
	ck_assert_int_eq(http_request(srv.port, "POST", "/query", NULL, w.buf,
	    w.len, &r), 0);
	pbb_free(&w);
	ck_assert_int_eq(r.status, 200);
	qres_decode(q, r.body, r.len);
	http_reply_free(&r);
}

static void
load_json(void)
{
	struct http_reply r;
	size_t half = sizeof(json_trace) / 2;
	struct pb it;
	struct pb_field f;
	int64_t parsed = -1;

	/* Two pieces split mid-token: the engine must not care. */
	ck_assert_int_eq(http_request(srv.port, "POST", "/parse", NULL,
	    json_trace, half, &r), 0);
	ck_assert_int_eq(r.status, 200);
	http_reply_free(&r);
	ck_assert_int_eq(http_request(srv.port, "POST", "/parse", NULL,
	    json_trace + half, sizeof(json_trace) - 1 - half, &r), 0);
	ck_assert_int_eq(r.status, 200);
	pb_init(&it, r.body, r.len);
	while (pb_next_untrusted(&it, &f) == 1) {
		if (f.id == 1)
			parsed = (int64_t)f.u;
		ck_assert_msg(f.id != 2, "parse error: %.*s", (int)f.len,
		    f.data);
	}
	ck_assert_int_eq(parsed, (int64_t)sizeof(json_trace) - 1);
	http_reply_free(&r);
	ck_assert_int_eq(http_request(srv.port, "GET", "/notify_eof", NULL,
	    NULL, 0, &r), 0);
	ck_assert_int_eq(r.status, 200);
	http_reply_free(&r);
}

/* ---- tests ---------------------------------------------------------- */

START_TEST(test_status)
{
	struct http_reply r;
	struct pb it;
	struct pb_field f;
	int api = 0, ver = 0;

	server_start();
	ck_assert_int_eq(http_request(srv.port, "GET", "/status", NULL, NULL,
	    0, &r), 0);
	ck_assert_int_eq(r.status, 200);
	pb_init(&it, r.body, r.len);
	while (pb_next_untrusted(&it, &f) == 1) {
		if (f.id == 3)
			api = (int)f.u;
		if (f.id == 2 && f.len > 0)
			ver = 1;
	}
	ck_assert_int_eq(api, 14);
	ck_assert(ver);
	http_reply_free(&r);
	ck_assert_int_eq(http_request(srv.port, "GET", "/nope", NULL, NULL,
	    0, &r), 0);
	ck_assert_int_eq(r.status, 404);
	http_reply_free(&r);
	server_stop();
}
END_TEST

START_TEST(test_query_cells)
{
	struct qres q;

	server_start();
	load_json();
	query("select name, ts, dur from slice order by ts", &q);
	ck_assert_ptr_null(q.error);
	ck_assert_str_eq(q.cols, "name,ts,dur");
	ck_assert_str_eq(q.rows, "work|10000|5000\nwork|20000|15000\n"
	    "idle|40000|2000\n");
	ck_assert_int_eq(q.last_batches, 1);
	qres_free(&q);

	/* Every cell type, and statements before the last one. */
	query("create table t(a); insert into t values(1);\n"
	    "select null as n, 42 as i, 2.5 as d, 'x' as s, x'00ff' as b, "
	    "'' as e from t", &q);
	ck_assert_ptr_null(q.error);
	ck_assert_str_eq(q.cols, "n,i,d,s,b,e");
	ck_assert_str_eq(q.rows, "NULL|42|2.5|x|blob2|\n");
	ck_assert_int_eq(q.statements, 3);
	qres_free(&q);

	/* No files through SQL: ATTACH and VACUUM INTO are refused. */
	query("attach database '/tmp/check_tprpc.db' as x", &q);
	ck_assert_ptr_nonnull(q.error);
	qres_free(&q);
	query("vacuum into '/tmp/check_tprpc.db'", &q);
	ck_assert_ptr_nonnull(q.error);
	qres_free(&q);
	ck_assert_int_eq(access("/tmp/check_tprpc.db", F_OK), -1);

	/* Errors come back in the result, with a last batch. */
	query("select nope from slice", &q);
	ck_assert_ptr_nonnull(q.error);
	ck_assert_ptr_nonnull(strstr(q.error, "nope"));
	ck_assert_int_eq(q.last_batches, 1);
	qres_free(&q);
	server_stop();
}
END_TEST

START_TEST(test_query_batches)
{
	struct qres q;
	char *p;
	long rows = 0, sum = 0;

	server_start();
	/* 3 columns x 60000 rows: several batches of at most 50000 cells. */
	query("with recursive c(x) as (select 1 union all select x + 1 "
	    "from c where x < 60000) select x, x * 0.5, 'r' || x from c", &q);
	ck_assert_ptr_null(q.error);
	ck_assert_int_ge(q.batches, 2);
	ck_assert_int_eq(q.last_batches, 1);
	for (p = q.rows; p && *p; p = strchr(p, '\n') + 1) {
		long x;
		double h;
		char s[32];

		ck_assert_int_eq(sscanf(p, "%ld|%lf|%31[^\n]", &x, &h, s), 3);
		ck_assert(h == x * 0.5);
		ck_assert_int_eq(atol(s + 1), x);
		rows++;
		sum += x;
	}
	ck_assert_int_eq(rows, 60000);
	ck_assert_int_eq(sum, 60000L * 60001 / 2);
	qres_free(&q);
	server_stop();
}
END_TEST

/* Replies of a /rpc or WebSocket stream. */
struct rpcmsg {
	int64_t		 seq;
	int		 response;
	int		 invalid;
	char		*fatal;
	uint32_t	 field;
	uint8_t		*payload;
	size_t		 len;
};

static int
rpc_decode(const uint8_t *p, size_t n, struct rpcmsg *out, int max)
{
	struct pb it, it2;
	struct pb_field f, g;
	int k = 0;

	pb_init(&it, p, n);
	while (pb_next_untrusted(&it, &f) == 1) {
		ck_assert_int_eq(f.id, 1);
		ck_assert_int_lt(k, max);
		memset(&out[k], 0, sizeof(out[k]));
		pb_init(&it2, f.data, f.len);
		while (pb_next_untrusted(&it2, &g) == 1) {
			if (g.id == 1)
				out[k].seq = (int64_t)g.u;
			else if (g.id == 3)
				out[k].response = (int)g.u;
			else if (g.id == 4)
				out[k].invalid = (int)g.u;
			else if (g.id == 5)
				out[k].fatal = strndup((const char *)g.data,
				    g.len);
			else if (g.id > 100) {
				out[k].field = g.id;
				out[k].payload = malloc(g.len + 1);
				memcpy(out[k].payload, g.data, g.len);
				out[k].len = g.len;
			}
		}
		ck_assert_int_eq(it2.err, 0);
		k++;
	}
	ck_assert_int_eq(it.err, 0);
	return k;
}

static void
rpcmsg_free(struct rpcmsg *m, int n)
{
	while (n-- > 0) {
		free(m[n].fatal);
		free(m[n].payload);
	}
}

/* Appends one request to a stream being built. */
static void
rpc_req(struct pbbuf *w, int64_t seq, int method, uint32_t field,
    const void *args, size_t len)
{
	size_t m = pbb_begin(w, 1);

	pbb_uint(w, 1, (uint64_t)seq);
	pbb_uint(w, 2, (uint64_t)method);
	if (field != 0)
		pbb_bytes(w, field, args, len);
	pbb_end(w, m);
}

START_TEST(test_rpc_stream)
{
	struct http_reply r;
	struct pbbuf w, qa;
	struct rpcmsg m[16];
	struct qres q;
	int n;

	server_start();
	pbb_init(&w);
	pbb_init(&qa);
	pbb_string(&qa, 1, "select count(*) as c, sum(dur) as d from slice");
	rpc_req(&w, 1, 1, 101, json_trace, sizeof(json_trace) - 1);
	rpc_req(&w, 2, 2, 0, NULL, 0);
	rpc_req(&w, 3, 3, 103, qa.buf, qa.len);
	rpc_req(&w, 4, 10, 0, NULL, 0);
	rpc_req(&w, 5, 99, 0, NULL, 0);		/* unknown method */
	ck_assert_int_eq(http_request(srv.port, "POST", "/rpc", NULL, w.buf,
	    w.len, &r), 0);
	ck_assert_int_eq(r.status, 200);
	n = rpc_decode(r.body, r.len, m, 16);
	ck_assert_int_eq(n, 5);
	ck_assert_int_eq(m[0].response, 1);
	ck_assert_int_eq(m[0].field, 201);
	ck_assert_int_eq(m[1].response, 2);
	ck_assert_int_eq(m[2].response, 3);
	ck_assert_int_eq(m[2].field, 203);
	memset(&q, 0, sizeof(q));
	ncols_seen = 0;
	qres_decode(&q, m[2].payload, m[2].len);
	ck_assert_str_eq(q.cols, "c,d");
	ck_assert_str_eq(q.rows, "3|22000\n");
	qres_free(&q);
	ck_assert_int_eq(m[3].response, 10);
	ck_assert_int_eq(m[3].field, 210);
	ck_assert_int_eq(m[4].invalid, 99);
	/* The service numbers its replies itself, one up each time. */
	ck_assert_int_eq(m[1].seq, m[0].seq + 1);
	ck_assert_int_eq(m[4].seq, m[0].seq + 4);
	rpcmsg_free(m, n);
	http_reply_free(&r);
	pbb_free(&w);

	/* Out of order: seq 7 after 5 (within one request) is fatal. */
	pbb_init(&w);
	rpc_req(&w, 5, 10, 0, NULL, 0);
	rpc_req(&w, 7, 10, 0, NULL, 0);
	rpc_req(&w, 8, 10, 0, NULL, 0);
	ck_assert_int_eq(http_request(srv.port, "POST", "/rpc", NULL, w.buf,
	    w.len, &r), 0);
	n = rpc_decode(r.body, r.len, m, 16);
	ck_assert_int_eq(n, 2);
	ck_assert_int_eq(m[0].response, 10);
	ck_assert_ptr_nonnull(m[1].fatal);
	ck_assert_ptr_nonnull(strstr(m[1].fatal, "out of order"));
	rpcmsg_free(m, n);
	http_reply_free(&r);
	pbb_free(&w);

	/* Garbage framing: one fatal error, nothing else. */
	ck_assert_int_eq(http_request(srv.port, "POST", "/rpc", NULL,
	    "\x12\x05hello", 7, &r), 0);
	n = rpc_decode(r.body, r.len, m, 16);
	ck_assert_int_eq(n, 1);
	ck_assert_ptr_nonnull(m[0].fatal);
	ck_assert_ptr_nonnull(strstr(m[0].fatal, "framing"));
	rpcmsg_free(m, n);
	http_reply_free(&r);

	/* And the server is still fine afterwards. */
	query("select count(*) from slice", &q);
	ck_assert_str_eq(q.rows, "3\n");
	qres_free(&q);
	pbb_free(&qa);
	server_stop();
}
END_TEST

START_TEST(test_cors)
{
	struct http_reply r;
	char *v;

	server_start();
	ck_assert_int_eq(http_request(srv.port, "OPTIONS", "/query",
	    "Origin: https://ui.perfetto.dev\r\n"
	    "Access-Control-Request-Method: POST\r\n", NULL, 0, &r), 0);
	ck_assert_int_eq(r.status, 204);
	v = http_header(&r, "Access-Control-Allow-Origin");
	ck_assert_str_eq(v, "https://ui.perfetto.dev");
	free(v);
	v = http_header(&r, "Access-Control-Allow-Methods");
	ck_assert_str_eq(v, "POST, GET, OPTIONS");
	free(v);
	http_reply_free(&r);

	ck_assert_int_eq(http_request(srv.port, "GET", "/status",
	    "Origin: http://127.0.0.1:10000\r\n", NULL, 0, &r), 0);
	ck_assert_int_eq(r.status, 200);
	v = http_header(&r, "Access-Control-Allow-Origin");
	ck_assert_str_eq(v, "http://127.0.0.1:10000");
	free(v);
	http_reply_free(&r);

	ck_assert_int_eq(http_request(srv.port, "GET", "/status",
	    "Origin: http://extra.example:8080\r\n", NULL, 0, &r), 0);
	ck_assert_int_eq(r.status, 200);
	v = http_header(&r, "Access-Control-Allow-Origin");
	ck_assert_str_eq(v, "http://extra.example:8080");
	free(v);
	http_reply_free(&r);

	/* Another site's page must not drive the trace processor. */
	ck_assert_int_eq(http_request(srv.port, "POST", "/query",
	    "Origin: https://evil.example\r\n", "\x0a\x01x", 3, &r), 0);
	ck_assert_int_eq(r.status, 403);
	v = http_header(&r, "Access-Control-Allow-Origin");
	ck_assert_ptr_null(v);
	http_reply_free(&r);
	server_stop();
}
END_TEST

/* One masked client frame; fin = 0 leaves the message open. */
static void
ws_write_frag(int fd, int opcode, int fin, const uint8_t *p, size_t n)
{
	uint8_t hdr[14], mask[4] = { 0x12, 0x34, 0x56, 0x78 }, *buf;
	size_t h = 0, i;

	hdr[h++] = (uint8_t)((fin ? 0x80 : 0) | opcode);
	if (n < 126)
		hdr[h++] = (uint8_t)(0x80 | n);
	else {
		hdr[h++] = 0x80 | 126;
		hdr[h++] = (uint8_t)(n >> 8);
		hdr[h++] = (uint8_t)n;
	}
	memcpy(hdr + h, mask, 4);
	h += 4;
	buf = malloc(h + n);
	memcpy(buf, hdr, h);
	for (i = 0; i < n; i++)
		buf[h + i] = p[i] ^ mask[i % 4];
	ck_assert_int_eq(write(fd, buf, h + n), (ssize_t)(h + n));
	free(buf);
}

static void
ws_write_frame(int fd, int opcode, const uint8_t *p, size_t n)
{
	ws_write_frag(fd, opcode, 1, p, n);
}

static int
read_full(int fd, uint8_t *p, size_t n)
{
	ssize_t r;

	while (n > 0) {
		if ((r = read(fd, p, n)) <= 0)
			return -1;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

/* One server frame: its opcode, payload malloc'd. */
static int
ws_read_frame(int fd, uint8_t **payload, size_t *len)
{
	uint8_t h[2], ext[8];
	uint64_t n;
	int i;

	ck_assert_int_eq(read_full(fd, h, 2), 0);
	ck_assert_int_eq(h[1] & 0x80, 0);	/* servers do not mask */
	n = h[1] & 0x7f;
	if (n == 126) {
		ck_assert_int_eq(read_full(fd, ext, 2), 0);
		n = (uint64_t)ext[0] << 8 | ext[1];
	} else if (n == 127) {
		ck_assert_int_eq(read_full(fd, ext, 8), 0);
		for (n = 0, i = 0; i < 8; i++)
			n = n << 8 | ext[i];
	}
	*payload = malloc(n + 1);
	*len = (size_t)n;
	ck_assert_int_eq(read_full(fd, *payload, (size_t)n), 0);
	return h[0] & 0x0f;
}

START_TEST(test_websocket)
{
	/* RFC 6455's example key and its accept value. */
	static const char req[] =
	    "GET /websocket HTTP/1.1\r\nHost: 127.0.0.1\r\n"
	    "Upgrade: websocket\r\nConnection: Upgrade\r\n"
	    "Origin: https://ui.perfetto.dev\r\n"
	    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
	    "Sec-WebSocket-Version: 13\r\n\r\n";
	char head[2048];
	struct pbbuf w;
	struct rpcmsg m[4];
	uint8_t *pl;
	size_t len;
	int fd, op, n;

	server_start();
	ck_assert_int_ge(fd = http_connect(srv.port), 0);
	ck_assert_int_eq(write(fd, req, strlen(req)), (ssize_t)strlen(req));
	ck_assert_int_eq(http_read_head(fd, head, sizeof(head)), 0);
	ck_assert_msg(strncmp(head, "HTTP/1.1 101", 12) == 0, "%s", head);
	ck_assert_ptr_nonnull(strstr(head,
	    "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n"));

	/*
	 * Two requests in one message sent as two fragments (binary, then
	 * a continuation) split inside the second request.
	 */
	pbb_init(&w);
	rpc_req(&w, 1, 10, 0, NULL, 0);
	rpc_req(&w, 2, 10, 0, NULL, 0);
	ws_write_frag(fd, 0x2, 0, w.buf, w.len - 2);
	ws_write_frag(fd, 0x0, 1, w.buf + w.len - 2, 2);
	op = ws_read_frame(fd, &pl, &len);
	ck_assert_int_eq(op, 2);
	n = rpc_decode(pl, len, m, 4);
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(m[0].response, 10);
	rpcmsg_free(m, n);
	free(pl);
	op = ws_read_frame(fd, &pl, &len);
	ck_assert_int_eq(op, 2);
	n = rpc_decode(pl, len, m, 4);
	ck_assert_int_eq(m[0].field, 210);
	rpcmsg_free(m, n);
	free(pl);
	pbb_free(&w);

	/* While the WebSocket holds the stream, /rpc is refused. */
	{
		struct http_reply r;

		ck_assert_int_eq(http_request(srv.port, "POST", "/rpc", NULL,
		    w.buf, 0, &r), 0);
		ck_assert_int_eq(r.status, 409);
		http_reply_free(&r);
	}

	/* Ping gets pong; close gets close. */
	ws_write_frame(fd, 0x9, (const uint8_t *)"hi", 2);
	op = ws_read_frame(fd, &pl, &len);
	ck_assert_int_eq(op, 0xa);
	ck_assert_uint_eq(len, 2);
	free(pl);
	ws_write_frame(fd, 0x8, NULL, 0);
	op = ws_read_frame(fd, &pl, &len);
	ck_assert_int_eq(op, 0x8);
	free(pl);
	close(fd);

	/* Without an allowed origin the upgrade is refused. */
	ck_assert_int_ge(fd = http_connect(srv.port), 0);
	{
		static const char bad[] =
		    "GET /websocket HTTP/1.1\r\nHost: localhost\r\n"
		    "Upgrade: websocket\r\nConnection: Upgrade\r\n"
		    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
		    "Sec-WebSocket-Version: 13\r\n\r\n";

		ck_assert_int_eq(write(fd, bad, strlen(bad)),
		    (ssize_t)strlen(bad));
		ck_assert_int_eq(http_read_head(fd, head, sizeof(head)), 0);
		ck_assert_msg(strncmp(head, "HTTP/1.1 403", 12) == 0, "%s",
		    head);
	}
	close(fd);
	server_stop();
}
END_TEST

/* The WebSocket upgrade the UI makes; the connected fd. */
static int
ws_open(void)
{
	static const char req[] =
	    "GET /websocket HTTP/1.1\r\nHost: 127.0.0.1\r\n"
	    "Upgrade: websocket\r\nConnection: Upgrade\r\n"
	    "Origin: http://127.0.0.1:10000\r\n"
	    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
	    "Sec-WebSocket-Version: 13\r\n\r\n";
	char head[2048];
	int fd;

	ck_assert_int_ge(fd = http_connect(srv.port), 0);
	ck_assert_int_eq(write(fd, req, strlen(req)), (ssize_t)strlen(req));
	ck_assert_int_eq(http_read_head(fd, head, sizeof(head)), 0);
	ck_assert_msg(strncmp(head, "HTTP/1.1 101", 12) == 0, "%s", head);
	return fd;
}

/* One request over the WebSocket and its one reply, decoded. */
static void
ws_call(int fd, int64_t seq, int method, uint32_t field, const void *args,
    size_t len, struct rpcmsg *m)
{
	struct pbbuf w;
	uint8_t *pl;
	size_t n;

	pbb_init(&w);
	rpc_req(&w, seq, method, field, args, len);
	ws_write_frame(fd, 0x2, w.buf, w.len);
	pbb_free(&w);
	ck_assert_int_eq(ws_read_frame(fd, &pl, &n), 2);
	ck_assert_int_eq(rpc_decode(pl, n, m, 1), 1);
	free(pl);
	ck_assert_int_eq(m->response, method);
}

/* TPM_QUERY_STREAMING over the WebSocket, as the UI queries. */
static void
ws_query(int fd, int64_t seq, const char *sql, struct qres *q)
{
	struct pbbuf a;
	struct rpcmsg m;

	pbb_init(&a);
	pbb_string(&a, 1, sql);
	ws_call(fd, seq, 3, 103, a.buf, a.len, &m);
	pbb_free(&a);
	ck_assert_int_eq(m.field, 203);
	memset(q, 0, sizeof(*q));
	ncols_seen = 0;
	qres_decode(q, m.payload, m.len);
	rpcmsg_free(&m, 1);
}

/*
 * What the UI does on a trace already loaded: restore the initial tables,
 * include modules, build mipmap tables over slices and query them. A
 * restore must forget what SQL defined with the tables it drops: a module
 * included before it is included again after (its tables were dropped),
 * and functions and virtual tables from before are gone, as upstream's.
 */
START_TEST(test_ui_session)
{
	static const char inc[] = "INCLUDE PERFETTO MODULE viz.threads; "
	    "SELECT count(*) FROM _threads_with_kernel_flag";
	struct rpcmsg m;
	struct qres q;
	int fd;

	server_start();
	load_json();
	fd = ws_open();
	ws_call(fd, 1, 7, 0, NULL, 0, &m);	/* RESTORE_INITIAL_TABLES */
	rpcmsg_free(&m, 1);
	ws_query(fd, 2, inc, &q);
	ck_assert_msg(q.error == NULL, "%s", q.error);
	ck_assert_str_eq(q.rows, "3\n");
	qres_free(&q);

	ws_query(fd, 3, "CREATE PERFETTO FUNCTION mine() RETURNS INT AS "
	    "SELECT 1; CREATE VIRTUAL TABLE mm USING __intrinsic_slice_mipmap(("
	    "SELECT id, ts, dur, depth FROM slice WHERE dur > 0)); "
	    "SELECT id, count, dur FROM mm(0, 100000, 25000) ORDER BY id", &q);
	ck_assert_msg(q.error == NULL, "%s", q.error);
	ck_assert_str_eq(q.cols, "id,count,dur");
	/* Slices at 10 and 20 us share the first 25 us bucket: the longer
	 * one stands for both; the one at 40 us is alone in the second. */
	ck_assert_str_eq(q.rows, "1|2|15000\n2|1|2000\n");
	qres_free(&q);

	ws_call(fd, 4, 7, 0, NULL, 0, &m);
	rpcmsg_free(&m, 1);
	ws_query(fd, 5, inc, &q);
	ck_assert_msg(q.error == NULL, "%s", q.error);
	ck_assert_str_eq(q.rows, "3\n");
	qres_free(&q);
	ws_query(fd, 6, "SELECT mine()", &q);
	ck_assert_ptr_nonnull(q.error);
	qres_free(&q);
	ws_query(fd, 7, "SELECT * FROM mm(0, 1, 1)", &q);
	ck_assert_ptr_nonnull(q.error);
	qres_free(&q);
	close(fd);
	server_stop();
}
END_TEST

/* The string in field id of a message, malloc'd, or NULL. */
static char	*pb_string(const uint8_t *, size_t, uint32_t);

/*
 * Trace summaries over the stream (TPM_SUMMARIZE_TRACE, a text spec, text
 * out) and over POST /trace_summary (a binary spec, binary out), as the
 * Python API asks: the bytes are those upstream's shell gives for the same
 * trace and spec.
 */
START_TEST(test_trace_summary)
{
	static const char spec_text[] = "metric_spec { id: \"dur\" "
	    "dimensions: \"slice_name\" value: \"total\" query { "
	    "simple_slices {} group_by { column_names: \"slice_name\" "
	    "aggregates { column_name: \"dur\" op: SUM "
	    "result_column_name: \"total\" } } } }";
	static const char want_text[] =
	    "metric_bundles {\n  bundle_id: \"dur\"\n  specs {\n"
	    "    id: \"dur\"\n    dimensions: \"slice_name\"\n"
	    "    value: \"total\"\n    query {\n      simple_slices {\n"
	    "      }\n      group_by {\n        column_names: \"slice_name\"\n"
	    "        aggregates {\n          column_name: \"dur\"\n"
	    "          op: SUM\n          result_column_name: \"total\"\n"
	    "        }\n      }\n    }\n  }\n  row {\n    dimension {\n"
	    "      string_value: \"idle\"\n    }\n    values {\n"
	    "      double_value: 2000.000000\n    }\n  }\n  row {\n"
	    "    dimension {\n      string_value: \"work\"\n    }\n"
	    "    values {\n      double_value: 20000.000000\n    }\n  }\n}";
	static const uint8_t want_bin[] = {
		0x1a, 0x2b, 0x0a, 0x01, 'n', 0x1a, 0x19, 0x0a, 0x01, 'n',
		0x1a, 0x01, 'c', 0x22, 0x11, 0x1a, 0x0f, 0x0a, 0x0d, 's', 'e',
		'l', 'e', 'c', 't', ' ', '3', ' ', 'a', 's', ' ', 'c', 0x12,
		0x0b, 0x0a, 0x09, 0x11, 0, 0, 0, 0, 0, 0, 0x08, 0x40,
	};
	struct pbbuf a, spec;
	struct http_reply r;
	struct rpcmsg m;
	size_t b, q, sq;
	char *e;
	int fd;

	server_start();
	load_json();
	fd = ws_open();
	/* Text spec, every metric, text out. */
	pbb_init(&a);
	pbb_string(&a, 2, spec_text);
	b = pbb_begin(&a, 3);
	pbb_uint(&a, 3, 1);
	pbb_end(&a, b);
	pbb_uint(&a, 4, 1);
	ws_call(fd, 1, 15, 110, a.buf, a.len, &m);
	pbb_free(&a);
	ck_assert_int_eq(m.field, 214);
	e = pb_string(m.payload, m.len, 3);
	ck_assert_msg(e == NULL, "%s", e);
	e = pb_string(m.payload, m.len, 2);
	ck_assert_str_eq(e, want_text);
	free(e);
	rpcmsg_free(&m, 1);
	/* No args: the error field. */
	ws_call(fd, 2, 15, 0, NULL, 0, &m);
	ck_assert_int_eq(m.field, 214);
	e = pb_string(m.payload, m.len, 3);
	ck_assert_ptr_nonnull(e);
	free(e);
	rpcmsg_free(&m, 1);
	close(fd);

	/* Binary spec (metric "n": select 3 as c), asked by id, binary out. */
	pbb_init(&spec);
	b = pbb_begin(&spec, 1);
	pbb_string(&spec, 1, "n");
	pbb_string(&spec, 3, "c");
	q = pbb_begin(&spec, 4);
	sq = pbb_begin(&spec, 3);
	pbb_string(&spec, 1, "select 3 as c");
	pbb_end(&spec, sq);
	pbb_end(&spec, q);
	pbb_end(&spec, b);
	pbb_init(&a);
	pbb_bytes(&a, 1, spec.buf, spec.len);
	b = pbb_begin(&a, 3);
	pbb_string(&a, 1, "n");
	pbb_end(&a, b);
	pbb_uint(&a, 4, 0);
	ck_assert_int_eq(http_request(srv.port, "POST", "/trace_summary",
	    NULL, (const char *)a.buf, a.len, &r), 0);
	pbb_free(&a);
	pbb_free(&spec);
	ck_assert_int_eq(r.status, 200);
	ck_assert_uint_eq(r.len, 2 + sizeof(want_bin));
	ck_assert_uint_eq(r.body[0], 0x0a);
	ck_assert_uint_eq(r.body[1], sizeof(want_bin));
	ck_assert(memcmp(r.body + 2, want_bin, sizeof(want_bin)) == 0);
	http_reply_free(&r);
	/* Upstream's errors, word for word. */
	ck_assert_int_eq(http_request(srv.port, "POST", "/trace_summary",
	    NULL, "", 0, &r), 0);
	e = pb_string(r.body, r.len, 3);
	ck_assert_str_eq(e, "TraceSummary missing trace_summary_spec");
	free(e);
	http_reply_free(&r);
	pbb_init(&a);
	pbb_string(&a, 2, "metric_spec { id: \"all\" }");
	pbb_uint(&a, 4, 1);
	b = pbb_begin(&a, 3);
	pbb_uint(&a, 3, 1);
	pbb_end(&a, b);
	ck_assert_int_eq(http_request(srv.port, "POST", "/trace_summary",
	    NULL, (const char *)a.buf, a.len, &r), 0);
	pbb_free(&a);
	e = pb_string(r.body, r.len, 3);
	ck_assert_str_eq(e, "Metric has id 'all' which is not allowed as this "
	    "is a reserved name. Please use a different id for your metric");
	free(e);
	http_reply_free(&r);
	server_stop();
}
END_TEST

/* The string in field id of a message, malloc'd, or NULL. */
static char *
pb_string(const uint8_t *p, size_t n, uint32_t id)
{
	struct pb it;
	struct pb_field f;
	char *s = NULL;

	pb_init(&it, p, n);
	while (pb_next_untrusted(&it, &f) == 1)
		if (f.id == id && f.wire == PB_LEN) {
			free(s);
			s = strndup((const char *)f.data, f.len);
		}
	ck_assert_int_eq(it.err, 0);
	return s;
}

/*
 * Methods this engine does not serve answer with their result's error
 * set, over the stream and over their HTTP endpoints, never with silence
 * or a bare invalid_request.
 */
START_TEST(test_refused_methods)
{
	static const struct {
		int	 method;
		uint32_t result, error;
	} refused[] = {
		{ 9, 209, 2 },	/* DISABLE_AND_READ_METATRACE */
		{ 16, 215, 2 },	/* CREATE_SUMMARIZER */
		{ 17, 216, 2 },	/* UPDATE_SUMMARIZER_SPEC */
		{ 18, 217, 6 },	/* QUERY_SUMMARIZER */
		{ 19, 218, 1 },	/* DESTROY_SUMMARIZER */
		{ 21, 220, 2 },	/* EXPORT */
	};
	struct http_reply r;
	struct rpcmsg m;
	size_t i;
	char *e;
	int fd;

	server_start();
	load_json();
	fd = ws_open();
	ws_call(fd, 1, 8, 0, NULL, 0, &m);	/* ENABLE_METATRACE: taken */
	rpcmsg_free(&m, 1);
	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		ws_call(fd, (int64_t)i + 2, refused[i].method, 0, NULL, 0, &m);
		ck_assert_int_eq(m.field, refused[i].result);
		e = pb_string(m.payload, m.len, refused[i].error);
		ck_assert_msg(e != NULL && *e != '\0', "method %d",
		    refused[i].method);
		free(e);
		rpcmsg_free(&m, 1);
	}
	close(fd);

	ck_assert_int_eq(http_request(srv.port, "GET", "/enable_metatrace",
	    NULL, NULL, 0, &r), 0);
	ck_assert_int_eq(r.status, 200);
	http_reply_free(&r);
	ck_assert_int_eq(http_request(srv.port, "GET",
	    "/disable_and_read_metatrace", NULL, NULL, 0, &r), 0);
	ck_assert_int_eq(r.status, 200);
	e = pb_string(r.body, r.len, 2);
	ck_assert_ptr_nonnull(e);
	free(e);
	http_reply_free(&r);
	ck_assert_int_eq(http_request(srv.port, "POST", "/export", NULL, "",
	    0, &r), 0);
	ck_assert_int_eq(r.status, 501);
	http_reply_free(&r);
	server_stop();
}
END_TEST

/* A RegisterSqlPackageArgs with one module. */
static void
pkg_args(struct pbbuf *w, const char *pkg, const char *mod, const char *sql,
    int override)
{
	size_t b;

	pbb_init(w);
	pbb_string(w, 1, pkg);
	b = pbb_begin(w, 2);
	pbb_string(w, 1, mod);
	pbb_string(w, 2, sql);
	pbb_end(w, b);
	if (override)
		pbb_uint(w, 3, 1);
}

/* REGISTER_SQL_PACKAGE over the stream; its error (malloc'd) or NULL. */
static char *
ws_register(int fd, int64_t seq, const char *pkg, const char *mod,
    const char *sql, int override)
{
	struct pbbuf w;
	struct rpcmsg m;
	char *e;

	pkg_args(&w, pkg, mod, sql, override);
	ws_call(fd, seq, 13, 108, w.buf, w.len, &m);
	pbb_free(&w);
	ck_assert_int_eq(m.field, 211);
	e = pb_string(m.payload, m.len, 1);
	rpcmsg_free(&m, 1);
	return e;
}

START_TEST(test_register_sql_package)
{
	struct http_reply r;
	struct pbbuf w;
	struct qres q;
	char *e;
	int fd;

	server_start();
	load_json();
	fd = ws_open();
	e = ws_register(fd, 1, "mine", "mine.answer",
	    "-- mine.answer: a module.\n\n-- The answer,\n-- in a table.\n"
	    "CREATE PERFETTO TABLE mine_answer(v LONG) AS SELECT 42 AS v;\n"
	    "CREATE PERFETTO MACRO _twice(x Expr) RETURNS Expr AS $x * 2;", 0);
	ck_assert_msg(e == NULL, "%s", e);
	/* What it defines is listed for the UI's standard library browser. */
	ws_query(fd, 2, "SELECT package, name, object_type, exposed, "
	    "description, return_type, args, cols FROM "
	    "__intrinsic_stdlib_objects WHERE module = 'mine.answer' "
	    "ORDER BY id", &q);
	ck_assert_msg(q.error == NULL, "%s", q.error);
	ck_assert_str_eq(q.rows,
	    "mine|mine.answer|MODULE|1|||[]|[]\n"
	    "mine|mine_answer|TABLE|1|The answer, in a table.||[]|"
	    "[{\"name\":\"v\",\"type\":\"LONG\",\"description\":\"\"}]\n"
	    "mine|_twice|MACRO|0||Expr|"
	    "[{\"name\":\"x\",\"type\":\"Expr\",\"description\":\"\"}]|[]\n");
	qres_free(&q);
	ws_query(fd, 3, "INCLUDE PERFETTO MODULE mine.answer; "
	    "SELECT v FROM mine_answer", &q);
	ck_assert_msg(q.error == NULL, "%s", q.error);
	ck_assert_str_eq(q.rows, "42\n");
	qres_free(&q);
	/* Again, or over the stdlib's linux: refused without override. */
	e = ws_register(fd, 4, "mine", "mine.answer", "SELECT 1;", 0);
	ck_assert_ptr_nonnull(strstr(e, "already exists"));
	free(e);
	e = ws_register(fd, 5, "linux", "linux.x", "SELECT 1;", 0);
	ck_assert_ptr_nonnull(e);
	free(e);
	/* A module outside its package, a dotted package: refused. */
	e = ws_register(fd, 6, "other", "mine.x", "SELECT 1;", 0);
	ck_assert_ptr_nonnull(strstr(e, "not in package"));
	free(e);
	e = ws_register(fd, 7, "a.b", "a.b.c", "SELECT 1;", 0);
	ck_assert_ptr_nonnull(e);
	free(e);
	/* With override the package's modules are replaced. */
	e = ws_register(fd, 8, "mine", "mine.answer2",
	    "CREATE PERFETTO TABLE mine_answer2 AS SELECT 43 AS v;", 1);
	ck_assert_msg(e == NULL, "%s", e);
	ws_query(fd, 9, "INCLUDE PERFETTO MODULE mine.answer2; "
	    "SELECT v FROM mine_answer2", &q);
	ck_assert_msg(q.error == NULL, "%s", q.error);
	ck_assert_str_eq(q.rows, "43\n");
	qres_free(&q);
	ws_query(fd, 10, "INCLUDE PERFETTO MODULE mine.answer", &q);
	ck_assert_ptr_nonnull(q.error);
	qres_free(&q);
	close(fd);

	/* The same over HTTP. */
	pkg_args(&w, "viahttp", "viahttp.m", "SELECT 1;", 0);
	ck_assert_int_eq(http_request(srv.port, "POST",
	    "/register_sql_package", NULL, w.buf, w.len, &r), 0);
	pbb_free(&w);
	ck_assert_int_eq(r.status, 200);
	ck_assert_ptr_null(pb_string(r.body, r.len, 1));
	http_reply_free(&r);
	query("INCLUDE PERFETTO MODULE viahttp.m", &q);
	ck_assert_ptr_null(q.error);
	qres_free(&q);
	server_stop();
}
END_TEST

START_TEST(test_restore_and_metrics)
{
	struct http_reply r;
	struct qres q;
	struct pbbuf w;
	struct pb it;
	struct pb_field f;
	char *txt = NULL;

	server_start();
	load_json();
	query("create table mine as select 1 as one; create view v as "
	    "select * from slice", &q);
	ck_assert_ptr_null(q.error);
	qres_free(&q);
	ck_assert_int_eq(http_request(srv.port, "GET",
	    "/restore_initial_tables", NULL, NULL, 0, &r), 0);
	ck_assert_int_eq(r.status, 200);
	http_reply_free(&r);
	query("select * from mine", &q);
	ck_assert_ptr_nonnull(q.error);
	qres_free(&q);
	query("select count(*) from v", &q);
	ck_assert_ptr_nonnull(q.error);
	qres_free(&q);
	query("select count(*) from slice", &q);
	ck_assert_ptr_null(q.error);
	ck_assert_str_eq(q.rows, "3\n");
	qres_free(&q);

	pbb_init(&w);
	pbb_string(&w, 1, "linux_slices");
	pbb_uint(&w, 2, 1);	/* TEXTPROTO */
	ck_assert_int_eq(http_request(srv.port, "POST", "/compute_metric",
	    NULL, w.buf, w.len, &r), 0);
	pbb_free(&w);
	ck_assert_int_eq(r.status, 200);
	pb_init(&it, r.body, r.len);
	while (pb_next_untrusted(&it, &f) == 1) {
		ck_assert_msg(f.id != 2, "error: %.*s", (int)f.len, f.data);
		if (f.id == 3)
			txt = strndup((const char *)f.data, f.len);
	}
	ck_assert_ptr_nonnull(txt);
	ck_assert_str_eq(txt,
	    "[perfetto.protos.linux_slices] {\n"
	    "  slice {\n"
	    "    name: \"work\"\n"
	    "    count: 2\n"
	    "    total_dur_ns: 20000\n"
	    "    p50_ns: 5000\n"
	    "    p90_ns: 15000\n"
	    "    p99_ns: 15000\n"
	    "    max_ns: 15000\n"
	    "    min_ns: 5000\n"
	    "  }\n"
	    "  slice {\n"
	    "    name: \"idle\"\n"
	    "    count: 1\n"
	    "    total_dur_ns: 2000\n"
	    "    p50_ns: 2000\n"
	    "    p90_ns: 2000\n"
	    "    p99_ns: 2000\n"
	    "    max_ns: 2000\n"
	    "    min_ns: 2000\n"
	    "  }\n"
	    "}\n");
	free(txt);
	http_reply_free(&r);

	/* An unknown metric is an error in the result, not a crash. */
	pbb_init(&w);
	pbb_string(&w, 1, "no_such_metric");
	ck_assert_int_eq(http_request(srv.port, "POST", "/compute_metric",
	    NULL, w.buf, w.len, &r), 0);
	pbb_free(&w);
	ck_assert_ptr_nonnull(memmem(r.body, r.len, "no_such_metric", 14));
	http_reply_free(&r);
	server_stop();
}
END_TEST

START_TEST(test_reparse_resets)
{
	struct qres q;

	server_start();
	load_json();
	/* A second trace after EOF replaces the first, as upstream. */
	load_json();
	query("select count(*) from slice", &q);
	ck_assert_str_eq(q.rows, "3\n");
	qres_free(&q);
	server_stop();
}
END_TEST

/* ---- what untrusted SQL and peers may not do --------------------------- */

START_TEST(test_sql_guard)
{
	static const char *const refused[] = {
		/* The crash: fts3_tokenizer makes SQLite call a pointer. */
		"SELECT fts3_tokenizer('simple', x'4141414141414141'); "
		    "CREATE VIRTUAL TABLE t USING fts3(x, tokenize=simple); "
		    "INSERT INTO t VALUES('a')",
		"CREATE VIRTUAL TABLE t USING fts4(x)",
		"SELECT load_extension('/tmp/none.so')",
		"SELECT writefile('/tmp/check_tprpc.db', 'x')",
		"PRAGMA temp_store_directory = '/tmp'",
		"SELECT * FROM dbstat",
	};
	struct qres q;
	size_t i;

	server_start();
	load_json();
	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		query(refused[i], &q);
		ck_assert_msg(q.error != NULL, "served: %s", refused[i]);
		qres_free(&q);
		/* The daemon keeps serving the trace. */
		query("select count(*) from slice", &q);
		ck_assert_ptr_null(q.error);
		ck_assert_str_eq(q.rows, "3\n");
		qres_free(&q);
	}
	ck_assert_int_eq(access("/tmp/check_tprpc.db", F_OK), -1);
	server_stop();
}
END_TEST

/* The status code a raw request gets. */
static int
raw_status(const char *req)
{
	char head[4096];
	int fd, code = -1;

	ck_assert_int_ge(fd = http_connect(srv.port), 0);
	ck_assert_int_eq(write(fd, req, strlen(req)), (ssize_t)strlen(req));
	ck_assert_int_eq(http_read_head(fd, head, sizeof(head)), 0);
	ck_assert_int_eq(sscanf(head, "HTTP/1.%*d %d", &code), 1);
	close(fd);
	return code;
}

START_TEST(test_host)
{
	static const struct {
		const char	*host;	/* NULL: no Host line, HTTP/1.0 */
		int		 port;	/* append ":<our port>" */
		int		 want;
	} cases[] = {
		{ "127.0.0.1", 1, 200 },
		{ "127.0.0.1", 0, 200 },
		{ "LOCALHOST", 1, 200 },
		{ "[::1]", 1, 200 },
		{ "trace.example", 1, 200 },
		{ NULL, 0, 200 },
		/* DNS rebinding: the attacker's name for our address. */
		{ "evil.example", 1, 403 },
		{ "evil.example", 0, 403 },
		{ "127.0.0.1.evil.example", 0, 403 },
		{ "localhost:1", 0, 403 },	/* another port */
		{ "localhost:", 0, 403 },
		{ "[::1", 0, 403 },
		{ "", 0, 403 },
	};
	char req[512];
	size_t i;
	int got;

	server_start();
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (cases[i].host == NULL)
			snprintf(req, sizeof(req), "GET /status HTTP/1.0\r\n"
			    "\r\n");
		else if (cases[i].port)
			snprintf(req, sizeof(req), "GET /status HTTP/1.1\r\n"
			    "Host: %s:%d\r\nConnection: close\r\n\r\n",
			    cases[i].host, srv.port);
		else
			snprintf(req, sizeof(req), "GET /status HTTP/1.1\r\n"
			    "Host: %s\r\nConnection: close\r\n\r\n",
			    cases[i].host);
		got = raw_status(req);
		ck_assert_msg(got == cases[i].want, "Host %s: %d",
		    cases[i].host ? cases[i].host : "(none)", got);
	}
	/* The WebSocket upgrade too, even from an allowed origin. */
	ck_assert_int_eq(raw_status("GET /websocket HTTP/1.1\r\n"
	    "Host: evil.example\r\n"
	    "Upgrade: websocket\r\nConnection: Upgrade\r\n"
	    "Origin: https://ui.perfetto.dev\r\n"
	    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
	    "Sec-WebSocket-Version: 13\r\n\r\n"), 403);
	server_stop();
}
END_TEST

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Has the server closed fd? (EOF or reset; no wait.) */
static int
peer_closed(int fd)
{
	char c;
	ssize_t r = recv(fd, &c, 1, MSG_DONTWAIT);

	return r == 0 || (r == -1 && errno != EAGAIN && errno != EWOULDBLOCK);
}

START_TEST(test_slow_peers)
{
	enum { NSLOW = 20, BOUND_MS = 20000 };
	struct httpd_limits lim = {
		.max_conns = 8, .header_ms = 400, .body_ms = 2000,
		.idle_ms = 600,
	};
	static const char body_head[] = "POST /query HTTP/1.1\r\n"
	    "Host: 127.0.0.1\r\nContent-Length: 100\r\n\r\n";
	struct httpd_conn_stats st;
	struct http_reply r;
	int slow[NSLOW], body_fd, idle_fd, i, open, statuses = 0;
	uint64_t t0, body_start;

	server_start_limits(&lim);
	/* Slowloris: request lines that never end, one byte at a time. */
	for (i = 0; i < NSLOW; i++) {
		ck_assert_int_ge(slow[i] = http_connect(srv.port), 0);
		ck_assert_int_eq(write(slow[i], "GET /status HTTP/1.1\r\nX: ",
		    26), 26);
	}
	t0 = now_ms();
	do {
		open = 0;
		for (i = 0; i < NSLOW; i++) {
			if (slow[i] == -1)
				continue;
			if (peer_closed(slow[i]) ||
			    send(slow[i], "a", 1, MSG_NOSIGNAL) != 1) {
				close(slow[i]);
				slow[i] = -1;
				continue;
			}
			open++;
		}
		/* A new client is served however many slow ones there are. */
		ck_assert_int_eq(http_request(srv.port, "GET", "/status", NULL,
		    NULL, 0, &r), 0);
		ck_assert_int_eq(r.status, 200);
		http_reply_free(&r);
		statuses++;
		usleep(50000);
	} while (open > 0 && now_ms() - t0 < BOUND_MS);
	ck_assert_msg(open == 0, "%d slow peers still held", open);

	/* A body that trickles: past the header deadline it is still read,
	 * then its own deadline ends it. */
	ck_assert_int_ge(body_fd = http_connect(srv.port), 0);
	ck_assert_int_eq(write(body_fd, body_head, strlen(body_head)),
	    (ssize_t)strlen(body_head));
	body_start = now_ms();
	while (now_ms() - body_start < 1000) {
		ck_assert_msg(!peer_closed(body_fd), "body cut after %llu ms",
		    (unsigned long long)(now_ms() - body_start));
		ck_assert_int_eq(send(body_fd, "\x0a", 1, MSG_NOSIGNAL), 1);
		usleep(50000);
	}
	while (!peer_closed(body_fd) && now_ms() - body_start < BOUND_MS) {
		(void)send(body_fd, "\x0a", 1, MSG_NOSIGNAL);
		usleep(50000);
	}
	ck_assert(peer_closed(body_fd));
	close(body_fd);

	/* A connection that never says anything. */
	ck_assert_int_ge(idle_fd = http_connect(srv.port), 0);
	t0 = now_ms();
	while (!peer_closed(idle_fd) && now_ms() - t0 < BOUND_MS)
		usleep(50000);
	ck_assert(peer_closed(idle_fd));
	close(idle_fd);
	server_join();
	ck_assert_int_eq(httpd_conn_stats(srv.h, &st), 0);
	ck_assert_msg(st.evicted >= NSLOW - lim.max_conns, "evicted %llu",
	    (unsigned long long)st.evicted);
	ck_assert_uint_ge(st.timed_out, 2);	/* the body and the idle one */
	ck_assert_uint_eq(st.refused, 0);
	ck_assert_int_gt(statuses, 0);
	server_stop();
}
END_TEST

/*
 * A client that opens a connection per request, faster than the limits'
 * tick: the connections it closed do not count against the cap, so none
 * of its requests is refused and no connection is evicted.
 */
START_TEST(test_connection_per_request)
{
	struct httpd_limits lim = {
		.max_conns = 8, .header_ms = 10000, .body_ms = 10000,
		.idle_ms = 10000,
	};
	struct httpd_conn_stats st;
	struct http_reply r;
	int i;

	server_start_limits(&lim);
	for (i = 0; i < 200; i++) {
		ck_assert_int_eq(http_request(srv.port, "GET", "/status", NULL,
		    NULL, 0, &r), 0);
		ck_assert_msg(r.status == 200, "request %d: %d", i, r.status);
		http_reply_free(&r);
	}
	server_join();
	ck_assert_int_eq(httpd_conn_stats(srv.h, &st), 0);
	ck_assert_uint_eq(st.refused, 0);
	ck_assert_uint_eq(st.evicted, 0);
	server_stop();
}
END_TEST

static Suite *
tprpc_suite(void)
{
	Suite *s = suite_create("tprpc");
	TCase *tc = tcase_create("http");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_status);
	tcase_add_test(tc, test_connection_per_request);
	tcase_add_test(tc, test_query_cells);
	tcase_add_test(tc, test_query_batches);
	tcase_add_test(tc, test_rpc_stream);
	tcase_add_test(tc, test_cors);
	tcase_add_test(tc, test_websocket);
	tcase_add_test(tc, test_restore_and_metrics);
	tcase_add_test(tc, test_ui_session);
	tcase_add_test(tc, test_refused_methods);
	tcase_add_test(tc, test_trace_summary);
	tcase_add_test(tc, test_register_sql_package);
	tcase_add_test(tc, test_reparse_resets);
	tcase_add_test(tc, test_sql_guard);
	tcase_add_test(tc, test_host);
	tcase_add_test(tc, test_slow_peers);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(tprpc_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
