/* IPC host: listening socket, services and dispatch; see ipc_host.h. */
#include "config.h"

#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "ipc_conn.h"
#include "ipc_host.h"
#include "ipc_sock.h"
#include "base/log.h"

#define HOST_SERVICES_MAX	64

struct host_service {
	TAILQ_ENTRY(host_service) entry;
	uint32_t		 id;
	const char		*name;
	const struct ipc_method	*methods;
	size_t			 nmethods;
	struct ipc_method	*owned;		/* table built by _pbc */
	ipc_disconnect_fn	*on_disconnect;
	void			*arg;
};

struct host_conn {
	TAILQ_ENTRY(host_conn)	 entry;
	struct ipc_host		*host;
	struct ipc_conn		*conn;
	struct ipc_peer		 peer;
	TAILQ_HEAD(, ipc_reply)	 replies;
};

struct ipc_reply {
	TAILQ_ENTRY(ipc_reply)	 entry;
	struct host_conn	*hc;		/* NULL once the client is gone */
	struct ipc_peer		 peer;
	uint64_t		 request_id;
	int			 drop;		/* drop_reply: discard sends */
	int			 done;		/* final reply sent */
};

struct ipc_host {
	struct event_base	*base;
	int			 lfd;
	struct event		*ev_accept;
	struct event		*ev_pause;	/* accept back-off on EMFILE */
	TAILQ_HEAD(, host_service) services;
	TAILQ_HEAD(, host_conn)	 conns;
	size_t			 nconns;
	size_t			 conns_max;
	size_t			 outq_max;
	uint32_t		 last_service_id;
	uint64_t		 last_conn_id;
	struct ipc_host_stats	 stats;
	char			 err[256];
};

static void	host_accept(evutil_socket_t, short, void *);
static void	host_frame(struct ipc_conn *, struct ipc_frame_in *, void *);
static void	host_closed(struct ipc_conn *, const char *, void *);

static int	host_error(struct ipc_host *, int, const char *, ...)
		    __attribute__((format(printf, 3, 4)));

static int
host_error(struct ipc_host *h, int errnum, const char *fmt, ...)
{
	va_list ap;
	size_t n;

	va_start(ap, fmt);
	vsnprintf(h->err, sizeof(h->err), fmt, ap);
	va_end(ap);
	if (errnum != 0) {
		n = strlen(h->err);
		snprintf(h->err + n, sizeof(h->err) - n, ": %s",
		    strerror(errnum));
	}
	errno = errnum;
	return -1;
}

struct ipc_host *
ipc_host_new(struct event_base *base)
{
	struct ipc_host *h;

	if ((h = calloc(1, sizeof(*h))) == NULL)
		return NULL;
	h->base = base;
	h->lfd = -1;
	h->conns_max = IPC_HOST_CONNS_MAX;
	h->outq_max = IPC_HOST_OUTQ_MAX;
	TAILQ_INIT(&h->services);
	TAILQ_INIT(&h->conns);
	return h;
}

static void
host_conn_free(struct host_conn *hc)
{
	struct ipc_reply *r;

	while ((r = TAILQ_FIRST(&hc->replies)) != NULL) {
		TAILQ_REMOVE(&hc->replies, r, entry);
		r->hc = NULL;
	}
	TAILQ_REMOVE(&hc->host->conns, hc, entry);
	hc->host->nconns--;
	ipc_conn_free(hc->conn);
	free(hc);
}

void
ipc_host_free(struct ipc_host *h)
{
	struct host_service *s;

	if (h == NULL)
		return;
	while (!TAILQ_EMPTY(&h->conns))
		host_conn_free(TAILQ_FIRST(&h->conns));
	while ((s = TAILQ_FIRST(&h->services)) != NULL) {
		TAILQ_REMOVE(&h->services, s, entry);
		free(s->owned);
		free(s);
	}
	if (h->ev_accept)
		event_free(h->ev_accept);
	if (h->ev_pause)
		event_free(h->ev_pause);
	if (h->lfd >= 0)
		close(h->lfd);
	free(h);
}

const char *
ipc_host_strerror(const struct ipc_host *h)
{
	return h->err;
}

static void
host_unpause(evutil_socket_t fd, short ev, void *arg)
{
	struct ipc_host *h = arg;

	event_add(h->ev_accept, NULL);
}

static int
host_start(struct ipc_host *h, int lfd)
{
	int fl;

	if (h->lfd >= 0)
		return host_error(h, EBUSY, "%s: already listening", __func__);
	if ((fl = fcntl(lfd, F_GETFL)) == -1 ||
	    fcntl(lfd, F_SETFL, fl | O_NONBLOCK) == -1 ||
	    fcntl(lfd, F_SETFD, FD_CLOEXEC) == -1)
		return host_error(h, errno, "%s: fcntl", __func__);
	h->ev_accept = event_new(h->base, lfd, EV_READ | EV_PERSIST,
	    host_accept, h);
	h->ev_pause = evtimer_new(h->base, host_unpause, h);
	if (h->ev_accept == NULL || h->ev_pause == NULL ||
	    event_add(h->ev_accept, NULL) == -1)
		return host_error(h, ENOMEM, "%s: event", __func__);
	h->lfd = lfd;
	return 0;
}

int
ipc_host_adopt(struct ipc_host *h, int lfd)
{
	int type, acc;
	socklen_t len;

	len = sizeof(type);
	if (getsockopt(lfd, SOL_SOCKET, SO_TYPE, &type, &len) == -1)
		return host_error(h, errno, "%s: fd %d", __func__, lfd);
	len = sizeof(acc);
	if (type != SOCK_STREAM ||
	    getsockopt(lfd, SOL_SOCKET, SO_ACCEPTCONN, &acc, &len) == -1 ||
	    !acc)
		return host_error(h, EINVAL,
		    "%s: fd %d is not a listening stream socket", __func__, lfd);
	return host_start(h, lfd);
}

int
ipc_host_listen(struct ipc_host *h, const char *path, mode_t mode,
    const char *group)
{
	struct sockaddr_un sun;
	socklen_t slen;
	struct group *gr = NULL;
	const char *cause;
	mode_t omask;
	int fd, r;

	if (group != NULL && (gr = getgrnam(group)) == NULL)
		return host_error(h, 0, "%s: unknown group %s", __func__, group);
	if (ipc_sock_addr(path, &sun, &slen, &cause) == -1)
		return host_error(h, EINVAL, "%s: %s: %s", __func__, path,
		    cause);
	if (path[0] != '@' && ipc_sock_prepare_path(path, &cause) == -1)
		return host_error(h, errno, "%s: %s: %s", __func__, path,
		    cause);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		return host_error(h, errno, "%s: socket", __func__);
	/*
	 * Born with no permissions, so nobody can connect before the group
	 * and mode are in place (the umask is process-wide: call this
	 * during setup, before other threads start).
	 */
	omask = umask(0777);
	r = bind(fd, (struct sockaddr *)&sun, slen);
	umask(omask);
	if (r == -1) {
		host_error(h, errno, "%s: bind %s", __func__, path);
		goto fail;
	}
	if (listen(fd, SOMAXCONN) == -1) {
		host_error(h, errno, "%s: listen %s", __func__, path);
		goto fail_unlink;
	}
	/*
	 * The mode comes last: a client waiting on inotify for the socket
	 * (ours, upstream's) tries again on this change, and finds it
	 * accepting.
	 */
	if (path[0] != '@') {
		if (gr != NULL && chown(path, (uid_t)-1, gr->gr_gid) == -1) {
			host_error(h, errno, "%s: chown %s", __func__, path);
			goto fail_unlink;
		}
		if (chmod(path, mode) == -1) {
			host_error(h, errno, "%s: chmod %s", __func__, path);
			goto fail_unlink;
		}
	}
	if (host_start(h, fd) == -1)
		goto fail_unlink;
	log_debug("%s: listening on %s", __func__, path);
	return 0;
fail_unlink:
	if (path[0] != '@')
		unlink(path);
fail:
	close(fd);
	return -1;
}

void
ipc_host_set_outq_max(struct ipc_host *h, size_t bytes)
{
	h->outq_max = bytes;
}

void
ipc_host_set_conns_max(struct ipc_host *h, size_t n)
{
	h->conns_max = n;
}

size_t
ipc_host_nconns(const struct ipc_host *h)
{
	return h->nconns;
}

void
ipc_host_stats(const struct ipc_host *h, struct ipc_host_stats *st)
{
	*st = h->stats;
}

int
ipc_host_disconnect(struct ipc_host *h, uint64_t conn_id, const char *why)
{
	struct host_conn *hc;

	TAILQ_FOREACH(hc, &h->conns, entry) {
		if (hc->peer.conn_id == conn_id) {
			log_info("%s: conn %llu pid %d: %s", __func__,
			    (unsigned long long)conn_id, (int)hc->peer.pid, why);
			ipc_conn_shutdown(hc->conn, why);
			return 0;
		}
	}
	return -1;
}

static void
host_accept(evutil_socket_t lfd, short ev, void *arg)
{
	struct ipc_host *h = arg;
	struct timeval tv = { 1, 0 };
	struct host_conn *hc;
	struct ucred cred;
	socklen_t len;
	int fd;

	if ((fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK)) ==
	    -1) {
		if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
		    errno == ENOMEM) {
			/* Out of descriptors: stop spinning for a second. */
			log_warn("%s: accept", __func__);
			event_del(h->ev_accept);
			evtimer_add(h->ev_pause, &tv);
		} else if (errno != EAGAIN && errno != EINTR &&
		    errno != ECONNABORTED)
			log_warn("%s: accept", __func__);
		return;
	}
	len = sizeof(cred);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == -1) {
		log_warn("%s: SO_PEERCRED", __func__);
		close(fd);
		return;
	}
	if (h->nconns >= h->conns_max) {
		h->stats.conns_refused++;
		log_warnx("%s: %zu connections already, refusing pid %d uid %u",
		    __func__, h->nconns, (int)cred.pid, (unsigned)cred.uid);
		close(fd);
		return;
	}
	if ((hc = calloc(1, sizeof(*hc))) == NULL) {
		close(fd);
		return;
	}
	hc->host = h;
	TAILQ_INIT(&hc->replies);
	hc->peer.conn_id = ++h->last_conn_id;
	hc->peer.uid = cred.uid;
	hc->peer.gid = cred.gid;
	hc->peer.pid = cred.pid;
	hc->conn = ipc_conn_new(h->base, fd, h->outq_max, host_frame,
	    host_closed, hc);
	if (hc->conn == NULL) {
		log_warnx("%s: out of memory", __func__);
		close(fd);
		free(hc);
		return;
	}
	TAILQ_INSERT_TAIL(&h->conns, hc, entry);
	h->nconns++;
	h->stats.conns_accepted++;
	log_debug("%s: conn %llu pid %d uid %u", __func__,
	    (unsigned long long)hc->peer.conn_id, (int)cred.pid,
	    (unsigned)cred.uid);
}

static void
host_closed(struct ipc_conn *conn, const char *why, void *arg)
{
	struct host_conn *hc = arg;
	struct ipc_host *h = hc->host;
	struct host_service *s;
	struct ipc_peer peer = hc->peer;

	log_debug("%s: conn %llu pid %d: %s", __func__,
	    (unsigned long long)peer.conn_id, (int)peer.pid, why);
	if (ipc_conn_end(conn) == IPC_CONN_PROTOCOL)
		h->stats.protocol_errors++;
	else if (ipc_conn_end(conn) == IPC_CONN_BACKLOG)
		h->stats.backlog_drops++;
	host_conn_free(hc);
	/* Services learn about it last, when nothing refers to the conn. */
	TAILQ_FOREACH(s, &h->services, entry)
		if (s->on_disconnect != NULL)
			s->on_disconnect(&peer, s->arg);
}

/* Sends a frame on hc, logging failures (the conn handles its fate). */
static int
host_send(struct host_conn *hc, ipc_frame_t *f, int fd)
{
	const char *cause;

	if (ipc_conn_send(hc->conn, f, fd >= 0 ? &fd : NULL, fd >= 0 ? 1 : 0,
	    &cause) == -1) {
		log_debug("%s: conn %llu: %s", __func__,
		    (unsigned long long)hc->peer.conn_id, cause);
		return -1;
	}
	return 0;
}

static struct host_service *
host_service_by_id(struct ipc_host *h, uint32_t id)
{
	struct host_service *s;

	TAILQ_FOREACH(s, &h->services, entry)
		if (s->id == id)
			return s;
	return NULL;
}

static struct host_service *
host_service_by_name(struct ipc_host *h, const char *name)
{
	struct host_service *s;

	TAILQ_FOREACH(s, &h->services, entry)
		if (strcmp(s->name, name) == 0)
			return s;
	return NULL;
}

static void
host_bind_untrusted(struct host_conn *hc, const ipc_frame_t *req)
{
	Perfetto__Protos__IPCFrame f = PERFETTO__PROTOS__IPCFRAME__INIT;
	Perfetto__Protos__IPCFrame__BindServiceReply rep =
	    PERFETTO__PROTOS__IPCFRAME__BIND_SERVICE_REPLY__INIT;
	Perfetto__Protos__IPCFrame__BindServiceReply__MethodInfo *mi = NULL;
	Perfetto__Protos__IPCFrame__BindServiceReply__MethodInfo **mp = NULL;
	const char *name = req->msg_bind_service->service_name;
	struct host_service *s;
	size_t i;

	f.has_request_id = 1;
	f.request_id = req->request_id;
	f.msg_case = PERFETTO__PROTOS__IPCFRAME__MSG_MSG_BIND_SERVICE_REPLY;
	f.msg_bind_service_reply = &rep;
	rep.has_success = 1;
	s = name != NULL ? host_service_by_name(hc->host, name) : NULL;
	if (s == NULL) {
		log_debug("%s: conn %llu: unknown service %s", __func__,
		    (unsigned long long)hc->peer.conn_id,
		    name != NULL ? name : "(none)");
		host_send(hc, &f, -1);
		return;
	}
	mi = calloc(s->nmethods, sizeof(*mi));
	mp = calloc(s->nmethods, sizeof(*mp));
	if (s->nmethods > 0 && (mi == NULL || mp == NULL)) {
		host_send(hc, &f, -1);	/* success = false */
		goto out;
	}
	for (i = 0; i < s->nmethods; i++) {
		perfetto__protos__ipcframe__bind_service_reply__method_info__init(
		    &mi[i]);
		mi[i].has_id = 1;
		mi[i].id = (uint32_t)i + 1;
		mi[i].name = (char *)(uintptr_t)s->methods[i].name;
		mp[i] = &mi[i];
	}
	rep.success = 1;
	rep.has_service_id = 1;
	rep.service_id = s->id;
	rep.n_methods = s->nmethods;
	rep.methods = mp;
	host_send(hc, &f, -1);
out:
	free(mi);
	free(mp);
}

static void
host_reply_release(struct ipc_reply *r)
{
	if (r->hc != NULL)
		TAILQ_REMOVE(&r->hc->replies, r, entry);
	free(r);
}

/* Sends InvokeMethodReply; has_data = 0 for a failure. */
static int
host_reply(struct host_conn *hc, uint64_t request_id, int success,
    int has_more, const void *data, size_t len, int fd)
{
	Perfetto__Protos__IPCFrame f = PERFETTO__PROTOS__IPCFRAME__INIT;
	Perfetto__Protos__IPCFrame__InvokeMethodReply rep =
	    PERFETTO__PROTOS__IPCFRAME__INVOKE_METHOD_REPLY__INIT;

	f.has_request_id = 1;
	f.request_id = request_id;
	f.msg_case = PERFETTO__PROTOS__IPCFRAME__MSG_MSG_INVOKE_METHOD_REPLY;
	f.msg_invoke_method_reply = &rep;
	rep.has_success = 1;
	rep.success = success != 0;
	rep.has_has_more = 1;
	rep.has_more = has_more != 0;
	if (success) {
		rep.has_reply_proto = 1;
		rep.reply_proto.data = (uint8_t *)(uintptr_t)data;
		rep.reply_proto.len = len;
	}
	return host_send(hc, &f, fd);
}

static void
host_invoke_untrusted(struct host_conn *hc, struct ipc_frame_in *in)
{
	const Perfetto__Protos__IPCFrame__InvokeMethod *req =
	    in->msg->msg_invoke_method;
	struct host_service *s;
	struct ipc_reply *r;
	struct ipc_call call;
	uint64_t request_id = in->msg->request_id;

	s = host_service_by_id(hc->host, req->service_id);
	if (s == NULL || req->method_id == 0 || req->method_id > s->nmethods ||
	    s->methods[req->method_id - 1].fn == NULL) {
		/* What upstream does: a failed reply, not RequestError. */
		hc->host->stats.unknown_requests++;
		log_debug("%s: conn %llu: no method %u:%u", __func__,
		    (unsigned long long)hc->peer.conn_id, req->service_id,
		    req->method_id);
		host_reply(hc, request_id, 0, 0, NULL, 0, -1);
		return;
	}
	if ((r = calloc(1, sizeof(*r))) == NULL) {
		host_reply(hc, request_id, 0, 0, NULL, 0, -1);
		return;
	}
	r->hc = hc;
	r->peer = hc->peer;
	r->request_id = request_id;
	r->drop = req->has_drop_reply && req->drop_reply;
	TAILQ_INSERT_TAIL(&hc->replies, r, entry);

	memset(&call, 0, sizeof(call));
	call.peer = &r->peer;
	call.service_id = s->id;
	call.method_id = req->method_id;
	call.args = req->has_args_proto ? req->args_proto.data : NULL;
	call.args_len = req->has_args_proto ? req->args_proto.len : 0;
	call.drop_reply = r->drop;
	call.reply = r;
	call.in = in;
	s->methods[req->method_id - 1].fn(&call, s->arg);
}

static void
host_request_error(struct host_conn *hc, uint64_t request_id, const char *err)
{
	Perfetto__Protos__IPCFrame f = PERFETTO__PROTOS__IPCFRAME__INIT;
	Perfetto__Protos__IPCFrame__RequestError e =
	    PERFETTO__PROTOS__IPCFRAME__REQUEST_ERROR__INIT;

	f.has_request_id = 1;
	f.request_id = request_id;
	f.msg_case = PERFETTO__PROTOS__IPCFRAME__MSG_MSG_REQUEST_ERROR;
	f.msg_request_error = &e;
	e.error = (char *)(uintptr_t)err;
	host_send(hc, &f, -1);
}

static void
host_frame(struct ipc_conn *conn, struct ipc_frame_in *in, void *arg)
{
	struct host_conn *hc = arg;

	hc->host->stats.requests++;
	switch (in->msg->msg_case) {
	case PERFETTO__PROTOS__IPCFRAME__MSG_MSG_BIND_SERVICE:
		host_bind_untrusted(hc, in->msg);
		break;
	case PERFETTO__PROTOS__IPCFRAME__MSG_MSG_INVOKE_METHOD:
		host_invoke_untrusted(hc, in);
		break;
	case PERFETTO__PROTOS__IPCFRAME__MSG_SET_PEER_IDENTITY:
		/* Identity comes from SO_PEERCRED on UNIX sockets, as upstream. */
		log_debug("%s: conn %llu: SetPeerIdentity ignored", __func__,
		    (unsigned long long)hc->peer.conn_id);
		break;
	default:
		hc->host->stats.unknown_requests++;
		host_request_error(hc, in->msg->request_id, "unknown request");
		break;
	}
	/* Descriptors the handler did not take are closed here. */
	ipc_frame_in_free(in);
}

static int
host_add(struct ipc_host *h, const char *name, const struct ipc_method *m,
    size_t n, struct ipc_method *owned, ipc_disconnect_fn *on_disconnect,
    void *arg)
{
	struct host_service *s;
	size_t count = 0;

	TAILQ_FOREACH(s, &h->services, entry)
		count++;
	if (name == NULL || host_service_by_name(h, name) != NULL)
		return host_error(h, EEXIST, "%s: service %s already declared",
		    __func__, name != NULL ? name : "(null)");
	if (count >= HOST_SERVICES_MAX)
		return host_error(h, ENOSPC, "%s: too many services", __func__);
	if ((s = calloc(1, sizeof(*s))) == NULL)
		return host_error(h, ENOMEM, "%s", __func__);
	s->id = ++h->last_service_id;
	s->name = name;
	s->methods = m;
	s->nmethods = n;
	s->owned = owned;
	s->on_disconnect = on_disconnect;
	s->arg = arg;
	TAILQ_INSERT_TAIL(&h->services, s, entry);
	return (int)s->id;
}

int
ipc_host_add_service(struct ipc_host *h, const char *name,
    const struct ipc_method *methods, size_t nmethods,
    ipc_disconnect_fn *on_disconnect, void *arg)
{
	return host_add(h, name, methods, nmethods, NULL, on_disconnect, arg);
}

int
ipc_host_add_service_pbc(struct ipc_host *h,
    const ProtobufCServiceDescriptor *desc, ipc_method_fn *const *handlers,
    ipc_disconnect_fn *on_disconnect, void *arg)
{
	struct ipc_method *m;
	unsigned i;
	int id;

	if ((m = calloc(desc->n_methods + 1, sizeof(*m))) == NULL)
		return host_error(h, ENOMEM, "%s", __func__);
	/* protobuf-c keeps methods in .proto declaration order. */
	for (i = 0; i < desc->n_methods; i++) {
		m[i].name = desc->methods[i].name;
		m[i].fn = handlers != NULL ? handlers[i] : NULL;
	}
	id = host_add(h, desc->short_name, m, desc->n_methods, m,
	    on_disconnect, arg);
	if (id == -1)
		free(m);
	return id;
}

int
ipc_host_add_service_named(struct ipc_host *h,
    const ProtobufCServiceDescriptor *desc, const struct ipc_method *methods,
    size_t n, ipc_disconnect_fn *on_disconnect, void *arg)
{
	ipc_method_fn **handlers;
	size_t i, j;
	int id;

	if ((handlers = calloc(desc->n_methods + 1, sizeof(*handlers))) ==
	    NULL)
		return host_error(h, ENOMEM, "%s", __func__);
	for (i = 0; i < desc->n_methods; i++) {
		for (j = 0; j < n && handlers[i] == NULL; j++)
			if (strcmp(desc->methods[i].name, methods[j].name) == 0)
				handlers[i] = methods[j].fn;
		if (handlers[i] == NULL)
			log_warnx("%s: no handler for %s.%s", __func__,
			    desc->short_name, desc->methods[i].name);
	}
	id = ipc_host_add_service_pbc(h, desc, handlers, on_disconnect, arg);
	free(handlers);
	return id;
}

void *
ipc_call_args_untrusted(struct ipc_call *call,
    const ProtobufCMessageDescriptor *d)
{
	ProtobufCMessage *m;

	m = protobuf_c_message_unpack(d, NULL, call->args_len, call->args);
	if (m == NULL) {
		log_warnx("%s: malformed %s from pid %d", __func__,
		    d->short_name, (int)call->peer->pid);
		ipc_reply_fail(call->reply);
	}
	return m;
}

int
ipc_call_take_fd(struct ipc_call *call)
{
	return ipc_frame_in_take_fd(call->in);
}

int
ipc_reply_send(struct ipc_reply *r, const void *data, size_t len,
    int has_more, int fd)
{
	int rv = 0;

	if (r->hc == NULL || r->done)
		rv = -1;
	else if (!r->drop &&
	    host_reply(r->hc, r->request_id, 1, has_more, data, len, fd) == -1) {
		/*
		 * Too large or the conn died: end the request so the
		 * client is not left waiting (a no-op if it is gone).
		 */
		if (r->hc != NULL && !ipc_conn_dead(r->hc->conn))
			host_reply(r->hc, r->request_id, 0, 0, NULL, 0, -1);
		r->done = 1;
		rv = -1;
	}
	if (!has_more)
		host_reply_release(r);
	return rv;
}

int
ipc_reply_send_msg(struct ipc_reply *r, const ProtobufCMessage *msg,
    int has_more, int fd)
{
	uint8_t stackbuf[512], *buf = stackbuf;
	size_t len;
	int rv;

	len = protobuf_c_message_get_packed_size(msg);
	if (len > sizeof(stackbuf) && (buf = malloc(len)) == NULL) {
		if (!has_more)
			return ipc_reply_fail(r);
		return -1;
	}
	protobuf_c_message_pack(msg, buf);
	rv = ipc_reply_send(r, buf, len, has_more, fd);
	if (buf != stackbuf)
		free(buf);
	return rv;
}

int
ipc_reply_send_empty(struct ipc_reply *r, const ProtobufCMessageDescriptor *d)
{
	ProtobufCMessage m;

	/* Only a message without fields fits in m. */
	if (d->sizeof_message > sizeof(m)) {
		ipc_reply_fail(r);
		return -1;
	}
	protobuf_c_message_init(d, &m);
	return ipc_reply_send_msg(r, &m, 0, -1);
}

int
ipc_reply_fail(struct ipc_reply *r)
{
	int rv = -1;

	if (r->hc != NULL && !r->done && !r->drop)
		rv = host_reply(r->hc, r->request_id, 0, 0, NULL, 0, -1);
	else if (r->hc != NULL && !r->done)
		rv = 0;
	host_reply_release(r);
	return rv;
}

void
ipc_reply_free(struct ipc_reply *r)
{
	if (r != NULL)
		host_reply_release(r);
}

int
ipc_reply_alive(const struct ipc_reply *r)
{
	return r->hc != NULL && !ipc_conn_dead(r->hc->conn);
}

const struct ipc_peer *
ipc_reply_peer(const struct ipc_reply *r)
{
	return &r->peer;
}

void
ipc_reply_hold(struct ipc_reply *r, int on)
{
	if (r->hc != NULL)
		ipc_conn_hold(r->hc->conn, on);
}

size_t
ipc_reply_backlog(const struct ipc_reply *r)
{
	return r->hc != NULL ? ipc_conn_backlog(r->hc->conn) : 0;
}
