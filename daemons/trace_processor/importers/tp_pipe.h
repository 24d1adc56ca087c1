/*
 * The parse thread (tp_pipe.c). When a trace is read from a file, the
 * records a release of the sorter lets go (tp_sorter_read_done, at the
 * service's completed reads) are parsed on a second thread while the
 * tokenizer reads on; both ends of one queue, in the order a run on
 * one thread parses them.
 *
 * The tables are a run on one thread's because, while the thread
 * parses, the tokenizer touches nothing the parse reads or writes:
 *   - it goes on only with packets that feed the sorter and its own
 *     state (tp_proto.c, packet_beside: ftrace bundles, process and
 *     system stats, service events, of the host, on a sequence known,
 *     with no interned data, defaults or cleared state, at a time of
 *     the trace clock once clocks are settled);
 *   - before anything else it waits for the queue to be parsed
 *     (tp_pipe_sync): other packets, a cpu's first bundle, a clock not
 *     bridged yet, an indexed stat, an import log, a release parsed in
 *     place (another machine's records, a window, the end);
 *   - what it may leave to the thread goes in the queue in its turn: a
 *     metadata row, a clock snapshot once clocks are settled (the
 *     packets tokenized meanwhile take their times as they are, which
 *     such a snapshot does not change);
 *   - its plain counters are kept aside and added when it next waits.
 * The thread never sets tp->machine (its records are the host's) and
 * takes references to generations, which are atomic. A release goes to
 * the thread only when most packets since the last one were of the
 * kinds tokenized beside it: otherwise the tokenizer would only wait.
 * FARO_TP_PARSE_THREAD=0 parses everything on the tokenizer's thread.
 */
#ifndef TP_PIPE_H
#define TP_PIPE_H

#include <pthread.h>
#include <stdint.h>

#include "tp_int.h"

struct seg;

struct tp_pipe {
	pthread_t		 th;
	pthread_mutex_t		 mu;
	pthread_cond_t		 cv;	/* appended, consumed, stop */
	int			 started;	/* 1; -1: could not be */
	int			 stop, waiting;
	uint64_t		 wake_at;	/* atomic: what it waits for */
	/* the queue: where the thread starts, the tokenizer's end, the end
	 * given back */
	struct seg		*first, *last, *give;
	size_t			 lastn, given_i;
	uint64_t		 n;		/* entries appended */
	uint64_t		 appended;	/* atomic: n, published */
	uint64_t		 published;	/* appended, as the tokenizer set */
	uint64_t		 consumed;	/* atomic: the thread's */
	int			 handed;	/* published since seen idle */
	uint64_t		 given;		/* given back to the sorter */
	/* the tokenizer's counters while the thread parses */
	int64_t			 stats[ST_COUNT];
	int			 stats_kept;
	/* packets of kinds tokenized beside the thread, and of others,
	 * since the last release */
	uint64_t		 kinds_beside, kinds_other;
};

/* The tp whose queue this thread parses, else NULL. */
extern __thread struct tp *tp_pipe_self;

/* tp_load_fd: the thread to be (unless FARO_TP_PARSE_THREAD=0);
 * tp_pipe_end waits for the queue to be parsed and stops it. */
void	 tp_pipe_begin(struct tp *);
void	 tp_pipe_end(struct tp *);
/* Whether a release hands its records to the thread (asked once per
 * release); a packet read, of a kind tokenized beside it or not. */
int	 tp_pipe_batching(struct tp *);
static inline void
tp_pipe_kind(struct tp *tp, int beside)
{
	if (beside)
		tp->pipe->kinds_beside++;
	else
		tp->pipe->kinds_other++;
}
/* A released record of machine queued: -1 when it is to be parsed in
 * place (of another machine, or out of memory); then the release handed
 * over. */
int	 tp_pipe_add(struct tp *, const struct tp_sort_at *, uint32_t machine);
void	 tp_pipe_go(struct tp *);
/* Whether the thread parses (the tokenizer's view). */
static inline int
tp_pipe_busy(struct tp *tp)
{
	struct tp_pipe *p = tp->pipe;

	if (p == NULL || !p->handed)
		return 0;
	if (__atomic_load_n(&p->consumed, __ATOMIC_ACQUIRE) != p->published)
		return 1;
	p->handed = 0;
	return 0;
}
/* Counter n of stat s while the thread parses: kept aside. */
void	 tp_pipe_stat(struct tp *, int s, int64_t n);
void	 tp_pipe_wait(struct tp *);
/* What the thread parsed so far given back to the sorter (as the
 * tokenizer is about to take memory for more records). */
void	 tp_pipe_reap(struct tp *);
/*
 * What the tokenizer leaves to the thread, queued in its turn while the
 * thread parses: 1; 0 when it does not (the caller does it, after
 * waiting for the queue: a row's caller has waited already).
 */
int	 tp_pipe_later_metadata(struct tp *, const char *name,
	    const char *key_type, const char *s, int64_t v, int append,
	    int derived);
int	 tp_pipe_later_snapshot(struct tp *, uint32_t seq, const uint8_t *,
	    size_t);

/* The tokenizer waits for the queue to be parsed and gives back what
 * it held; nothing on the parse thread itself. */
static inline void
tp_pipe_sync(struct tp *tp)
{
	struct tp_pipe *p = tp->pipe;

	if (p != NULL && tp_pipe_self != tp && (p->handed ||
	    p->n != p->published || p->stats_kept))
		tp_pipe_wait(tp);
}

#endif
