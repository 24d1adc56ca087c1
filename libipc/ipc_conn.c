/* A framed IPC connection on libevent; see ipc_conn.h. */
#include "config.h"

#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/event.h>

#include "ipc_conn.h"
#include "base/log.h"

/* Reads per readable event, so one busy peer cannot starve the rest. */
#define CONN_READS_PER_EVENT	16
#define CONN_IOV_MAX		16

/* Descriptors to send with the frame at stream offsets [start, end). */
struct conn_fdmark {
	TAILQ_ENTRY(conn_fdmark) entry;
	uint64_t	 start, end;
	int		 fds[IPC_FRAME_FDS_MAX];
	size_t		 nfds;
};

struct ipc_conn {
	struct event_base	*base;
	int			 fd;
	struct event		*ev_read;
	struct event		*ev_write;
	struct event		*ev_close;
	struct ipc_frame_rx	 rx;
	struct evbuffer		*out;
	uint64_t		 out_pos;	/* stream offset of out[0] */
	uint64_t		 out_end;	/* stream offset after out */
	TAILQ_HEAD(, conn_fdmark) marks;
	size_t			 outq_max;
	ipc_conn_frame_fn	*on_frame;
	ipc_conn_close_fn	*on_close;
	void			*arg;
	const char		*why;		/* set once dead */
	enum ipc_conn_end	 end;
	int			 reading;	/* inside conn_read */
	int			 free_pending;
	int			 peer_gone;	/* writes fail: output dropped */
	int			 hold;		/* ipc_conn_hold depth */
};

static void	conn_read(evutil_socket_t, short, void *);
static void	conn_write(evutil_socket_t, short, void *);
static void	conn_closed(evutil_socket_t, short, void *);
static void	conn_flush(struct ipc_conn *);

static void
conn_marks_free(struct ipc_conn *c)
{
	struct conn_fdmark *m;
	size_t i;

	while ((m = TAILQ_FIRST(&c->marks)) != NULL) {
		TAILQ_REMOVE(&c->marks, m, entry);
		for (i = 0; i < m->nfds; i++)
			close(m->fds[i]);
		free(m);
	}
}

struct ipc_conn *
ipc_conn_new(struct event_base *base, int fd, size_t outq_max,
    ipc_conn_frame_fn *on_frame, ipc_conn_close_fn *on_close, void *arg)
{
	struct ipc_conn *c;

	if ((c = calloc(1, sizeof(*c))) == NULL)
		return NULL;
	c->base = base;
	c->fd = -1;
	c->outq_max = outq_max;
	c->on_frame = on_frame;
	c->on_close = on_close;
	c->arg = arg;
	TAILQ_INIT(&c->marks);
	ipc_frame_rx_init(&c->rx, IPC_FRAME_MAX);
	c->out = evbuffer_new();
	c->ev_close = event_new(base, -1, 0, conn_closed, c);
	if (c->out == NULL || c->ev_close == NULL) {
		ipc_conn_free(c);
		return NULL;
	}
	if (fd >= 0 && ipc_conn_set_fd(c, fd) == -1) {
		c->fd = -1;	/* the caller keeps fd on failure */
		ipc_conn_free(c);
		return NULL;
	}
	return c;
}

int
ipc_conn_set_fd(struct ipc_conn *c, int fd)
{
	int fl;

	if ((fl = fcntl(fd, F_GETFL)) == -1 ||
	    fcntl(fd, F_SETFL, fl | O_NONBLOCK) == -1)
		return -1;
	c->ev_read = event_new(c->base, fd, EV_READ | EV_PERSIST, conn_read, c);
	c->ev_write = event_new(c->base, fd, EV_WRITE | EV_PERSIST,
	    conn_write, c);
	if (c->ev_read == NULL || c->ev_write == NULL ||
	    event_add(c->ev_read, NULL) == -1) {
		if (c->ev_read)
			event_free(c->ev_read);
		if (c->ev_write)
			event_free(c->ev_write);
		c->ev_read = c->ev_write = NULL;
		return -1;
	}
	c->fd = fd;
	conn_flush(c);
	return 0;
}

void
ipc_conn_free(struct ipc_conn *c)
{
	if (c == NULL)
		return;
	if (c->reading) {
		/* conn_read is on the stack; it frees once it unwinds. */
		c->free_pending = 1;
		if (c->why == NULL)
			c->why = "closed";
		return;
	}
	if (c->ev_read)
		event_free(c->ev_read);
	if (c->ev_write)
		event_free(c->ev_write);
	if (c->ev_close)
		event_free(c->ev_close);
	if (c->fd >= 0)
		close(c->fd);
	ipc_frame_rx_free(&c->rx);
	conn_marks_free(c);
	if (c->out)
		evbuffer_free(c->out);
	free(c);
}

/* Marks the connection dead, remembering how it ended. */
static void
conn_end(struct ipc_conn *c, enum ipc_conn_end end, const char *why)
{
	if (c->why == NULL)
		c->end = end;
	ipc_conn_shutdown(c, why);
}

void
ipc_conn_shutdown(struct ipc_conn *c, const char *why)
{
	if (c->why != NULL)
		return;
	if (c->end == IPC_CONN_OPEN)
		c->end = IPC_CONN_CLOSED;
	c->why = why;
	if (c->ev_read)
		event_del(c->ev_read);
	if (c->ev_write)
		event_del(c->ev_write);
	/* Drop queued output now: the peer will never get it. */
	evbuffer_drain(c->out, evbuffer_get_length(c->out));
	conn_marks_free(c);
	event_active(c->ev_close, 0, 0);
}

int
ipc_conn_dead(const struct ipc_conn *c)
{
	return c->why != NULL;
}

enum ipc_conn_end
ipc_conn_end(const struct ipc_conn *c)
{
	return c->end;
}

size_t
ipc_conn_backlog(const struct ipc_conn *c)
{
	return evbuffer_get_length(c->out);
}

int
ipc_conn_fd(const struct ipc_conn *c)
{
	return c->fd;
}

static void
conn_closed(evutil_socket_t fd, short ev, void *arg)
{
	struct ipc_conn *c = arg;

	c->on_close(c, c->why, c->arg);
}

static void
conn_buf_free(const void *data, size_t len, void *extra)
{
	free((void *)(uintptr_t)data);
}

int
ipc_conn_send(struct ipc_conn *c, const ipc_frame_t *msg, const int *fds,
    size_t nfds, const char **cause)
{
	struct conn_fdmark *m = NULL;
	uint8_t *buf;
	size_t len, i;

	if (c->why != NULL) {
		*cause = "connection closed";
		return -1;
	}
	if (c->peer_gone)
		return 0;	/* nobody to read it; the end is near */
	if (nfds > IPC_FRAME_FDS_MAX) {
		*cause = "too many file descriptors";
		return -1;
	}
	if ((len = ipc_frame_encode(msg, &buf, cause)) == 0)
		return -1;
	if (evbuffer_get_length(c->out) + len > c->outq_max) {
		free(buf);
		*cause = "output backlog over the limit";
		log_warnx("%s: peer not reading, %zu bytes queued: disconnecting",
		    __func__, evbuffer_get_length(c->out));
		conn_end(c, IPC_CONN_BACKLOG, *cause);
		return -1;
	}
	if (nfds > 0) {
		if ((m = calloc(1, sizeof(*m))) == NULL)
			goto nomem;
		for (i = 0; i < nfds; i++) {
			m->fds[i] = fcntl(fds[i], F_DUPFD_CLOEXEC, 3);
			if (m->fds[i] == -1) {
				*cause = "cannot duplicate the descriptor";
				m->nfds = i;
				goto fail;
			}
		}
		m->nfds = nfds;
		m->start = c->out_end;
		m->end = c->out_end + len;
	}
	if (evbuffer_add_reference(c->out, buf, len, conn_buf_free, NULL) == -1)
		goto nomem;
	c->out_end += len;
	if (m != NULL)
		TAILQ_INSERT_TAIL(&c->marks, m, entry);
	/* With output already waiting, ev_write is armed: no EAGAIN probe. */
	if (evbuffer_get_length(c->out) == len && c->hold == 0)
		conn_flush(c);
	return 0;
nomem:
	*cause = "out of memory";
fail:
	if (m != NULL) {
		for (i = 0; i < m->nfds; i++)
			close(m->fds[i]);
		free(m);
	}
	free(buf);
	return -1;
}

void
ipc_conn_hold(struct ipc_conn *c, int on)
{
	if (on) {
		c->hold++;
		return;
	}
	if (c->hold > 0 && --c->hold == 0 && evbuffer_get_length(c->out) > 0)
		conn_flush(c);
}

/*
 * The peer hung up while we were writing. What it sent before is still in
 * our receive queue: keep reading until the end of it (a producer's last
 * commits), and drop the output nobody will read.
 */
static void
conn_peer_gone(struct ipc_conn *c)
{
	c->peer_gone = 1;
	evbuffer_drain(c->out, evbuffer_get_length(c->out));
	conn_marks_free(c);
	event_del(c->ev_write);
}

/* Writes what the socket takes now; arms ev_write for the rest. */
static void
conn_flush(struct ipc_conn *c)
{
	union {
		struct cmsghdr	hdr;
		char		buf[CMSG_SPACE(IPC_FRAME_FDS_MAX * sizeof(int))];
	} cmsg;
	struct evbuffer_iovec vec[CONN_IOV_MAX];
	struct iovec iov[CONN_IOV_MAX];
	struct conn_fdmark *m;
	struct msghdr msg;
	struct cmsghdr *ch;
	size_t limit, left, i;
	ssize_t n;
	int nvec, withfds;

	if (c->fd < 0 || c->why != NULL || c->peer_gone)
		return;
	while ((left = evbuffer_get_length(c->out)) > 0) {
		m = TAILQ_FIRST(&c->marks);
		limit = left;
		withfds = 0;
		if (m != NULL && m->start == c->out_pos) {
			/* This sendmsg carries the frame's first byte. */
			withfds = 1;
			if (m->end - c->out_pos < limit)
				limit = m->end - c->out_pos;
		} else if (m != NULL && m->start - c->out_pos < limit)
			limit = m->start - c->out_pos;

		nvec = evbuffer_peek(c->out, limit, NULL, vec, CONN_IOV_MAX);
		if (nvec > CONN_IOV_MAX)
			nvec = CONN_IOV_MAX;
		for (i = 0, left = limit; i < (size_t)nvec && left > 0; i++) {
			iov[i].iov_base = vec[i].iov_base;
			iov[i].iov_len = vec[i].iov_len < left ?
			    vec[i].iov_len : left;
			left -= iov[i].iov_len;
		}
		memset(&msg, 0, sizeof(msg));
		msg.msg_iov = iov;
		msg.msg_iovlen = i;
		if (withfds) {
			memset(&cmsg, 0, sizeof(cmsg));
			msg.msg_control = cmsg.buf;
			msg.msg_controllen = CMSG_SPACE(m->nfds * sizeof(int));
			ch = CMSG_FIRSTHDR(&msg);
			ch->cmsg_level = SOL_SOCKET;
			ch->cmsg_type = SCM_RIGHTS;
			ch->cmsg_len = CMSG_LEN(m->nfds * sizeof(int));
			memcpy(CMSG_DATA(ch), m->fds, m->nfds * sizeof(int));
		}
		n = sendmsg(c->fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n == -1) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				break;
			if (errno == EPIPE || errno == ECONNRESET) {
				conn_peer_gone(c);
				return;
			}
			log_debug("%s: sendmsg: %s", __func__, strerror(errno));
			conn_end(c, IPC_CONN_IO, "write error");
			return;
		}
		evbuffer_drain(c->out, (size_t)n);
		c->out_pos += (uint64_t)n;
		if (withfds && n > 0) {
			/* The kernel now holds its own references. */
			TAILQ_REMOVE(&c->marks, m, entry);
			for (i = 0; i < m->nfds; i++)
				close(m->fds[i]);
			free(m);
		}
	}
	if (evbuffer_get_length(c->out) > 0)
		event_add(c->ev_write, NULL);
	else
		event_del(c->ev_write);
}

static void
conn_write(evutil_socket_t fd, short ev, void *arg)
{
	conn_flush(arg);
}

/*
 * One recvmsg into the receiver. Returns bytes read, 0 on EOF, -1 on
 * error, -2 if nothing is there, -3 if the peer broke the protocol;
 * *drained when the read did not fill the
 * space, i.e. the socket is most likely empty now.
 */
static ssize_t
conn_recv(struct ipc_conn *c, const char **why, int *drained)
{
	union {
		struct cmsghdr	hdr;
		char		buf[CMSG_SPACE(IPC_FRAME_FDS_MAX * sizeof(int))];
	} cmsg;
	int fds[IPC_FRAME_FDS_MAX];
	struct cmsghdr *ch;
	struct msghdr msg;
	struct iovec iov;
	size_t avail, nfds = 0, k, i;
	ssize_t n;
	void *dst;

	if ((dst = ipc_frame_rx_space(&c->rx, &avail)) == NULL) {
		*why = "out of memory";
		return -1;
	}
	iov.iov_base = dst;
	iov.iov_len = avail;
	memset(&msg, 0, sizeof(msg));
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = cmsg.buf;
	msg.msg_controllen = sizeof(cmsg.buf);
	do {
		n = recvmsg(c->fd, &msg, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
	} while (n == -1 && errno == EINTR);
	if (n == -1) {
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return -2;
		*why = "read error";
		return -1;
	}
	for (ch = CMSG_FIRSTHDR(&msg); ch != NULL; ch = CMSG_NXTHDR(&msg, ch)) {
		if (ch->cmsg_level != SOL_SOCKET || ch->cmsg_type != SCM_RIGHTS)
			continue;
		k = (ch->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < k; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(ch) + i * sizeof(int), sizeof(fd));
			if (nfds < IPC_FRAME_FDS_MAX)
				fds[nfds++] = fd;
			else
				close(fd);
		}
	}
	if (msg.msg_flags & MSG_CTRUNC) {
		for (i = 0; i < nfds; i++)
			close(fds[i]);
		*why = "too many file descriptors";
		return -3;
	}
	if (ipc_frame_rx_commit(&c->rx, (size_t)n, fds, nfds, why) == -1)
		return -3;
	*drained = (size_t)n < avail;
	return n;
}

static void
conn_read(evutil_socket_t fd, short ev, void *arg)
{
	struct ipc_conn *c = arg;
	struct ipc_frame_in in;
	const char *why = NULL;
	ssize_t n;
	int i, r, drained = 0;

	c->reading = 1;
	for (i = 0; i < CONN_READS_PER_EVENT && c->why == NULL; i++) {
		n = conn_recv(c, &why, &drained);
		if (n == -2)
			break;
		if (n == 0) {
			why = c->rx.len > c->rx.off || c->rx.nfds > 0 ?
			    "peer closed the connection mid-frame" :
			    "peer closed the connection";
			ipc_conn_shutdown(c, why);
			break;
		}
		if (n < 0) {
			log_warnx("%s: fd %d: %s: disconnecting", __func__,
			    c->fd, why);
			conn_end(c, n == -3 ? IPC_CONN_PROTOCOL : IPC_CONN_IO,
			    why);
			break;
		}
		while (c->why == NULL && !c->free_pending) {
			r = ipc_frame_rx_pop_untrusted(&c->rx, &in, &why);
			if (r == 0)
				break;
			if (r == -1) {
				log_warnx("%s: fd %d: %s: disconnecting",
				    __func__, c->fd, why);
				conn_end(c, IPC_CONN_PROTOCOL, why);
				break;
			}
			c->on_frame(c, &in, c->arg);
		}
		/* Level-triggered: if more arrives, the event fires again. */
		if (c->free_pending || drained)
			break;
	}
	c->reading = 0;
	if (c->free_pending)
		ipc_conn_free(c);
}
