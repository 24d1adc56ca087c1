/*
 * Host and client over real UNIX sockets in a private directory: bind,
 * invoke, errors, streams, drop_reply, descriptors both ways, peers that
 * die mid-frame or never read, many clients, socket path handling.
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <check.h>
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "libipc/ipc_client.h"
#include "libipc/ipc_frame.h"
#include "libipc/ipc_host.h"
#include "protos/perfetto/ipc/producer_port.pb-c.h"

/* ---- fixture: one base, one host, a private socket directory ---- */

static struct event_base *base;
static struct ipc_host *host;
static char dir[64], path[128];
static int disconnects;
static struct ipc_peer last_disconnect;
static struct ipc_peer last_peer;
static size_t max_backlog;
static struct ipc_reply *kept;		/* a reply answered later */
static int echoes;

static void
run_until(const int *flag, int want)
{
	struct timeval tv = { 0, 10000 };
	int i;

	/* At most ~20 s, in 10 ms steps; the test fails if it runs out. */
	for (i = 0; i < 2000 && *flag < want; i++) {
		event_base_loopexit(base, &tv);
		event_base_dispatch(base);
	}
	ck_assert_int_ge(*flag, want);
}

static void
spin(int ms)
{
	struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };

	event_base_loopexit(base, &tv);
	event_base_dispatch(base);
}

/* Echo: replies with the args. */
static void
m_echo(struct ipc_call *call, void *arg)
{
	last_peer = *call->peer;
	echoes++;
	ipc_reply_send(call->reply, call->args, call->args_len, 0, -1);
}

/* Stream: args[0] replies "0", "1", ..., the last with has_more = 0. */
static void
m_stream(struct ipc_call *call, void *arg)
{
	int i, n = call->args_len > 0 ? call->args[0] : 0;
	char c;

	for (i = 0; i < n; i++) {
		c = (char)('0' + i);
		ipc_reply_send(call->reply, &c, 1, i + 1 < n, -1);
	}
}

/* GiveFd: replies with the read end of a pipe holding "hello". */
static void
m_give_fd(struct ipc_call *call, void *arg)
{
	int p[2];

	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(write(p[1], "hello", 5), 5);
	close(p[1]);
	ipc_reply_send(call->reply, "fd", 2, 0, p[0]);
	close(p[0]);	/* the host sent its own duplicate */
}

/* TakeFd: writes the args into the descriptor that came along. */
static void
m_take_fd(struct ipc_call *call, void *arg)
{
	int fd = ipc_call_take_fd(call);

	if (fd < 0) {
		ipc_reply_fail(call->reply);
		return;
	}
	ck_assert_int_eq(write(fd, call->args, call->args_len),
	    (ssize_t)call->args_len);
	close(fd);
	ipc_reply_send(call->reply, "ok", 2, 0, -1);
}

/* Later: keeps the reply for the test to answer. */
static void
m_later(struct ipc_call *call, void *arg)
{
	kept = call->reply;
}

/* Flood: streams 64 KiB replies until the host gives up on the peer. */
static void
m_flood(struct ipc_call *call, void *arg)
{
	static uint8_t blob[64 * 1024];
	int i;

	for (i = 0; i < 1000; i++) {
		if (ipc_reply_backlog(call->reply) > max_backlog)
			max_backlog = ipc_reply_backlog(call->reply);
		if (ipc_reply_send(call->reply, blob, sizeof(blob), 1, -1) ==
		    -1)
			break;
	}
	ipc_reply_free(call->reply);
}

/* Big: a reply that cannot fit in one frame. */
static void
m_big(struct ipc_call *call, void *arg)
{
	uint8_t *blob = calloc(1, IPC_FRAME_MAX);

	ck_assert_int_eq(ipc_reply_send(call->reply, blob, IPC_FRAME_MAX, 0,
	    -1), -1);
	free(blob);
}

/* TakeAll: writes the args into every descriptor that came along. */
static void
m_take_all(struct ipc_call *call, void *arg)
{
	char n;
	int fd;

	for (n = 0; (fd = ipc_call_take_fd(call)) >= 0; n++) {
		ck_assert_int_eq(write(fd, call->args, call->args_len),
		    (ssize_t)call->args_len);
		close(fd);
	}
	ipc_reply_send(call->reply, &n, 1, 0, -1);
}

/*
 * Held: two stream replies sent while held must not reach the peer
 * (held_fd, the test's own end) before the hold ends; then a final one.
 */
static int held_fd = -1, held_early = -1;

static void
m_held(struct ipc_call *call, void *arg)
{
	struct pollfd pfd = { held_fd, POLLIN, 0 };

	ipc_reply_hold(call->reply, 1);
	ipc_reply_hold(call->reply, 1);
	ck_assert_int_eq(ipc_reply_send(call->reply, "a", 1, 1, -1), 0);
	ipc_reply_hold(call->reply, 0);		/* still held once */
	ck_assert_int_eq(ipc_reply_send(call->reply, "b", 1, 1, -1), 0);
	held_early = poll(&pfd, 1, 0);
	ipc_reply_hold(call->reply, 0);
	ipc_reply_send(call->reply, "c", 1, 0, -1);
}

static const struct ipc_method test_methods[] = {
	{ "Echo", m_echo },
	{ "Stream", m_stream },
	{ "GiveFd", m_give_fd },
	{ "TakeFd", m_take_fd },
	{ "Later", m_later },
	{ "Flood", m_flood },
	{ "Big", m_big },
	{ "NotImplemented", NULL },
	{ "TakeAll", m_take_all },
	{ "Held", m_held },
};
#define M_ECHO		1
#define M_STREAM	2
#define M_GIVE_FD	3
#define M_TAKE_FD	4
#define M_LATER		5
#define M_FLOOD		6
#define M_BIG		7
#define M_NOTIMPL	8
#define M_TAKE_ALL	9
#define M_HELD		10

static void
on_disconnect(const struct ipc_peer *peer, void *arg)
{
	last_disconnect = *peer;
	disconnects++;
	if (kept != NULL) {
		/* What a service does: drop what it kept for that client. */
		ck_assert_int_eq(ipc_reply_alive(kept), 0);
		ck_assert_int_eq(ipc_reply_send(kept, "x", 1, 0, -1), -1);
		kept = NULL;
	}
}

static void
setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/check_ipc.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	/* A directory that does not exist yet: the host creates it. */
	snprintf(path, sizeof(path), "%s/sub/test.sock", dir);
	base = event_base_new();
	host = ipc_host_new(base);
	ck_assert_int_eq(ipc_host_listen(host, path, 0660, NULL), 0);
	ck_assert_int_eq(ipc_host_add_service(host, "Test", test_methods,
	    sizeof(test_methods) / sizeof(*test_methods), on_disconnect, NULL),
	    1);
	disconnects = 0;
	max_backlog = 0;
	kept = NULL;
}

static void
teardown(void)
{
	ipc_host_free(host);
	event_base_free(base);
	unlink(path);
	snprintf(path, sizeof(path), "%s/sub", dir);
	rmdir(path);
	rmdir(dir);
}

/* ---- client-side helpers ---- */

struct tc {
	struct ipc_client	*c;
	int			 connected, disconnected, bound;
	struct ipc_binding	 b;
	int			 binding_null;
	int			 replies, failures, final;
	char			 data[256];
	size_t			 len;
	int			 fd;
};

static void
tc_event(struct ipc_client *c, enum ipc_client_event ev, void *arg)
{
	struct tc *t = arg;

	if (ev == IPC_CLIENT_CONNECTED)
		t->connected++;
	else
		t->disconnected++;
}

static void
tc_bound(struct ipc_client *c, const struct ipc_binding *b, void *arg)
{
	struct tc *t = arg;

	t->bound++;
	if (b == NULL)
		t->binding_null = 1;
	else
		t->b = *b;
}

static void
tc_reply(struct ipc_client *c, struct ipc_result *res, void *arg)
{
	struct tc *t = arg;

	if (!res->success) {
		t->failures++;
		t->final++;
		return;
	}
	t->replies++;
	/* An empty reply may come with no data pointer at all. */
	if (res->len > 0 && res->len < sizeof(t->data) - t->len) {
		memcpy(t->data + t->len, res->data, res->len);
		t->len += res->len;
	}
	if (res->fd >= 0)
		t->fd = ipc_result_take_fd(res);
	if (!res->has_more)
		t->final++;
}

static void
tc_open(struct tc *t, const char *p, int flags)
{
	memset(t, 0, sizeof(*t));
	t->fd = -1;
	t->c = ipc_client_new(base, p, flags, tc_event, t);
	ck_assert_ptr_nonnull(t->c);
}

static void
tc_bind(struct tc *t, const char *svc)
{
	ck_assert_int_eq(ipc_client_bind(t->c, svc, tc_bound, t), 0);
	run_until(&t->bound, 1);
}

/* ---- raw-socket helpers, to look at the wire itself ---- */

static int
raw_connect(const char *p)
{
	struct sockaddr_un sun;
	int fd;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	ck_assert_int_lt(snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", p),
	    (int)sizeof(sun.sun_path));
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(connect(fd, (struct sockaddr *)&sun, sizeof(sun)), 0);
	spin(5);	/* let the host accept */
	return fd;
}

static void
raw_send(int fd, ipc_frame_t *f)
{
	const char *cause;
	uint8_t *buf;
	size_t len;

	len = ipc_frame_encode(f, &buf, &cause);
	ck_assert_uint_gt(len, 0);
	ck_assert_int_eq(write(fd, buf, len), (ssize_t)len);
	free(buf);
}

static void
raw_invoke(int fd, uint64_t id, uint32_t sid, uint32_t mid, int drop,
    const char *args)
{
	Perfetto__Protos__IPCFrame f = PERFETTO__PROTOS__IPCFRAME__INIT;
	Perfetto__Protos__IPCFrame__InvokeMethod m =
	    PERFETTO__PROTOS__IPCFRAME__INVOKE_METHOD__INIT;

	f.has_request_id = 1;
	f.request_id = id;
	f.msg_case = PERFETTO__PROTOS__IPCFRAME__MSG_MSG_INVOKE_METHOD;
	f.msg_invoke_method = &m;
	m.has_service_id = m.has_method_id = m.has_args_proto = 1;
	m.service_id = sid;
	m.method_id = mid;
	m.args_proto.data = (uint8_t *)(uintptr_t)args;
	m.args_proto.len = strlen(args);
	m.has_drop_reply = drop;
	m.drop_reply = drop;
	raw_send(fd, &f);
}

/* Reads one frame while running the host's loop. */
static ipc_frame_t *
raw_recv(int fd)
{
	struct ipc_frame_rx rx;
	struct ipc_frame_in in;
	const char *cause;
	ipc_frame_t *f = NULL;
	uint8_t b;
	int i, fl;

	fl = fcntl(fd, F_GETFL);
	fcntl(fd, F_SETFL, fl | O_NONBLOCK);
	ipc_frame_rx_init(&rx, 0);
	for (i = 0; i < 2000 && f == NULL; ) {
		ssize_t n = read(fd, &b, 1);

		if (n == 1) {
			ck_assert_int_eq(ipc_frame_rx_feed(&rx, &b, 1, &cause),
			    1);
			if (ipc_frame_rx_pop_untrusted(&rx, &in, &cause) == 1) {
				f = in.msg;
				in.msg = NULL;
				ipc_frame_in_free(&in);
			}
			continue;
		}
		ck_assert(n == -1 && errno == EAGAIN);
		spin(10);
		i++;
	}
	ipc_frame_rx_free(&rx);
	fcntl(fd, F_SETFL, fl);
	ck_assert_ptr_nonnull(f);
	return f;
}

/* ---- tests ---- */

START_TEST(test_bind_and_invoke)
{
	struct tc t;
	size_t i;

	tc_open(&t, path, 0);
	run_until(&t.connected, 1);
	tc_bind(&t, "Test");
	ck_assert_int_eq(t.binding_null, 0);
	ck_assert_uint_eq(t.b.service_id, 1);
	ck_assert_uint_eq(t.b.nmethods,
	    sizeof(test_methods) / sizeof(test_methods[0]));
	for (i = 0; i < t.b.nmethods; i++) {
		ck_assert_uint_eq(t.b.methods[i].id, i + 1);
		ck_assert_str_eq(t.b.methods[i].name, test_methods[i].name);
	}
	ck_assert_uint_eq(ipc_binding_method_id(&t.b, "Stream"), M_STREAM);
	ck_assert_uint_eq(ipc_binding_method_id(&t.b, "Nope"), 0);

	ck_assert_uint_gt(ipc_client_invoke(t.c, t.b.service_id, M_ECHO,
	    "ping", 4, -1, 0, tc_reply, &t), 0);
	run_until(&t.final, 1);
	ck_assert_int_eq(t.replies, 1);
	ck_assert_uint_eq(t.len, 4);
	ck_assert(memcmp(t.data, "ping", 4) == 0);

	/* The identity is the kernel's. */
	ck_assert_uint_eq(last_peer.uid, getuid());
	ck_assert_int_eq(last_peer.pid, getpid());
	ck_assert_uint_eq(last_peer.gid, getgid());
	ck_assert_uint_gt(last_peer.conn_id, 0);

	ipc_client_free(t.c);
	run_until(&disconnects, 1);
	ck_assert_uint_eq(last_disconnect.conn_id, last_peer.conn_id);
	ck_assert_uint_eq(ipc_host_nconns(host), 0);
}
END_TEST

START_TEST(test_host_disconnects_client)
{
	struct tc t;

	tc_open(&t, path, 0);
	tc_bind(&t, "Test");
	ipc_client_invoke(t.c, t.b.service_id, M_ECHO, "a", 1, -1, 0,
	    tc_reply, &t);
	run_until(&t.final, 1);
	ck_assert_int_eq(ipc_host_disconnect(host, last_peer.conn_id + 1000,
	    "no such"), -1);
	ck_assert_int_eq(ipc_host_disconnect(host, last_peer.conn_id,
	    "test says so"), 0);
	run_until(&disconnects, 1);
	run_until(&t.disconnected, 1);
	ck_assert_str_eq(ipc_client_strerror(t.c), "peer closed the connection");
	ck_assert_uint_eq(last_disconnect.conn_id, last_peer.conn_id);
	ipc_client_free(t.c);
}
END_TEST

START_TEST(test_unknown_service_and_method)
{
	struct tc t;

	tc_open(&t, path, 0);
	/* Requests made before the connect completes are queued. */
	tc_bind(&t, "NoSuchService");
	ck_assert_int_eq(t.binding_null, 1);
	t.bound = 0;
	tc_bind(&t, "Test");

	ipc_client_invoke(t.c, t.b.service_id, 99, "", 0, -1, 0, tc_reply, &t);
	run_until(&t.final, 1);
	ipc_client_invoke(t.c, 42, 1, "", 0, -1, 0, tc_reply, &t);
	run_until(&t.final, 2);
	ipc_client_invoke(t.c, t.b.service_id, 0, "", 0, -1, 0, tc_reply, &t);
	run_until(&t.final, 3);
	ipc_client_invoke(t.c, t.b.service_id, M_NOTIMPL, "", 0, -1, 0,
	    tc_reply, &t);
	run_until(&t.final, 4);
	ck_assert_int_eq(t.failures, 4);
	ck_assert_int_eq(t.replies, 0);
	ipc_client_free(t.c);
}
END_TEST

START_TEST(test_wire_errors)
{
	Perfetto__Protos__IPCFrame f = PERFETTO__PROTOS__IPCFRAME__INIT;
	ipc_frame_t *r;
	int fd;

	fd = raw_connect(path);
	/* Unknown method: a failed InvokeMethodReply, as upstream sends. */
	raw_invoke(fd, 7, 1, 99, 0, "");
	r = raw_recv(fd);
	ck_assert_uint_eq(r->request_id, 7);
	ck_assert_int_eq(r->msg_case,
	    PERFETTO__PROTOS__IPCFRAME__MSG_MSG_INVOKE_METHOD_REPLY);
	ck_assert_int_eq(r->msg_invoke_method_reply->success, 0);
	ipc_frame_msg_free(r);

	/* A frame with no request in it: RequestError. */
	f.has_request_id = 1;
	f.request_id = 9;
	raw_send(fd, &f);
	r = raw_recv(fd);
	ck_assert_uint_eq(r->request_id, 9);
	ck_assert_int_eq(r->msg_case,
	    PERFETTO__PROTOS__IPCFRAME__MSG_MSG_REQUEST_ERROR);
	ck_assert_str_eq(r->msg_request_error->error, "unknown request");
	ipc_frame_msg_free(r);

	/* drop_reply: no reply at all, the next one is request 12's. */
	raw_invoke(fd, 11, 1, M_ECHO, 1, "dropped");
	raw_invoke(fd, 12, 1, M_ECHO, 0, "kept");
	r = raw_recv(fd);
	{
		struct ipc_host_stats st;

		ipc_host_stats(host, &st);
		ck_assert_uint_eq(st.requests, 4);
		ck_assert_uint_eq(st.unknown_requests, 2);
	}
	ck_assert_uint_eq(r->request_id, 12);
	ck_assert_int_eq(r->msg_invoke_method_reply->success, 1);
	ck_assert_uint_eq(r->msg_invoke_method_reply->reply_proto.len, 4);
	ipc_frame_msg_free(r);
	close(fd);
	run_until(&disconnects, 1);
}
END_TEST

START_TEST(test_streaming)
{
	struct tc t;
	char n = 5;

	tc_open(&t, path, 0);
	tc_bind(&t, "Test");
	ipc_client_invoke(t.c, t.b.service_id, M_STREAM, &n, 1, -1, 0,
	    tc_reply, &t);
	run_until(&t.final, 1);
	ck_assert_int_eq(t.replies, 5);
	ck_assert_uint_eq(t.len, 5);
	ck_assert(memcmp(t.data, "01234", 5) == 0);
	ipc_client_free(t.c);
}
END_TEST

START_TEST(test_drop_reply_client)
{
	struct tc t;

	tc_open(&t, path, 0);
	tc_bind(&t, "Test");
	ck_assert_uint_gt(ipc_client_invoke(t.c, t.b.service_id, M_ECHO, "a",
	    1, -1, IPC_INVOKE_DROP_REPLY, NULL, NULL), 0);
	ipc_client_invoke(t.c, t.b.service_id, M_ECHO, "b", 1, -1, 0,
	    tc_reply, &t);
	run_until(&t.final, 1);
	spin(20);
	ck_assert_int_eq(t.replies, 1);
	ck_assert(t.data[0] == 'b');
	ipc_client_free(t.c);
}
END_TEST

START_TEST(test_fd_passing)
{
	struct tc t;
	char buf[16];
	int p[2];

	tc_open(&t, path, 0);
	tc_bind(&t, "Test");
	/* Host to client. */
	ipc_client_invoke(t.c, t.b.service_id, M_GIVE_FD, "", 0, -1, 0,
	    tc_reply, &t);
	run_until(&t.final, 1);
	ck_assert_int_ge(t.fd, 0);
	ck_assert_int_eq(read(t.fd, buf, sizeof(buf)), 5);
	ck_assert(memcmp(buf, "hello", 5) == 0);
	close(t.fd);

	/* Client to host. */
	ck_assert_int_eq(pipe(p), 0);
	ipc_client_invoke(t.c, t.b.service_id, M_TAKE_FD, "abc", 3, p[1], 0,
	    tc_reply, &t);
	close(p[1]);	/* the client sent its own duplicate */
	run_until(&t.final, 2);
	ck_assert_int_eq(t.failures, 0);
	ck_assert_int_eq(read(p[0], buf, sizeof(buf)), 3);
	ck_assert(memcmp(buf, "abc", 3) == 0);

	/* A descriptor nobody takes is closed by the host: EOF here. */
	ck_assert_int_eq(pipe(p), 0) ;
	ipc_client_invoke(t.c, t.b.service_id, M_ECHO, "x", 1, p[1], 0,
	    tc_reply, &t);
	close(p[1]);
	run_until(&t.final, 3);
	spin(10);
	ck_assert_int_eq(read(p[0], buf, sizeof(buf)), 0);
	close(p[0]);
	ipc_client_free(t.c);
}
END_TEST

START_TEST(test_death_mid_frame)
{
	static const uint8_t half[] = { 40, 0, 0, 0, 0x10, 0x01, 0x2a };
	struct tc t;
	int fd;

	fd = raw_connect(path);
	ck_assert_int_eq(write(fd, half, sizeof(half)), (ssize_t)sizeof(half));
	spin(10);
	close(fd);
	run_until(&disconnects, 1);

	/* Dead in the middle of a stream that is answered later. */
	tc_open(&t, path, 0);
	tc_bind(&t, "Test");
	ipc_client_invoke(t.c, t.b.service_id, M_LATER, "", 0, -1, 0,
	    tc_reply, &t);
	while (kept == NULL)
		spin(5);
	ck_assert_int_eq(ipc_reply_send(kept, "1", 1, 1, -1), 0);
	run_until(&t.replies, 1);
	ipc_client_free(t.c);
	run_until(&disconnects, 2);
	ck_assert_ptr_null(kept);	/* on_disconnect released it */

	/* The host still serves others. */
	tc_open(&t, path, 0);
	tc_bind(&t, "Test");
	ck_assert_int_eq(t.binding_null, 0);
	ipc_client_free(t.c);
}
END_TEST

START_TEST(test_garbage_drops_connection)
{
	static const uint8_t junk[] = { 3, 0, 0, 0, 0xff, 0xff, 0xff };
	static const uint8_t huge[] = { 0xff, 0xff, 0xff, 0x7f };
	char b;
	int fd;

	fd = raw_connect(path);
	ck_assert_int_eq(write(fd, junk, sizeof(junk)), (ssize_t)sizeof(junk));
	run_until(&disconnects, 1);
	ck_assert_int_eq(read(fd, &b, 1), 0);	/* the host hung up */
	close(fd);

	fd = raw_connect(path);
	ck_assert_int_eq(write(fd, huge, sizeof(huge)), (ssize_t)sizeof(huge));
	run_until(&disconnects, 2);
	ck_assert_int_eq(read(fd, &b, 1), 0);
	close(fd);
	/* Both drops are counted. */
	{
		struct ipc_host_stats st;

		ipc_host_stats(host, &st);
		ck_assert_uint_eq(st.protocol_errors, 2);
		ck_assert_uint_eq(st.conns_accepted, 2);
		ck_assert_uint_eq(st.backlog_drops, 0);
	}
}
END_TEST

#define NCLIENTS 50

START_TEST(test_many_clients)
{
	static struct tc t[NCLIENTS];
	char msg[16];
	int i, done;

	for (i = 0; i < NCLIENTS; i++) {
		tc_open(&t[i], path, 0);
		ipc_client_bind(t[i].c, "Test", tc_bound, &t[i]);
	}
	for (i = 0; i < NCLIENTS; i++)
		run_until(&t[i].bound, 1);
	for (i = 0; i < NCLIENTS; i++) {
		snprintf(msg, sizeof(msg), "c%d", i);
		ipc_client_invoke(t[i].c, t[i].b.service_id, M_ECHO, msg,
		    strlen(msg), -1, 0, tc_reply, &t[i]);
	}
	for (i = 0; i < NCLIENTS; i++)
		run_until(&t[i].final, 1);
	ck_assert_uint_eq(ipc_host_nconns(host), NCLIENTS);
	for (i = 0; i < NCLIENTS; i++) {
		snprintf(msg, sizeof(msg), "c%d", i);
		ck_assert_uint_eq(t[i].len, strlen(msg));
		ck_assert(memcmp(t[i].data, msg, t[i].len) == 0);
		ipc_client_free(t[i].c);
	}
	run_until(&disconnects, NCLIENTS);
	done = (int)ipc_host_nconns(host);
	ck_assert_int_eq(done, 0);
}
END_TEST

START_TEST(test_client_never_reads)
{
	const size_t cap = 1024 * 1024;
	int fd, rcv = 4096;

	ipc_host_set_outq_max(host, cap);
	fd = raw_connect(path);
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof(rcv));
	raw_invoke(fd, 1, 1, M_FLOOD, 0, "");
	run_until(&disconnects, 1);
	/* The backlog never went past the cap; the peer was dropped. */
	ck_assert_uint_le(max_backlog, cap);
	ck_assert_uint_gt(max_backlog, cap / 2);
	ck_assert_uint_eq(ipc_host_nconns(host), 0);
	{
		struct ipc_host_stats st;

		ipc_host_stats(host, &st);
		ck_assert_uint_eq(st.backlog_drops, 1);
		ck_assert_uint_eq(st.protocol_errors, 0);
	}
	close(fd);
}
END_TEST

/*
 * A peer that sends requests and hangs up before reading any answer: the
 * first answer bounces (EPIPE), and every request it sent is still
 * served before the host sees the end (a producer's last commits).
 */
START_TEST(test_hangup_after_requests)
{
	int fd, i;

	fd = raw_connect(path);
	echoes = 0;
	for (i = 0; i < 200; i++)
		raw_invoke(fd, (uint64_t)i + 1, 1, M_ECHO, 0, "x");
	close(fd);
	run_until(&disconnects, 1);
	ck_assert_int_eq(echoes, 200);
	ck_assert_uint_eq(ipc_host_nconns(host), 0);
}
END_TEST

START_TEST(test_reply_too_large)
{
	struct tc t;

	tc_open(&t, path, 0);
	tc_bind(&t, "Test");
	ipc_client_invoke(t.c, t.b.service_id, M_BIG, "", 0, -1, 0,
	    tc_reply, &t);
	run_until(&t.final, 1);
	ck_assert_int_eq(t.failures, 1);
	/* The connection survives. */
	ipc_client_invoke(t.c, t.b.service_id, M_ECHO, "y", 1, -1, 0,
	    tc_reply, &t);
	run_until(&t.final, 2);
	ck_assert_int_eq(t.replies, 1);
	ipc_client_free(t.c);
}
END_TEST

START_TEST(test_disconnect_fails_pending)
{
	struct tc t;

	tc_open(&t, path, 0);
	tc_bind(&t, "Test");
	ipc_client_invoke(t.c, t.b.service_id, M_LATER, "", 0, -1, 0,
	    tc_reply, &t);
	while (kept == NULL)
		spin(5);
	/* The host goes away: the pending call fails, then DISCONNECTED. */
	ipc_host_free(host);
	host = ipc_host_new(base);
	run_until(&t.disconnected, 1);
	ck_assert_int_eq(t.failures, 1);
	ipc_reply_free(kept);	/* detached, still the service's to free */
	kept = NULL;
	ck_assert_int_eq(ipc_client_connected(t.c), 0);
	ck_assert_uint_eq(ipc_client_invoke(t.c, 1, 1, "", 0, -1, 0, tc_reply,
	    &t), 0);
	ipc_client_free(t.c);
}
END_TEST

START_TEST(test_connect_retry_and_failure)
{
	char p2[160];
	struct ipc_host *h2;
	struct tc t, u;

	snprintf(p2, sizeof(p2), "%s/late.sock", dir);
	/* Without retry: one failure report. */
	tc_open(&u, p2, 0);
	ck_assert_str_eq(ipc_client_strerror(u.c), "");
	run_until(&u.disconnected, 1);
	ck_assert_int_eq(u.connected, 0);
	ck_assert_str_eq(ipc_client_strerror(u.c),
	    "connect: No such file or directory");
	ipc_client_free(u.c);

	/* With retry: connects once the host shows up. */
	tc_open(&t, p2, IPC_CLIENT_RETRY);
	ipc_client_bind(t.c, "Test", tc_bound, &t);
	spin(150);
	ck_assert_int_eq(t.connected, 0);
	h2 = ipc_host_new(base);
	ck_assert_int_eq(ipc_host_listen(h2, p2, 0600, NULL), 0);
	ipc_host_add_service(h2, "Test", test_methods, 1, NULL, NULL);
	run_until(&t.connected, 1);
	run_until(&t.bound, 1);
	ck_assert_int_eq(t.binding_null, 0);
	ck_assert_uint_eq(t.b.nmethods, 1);
	ipc_client_free(t.c);
	ipc_host_free(h2);
	unlink(p2);

	/*
	 * After a while the retry timer is seconds apart; the directory
	 * watch connects as soon as the socket appears, well before the
	 * next retry would (here the next is 1.5 s after the host starts;
	 * the test allows 1 s).
	 */
	tc_open(&t, p2, IPC_CLIENT_RETRY);
	spin(1600);
	ck_assert_int_eq(t.connected, 0);
	h2 = ipc_host_new(base);
	ck_assert_int_eq(ipc_host_listen(h2, p2, 0600, NULL), 0);
	{
		int i;

		for (i = 0; i < 100 && t.connected == 0; i++)
			spin(10);
	}
	ck_assert_int_eq(t.connected, 1);
	ipc_client_free(t.c);
	ipc_host_free(h2);
	unlink(p2);
}
END_TEST

START_TEST(test_socket_path)
{
	struct ipc_host *h2;
	struct stat st;
	char p2[160];
	int fd;

	/* Mode applied; a live socket is not stolen. */
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0660);
	h2 = ipc_host_new(base);
	ck_assert_int_eq(ipc_host_listen(h2, path, 0600, NULL), -1);
	ck_assert_ptr_nonnull(strstr(ipc_host_strerror(h2), "listening"));
	ipc_host_free(h2);

	/* A stale socket (nobody listening) is replaced. */
	snprintf(p2, sizeof(p2), "%s/stale.sock", dir);
	{
		struct sockaddr_un sun;

		memset(&sun, 0, sizeof(sun));
		sun.sun_family = AF_UNIX;
		ck_assert_int_lt(snprintf(sun.sun_path, sizeof(sun.sun_path),
		    "%s", p2), (int)sizeof(sun.sun_path));
		fd = socket(AF_UNIX, SOCK_STREAM, 0);
		ck_assert_int_eq(bind(fd, (struct sockaddr *)&sun,
		    sizeof(sun)), 0);
		close(fd);
	}
	h2 = ipc_host_new(base);
	ck_assert_int_eq(ipc_host_listen(h2, p2, 0600, NULL), 0);
	ipc_host_free(h2);
	unlink(p2);

	/* A regular file is never removed. */
	fd = open(p2, O_CREAT | O_WRONLY, 0600);
	close(fd);
	h2 = ipc_host_new(base);
	ck_assert_int_eq(ipc_host_listen(h2, p2, 0600, NULL), -1);
	ipc_host_free(h2);
	ck_assert_int_eq(stat(p2, &st), 0);
	ck_assert(S_ISREG(st.st_mode));
	unlink(p2);

	/* Unknown group: refused with a message. */
	h2 = ipc_host_new(base);
	ck_assert_int_eq(ipc_host_listen(h2, p2, 0600,
	    "no-such-group-faro"), -1);
	ipc_host_free(h2);
}
END_TEST

START_TEST(test_adopt_and_abstract)
{
	struct sockaddr_un sun;
	struct ipc_host *h2;
	char name[64];
	struct tc t;
	int fd;

	/* A listening socket handed over, as systemd does. */
	snprintf(name, sizeof(name), "@faro-check-%d", (int)getpid());
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	memcpy(sun.sun_path + 1, name + 1, strlen(name) - 1);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sun,
	    (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
	    strlen(name))), 0);
	h2 = ipc_host_new(base);
	ck_assert_int_eq(ipc_host_adopt(h2, fd), -1);	/* not listening */
	ck_assert_int_eq(listen(fd, 8), 0);
	ck_assert_int_eq(ipc_host_adopt(h2, fd), 0);
	ipc_host_add_service(h2, "Test", test_methods, 1, NULL, NULL);

	tc_open(&t, name, 0);
	tc_bind(&t, "Test");
	ck_assert_int_eq(t.binding_null, 0);
	ipc_client_free(t.c);
	ipc_host_free(h2);
}
END_TEST

/* A protobuf-c descriptor as protoc-c generates one for a service. */
static const ProtobufCMethodDescriptor pbc_methods[] = {
	{ "First", NULL, NULL },
	{ "Second", NULL, NULL },
	{ "Third", NULL, NULL },
};
static const unsigned pbc_index[] = { 0, 1, 2 };
static const ProtobufCServiceDescriptor pbc_desc = {
	PROTOBUF_C__SERVICE_DESCRIPTOR_MAGIC,
	"perfetto.protos.PbcPort", "PbcPort", "Perfetto__Protos__PbcPort",
	"perfetto.protos", 3, pbc_methods, pbc_index,
};

START_TEST(test_pbc_service)
{
	ipc_method_fn *const handlers[] = { NULL, m_echo, NULL };
	struct tc t;
	int sid;

	sid = ipc_host_add_service_pbc(host, &pbc_desc, handlers, NULL, NULL);
	ck_assert_int_eq(sid, 2);
	ck_assert_int_eq(ipc_host_add_service_pbc(host, &pbc_desc, handlers,
	    NULL, NULL), -1);	/* duplicate name */
	tc_open(&t, path, 0);
	tc_bind(&t, "PbcPort");
	ck_assert_uint_eq(t.b.service_id, (uint32_t)sid);
	ck_assert_uint_eq(ipc_binding_method_id(&t.b, "First"), 1);
	ck_assert_uint_eq(ipc_binding_method_id(&t.b, "Second"), 2);
	ck_assert_uint_eq(ipc_binding_method_id(&t.b, "Third"), 3);
	ipc_client_invoke(t.c, t.b.service_id, 2, "pbc", 3, -1, 0, tc_reply,
	    &t);
	ipc_client_invoke(t.c, t.b.service_id, 1, "", 0, -1, 0, tc_reply, &t);
	run_until(&t.final, 2);
	ck_assert_int_eq(t.replies, 1);
	ck_assert_int_eq(t.failures, 1);
	ipc_client_free(t.c);
}
END_TEST

/*
 * Decodes RegisterTraceWriterRequest through the shared helper; writer 7
 * is answered with a message that has fields, which the empty-reply
 * helper must refuse (a failure) rather than overrun.
 */
static uint32_t named_writer_id;

static void
m_writer(struct ipc_call *call, void *arg)
{
	Perfetto__Protos__RegisterTraceWriterRequest *req;
	const ProtobufCMessageDescriptor *d =
	    &perfetto__protos__register_trace_writer_response__descriptor;

	req = ipc_call_args_untrusted(call,
	    &perfetto__protos__register_trace_writer_request__descriptor);
	if (req == NULL)
		return;
	named_writer_id = req->trace_writer_id;
	if (req->trace_writer_id == 7)
		d = &perfetto__protos__register_trace_writer_request__descriptor;
	ck_assert_int_eq(ipc_reply_send_empty(call->reply, d),
	    req->trace_writer_id == 7 ? -1 : 0);
	perfetto__protos__register_trace_writer_request__free_unpacked(req,
	    NULL);
}

static const ProtobufCServiceDescriptor named_desc = {
	PROTOBUF_C__SERVICE_DESCRIPTOR_MAGIC,
	"perfetto.protos.NamedPort", "NamedPort",
	"Perfetto__Protos__NamedPort", "perfetto.protos", 3, pbc_methods,
	pbc_index,
};

START_TEST(test_named_service)
{
	/* Out of order, one unknown name, "First" left without a handler. */
	static const struct ipc_method by_name[] = {
		{ "Third",	m_writer },
		{ "Nowhere",	m_echo },
		{ "Second",	m_echo },
	};
	Perfetto__Protos__RegisterTraceWriterRequest req =
	    PERFETTO__PROTOS__REGISTER_TRACE_WRITER_REQUEST__INIT;
	uint8_t buf[32];
	size_t len;
	struct tc t;
	int sid;

	sid = ipc_host_add_service_named(host, &named_desc, by_name, 3, NULL,
	    NULL);
	ck_assert_int_gt(sid, 0);
	ck_assert_int_eq(ipc_host_add_service_named(host, &named_desc,
	    by_name, 3, NULL, NULL), -1);	/* duplicate name */
	tc_open(&t, path, 0);
	tc_bind(&t, "NamedPort");
	ck_assert_uint_eq(t.b.service_id, (uint32_t)sid);

	/* No handler: fails. */
	ipc_client_invoke(t.c, t.b.service_id, 1, "", 0, -1, 0, tc_reply, &t);
	run_until(&t.final, 1);
	ck_assert_int_eq(t.failures, 1);
	ck_assert_int_eq(t.replies, 0);

	/* Echo by name. */
	ipc_client_invoke(t.c, t.b.service_id, 2, "abc", 3, -1, 0, tc_reply,
	    &t);
	run_until(&t.final, 2);
	ck_assert_int_eq(t.replies, 1);
	ck_assert_uint_eq(t.len, 3);
	ck_assert_int_eq(memcmp(t.data, "abc", 3), 0);

	/* Well-formed arguments: decoded, answered with an empty message. */
	req.has_trace_writer_id = 1;
	req.trace_writer_id = 42;
	len = perfetto__protos__register_trace_writer_request__pack(&req, buf);
	ipc_client_invoke(t.c, t.b.service_id, 3, buf, len, -1, 0, tc_reply,
	    &t);
	run_until(&t.final, 3);
	ck_assert_int_eq(t.replies, 2);
	ck_assert_int_eq(t.failures, 1);
	ck_assert_uint_eq(t.len, 3);		/* the empty reply adds nothing */
	ck_assert_uint_eq(named_writer_id, 42);

	/* Malformed arguments (a varint cut short): the call fails. */
	named_writer_id = 0;
	ipc_client_invoke(t.c, t.b.service_id, 3, "\x08\xff", 2, -1, 0,
	    tc_reply, &t);
	run_until(&t.final, 4);
	ck_assert_int_eq(t.failures, 2);
	ck_assert_uint_eq(named_writer_id, 0);

	/* An "empty" reply of a message with fields is refused: a failure. */
	req.trace_writer_id = 7;
	len = perfetto__protos__register_trace_writer_request__pack(&req, buf);
	ipc_client_invoke(t.c, t.b.service_id, 3, buf, len, -1, 0, tc_reply,
	    &t);
	run_until(&t.final, 5);
	ck_assert_uint_eq(named_writer_id, 7);
	ck_assert_int_eq(t.failures, 3);
	ck_assert_int_eq(t.replies, 2);
	ipc_client_free(t.c);
}
END_TEST

/* Freeing the client from inside its own reply callback. */
static void
free_in_cb(struct ipc_client *c, struct ipc_result *res, void *arg)
{
	int *n = arg;

	(*n)++;
	ipc_client_free(c);
}

START_TEST(test_free_in_callback)
{
	struct tc t;
	char n = 5;
	int calls = 0;

	tc_open(&t, path, 0);
	tc_bind(&t, "Test");
	ipc_client_invoke(t.c, t.b.service_id, M_STREAM, &n, 1, -1, 0,
	    free_in_cb, &calls);
	run_until(&disconnects, 1);
	spin(20);
	ck_assert_int_eq(calls, 1);
}
END_TEST

/* Sends one frame with nfds descriptors attached to its first byte. */
static void
raw_send_fds(int fd, ipc_frame_t *f, const int *fds, int nfds)
{
	union {
		struct cmsghdr	hdr;
		char		buf[CMSG_SPACE(16 * sizeof(int))];
	} cmsg;
	struct msghdr msg;
	struct cmsghdr *ch;
	struct iovec iov;
	const char *cause;
	uint8_t *buf;
	size_t len;

	len = ipc_frame_encode(f, &buf, &cause);
	iov.iov_base = buf;
	iov.iov_len = len;
	memset(&msg, 0, sizeof(msg));
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = cmsg.buf;
	msg.msg_controllen = CMSG_SPACE((size_t)nfds * sizeof(int));
	ch = CMSG_FIRSTHDR(&msg);
	ch->cmsg_level = SOL_SOCKET;
	ch->cmsg_type = SCM_RIGHTS;
	ch->cmsg_len = CMSG_LEN((size_t)nfds * sizeof(int));
	memcpy(CMSG_DATA(ch), fds, (size_t)nfds * sizeof(int));
	ck_assert_int_eq(sendmsg(fd, &msg, 0), (ssize_t)len);
	free(buf);
}

START_TEST(test_fds_per_frame)
{
	Perfetto__Protos__IPCFrame f = PERFETTO__PROTOS__IPCFRAME__INIT;
	Perfetto__Protos__IPCFrame__InvokeMethod m =
	    PERFETTO__PROTOS__IPCFRAME__INVOKE_METHOD__INIT;
	int p[9][2], fds[9], i, fd;
	ipc_frame_t *r;
	char b[4];

	for (i = 0; i < 9; i++) {
		ck_assert_int_eq(pipe(p[i]), 0);
		fds[i] = p[i][1];
	}
	f.has_request_id = 1;
	f.request_id = 1;
	f.msg_case = PERFETTO__PROTOS__IPCFRAME__MSG_MSG_INVOKE_METHOD;
	f.msg_invoke_method = &m;
	m.has_service_id = m.has_method_id = m.has_args_proto = 1;
	m.service_id = 1;
	m.method_id = M_TAKE_ALL;
	m.args_proto.data = (uint8_t *)"z";
	m.args_proto.len = 1;

	/* Two descriptors with one request: both reach the handler. */
	fd = raw_connect(path);
	raw_send_fds(fd, &f, fds, 2);
	r = raw_recv(fd);
	ck_assert_int_eq(r->msg_invoke_method_reply->success, 1);
	ck_assert_int_eq(r->msg_invoke_method_reply->reply_proto.data[0], 2);
	ipc_frame_msg_free(r);
	ck_assert_int_eq(read(p[0][0], b, 1), 1);
	ck_assert_int_eq(read(p[1][0], b, 1), 1);

	/* More than a frame may carry: the connection is dropped. */
	raw_send_fds(fd, &f, fds, 9);
	run_until(&disconnects, 1);
	{
		struct ipc_host_stats st;

		ipc_host_stats(host, &st);
		ck_assert_uint_eq(st.protocol_errors, 1);
	}
	ck_assert_int_eq(read(fd, b, 1), 0);
	close(fd);
	/* And none of them was leaked by the host: EOF on every pipe. */
	for (i = 0; i < 9; i++) {
		close(p[i][1]);
		ck_assert_int_eq(read(p[i][0], b, 1), 0);
		close(p[i][0]);
	}
}
END_TEST

/* Held output leaves when the last hold ends, in order. */
START_TEST(test_hold)
{
	ipc_frame_t *r;
	const char *want = "abc";
	int fd, i;

	fd = raw_connect(path);
	held_fd = fd;
	raw_invoke(fd, 1, 1, M_HELD, 0, "");
	for (i = 0; i < 3; i++) {
		r = raw_recv(fd);
		ck_assert_int_eq(r->msg_invoke_method_reply->success, 1);
		ck_assert_int_eq(r->msg_invoke_method_reply->has_more, i < 2);
		ck_assert_uint_eq(r->msg_invoke_method_reply->reply_proto.len,
		    1);
		ck_assert_int_eq(
		    r->msg_invoke_method_reply->reply_proto.data[0], want[i]);
		ipc_frame_msg_free(r);
	}
	/* Nothing had reached the socket while held. */
	ck_assert_int_eq(held_early, 0);
	close(fd);
	held_fd = -1;
}
END_TEST

/* A client on its own thread and event_base, as libfaro runs it. */
static void *
thread_client(void *arg)
{
	struct event_base *tb = event_base_new();
	struct timeval tv = { 0, 10000 };
	struct ipc_client *c;
	struct tc *t = arg;
	int i;

	c = ipc_client_new(tb, path, IPC_CLIENT_RETRY, tc_event, t);
	ipc_client_bind(c, "Test", tc_bound, t);
	for (i = 0; i < 1000 && t->bound == 0; i++) {
		event_base_loopexit(tb, &tv);
		event_base_dispatch(tb);
	}
	if (t->bound && !t->binding_null)
		ipc_client_invoke(c, t->b.service_id, M_ECHO, "thr", 3, -1, 0,
		    tc_reply, t);
	for (i = 0; i < 1000 && t->final == 0; i++) {
		event_base_loopexit(tb, &tv);
		event_base_dispatch(tb);
	}
	ipc_client_free(c);
	event_base_free(tb);
	return NULL;
}

START_TEST(test_client_thread)
{
	static struct tc t;
	volatile int *fin = &t.final;
	pthread_t th;
	int i;

	memset(&t, 0, sizeof(t));
	t.fd = -1;
	ck_assert_int_eq(pthread_create(&th, NULL, thread_client, &t), 0);
	/* The host runs here, on the main thread's loop, meanwhile. */
	for (i = 0; i < 1000 && *fin == 0; i++)
		spin(10);
	pthread_join(th, NULL);
	ck_assert_int_eq(t.final, 1);
	ck_assert_uint_eq(t.len, 3);
	ck_assert(memcmp(t.data, "thr", 3) == 0);
	run_until(&disconnects, 1);
}
END_TEST

static Suite *
ipc_suite(void)
{
	Suite *s = suite_create("ipc");
	TCase *tc = tcase_create("host_client");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_bind_and_invoke);
	tcase_add_test(tc, test_host_disconnects_client);
	tcase_add_test(tc, test_unknown_service_and_method);
	tcase_add_test(tc, test_wire_errors);
	tcase_add_test(tc, test_streaming);
	tcase_add_test(tc, test_drop_reply_client);
	tcase_add_test(tc, test_fd_passing);
	tcase_add_test(tc, test_death_mid_frame);
	tcase_add_test(tc, test_garbage_drops_connection);
	tcase_add_test(tc, test_many_clients);
	tcase_add_test(tc, test_client_never_reads);
	tcase_add_test(tc, test_hangup_after_requests);
	tcase_add_test(tc, test_reply_too_large);
	tcase_add_test(tc, test_disconnect_fails_pending);
	tcase_add_test(tc, test_connect_retry_and_failure);
	tcase_add_test(tc, test_socket_path);
	tcase_add_test(tc, test_adopt_and_abstract);
	tcase_add_test(tc, test_pbc_service);
	tcase_add_test(tc, test_named_service);
	tcase_add_test(tc, test_free_in_callback);
	tcase_add_test(tc, test_fds_per_frame);
	tcase_add_test(tc, test_hold);
	tcase_add_test(tc, test_client_thread);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(ipc_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
