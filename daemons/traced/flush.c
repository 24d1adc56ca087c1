/*
 * Flushes: ask every producer with a started instance in a session to
 * commit what its writers hold, and wait for each to acknowledge (the
 * flush_request_id of a later CommitData) or for the timeout.
 *
 * Request ids are global and increase; a producer acknowledging id N
 * acknowledges every earlier flush it was asked for, as upstream. On
 * completion, success or not, the SMBs of the session's producers are
 * scraped so that data of writers that did not answer is not lost.
 *
 * A flush's callback always runs from the event loop, never from inside
 * flush_start, and runs exactly once: with the session, or with NULL if
 * the session went away first.
 */
#include "config.h"

#include <sys/time.h>

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "base/log.h"
#include "traced.h"

struct tflush {
	TAILQ_ENTRY(tflush)	 entry;
	struct tsession		*session;
	uint64_t		 id;
	uint16_t		*pending;	/* producer ids not yet acked */
	size_t			 npending;
	tflush_done_fn		*done;
	void			*arg;
	struct event		*ev;		/* timeout, then completion */
	int			 finished;
	int			 success;
};

static void
flush_free(struct tflush *f)
{
	if (f->session != NULL)
		TAILQ_REMOVE(&f->session->flushes, f, entry);
	if (f->ev != NULL)
		event_free(f->ev);
	free(f->pending);
	free(f);
}

static void
flush_complete(struct tflush *f)
{
	struct tsession		*s = f->session;
	struct tproducer	*p;

	if (s != NULL) {
		if (f->success)
			s->flushes_succeeded++;
		else
			s->flushes_failed++;
		TAILQ_FOREACH(p, &s->svc->producers, entry)
			commit_scrape(p, s);
		session_lifecycle(s, TL_ALL_FLUSHED);
	}
	if (f->done != NULL)
		f->done(s, f->success, f->arg);
	flush_free(f);
}

static void
flush_timer_cb(evutil_socket_t fd, short ev, void *arg)
{
	struct tflush	*f = arg;

	(void)fd; (void)ev;
	if (!f->finished) {
		log_info("%s: flush %" PRIu64 " timed out with %zu producers "
		    "pending", __func__, f->id, f->npending);
		f->success = 0;
	}
	flush_complete(f);
}

/* Finish on the next loop iteration. */
static void
flush_finish_soon(struct tflush *f, int success)
{
	struct timeval	tv = { 0, 0 };

	f->finished = 1;
	f->success = success;
	evtimer_del(f->ev);
	evtimer_add(f->ev, &tv);
}

int
flush_start(struct tsession *s, uint32_t timeout_ms, uint64_t flags,
    tflush_done_fn *done, void *arg)
{
	struct tflush		*f;
	struct tinstance	*inst, *j;
	struct timeval		 tv;
	uint64_t		*ids;
	size_t			 n, ninst = 0;

	TAILQ_FOREACH(inst, &s->instances, entry)
		ninst++;
	if (ninst == 0)
		ninst = 1;
	f = calloc(1, sizeof(*f));
	ids = calloc(ninst, sizeof(*ids));
	if (f == NULL || ids == NULL ||
	    (f->pending = calloc(ninst, sizeof(*f->pending))) == NULL ||
	    (f->ev = evtimer_new(s->svc->base, flush_timer_cb, f)) == NULL) {
		if (f != NULL)
			free(f->pending);
		free(f);
		free(ids);
		return -1;
	}
	f->session = s;
	f->id = ++s->svc->last_flush_id;
	f->done = done;
	f->arg = arg;
	TAILQ_INSERT_TAIL(&s->flushes, f, entry);
	s->flushes_requested++;
	session_lifecycle(s, TL_FLUSH_STARTED);

	/* One Flush command per producer, naming its started instances. */
	TAILQ_FOREACH(inst, &s->instances, entry) {
		if (inst->state != TI_STARTED || inst->no_flush)
			continue;
		for (n = 0; n < f->npending; n++)
			if (f->pending[n] == inst->producer->id)
				break;
		if (n < f->npending)
			continue;
		n = 0;
		for (j = inst; j != NULL; j = TAILQ_NEXT(j, entry))
			if (j->producer == inst->producer &&
			    j->state == TI_STARTED && !j->no_flush)
				ids[n++] = j->id;
		f->pending[f->npending++] = inst->producer->id;
		producer_port_flush(inst->producer, f->id, ids, n, flags);
	}
	free(ids);
	if (f->npending == 0) {
		flush_finish_soon(f, 1);
		return 0;
	}
	if (timeout_ms == 0)
		timeout_ms = s->cfg->has_flush_timeout_ms &&
		    s->cfg->flush_timeout_ms ? s->cfg->flush_timeout_ms :
		    TRACED_DEFAULT_FLUSH_TIMEOUT_MS;
	tv.tv_sec = timeout_ms / 1000;
	tv.tv_usec = (suseconds_t)(timeout_ms % 1000) * 1000;
	evtimer_add(f->ev, &tv);
	return 0;
}

static void
flush_drop_producer(struct tflush *f, uint16_t id)
{
	size_t	i;

	for (i = 0; i < f->npending; i++)
		if (f->pending[i] == id) {
			f->pending[i] = f->pending[--f->npending];
			break;
		}
	if (f->npending == 0 && !f->finished)
		flush_finish_soon(f, 1);
}

/* CommitData carried flush_request_id: that flush and earlier are done. */
void
flush_ack(struct tproducer *p, uint64_t id)
{
	struct tsession	*s;
	struct tflush	*f;

	if (id > p->svc->last_flush_id)
		return;		/* never asked: ignore */
	TAILQ_FOREACH(s, &p->svc->sessions, entry)
		TAILQ_FOREACH(f, &s->flushes, entry)
			if (f->id <= id && !f->finished)
				flush_drop_producer(f, p->id);
}

/*
 * A producer went away: it will not answer. Its flushes fail, as
 * upstream counts them, but the others still wait for their producers.
 */
void
flush_producer_gone(struct tproducer *p)
{
	struct tsession	*s;
	struct tflush	*f;
	size_t		 i;

	TAILQ_FOREACH(s, &p->svc->sessions, entry)
		TAILQ_FOREACH(f, &s->flushes, entry) {
			for (i = 0; i < f->npending; i++)
				if (f->pending[i] == p->id)
					break;
			if (i == f->npending || f->finished)
				continue;
			f->pending[i] = f->pending[--f->npending];
			if (f->npending == 0)
				flush_finish_soon(f, 0);
		}
}

/* The session is being freed: callbacks run now, without it. */
void
flush_session_gone(struct tsession *s)
{
	struct tflush	*f;

	while ((f = TAILQ_FIRST(&s->flushes)) != NULL) {
		TAILQ_REMOVE(&s->flushes, f, entry);
		f->session = NULL;
		if (f->done != NULL)
			f->done(NULL, 0, f->arg);
		f->done = NULL;
		flush_free(f);
	}
}
