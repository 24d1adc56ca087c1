/*
 * Connection limits for the HTTP server: see httpd_conn.h.
 *
 * evhttp (libevent 2.1) has no connection cap and no per-request
 * deadline: its read timeout restarts with every byte, so a peer sending
 * one byte a second holds a connection forever. We make each connection's
 * bufferevent ourselves (evhttp_set_bevcb) and keep a reference to it,
 * watch its input for the end of the headers, and shut the socket down
 * when a deadline passes: evhttp then sees the peer's end of file and
 * frees the connection as for any client that left. Our reference keeps
 * the bufferevent (and so the descriptor, which it closes on free) until
 * we see evhttp has let it go, so a shutdown never reaches a descriptor
 * number that was reused.
 */
#include "config.h"

#include <sys/socket.h>

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>

#include "httpd_conn.h"
#include "base/log.h"

enum conn_phase { PH_IDLE, PH_HEAD, PH_BODY, PH_EXEMPT };

struct conn {
	struct conn		*next;
	struct httpd_conns	*cs;
	struct bufferevent	*bev;		/* our reference */
	struct evbuffer_cb_entry *watch;	/* on the input */
	enum conn_phase		 phase;
	int			 newline;	/* the last byte ended a line */
	int			 doomed;	/* shut down at the next tick */
	uint64_t		 deadline;	/* ms, monotonic */
	uint64_t		 opened;
};

struct httpd_conns {
	struct event_base	*base;
	struct httpd_limits	 lim;
	struct conn		*list;		/* newest first */
	size_t			 n;
	struct event		*tick;
	uint64_t		 timed_out, evicted, refused;
};

void
httpd_limits_init(struct httpd_limits *l)
{
	l->max_conns = HTTPD_MAX_CONNS;
	l->header_ms = HTTPD_HEADER_MS;
	l->body_ms = HTTPD_BODY_MS;
	l->idle_ms = HTTPD_IDLE_MS;
}

static uint64_t
conn_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void
conn_enter(struct conn *c, enum conn_phase ph)
{
	const struct httpd_limits *l = &c->cs->lim;

	c->phase = ph;
	c->newline = 0;
	c->deadline = conn_now_ms() + (ph == PH_HEAD ? l->header_ms :
	    ph == PH_BODY ? l->body_ms : l->idle_ms);
}

/* evhttp has freed its connection: only our reference is left. */
static int
conn_released(struct conn *c)
{
	bufferevent_event_cb ecb;

	bufferevent_getcb(c->bev, NULL, NULL, &ecb, NULL);
	return ecb == NULL;
}

/* The peer is cut off; evhttp frees the connection on the EOF it reads. */
static void
conn_shutdown(struct conn *c)
{
	evutil_socket_t fd = bufferevent_getfd(c->bev);

	if (fd != -1)
		(void)shutdown(fd, SHUT_RDWR);
	c->doomed = 0;
	c->deadline = UINT64_MAX;
}

static void
conn_forget(struct conn *c)
{
	evbuffer_remove_cb_entry(bufferevent_get_input(c->bev), c->watch);
	bufferevent_decref(c->bev);
	free(c);
}

/*
 * Bytes came in: the first one of a request starts its header clock; a
 * blank line ("\n\n" or "\r\n\r\n", as evhttp reads lines) ends the
 * headers. The body is not scanned.
 */
static void
conn_input_untrusted(struct evbuffer *buf, const struct evbuffer_cb_info *info,
    void *arg)
{
	struct conn *c = arg;
	struct evbuffer_ptr pos;
	char tmp[512];
	size_t len, off, n, i;
	ev_ssize_t got;

	if (info->n_added == 0 || c->phase == PH_BODY ||
	    c->phase == PH_EXEMPT)
		return;
	if (c->phase == PH_IDLE)
		conn_enter(c, PH_HEAD);
	len = evbuffer_get_length(buf);
	off = len >= info->n_added ? len - info->n_added : 0;
	while (off < len) {
		if (evbuffer_ptr_set(buf, &pos, off, EVBUFFER_PTR_SET) == -1)
			return;
		n = len - off < sizeof(tmp) ? len - off : sizeof(tmp);
		if ((got = evbuffer_copyout_from(buf, &pos, tmp, n)) <= 0)
			return;
		for (i = 0; i < (size_t)got; i++) {
			if (tmp[i] == '\r')
				continue;
			if (tmp[i] != '\n') {
				c->newline = 0;
				continue;
			}
			if (c->newline) {
				conn_enter(c, PH_BODY);
				return;
			}
			c->newline = 1;
		}
		off += (size_t)got;
	}
}

/* Forgets the connections evhttp has freed (their sockets close). */
static void
conns_reap(struct httpd_conns *cs)
{
	struct conn **pp = &cs->list, *c;

	while ((c = *pp) != NULL) {
		if (conn_released(c)) {
			*pp = c->next;
			cs->n--;
			conn_forget(c);
		} else
			pp = &c->next;
	}
}

static void
conns_tick(evutil_socket_t fd, short ev, void *arg)
{
	struct httpd_conns *cs = arg;
	struct conn *c;
	uint64_t now = conn_now_ms();
	struct timeval tv = { 0, 0 };
	unsigned ms;

	(void)fd;
	(void)ev;
	conns_reap(cs);
	for (c = cs->list; c != NULL; c = c->next) {
		if (c->doomed)
			conn_shutdown(c);
		else if (c->phase != PH_EXEMPT && now >= c->deadline) {
			/* A reply still going out is no idle peer. */
			if (c->phase == PH_IDLE && evbuffer_get_length(
			    bufferevent_get_output(c->bev)) > 0)
				conn_enter(c, PH_IDLE);
			else {
				log_debug("%s: connection %s for %llu ms: "
				    "closed", __func__, c->phase == PH_HEAD ?
				    "sending headers" : c->phase == PH_BODY ?
				    "sending a body" : "idle",
				    (unsigned long long)(now - c->opened));
				cs->timed_out++;
				conn_shutdown(c);
			}
		}
	}
	if (cs->n == 0)
		return;
	/* A quarter of the shortest limit: deadlines are kept to within it. */
	ms = cs->lim.header_ms;
	if (cs->lim.body_ms < ms)
		ms = cs->lim.body_ms;
	if (cs->lim.idle_ms < ms)
		ms = cs->lim.idle_ms;
	ms = ms / 4 < 50 ? 50 : ms / 4 > 1000 ? 1000 : ms / 4;
	tv.tv_sec = ms / 1000;
	tv.tv_usec = (ms % 1000) * 1000;
	evtimer_add(cs->tick, &tv);
}

/* The tick, now rather than later. */
static void
conns_kick(struct httpd_conns *cs)
{
	struct timeval tv = { 0, 0 };

	evtimer_add(cs->tick, &tv);
}

/* At the cap: the oldest connection idle or still in its headers. */
static struct conn *
conns_victim(struct httpd_conns *cs)
{
	struct conn *c, *v = NULL;

	for (c = cs->list; c != NULL; c = c->next)
		if ((c->phase == PH_IDLE && evbuffer_get_length(
		    bufferevent_get_output(c->bev)) == 0) ||
		    c->phase == PH_HEAD)
			if (!c->doomed && c->deadline != UINT64_MAX &&
			    !conn_released(c))
				v = c;
	return v;
}

/* evhttp's new connection: one bufferevent, watched. */
static struct bufferevent *
conns_bev(struct event_base *base, void *arg)
{
	struct httpd_conns *cs = arg;
	struct conn *c, *v;

	if ((c = calloc(1, sizeof(*c))) == NULL)
		return NULL;	/* evhttp makes one itself, untracked */
	if ((c->bev = bufferevent_socket_new(base, -1,
	    BEV_OPT_CLOSE_ON_FREE)) == NULL) {
		free(c);
		return NULL;
	}
	c->cs = cs;
	c->watch = evbuffer_add_cb(bufferevent_get_input(c->bev),
	    conn_input_untrusted, c);
	bufferevent_incref(c->bev);
	c->opened = conn_now_ms();
	conn_enter(c, PH_IDLE);
	/*
	 * Closed ones count no more: a client that opens a connection per
	 * request, faster than the tick, would otherwise fill the cap with
	 * them and be refused (512 requests within a second).
	 */
	if (cs->n >= cs->lim.max_conns)
		conns_reap(cs);
	if (cs->n >= cs->lim.max_conns) {
		if ((v = conns_victim(cs)) != NULL) {
			v->doomed = 1;
			cs->evicted++;
		} else {
			c->doomed = 1;
			cs->refused++;
		}
		conns_kick(cs);
	}
	c->next = cs->list;
	cs->list = c;
	if (cs->n++ == 0)
		conns_kick(cs);
	return c->bev;
}

static struct conn *
conns_find(struct httpd_conns *cs, struct bufferevent *bev)
{
	struct conn *c;

	for (c = cs->list; c != NULL; c = c->next)
		if (c->bev == bev)
			return c;
	return NULL;
}

void
httpd_conns_request_done(struct httpd_conns *cs, struct bufferevent *bev)
{
	struct conn *c = conns_find(cs, bev);

	if (c != NULL && c->phase != PH_EXEMPT && !c->doomed &&
	    c->deadline != UINT64_MAX)
		conn_enter(c, PH_IDLE);
}

void
httpd_conns_exempt(struct httpd_conns *cs, struct bufferevent *bev)
{
	struct conn *c = conns_find(cs, bev);

	if (c != NULL)
		c->phase = PH_EXEMPT;
}

struct httpd_conns *
httpd_conns_new(struct event_base *base, struct evhttp *http,
    const struct httpd_limits *lim)
{
	struct httpd_conns *cs;
	struct timeval tv;

	if ((cs = calloc(1, sizeof(*cs))) == NULL)
		return NULL;
	cs->base = base;
	cs->lim = *lim;
	if (cs->lim.max_conns == 0)
		cs->lim.max_conns = 1;
	if ((cs->tick = evtimer_new(base, conns_tick, cs)) == NULL) {
		free(cs);
		return NULL;
	}
	evhttp_set_bevcb(http, conns_bev, cs);
	/* evhttp's own timeout: a peer that reads nothing of a reply. */
	tv.tv_sec = cs->lim.idle_ms / 1000;
	tv.tv_usec = (cs->lim.idle_ms % 1000) * 1000;
	evhttp_set_timeout_tv(http, &tv);
	return cs;
}

void
httpd_conns_free(struct httpd_conns *cs)
{
	struct conn *c, *next;

	if (cs == NULL)
		return;
	for (c = cs->list; c != NULL; c = next) {
		next = c->next;
		conn_forget(c);
	}
	event_free(cs->tick);
	free(cs);
}

void
httpd_conns_stats(struct httpd_conns *cs, struct httpd_conn_stats *st)
{
	struct conn *c;

	memset(st, 0, sizeof(*st));
	for (c = cs->list; c != NULL; c = c->next)
		if (!conn_released(c))
			st->open++;
	st->timed_out = cs->timed_out;
	st->evicted = cs->evicted;
	st->refused = cs->refused;
}
