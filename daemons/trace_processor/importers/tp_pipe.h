/*
 * The parse thread (tp_pipe.c). When a trace is read from a file, the
 * records a completed read of the service's buffers lets leave the
 * sorter (tp_sorter_read_done) are parsed on a second thread while the
 * tokenizer reads on: one batch at a time, in the sorter's order.
 *
 * The tables come out as a run on one thread makes them because the
 * tokenizer writes nothing the parser reads or writes while a batch is
 * parsed: before any such write it waits for the batch to end
 * (tp_pipe_sync). It goes on beside the parser only through packets
 * that feed the sorter and nothing else (tp_proto.c, packet_beside),
 * and stops to wait at whatever else they might touch: a first bundle
 * of a cpu, a clock not bridged yet, an indexed stat, an import log, a
 * metadata row. Its plain counters are kept aside meanwhile and added
 * after. A batch goes to the thread only when its records are all of
 * the machine being tokenized (the parser then never sets tp->machine).
 * Generations' reference counts are atomic: the parser takes some.
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
	int			 stop, waiting;
	/* the queue: the tokenizer's end, the end given back */
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

/* The tp whose batch this thread parses, else NULL. */
extern __thread struct tp *tp_pipe_self;

/* tp_load_fd: releases hand their records over from now on (unless
 * FARO_TP_PARSE_THREAD=0); tp_pipe_end waits for the last batch and
 * stops the thread. */
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
/* A released record (after the batch before is parsed: -1 when out of
 * memory); then the batch handed over. */
int	 tp_pipe_add(struct tp *, const struct tp_sort_at *);
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
/* Counter n of stat s, while a batch is parsed: kept aside. */
void	 tp_pipe_stat(struct tp *, int s, int64_t n);
void	 tp_pipe_wait(struct tp *);
/* The records the thread parsed so far given back to the sorter (as
 * the tokenizer is about to take more memory for records). */
void	 tp_pipe_reap(struct tp *);
/*
 * What the tokenizer of the host leaves for after the batch being parsed:
 * 1, kept and done then in order (a metadata row written, a packet
 * tokenized, with tp_proto_later); 0, when no batch is parsed (or out of
 * memory; a row's caller then writes it after waiting for the batch).
 */
int	 tp_pipe_later_metadata(struct tp *, const char *name,
	    const char *key_type, const char *s, int64_t v, int append,
	    int derived);
int	 tp_pipe_later_snapshot(struct tp *, uint32_t seq, const uint8_t *,
	    size_t);

/* The tokenizer waits for the batch being parsed, if any, to end, and
 * puts its records away; nothing on the parse thread. */
static inline void
tp_pipe_sync(struct tp *tp)
{
	struct tp_pipe *p = tp->pipe;

	if (p != NULL && tp_pipe_self != tp && (p->handed ||
	    p->n != p->published || p->stats_kept))
		tp_pipe_wait(tp);
}

#endif
