/* IPC client: connect, bind, invoke; see ipc_client.h. */
#include "config.h"

#include <sys/inotify.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "ipc_client.h"
#include "ipc_conn.h"
#include "ipc_host.h"
#include "ipc_sock.h"
#include "base/log.h"

#define RETRY_FIRST_MS	100
#define RETRY_MAX_MS	30000

enum client_state { CLIENT_CONNECTING, CLIENT_CONNECTED, CLIENT_DEAD };

struct client_req {
	TAILQ_ENTRY(client_req)	 entry;
	uint64_t		 id;
	int			 bind;		/* BindService, else Invoke */
	char			*service;
	ipc_bind_fn		*on_bind;
	ipc_result_fn		*on_reply;
	void			*arg;
};

struct client_binding {
	TAILQ_ENTRY(client_binding) entry;
	struct ipc_binding	 b;
};

struct ipc_client {
	struct event_base	*base;
	char			*path;
	int			 flags;
	enum client_state	 state;
	struct ipc_conn		*conn;
	int			 sock;		/* connect in progress */
	int			 connect_err;	/* connect() failed at once */
	struct event		*ev_connect;
	struct event		*ev_retry;
	int			 backoff_ms;
	int			 ino;		/* inotify on the socket's dir */
	struct event		*ev_ino;
	uint64_t		 last_id;
	TAILQ_HEAD(, client_req) reqs;
	TAILQ_HEAD(, client_binding) bindings;
	ipc_client_event_fn	*on_event;
	void			*arg;
	int			 depth;		/* user callbacks running */
	int			 freed;
	char			 err[160];	/* why it failed or ended */
};

static void	client_frame(struct ipc_conn *, struct ipc_frame_in *, void *);
static void	client_closed(struct ipc_conn *, const char *, void *);
static void	client_connect(struct ipc_client *);
static void	client_watch_stop(struct ipc_client *);

static void
binding_free(struct client_binding *cb)
{
	size_t i;

	for (i = 0; i < cb->b.nmethods; i++)
		free(cb->b.methods[i].name);
	free(cb->b.methods);
	free((char *)(uintptr_t)cb->b.service_name);
	free(cb);
}

static void
req_free(struct client_req *r)
{
	free(r->service);
	free(r);
}

static void
client_destroy(struct ipc_client *c)
{
	struct client_binding *cb;
	struct client_req *r;

	while ((r = TAILQ_FIRST(&c->reqs)) != NULL) {
		TAILQ_REMOVE(&c->reqs, r, entry);
		req_free(r);
	}
	while ((cb = TAILQ_FIRST(&c->bindings)) != NULL) {
		TAILQ_REMOVE(&c->bindings, cb, entry);
		binding_free(cb);
	}
	if (c->conn != NULL)
		ipc_conn_free(c->conn);
	if (c->ev_connect)
		event_free(c->ev_connect);
	if (c->ev_retry)
		event_free(c->ev_retry);
	client_watch_stop(c);
	if (c->sock >= 0)
		close(c->sock);
	free(c->path);
	free(c);
}

/* Ends a user callback; 1 if the client was freed meanwhile. */
static int
client_leave(struct ipc_client *c)
{
	if (--c->depth == 0 && c->freed) {
		client_destroy(c);
		return 1;
	}
	return c->freed;
}

static void
client_watch_stop(struct ipc_client *c)
{
	if (c->ev_ino != NULL)
		event_free(c->ev_ino);
	c->ev_ino = NULL;
	if (c->ino >= 0)
		close(c->ino);
	c->ino = -1;
}

/* Something appeared in the socket's directory: try now, not later. */
static void
client_on_watch(evutil_socket_t fd, short ev, void *arg)
{
	struct ipc_client *c = arg;
	char buf[4096];

	while (read(c->ino, buf, sizeof(buf)) > 0)
		continue;
	if (c->sock < 0 && evtimer_pending(c->ev_retry, NULL)) {
		evtimer_del(c->ev_retry);
		client_connect(c);
	}
}

/*
 * Waiting for a service that has not started: besides the timer, watch
 * the socket's directory, so the connect follows the socket's creation
 * at once (as upstream does). Best effort: the timer still runs.
 */
static void
client_watch_start(struct ipc_client *c)
{
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)], *slash;

	if (c->ino >= 0 || c->path[0] != '/' ||
	    strlen(c->path) >= sizeof(dir))
		return;
	memcpy(dir, c->path, strlen(c->path) + 1);
	slash = strrchr(dir, '/');
	if (slash == dir)
		slash[1] = '\0';
	else
		*slash = '\0';
	if ((c->ino = inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) == -1)
		return;
	if (inotify_add_watch(c->ino, dir, IN_CREATE | IN_MOVED_TO |
	    IN_ATTRIB) == -1 ||
	    (c->ev_ino = event_new(c->base, c->ino, EV_READ | EV_PERSIST,
	    client_on_watch, c)) == NULL ||
	    event_add(c->ev_ino, NULL) == -1) {
		client_watch_stop(c);
		return;
	}
}

static void
client_on_connect(evutil_socket_t fd, short ev, void *arg)
{
	struct ipc_client *c = arg;
	socklen_t len = sizeof(int);
	int err = 0;

	if (c->connect_err != 0) {
		err = c->connect_err;
		c->connect_err = 0;
	} else if (getsockopt(c->sock, SOL_SOCKET, SO_ERROR, &err, &len) == -1)
		err = errno;
	if (err == 0) {
		if (ipc_conn_set_fd(c->conn, c->sock) == -1) {
			err = errno;
		} else {
			c->sock = -1;
			c->state = CLIENT_CONNECTED;
			client_watch_stop(c);
			log_debug("%s: connected to %s", __func__, c->path);
			c->depth++;
			c->on_event(c, IPC_CLIENT_CONNECTED, c->arg);
			client_leave(c);
			return;
		}
	}
	if (c->sock >= 0)
		close(c->sock);
	c->sock = -1;
	if (c->flags & IPC_CLIENT_RETRY) {
		struct timeval tv;

		log_debug("%s: %s: %s, retrying in %d ms", __func__, c->path,
		    strerror(err), c->backoff_ms);
		tv.tv_sec = c->backoff_ms / 1000;
		tv.tv_usec = (c->backoff_ms % 1000) * 1000;
		evtimer_add(c->ev_retry, &tv);
		client_watch_start(c);
		c->backoff_ms = c->backoff_ms * 2 > RETRY_MAX_MS ?
		    RETRY_MAX_MS : c->backoff_ms * 2;
		return;
	}
	log_debug("%s: %s: %s", __func__, c->path, strerror(err));
	snprintf(c->err, sizeof(c->err), "connect: %s", strerror(err));
	ipc_conn_shutdown(c->conn, "cannot connect");
}

static void
client_on_retry(evutil_socket_t fd, short ev, void *arg)
{
	client_connect(arg);
}

/* Starts a non-blocking connect; the outcome arrives in ev_connect. */
static void
client_connect(struct ipc_client *c)
{
	struct sockaddr_un sun;
	socklen_t len;
	const char *cause;
	int r;

	if (c->ev_connect != NULL) {
		event_free(c->ev_connect);
		c->ev_connect = NULL;
	}
	if (ipc_sock_addr(c->path, &sun, &len, &cause) == -1 ||
	    (c->sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC |
	    SOCK_NONBLOCK, 0)) == -1) {
		ipc_conn_shutdown(c->conn, "cannot create the socket");
		return;
	}
	c->ev_connect = event_new(c->base, c->sock, EV_WRITE,
	    client_on_connect, c);
	if (c->ev_connect == NULL) {
		ipc_conn_shutdown(c->conn, "out of memory");
		return;
	}
	do {
		r = connect(c->sock, (struct sockaddr *)&sun, len);
	} while (r == -1 && errno == EINTR);
	if (r == 0 || errno == EINPROGRESS) {
		event_add(c->ev_connect, NULL);
		return;
	}
	/* Failed at once: report it from the loop, never from here. */
	c->connect_err = errno;
	close(c->sock);
	c->sock = -1;
	event_free(c->ev_connect);
	if ((c->ev_connect = event_new(c->base, -1, 0, client_on_connect,
	    c)) == NULL) {
		ipc_conn_shutdown(c->conn, "out of memory");
		return;
	}
	event_active(c->ev_connect, 0, 0);
}

static struct ipc_client *
client_alloc(struct event_base *base, ipc_client_event_fn *on_event,
    void *arg)
{
	struct ipc_client *c;

	if ((c = calloc(1, sizeof(*c))) == NULL)
		return NULL;
	c->base = base;
	c->sock = -1;
	c->on_event = on_event;
	c->arg = arg;
	c->backoff_ms = RETRY_FIRST_MS;
	c->ino = -1;
	TAILQ_INIT(&c->reqs);
	TAILQ_INIT(&c->bindings);
	c->conn = ipc_conn_new(base, -1, IPC_HOST_OUTQ_MAX, client_frame,
	    client_closed, c);
	c->ev_retry = evtimer_new(base, client_on_retry, c);
	if (c->conn == NULL || c->ev_retry == NULL) {
		client_destroy(c);
		return NULL;
	}
	return c;
}

struct ipc_client *
ipc_client_new(struct event_base *base, const char *path, int flags,
    ipc_client_event_fn *on_event, void *arg)
{
	struct sockaddr_un sun;
	struct ipc_client *c;
	const char *cause;
	socklen_t len;

	if (ipc_sock_addr(path, &sun, &len, &cause) == -1) {
		log_warnx("%s: %s: %s", __func__, path, cause);
		errno = EINVAL;
		return NULL;
	}
	if ((c = client_alloc(base, on_event, arg)) == NULL)
		return NULL;
	c->flags = flags;
	if ((c->path = strdup(path)) == NULL) {
		client_destroy(c);
		return NULL;
	}
	client_connect(c);
	return c;
}

struct ipc_client *
ipc_client_adopt(struct event_base *base, int fd,
    ipc_client_event_fn *on_event, void *arg)
{
	struct ipc_client *c;

	if ((c = client_alloc(base, on_event, arg)) == NULL) {
		close(fd);
		return NULL;
	}
	if ((c->path = strdup("(adopted)")) == NULL ||
	    ipc_conn_set_fd(c->conn, fd) == -1) {
		close(fd);
		client_destroy(c);
		return NULL;
	}
	c->state = CLIENT_CONNECTED;
	return c;
}

void
ipc_client_free(struct ipc_client *c)
{
	if (c == NULL)
		return;
	if (c->depth > 0) {
		/* A callback is on the stack: finish when it returns. */
		c->freed = 1;
		c->state = CLIENT_DEAD;
		return;
	}
	client_destroy(c);
}

int
ipc_client_connected(const struct ipc_client *c)
{
	return c->state == CLIENT_CONNECTED;
}

const char *
ipc_client_strerror(const struct ipc_client *c)
{
	return c->err;
}

static uint64_t
client_send(struct ipc_client *c, ipc_frame_t *f, int fd, struct client_req *r)
{
	const char *cause;

	if (c->state == CLIENT_DEAD || c->freed) {
		if (r != NULL)
			req_free(r);
		return 0;
	}
	f->has_request_id = 1;
	f->request_id = ++c->last_id;
	if (ipc_conn_send(c->conn, f, fd >= 0 ? &fd : NULL, fd >= 0 ? 1 : 0,
	    &cause) == -1) {
		log_warnx("%s: %s: %s", __func__, c->path, cause);
		if (r != NULL)
			req_free(r);
		return 0;
	}
	if (r != NULL) {
		r->id = f->request_id;
		TAILQ_INSERT_TAIL(&c->reqs, r, entry);
	}
	return f->request_id;
}

int
ipc_client_bind(struct ipc_client *c, const char *service, ipc_bind_fn *on_bind,
    void *arg)
{
	Perfetto__Protos__IPCFrame f = PERFETTO__PROTOS__IPCFRAME__INIT;
	Perfetto__Protos__IPCFrame__BindService b =
	    PERFETTO__PROTOS__IPCFRAME__BIND_SERVICE__INIT;
	struct client_req *r;

	if ((r = calloc(1, sizeof(*r))) == NULL ||
	    (r->service = strdup(service)) == NULL) {
		free(r);
		return -1;
	}
	r->bind = 1;
	r->on_bind = on_bind;
	r->arg = arg;
	f.msg_case = PERFETTO__PROTOS__IPCFRAME__MSG_MSG_BIND_SERVICE;
	f.msg_bind_service = &b;
	b.service_name = r->service;
	return client_send(c, &f, -1, r) == 0 ? -1 : 0;
}

uint32_t
ipc_binding_method_id(const struct ipc_binding *b, const char *name)
{
	size_t i;

	for (i = 0; i < b->nmethods; i++)
		if (strcmp(b->methods[i].name, name) == 0)
			return b->methods[i].id;
	return 0;
}

uint64_t
ipc_client_invoke(struct ipc_client *c, uint32_t service_id,
    uint32_t method_id, const void *args, size_t len, int fd, int flags,
    ipc_result_fn *on_reply, void *arg)
{
	Perfetto__Protos__IPCFrame f = PERFETTO__PROTOS__IPCFRAME__INIT;
	Perfetto__Protos__IPCFrame__InvokeMethod m =
	    PERFETTO__PROTOS__IPCFRAME__INVOKE_METHOD__INIT;
	struct client_req *r = NULL;

	if (!(flags & IPC_INVOKE_DROP_REPLY)) {
		if ((r = calloc(1, sizeof(*r))) == NULL)
			return 0;
		r->on_reply = on_reply;
		r->arg = arg;
	}
	f.msg_case = PERFETTO__PROTOS__IPCFRAME__MSG_MSG_INVOKE_METHOD;
	f.msg_invoke_method = &m;
	m.has_service_id = m.has_method_id = m.has_args_proto = 1;
	m.service_id = service_id;
	m.method_id = method_id;
	m.args_proto.data = (uint8_t *)(uintptr_t)args;
	m.args_proto.len = len;
	m.has_drop_reply = 1;
	m.drop_reply = (flags & IPC_INVOKE_DROP_REPLY) != 0;
	return client_send(c, &f, fd, r);
}

uint64_t
ipc_client_invoke_msg(struct ipc_client *c, uint32_t service_id,
    uint32_t method_id, const ProtobufCMessage *args, int fd, int flags,
    ipc_result_fn *on_reply, void *arg)
{
	uint8_t stackbuf[512], *buf = stackbuf;
	uint64_t id;
	size_t len;

	len = protobuf_c_message_get_packed_size(args);
	if (len > sizeof(stackbuf) && (buf = malloc(len)) == NULL)
		return 0;
	protobuf_c_message_pack(args, buf);
	id = ipc_client_invoke(c, service_id, method_id, buf, len, fd, flags,
	    on_reply, arg);
	if (buf != stackbuf)
		free(buf);
	return id;
}

void
ipc_client_cancel(struct ipc_client *c, uint64_t request_id)
{
	struct client_req *r;

	TAILQ_FOREACH(r, &c->reqs, entry) {
		if (r->id == request_id) {
			TAILQ_REMOVE(&c->reqs, r, entry);
			req_free(r);
			return;
		}
	}
}

int
ipc_result_take_fd(struct ipc_result *res)
{
	int fd = res->fd;

	res->fd = -1;
	return fd;
}

/* Runs a request's callback with a failure. 1 if the client was freed. */
static int
client_fail(struct ipc_client *c, struct client_req *r, const char *why)
{
	struct ipc_result res;

	c->depth++;
	if (r->bind) {
		if (r->on_bind != NULL)
			r->on_bind(c, NULL, r->arg);
	} else if (r->on_reply != NULL) {
		memset(&res, 0, sizeof(res));
		res.fd = -1;
		res.error = why;
		r->on_reply(c, &res, r->arg);
	}
	req_free(r);
	return client_leave(c);
}

static struct client_binding *
client_binding_new_untrusted(const char *service,
    const Perfetto__Protos__IPCFrame__BindServiceReply *rep)
{
	struct client_binding *cb;
	size_t i, n = 0;

	if ((cb = calloc(1, sizeof(*cb))) == NULL ||
	    (cb->b.methods = calloc(rep->n_methods + 1,
	    sizeof(*cb->b.methods))) == NULL ||
	    (cb->b.service_name = strdup(service)) == NULL)
		goto fail;
	cb->b.service_id = rep->service_id;
	for (i = 0; i < rep->n_methods; i++) {
		const Perfetto__Protos__IPCFrame__BindServiceReply__MethodInfo
		    *mi = rep->methods[i];

		/* Nameless or id-less entries cannot be invoked: skip them. */
		if (mi->name == NULL || mi->name[0] == '\0' || !mi->has_id ||
		    mi->id == 0)
			continue;
		if ((cb->b.methods[n].name = strdup(mi->name)) == NULL)
			goto fail;
		cb->b.methods[n].id = mi->id;
		cb->b.nmethods = ++n;
	}
	return cb;
fail:
	if (cb != NULL && cb->b.methods != NULL)
		binding_free(cb);
	else
		free(cb);
	return NULL;
}

static void
client_frame(struct ipc_conn *conn, struct ipc_frame_in *in, void *arg)
{
	struct ipc_client *c = arg;
	const ipc_frame_t *f = in->msg;
	const Perfetto__Protos__IPCFrame__InvokeMethodReply *rep;
	struct client_binding *cb;
	struct client_req *r;
	struct ipc_result res;

	TAILQ_FOREACH(r, &c->reqs, entry)
		if (r->id == f->request_id)
			break;
	if (r == NULL) {
		log_debug("%s: reply to unknown request %llu", __func__,
		    (unsigned long long)f->request_id);
		ipc_frame_in_free(in);
		return;
	}
	if (f->msg_case == PERFETTO__PROTOS__IPCFRAME__MSG_MSG_BIND_SERVICE_REPLY &&
	    r->bind) {
		TAILQ_REMOVE(&c->reqs, r, entry);
		cb = NULL;
		if (f->msg_bind_service_reply->success &&
		    (cb = client_binding_new_untrusted(r->service,
		    f->msg_bind_service_reply)) != NULL)
			TAILQ_INSERT_TAIL(&c->bindings, cb, entry);
		ipc_frame_in_free(in);
		c->depth++;
		if (r->on_bind != NULL)
			r->on_bind(c, cb != NULL ? &cb->b : NULL, r->arg);
		req_free(r);
		client_leave(c);
		return;
	}
	if (f->msg_case == PERFETTO__PROTOS__IPCFRAME__MSG_MSG_INVOKE_METHOD_REPLY &&
	    !r->bind) {
		rep = f->msg_invoke_method_reply;
		memset(&res, 0, sizeof(res));
		res.success = rep->success;
		res.has_more = rep->success && rep->has_more;
		if (rep->has_reply_proto) {
			res.data = rep->reply_proto.data;
			res.len = rep->reply_proto.len;
		}
		res.fd = ipc_frame_in_take_fd(in);
		res.error = res.success ? NULL : "the host reported a failure";
		/* A final reply ends the request before the callback runs. */
		if (!res.has_more)
			TAILQ_REMOVE(&c->reqs, r, entry);
		c->depth++;
		if (r->on_reply != NULL)
			r->on_reply(c, &res, r->arg);
		if (res.fd >= 0)
			close(res.fd);
		ipc_frame_in_free(in);
		if (!res.has_more)
			req_free(r);
		client_leave(c);
		return;
	}
	/* RequestError, or a reply of the wrong kind: the request failed. */
	TAILQ_REMOVE(&c->reqs, r, entry);
	if (f->msg_case == PERFETTO__PROTOS__IPCFRAME__MSG_MSG_REQUEST_ERROR)
		log_debug("%s: host error: %s", __func__,
		    f->msg_request_error->error != NULL ?
		    f->msg_request_error->error : "");
	ipc_frame_in_free(in);
	client_fail(c, r, "request error");
}

static void
client_closed(struct ipc_conn *conn, const char *why, void *arg)
{
	struct ipc_client *c = arg;
	struct client_req *r;

	c->state = CLIENT_DEAD;
	log_debug("%s: %s: %s", __func__, c->path, why);
	if (c->err[0] == '\0')
		snprintf(c->err, sizeof(c->err), "%s", why);
	/* Every pending request fails, then the owner hears of it. */
	while ((r = TAILQ_FIRST(&c->reqs)) != NULL) {
		TAILQ_REMOVE(&c->reqs, r, entry);
		if (client_fail(c, r, why))
			return;
	}
	c->depth++;
	c->on_event(c, IPC_CLIENT_DISCONNECTED, c->arg);
	client_leave(c);
}
