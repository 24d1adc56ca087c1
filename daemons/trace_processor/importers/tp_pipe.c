/*
 * The parse thread (see tp_pipe.h). Between the tokenizer and the thread
 * runs one queue, in the order of a run on one thread: the records each
 * release of the sorter lets go, and between them what the tokenizer
 * left for the thread to do in its place (a metadata row, a clock
 * snapshot). The tokenizer appends and says how far (appended); the
 * thread parses and says how far (consumed). The records' blocks and
 * generations go back to the sorter from the tokenizer, which owns it,
 * once consumed: when it needs a new block, and while it waits.
 */
#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "tp_int.h"
#include "tp_pipe.h"
#include "tp_proto.h"

__thread struct tp *tp_pipe_self;

/* An entry of the queue: a record, or (blk NULL) a task at pos. */
#define SEG_N		4096

struct seg {
	struct seg		*next;
	struct tp_sort_at	 e[SEG_N];
};

struct task {
	char			*name, *s;	/* a metadata row's */
	const char		*key_type;	/* a literal */
	int64_t			 v;
	int			 append, derived;
	uint8_t			*snap;		/* a clock snapshot's bytes */
	size_t			 len;
	uint32_t		 seq;
};

/* How many entries ahead of its parse the thread has a record's bytes,
 * then what its parse looks up, fetched into the cache (tp_sorter_ahead):
 * the memory they take longer to come from than a record takes to
 * parse. */
#define AHEAD_FAR	8
#define AHEAD_NEAR	4

/* How often the thread says how far it got, and how often it wakes a
 * tokenizer that waits for more than that (to give blocks back). */
#define CONSUMED_STEP	1024
#define WAKE_STEP	(32 * CONSUMED_STEP)

/*
 * The records queued and not parsed yet, at most, when the tokenizer
 * goes on: about one release of a busy ftrace trace (as one thread
 * holds them in the sorter), not the whole file's.
 */
#define BACKLOG_MAX	(512u << 10)

static void
task_run(struct tp *tp, const struct task *t)
{
	if (t->snap != NULL)
		tp_clock_snapshot_untrusted(tp, t->seq, t->snap, t->len);
	else
		tp_metadata_put(tp, t->name, t->key_type, t->s, t->v,
		    t->append, t->derived);
}

static void
task_free(struct task *t)
{
	free(t->name);
	free(t->s);
	free(t->snap);
	free(t);
}

/* Says how far the thread got, waking a tokenizer that waits when it
 * got there (waking it at each step cost the thread 3% of its time in
 * futex calls). */
static void
consumed_set(struct tp_pipe *p, uint64_t n)
{
	__atomic_store_n(&p->consumed, n, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&p->waiting, __ATOMIC_SEQ_CST) &&
	    (n >= __atomic_load_n(&p->wake_at, __ATOMIC_SEQ_CST) ||
	    n % WAKE_STEP == 0)) {
		pthread_mutex_lock(&p->mu);
		pthread_cond_broadcast(&p->cv);
		pthread_mutex_unlock(&p->mu);
	}
}

/* Entry i + k of segment seg, where the queue holds it. */
static const struct tp_sort_at *
entry_ahead(const struct seg *seg, size_t i, size_t k)
{
	return i + k < SEG_N ? &seg->e[i + k] : &seg->next->e[i + k - SEG_N];
}

static void *
pipe_run(void *arg)
{
	struct tp *tp = arg;
	struct tp_pipe *p = tp->pipe;
	struct tp_sort_item it;
	struct seg *seg = NULL;
	uint64_t done = 0, avail;
	size_t i = 0;

	tp_pipe_self = tp;
	for (;;) {
		if ((avail = __atomic_load_n(&p->appended,
		    __ATOMIC_ACQUIRE)) == done) {
			/* Idle: said under the lock, a wait can miss nothing. */
			pthread_mutex_lock(&p->mu);
			__atomic_store_n(&p->consumed, done, __ATOMIC_SEQ_CST);
			pthread_cond_broadcast(&p->cv);
			while (__atomic_load_n(&p->appended,
			    __ATOMIC_ACQUIRE) == done && !p->stop)
				pthread_cond_wait(&p->cv, &p->mu);
			pthread_mutex_unlock(&p->mu);
			if (__atomic_load_n(&p->appended, __ATOMIC_ACQUIRE) ==
			    done)
				break;
			continue;
		}
		for (; done < avail; done++) {
			const struct tp_sort_at *a;

			if (seg == NULL)
				seg = p->first;
			else if (i == SEG_N) {
				seg = seg->next;
				i = 0;
			}
			if (done + AHEAD_FAR < avail && (a = entry_ahead(seg, i,
			    AHEAD_FAR))->blk != NULL)
				tp_sorter_ahead(tp, a, 0);
			if (done + AHEAD_NEAR < avail && (a = entry_ahead(seg, i,
			    AHEAD_NEAR))->blk != NULL)
				tp_sorter_ahead(tp, a, 1);
			if (seg->e[i].blk != NULL) {
				tp_sorter_item_at(&seg->e[i], &it);
				tp_sorter_parse(tp, &it);
			} else {
				task_run(tp, (struct task *)(uintptr_t)
				    seg->e[i].pos);
			}
			i++;
			if (done % CONSUMED_STEP == CONSUMED_STEP - 1)
				consumed_set(p, done + 1);
		}
	}
	return NULL;
}

void
tp_pipe_begin(struct tp *tp)
{
	const char *v = getenv("FARO_TP_PARSE_THREAD");
	struct tp_pipe *p;

	if (tp->pipe != NULL || (v != NULL && strcmp(v, "0") == 0) ||
	    (p = calloc(1, sizeof(*p))) == NULL)
		return;
	/*
	 * One malloc arena for both threads: the parser's tables then grow
	 * into the blocks the sorter frees, as on one thread (an arena of
	 * its own costs a fifth more peak memory). Set before the load:
	 * set in its midst, it costs the load 7%.
	 */
	(void)mallopt(M_ARENA_MAX, 1);
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	tp->pipe = p;
}

/*
 * The thread, started at the first release it takes: a trace with none
 * to give it stays on one thread (where malloc takes no locks). 0; -1
 * when it cannot be.
 */
static int
thread_start(struct tp *tp)
{
	struct tp_pipe *p = tp->pipe;

	if (p->started != 0)
		return p->started > 0 ? 0 : -1;
	p->started = pthread_create(&p->th, NULL, pipe_run, tp) == 0 ? 1 : -1;
	return p->started > 0 ? 0 : -1;
}

/* The entries consumed, up to upto, given back: records to the sorter,
 * tasks freed, and the segments the thread has left. */
static void
give_back(struct tp *tp, uint64_t upto)
{
	struct tp_pipe *p = tp->pipe;
	struct tp_sort_at *e;
	struct seg *s;

	for (; p->given < upto; p->given++) {
		if (p->given_i == SEG_N) {
			s = p->give;
			p->give = s->next;
			free(s);
			p->given_i = 0;
		}
		e = &p->give->e[p->given_i++];
		if (e->blk != NULL) {
			tp_sorter_done_at(tp, e);
			tp->parsed_beside++;
		} else
			task_free((struct task *)(uintptr_t)e->pos);
	}
}

void
tp_pipe_reap(struct tp *tp)
{
	struct tp_pipe *p = tp->pipe;

	if (p != NULL && tp_pipe_self != tp && p->given < p->published)
		give_back(tp, __atomic_load_n(&p->consumed,
		    __ATOMIC_ACQUIRE));
}

/* The tokenizer waits until the thread has parsed upto entries, giving
 * back what it parsed meanwhile. */
static void
wait_upto(struct tp *tp, uint64_t upto)
{
	struct tp_pipe *p = tp->pipe;

	__atomic_store_n(&p->wake_at, upto, __ATOMIC_SEQ_CST);
	__atomic_store_n(&p->waiting, 1, __ATOMIC_SEQ_CST);
	pthread_mutex_lock(&p->mu);
	while (__atomic_load_n(&p->consumed, __ATOMIC_ACQUIRE) < upto) {
		pthread_cond_wait(&p->cv, &p->mu);
		give_back(tp, __atomic_load_n(&p->consumed, __ATOMIC_ACQUIRE));
	}
	pthread_mutex_unlock(&p->mu);
	__atomic_store_n(&p->waiting, 0, __ATOMIC_SEQ_CST);
}

void
tp_pipe_wait(struct tp *tp)
{
	struct tp_pipe *p = tp->pipe;
	size_t i;

	if (p == NULL)
		return;
	tp_pipe_go(tp);
	if (tp_pipe_busy(tp))
		wait_upto(tp, p->published);
	p->handed = 0;
	give_back(tp, p->published);
	if (p->stats_kept) {
		for (i = 0; i < ST_COUNT; i++)
			tp->stats[i] += p->stats[i];
		memset(p->stats, 0, sizeof(p->stats));
		p->stats_kept = 0;
	}
}

void
tp_pipe_stat(struct tp *tp, int s, int64_t n)
{
	tp->pipe->stats[s] += n;
	tp->pipe->stats_kept = 1;
}

/*
 * A release goes to the thread when most packets since the one before
 * were of kinds the tokenizer goes on with beside it: with others it
 * would only wait, and the tables' memory move to the other core.
 */
int
tp_pipe_batching(struct tp *tp)
{
	struct tp_pipe *p = tp->pipe;
	int go;

	if (p == NULL)
		return 0;
	go = p->kinds_beside > p->kinds_other;
	p->kinds_beside = p->kinds_other = 0;
	return go && thread_start(tp) == 0;
}

/* An entry at the tokenizer's end (published by tp_pipe_go); -1 when
 * out of memory. */
static int
append(struct tp_pipe *p, const struct tp_sort_at *e)
{
	struct seg *s;

	if (p->last == NULL || p->lastn == SEG_N) {
		if ((s = malloc(sizeof(*s))) == NULL)
			return -1;
		s->next = NULL;
		if (p->last != NULL)
			p->last->next = s;
		else
			p->first = p->give = s;
		p->last = s;
		p->lastn = 0;
	}
	p->last->e[p->lastn++] = *e;
	p->n++;
	return 0;
}

int
tp_pipe_add(struct tp *tp, const struct tp_sort_at *at, uint32_t machine)
{
	struct tp_pipe *p = tp->pipe;

	/*
	 * The thread never sets tp->machine, and reads what the tokenizer
	 * makes on first use: a record of another machine, or one before
	 * those are made, is parsed here (after what came before).
	 */
	if (machine != tp->machine || tp->ftrace == NULL ||
	    tp->clocks == NULL || tp->machines == NULL || tp->proto == NULL)
		return -1;
	return append(p, at);
}

/* A task for the thread while it parses, in the queue's order: 1, or 0
 * when it cannot be queued (the caller does it now). */
static int
task_add(struct tp *tp, struct task *t)
{
	struct tp_pipe *p = tp->pipe;
	struct tp_sort_at e = { 0, NULL, (uint64_t)(uintptr_t)t };

	if (tp->machine != 0 || append(p, &e) == -1) {
		task_free(t);
		return 0;
	}
	tp_pipe_go(tp);
	return 1;
}

int
tp_pipe_later_metadata(struct tp *tp, const char *name, const char *key_type,
    const char *s, int64_t v, int append_, int derived)
{
	struct task *t;

	if (tp->pipe == NULL || tp_pipe_self == tp || !tp_pipe_busy(tp))
		return 0;
	if ((t = calloc(1, sizeof(*t))) != NULL &&
	    (t->name = strdup(name)) != NULL &&
	    (s == NULL || (t->s = strdup(s)) != NULL)) {
		t->key_type = key_type;
		t->v = v;
		t->append = append_;
		t->derived = derived;
		if (task_add(tp, t))
			return 1;
	} else if (t != NULL)
		task_free(t);
	tp_pipe_sync(tp);
	return 0;
}

int
tp_pipe_later_snapshot(struct tp *tp, uint32_t seq, const uint8_t *buf,
    size_t len)
{
	struct task *t;

	if (tp->pipe == NULL || tp_pipe_self == tp || !tp_pipe_busy(tp))
		return 0;
	if ((t = calloc(1, sizeof(*t))) == NULL)
		return 0;
	if ((t->snap = malloc(len > 0 ? len : 1)) == NULL) {
		task_free(t);
		return 0;
	}
	memcpy(t->snap, buf, len);
	t->len = len;
	t->seq = seq;
	return task_add(tp, t);
}

void
tp_pipe_go(struct tp *tp)
{
	struct tp_pipe *p = tp->pipe;

	if (p == NULL || p->published == p->n)
		return;
	pthread_mutex_lock(&p->mu);
	__atomic_store_n(&p->appended, p->n, __ATOMIC_RELEASE);
	p->published = p->n;
	p->handed = 1;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	/* No further ahead than that: what is queued holds its blocks. */
	if (p->n - __atomic_load_n(&p->consumed, __ATOMIC_ACQUIRE) >
	    BACKLOG_MAX)
		wait_upto(tp, p->n - BACKLOG_MAX / 2);
}

uint64_t
tp_parsed_beside(const struct tp *tp)
{
	return tp->parsed_beside;
}

void
tp_pipe_end(struct tp *tp)
{
	struct tp_pipe *p = tp->pipe;

	if (p == NULL)
		return;
	tp_pipe_wait(tp);
	log_debug("parse thread: %llu records parsed beside the tokenizer",
	    (unsigned long long)tp->parsed_beside);
	if (p->started > 0) {
		pthread_mutex_lock(&p->mu);
		p->stop = 1;
		pthread_cond_broadcast(&p->cv);
		pthread_mutex_unlock(&p->mu);
		pthread_join(p->th, NULL);
	}
	free(p->give);
	pthread_cond_destroy(&p->cv);
	pthread_mutex_destroy(&p->mu);
	free(p);
	tp->pipe = NULL;
}
