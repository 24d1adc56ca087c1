/*
 * The sorter holds copies of records and releases them oldest first. What
 * may leave before the end of the trace follows upstream's rule, not a
 * time or size window: the service writes a TracingServiceEvent
 * all_data_sources_flushed after each flush and read_tracing_buffers_completed
 * after each read of its buffers; once two flushes have come since the
 * last release, a completed read releases the records that arrived before
 * the previous completed read, since a read can still deliver data older
 * than anything read before it (one sequence's chunks long after
 * another's). A ring-buffer trace, read once, is sorted whole at the end.
 * An optional byte budget (tp_config.sort_window_bytes) bounds the memory
 * instead, at the cost of dropping what comes later than it allows.
 *
 * Records go to queues as upstream's streams hold them: trace packets,
 * track events, then per cpu ftrace events, compact sched_switch and
 * sched_waking, each class's queues made for cpus 0 to N when cpu N is
 * first seen. Records of one timestamp leave in upstream's order too: a
 * release picks the queue with the oldest head (the first made, on a tie)
 * and drains it up to the next oldest head of the others, inclusive,
 * before it looks again.
 *
 * In a queue most records arrive in order: those go to a FIFO run
 * (O(1), see RUN_SEG); only records older than the run's newest go to
 * the late records, sorted by (timestamp, arrival) when asked for (see
 * LATE_SEG). A queue's head is the smaller of the two heads. A
 * record older than one already released cannot be placed any more: it is
 * dropped and counted (sorter_push_event_out_of_order).
 */
#include <stdlib.h>
#include <string.h>

#include "tp_int.h"
#include "tp_pipe.h"
#include "storage/cs_radix.h"

/*
 * Record copies are packed into 1 MiB blocks, each freed when its last
 * record has been parsed: no allocation per record, and records that
 * arrive together (and mostly leave together) share their memory. The
 * blocks are numbered in the order they are made (a longer record has a
 * block of its own, numbered as the MiBs it spans), so a record's place
 * in them, block number and offset, grows with its arrival: it is both
 * the record's address and its arrival order. A queue holds only a
 * record's time and that place (struct sort_ent, 16 bytes); what else
 * the record carries is in a header in front of its bytes, written
 * compactly (rec_put):
 *
 *   flags byte: kind (low 4 bits), REC_REF, REC_AUX, REC_MACHINE,
 *               REC_REFIX
 *   [ref pointer or JSON key, raw]  when REC_REF
 *   [byte: the ref's index in its block's refs]  when REC_REFIX
 *   varint len
 *   [varint aux]                    when REC_AUX
 *   [varint machine]                when REC_MACHINE
 *   bytes (the parsers copy what they read out of them: no alignment)
 */
#define BLK_SHIFT	20
#define BLK_SIZE	(1u << BLK_SHIFT)

#define REC_KIND	0x0fu
#define REC_REF		0x10u
#define REC_AUX		0x20u
#define REC_MACHINE	0x40u
#define REC_REFIX	0x80u
#define REC_HDR_MAX	(1 + 8 + 3 * 5)

/* A record in a queue; pos: block number << BLK_SHIFT | offset, with
 * ENT_JSON when a JSON key orders it among records of its time. */
struct sort_ent {
	int64_t		 ts;
	uint64_t	 pos;
};

#define ENT_JSON	(UINT64_C(1) << 63)

/* Per cpu queues past this cpu share the last one. */
#define SORT_MAX_CPUS	4096

/* The queues made first, as upstream makes its first streams. */
enum {
	Q_MAIN,		/* TracePackets; a JSON trace's events; strace */
	Q_SECOND,	/* TrackEvent packets; a JSON trace's systrace */
	Q_FIXED
};

/*
 * The run is a FIFO of fixed segments: it grows without copying what it
 * holds and without doubling its room, and gives memory back as it
 * drains.
 */
#define RUN_SEG	512

struct run_seg {
	struct run_seg		*next;
	struct sort_ent		 it[RUN_SEG];
};

/*
 * Records that came late are kept in arrival order, in segments, and
 * sorted when the queue's head is asked for, LATE_RUN at a time by a
 * radix sort on their times; the sorted runs are merged as records are
 * taken, through a small heap of their heads. (A heap of millions of
 * records costs a cache miss per level on every pop; one sort of them
 * all, scratch memory as large as the records.) A segment goes once its
 * records are all taken.
 */
#define LATE_SHIFT	10
#define LATE_SEG	(1u << LATE_SHIFT)
#define LATE_RUN	(1u << 16)

struct late_seg {
	size_t			 left;		/* records not taken */
	struct sort_ent		 it[LATE_SEG];
};

struct late_run {
	uint32_t		*pos;		/* sorted positions */
	size_t			 head, n;
};

struct tp_sort_queue {
	const struct tp_sorter	*s;		/* its records' blocks */
	struct late_seg		**lsegs;	/* records that came late */
	size_t			 n, nsegs, capsegs, ntaken;
	size_t			 nsorted;	/* late [0, nsorted) in runs */
	struct late_run		*runs;		/* a heap by head record */
	size_t			 nruns, capruns;
	int			 json;		/* holds JSON records */
	struct run_seg		*rfirst, *rlast; /* in-order records */
	size_t			 rhead, rtail, rn; /* in rfirst, rlast */
	int64_t			 run_max;	/* ts of the run's last record */
	int64_t			 run_max_key;	/* and its key (item_key) */
};

/*
 * The importer contexts (refs) of a block's records, each written once:
 * records of a sequence come in runs, a few sequences to a block, and a
 * record then names its ref by a byte (REC_REFIX); past BLK_REFS it is
 * written whole.
 */
#define BLK_REFS	64

struct tp_sort_blk {
	size_t		 refs;		/* live records, +1 while filling */
	size_t		 used, cap;
	void		*ref[BLK_REFS];
	unsigned	 nref, lastref;
	uint8_t		 data[];
};

/* The index of ref among b's, added if there is room; -1: none. */
static int
blk_ref_index(struct tp_sort_blk *b, void *ref)
{
	unsigned i;

	if (b->lastref < b->nref && b->ref[b->lastref] == ref)
		return (int)b->lastref;
	for (i = 0; i < b->nref && b->ref[i] != ref; i++)
		;
	if (i == b->nref) {
		if (b->nref == BLK_REFS)
			return -1;
		b->ref[b->nref++] = ref;
	}
	b->lastref = i;
	return (int)i;
}

static struct tp_sort_blk *
blk_at(const struct tp_sorter *s, uint64_t pos)
{
	return s->blks[((pos & ~ENT_JSON) >> BLK_SHIFT) - s->blk0];
}

/* The record at a place (see BLK_SHIFT); its block is live. */
static uint8_t *
rec_at(const struct tp_sorter *s, uint64_t pos)
{
	return blk_at(s, pos)->data + (pos & (BLK_SIZE - 1));
}

/* Drops a record's share of block num; the block goes with its last. */
static void
blk_unref(struct tp_sorter *s, uint64_t num)
{
	struct tp_sort_blk **b = &s->blks[num - s->blk0];
	size_t n;

	if (--(*b)->refs > 0)
		return;
	free(*b);
	*b = NULL;
	if (num != s->blk0)
		return;
	/* The table slides on past the freed blocks at its front. */
	for (n = 1; n < s->nblks && s->blks[n] == NULL; n++)
		;
	memmove(s->blks, s->blks + n, (s->nblks - n) * sizeof(*s->blks));
	s->nblks -= n;
	s->blk0 += n;
}

/* The block being filled, with room for len bytes; -1: out of memory. */
static int
blk_room(struct tp *tp, size_t len)
{
	struct tp_sorter *s = &tp->sorter;
	struct tp_sort_blk *b;
	size_t total, need;
	void *p;

	if (s->filling) {
		b = s->blks[s->fill - s->blk0];
		/* A record starts in its block's first MiB (its place). */
		if (b->cap - b->used >= len && b->used < BLK_SIZE)
			return 0;
		s->filling = 0;
		blk_unref(s, s->fill);
	}
	if (len > SIZE_MAX - sizeof(*b) - BLK_SIZE)
		return -1;
	/* Blocks the parse thread is done with go first. */
	tp_pipe_reap(tp);
	total = (sizeof(*b) + len + BLK_SIZE - 1) & ~(size_t)(BLK_SIZE - 1);
	if (s->nblks == 0)
		s->blk0 = s->next_blk;
	need = (size_t)(s->next_blk - s->blk0) + 1;
	if (need > s->capblks) {
		size_t cap = s->capblks ? s->capblks * 2 : 64;

		while (cap < need)
			cap *= 2;
		if ((p = realloc(s->blks, cap * sizeof(*s->blks))) == NULL)
			return -1;
		s->blks = p;
		s->capblks = cap;
	}
	if ((b = malloc(total)) == NULL)
		return -1;
	b->refs = 1;
	b->used = 0;
	b->cap = total - sizeof(*b);
	b->nref = b->lastref = 0;
	/* The MiBs of a long block past its first are no block's. */
	while (s->nblks < need - 1)
		s->blks[s->nblks++] = NULL;
	s->blks[s->nblks++] = b;
	s->fill = s->next_blk;
	s->next_blk += total >> BLK_SHIFT;
	s->filling = 1;
	return 0;
}

/* Where the next record will be: a place no record holds yet. */
static uint64_t
sorter_wpos(const struct tp_sorter *s)
{
	if (s->filling)
		return (s->fill << BLK_SHIFT) + s->blks[s->fill - s->blk0]->used;
	return s->next_blk << BLK_SHIFT;
}

static uint8_t *
varint_put(uint8_t *p, uint64_t v)
{
	while (v >= 0x80) {
		*p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*p++ = (uint8_t)v;
	return p;
}

/* Our own header (rec_put): no bounds to check. */
static const uint8_t *
varint_get(const uint8_t *p, uint32_t *v)
{
	uint32_t r = 0;
	int sh = 0;

	while (*p & 0x80) {
		r |= (uint32_t)(*p++ & 0x7f) << sh;
		sh += 7;
	}
	*v = r | (uint32_t)*p++ << sh;
	return p;
}

/* Writes a record's header at the end of b; returns where its bytes go. */
static uint8_t *
rec_put(struct tp_sort_blk *b, const struct tp_sort_item *it)
{
	uint8_t *p = b->data + b->used, *f = p++;
	int ix;

	*f = it->kind;
	if (it->kind == SK_JSON) {
		*f |= REC_REF;
		memcpy(p, &it->key, sizeof(it->key));
		p += sizeof(it->key);
	} else if (it->ref != NULL && (ix = blk_ref_index(b, it->ref)) >= 0) {
		*f |= REC_REFIX;
		*p++ = (uint8_t)ix;
	} else if (it->ref != NULL) {
		*f |= REC_REF;
		memcpy(p, &it->ref, sizeof(it->ref));
		p += sizeof(it->ref);
	}
	p = varint_put(p, it->len);
	if (it->aux != 0) {
		*f |= REC_AUX;
		p = varint_put(p, it->aux);
	}
	if (it->machine != 0) {
		*f |= REC_MACHINE;
		p = varint_put(p, it->machine);
	}
	return p;
}

/* The record at pos in block b, as its parser takes it. */
static void
rec_decode(const struct tp_sort_blk *b, int64_t ts, uint64_t pos,
    struct tp_sort_item *it)
{
	const uint8_t *p = b->data + (pos & (BLK_SIZE - 1));
	uint8_t f = *p++;

	it->ts = ts;
	it->seq = pos & ~ENT_JSON;
	it->kind = f & REC_KIND;
	it->ref = NULL;
	if (it->kind == SK_JSON) {
		memcpy(&it->key, p, sizeof(it->key));
		p += sizeof(it->key);
	} else if (f & REC_REF) {
		memcpy(&it->ref, p, sizeof(it->ref));
		p += sizeof(it->ref);
	} else if (f & REC_REFIX) {
		it->ref = b->ref[*p++];
	}
	p = varint_get(p, &it->len);
	it->aux = 0;
	it->machine = 0;
	if (f & REC_AUX)
		p = varint_get(p, &it->aux);
	if (f & REC_MACHINE)
		p = varint_get(p, &it->machine);
	it->data = (uint8_t *)p;
}

static void
rec_get(const struct tp_sorter *s, const struct sort_ent *e,
    struct tp_sort_item *it)
{
	rec_decode(blk_at(s, e->pos), e->ts, e->pos, it);
}

/* A record released to the parse thread: where it is (its block stays
 * until tp_sorter_done_at), read without the table of blocks. */
void
tp_sorter_ahead(struct tp *tp, const struct tp_sort_at *at, int near)
{
	struct tp_sort_item it;

	if (!near) {
		__builtin_prefetch(at->blk->data + (at->pos & (BLK_SIZE - 1)));
		return;
	}
	rec_decode(at->blk, at->ts, at->pos, &it);
	if (it.kind == SK_FTRACE)
		tp_ftrace_ahead(tp, it.data, it.len);
}

void
tp_sorter_item_at(const struct tp_sort_at *at, struct tp_sort_item *it)
{
	rec_decode(at->blk, at->ts, at->pos, it);
}

/* Among records of one timestamp: JSON ones by their key, the rest after. */
static int64_t
item_key(const struct tp_sorter *s, const struct sort_ent *e)
{
	int64_t k;

	if (!(e->pos & ENT_JSON))
		return TP_JSON_KEY_OTHER;
	memcpy(&k, rec_at(s, e->pos) + 1, sizeof(k));
	return k;
}

/* By time, JSON key, arrival (the place, see BLK_SHIFT). */
static int
item_less(const struct tp_sorter *s, const struct sort_ent *a,
    const struct sort_ent *b)
{
	int64_t ka, kb;

	if (a->ts != b->ts)
		return a->ts < b->ts;
	if (((a->pos | b->pos) & ENT_JSON) &&
	    (ka = item_key(s, a)) != (kb = item_key(s, b)))
		return ka < kb;
	return (a->pos & ~ENT_JSON) < (b->pos & ~ENT_JSON);
}

static struct sort_ent *
late_at(const struct tp_sort_queue *q, size_t pos)
{
	return &q->lsegs[pos >> LATE_SHIFT]->it[pos & (LATE_SEG - 1)];
}

/* Room for one more late record (late_push keeps it); NULL: no memory. */
static struct sort_ent *
late_slot(struct tp_sort_queue *q)
{
	size_t seg = q->n >> LATE_SHIFT;

	if (q->n >= UINT32_MAX)
		return NULL;
	if (seg == q->nsegs) {
		if (q->nsegs == q->capsegs) {
			size_t cap = q->capsegs ? q->capsegs * 2 : 16;
			void *p = realloc(q->lsegs, cap * sizeof(*q->lsegs));

			if (p == NULL)
				return NULL;
			q->lsegs = p;
			q->capsegs = cap;
		}
		if ((q->lsegs[seg] = malloc(sizeof(struct late_seg))) == NULL)
			return NULL;
		q->lsegs[seg]->left = 0;
		q->nsegs++;
	}
	return late_at(q, q->n);
}

static void
late_push(struct tp_sort_queue *q)
{
	q->lsegs[q->n >> LATE_SHIFT]->left++;
	if (late_at(q, q->n)->pos & ENT_JSON)
		q->json = 1;
	q->n++;
}

/* Insertion sort of positions by item_less: ties of time, JSON keys. */
static void
late_sort_ties(const struct tp_sort_queue *q, uint32_t *p, size_t n)
{
	size_t i, j;

	for (i = 1; i < n; i++) {
		uint32_t x = p[i];

		for (j = i; j > 0 && item_less(q->s, late_at(q, x),
		    late_at(q, p[j - 1])); j--)
			p[j] = p[j - 1];
		p[j] = x;
	}
}

static struct sort_ent *
run_head(const struct tp_sort_queue *q, const struct late_run *r)
{
	return late_at(q, r->pos[r->head]);
}

static void
runs_down(struct tp_sort_queue *q, size_t i)
{
	struct late_run x = q->runs[i];

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= q->nruns)
			break;
		if (c + 1 < q->nruns && item_less(q->s, run_head(q, &q->runs[c + 1]),
		    run_head(q, &q->runs[c])))
			c++;
		if (!item_less(q->s, run_head(q, &q->runs[c]), run_head(q, &x)))
			break;
		q->runs[i] = q->runs[c];
		i = c;
	}
	q->runs[i] = x;
}

static void
runs_up(struct tp_sort_queue *q, size_t i)
{
	struct late_run x = q->runs[i];

	while (i > 0 && item_less(q->s, run_head(q, &x),
	    run_head(q, &q->runs[(i - 1) / 2]))) {
		q->runs[i] = q->runs[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	q->runs[i] = x;
}

/*
 * Sorts the records pushed since the last sort into runs: by time,
 * stably (arrival order breaks ties, as seq does), JSON keys put right
 * among equal times. -1 when out of memory (the rest stays unsorted).
 */
static int
late_sort(struct tp_sort_queue *q)
{
	size_t cap = q->n - q->nsorted < LATE_RUN ? q->n - q->nsorted :
	    LATE_RUN, m, i, a, b;
	uint64_t *k = malloc(cap * sizeof(*k)), *k2 = malloc(cap * sizeof(*k2));
	uint32_t *v = malloc(cap * sizeof(*v)), *v2 = malloc(cap * sizeof(*v2));
	uint32_t *srt;
	int rc = -1;

	if (k == NULL || k2 == NULL || v == NULL || v2 == NULL)
		goto done;
	while ((m = q->n - q->nsorted) > 0) {
		struct late_run r;

		if (m > cap)
			m = cap;
		if (q->nruns == q->capruns) {
			size_t nc = q->capruns ? q->capruns * 2 : 16;
			void *p = realloc(q->runs, nc * sizeof(*q->runs));

			if (p == NULL)
				goto done;
			q->runs = p;
			q->capruns = nc;
		}
		if ((r.pos = malloc(m * sizeof(*r.pos))) == NULL)
			goto done;
		for (i = 0; i < m; i++) {
			k[i] = (uint64_t)late_at(q, q->nsorted + i)->ts;
			v[i] = (uint32_t)(q->nsorted + i);
		}
		srt = cs_radix_sort(k, v, k2, v2, m);
		if (q->json)
			for (a = 0; a < m; a = b) {
				for (b = a + 1; b < m && late_at(q,
				    srt[b])->ts == late_at(q, srt[a])->ts; b++)
					;
				if (b - a > 1)
					late_sort_ties(q, srt + a, b - a);
			}
		memcpy(r.pos, srt, m * sizeof(*r.pos));
		r.head = 0;
		r.n = m;
		q->runs[q->nruns++] = r;
		runs_up(q, q->nruns - 1);
		q->nsorted += m;
	}
	rc = 0;
done:
	free(k);
	free(k2);
	free(v);
	free(v2);
	return rc;
}

/* The oldest late record, or NULL. */
static struct sort_ent *
late_head(struct tp_sort_queue *q)
{
	if (q->nsorted < q->n)
		(void)late_sort(q);
	return q->nruns > 0 ? run_head(q, &q->runs[0]) : NULL;
}

static void
late_reset(struct tp_sort_queue *q)
{
	size_t i;

	/* The first segment stays for what comes next. */
	for (i = 1; i < q->nsegs; i++)
		free(q->lsegs[i]);
	q->nsegs = q->nsegs > 0 && q->lsegs[0] != NULL;
	q->n = q->ntaken = q->nsorted = 0;
	q->json = 0;
}

static struct sort_ent
late_take(struct tp_sort_queue *q)
{
	struct late_run *r = &q->runs[0];
	uint32_t pos = r->pos[r->head++];
	struct sort_ent it = *late_at(q, pos);
	struct late_seg **seg = &q->lsegs[pos >> LATE_SHIFT];

	if (r->head == r->n) {
		free(r->pos);
		q->runs[0] = q->runs[--q->nruns];
	}
	if (q->nruns > 0)
		runs_down(q, 0);
	q->ntaken++;
	if (q->ntaken == q->n)
		late_reset(q);
	else if (--(*seg)->left == 0 && (pos >> LATE_SHIFT) + 1 < q->nsegs) {
		free(*seg);
		*seg = NULL;
	}
	return it;
}

static void
item_dispatch(struct tp *tp, struct tp_sort_item *it)
{
	switch (it->kind) {
	case SK_PACKET:
	case SK_FTRACE:
	case SK_COMPACT_SWITCH:
	case SK_COMPACT_WAKING:
	case SK_FTRACE_PART:
	case SK_POWER_RAIL:
	case SK_COUNTER:
		tp_proto_parse_sorted(tp, it);
		break;
	case SK_ETW:
		tp_etw_parse_sorted(tp, it->ts, it->data, it->len);
		break;
	case SK_JSON:
		tp_json_parse_sorted(tp, it);
		break;
	case SK_SYSTRACE:
		tp_systrace_parse_sorted(tp, it);
		break;
	case SK_STRACE:
		tp_strace_parse_sorted(tp, it);
		break;
	}
}

/* What a record holds, given back without parsing it. */
static void
item_release(struct tp *tp, const struct sort_ent *e)
{
	struct tp_sort_item it;

	rec_get(&tp->sorter, e, &it);
	tp_sorter_done(tp, &it, (e->pos & ~ENT_JSON) >> BLK_SHIFT);
}

void
tp_sorter_done_at(struct tp *tp, const struct tp_sort_at *at)
{
	struct tp_sort_item it;

	tp_sorter_item_at(at, &it);
	tp_sorter_done(tp, &it, (at->pos & ~ENT_JSON) >> BLK_SHIFT);
}

/* The first record of the run; the run is not empty. */
static struct sort_ent *
run_front(struct tp_sort_queue *q)
{
	return &q->rfirst->it[q->rhead];
}

static struct sort_ent
run_pop(struct tp_sort_queue *q)
{
	struct sort_ent it = q->rfirst->it[q->rhead];
	struct run_seg *seg;

	q->rhead++;
	q->rn--;
	if (q->rn == 0 && q->rfirst == q->rlast) {
		/* Empty: the last segment stays for what comes next. */
		q->rhead = q->rtail = 0;
	} else if (q->rhead == RUN_SEG) {
		seg = q->rfirst;
		q->rfirst = seg->next;
		free(seg);
		q->rhead = 0;
	}
	return it;
}

/* Room for one more record at the end of the run (run_push keeps it);
 * NULL when out of memory. */
static struct sort_ent *
run_slot(struct tp_sort_queue *q)
{
	struct run_seg *seg;

	if (q->rlast == NULL || q->rtail == RUN_SEG) {
		if ((seg = malloc(sizeof(*seg))) == NULL)
			return NULL;
		seg->next = NULL;
		if (q->rlast != NULL)
			q->rlast->next = seg;
		else
			q->rfirst = seg;
		q->rlast = seg;
		q->rtail = 0;
	}
	return &q->rlast->it[q->rtail];
}

static void
run_push(struct tp_sort_queue *q)
{
	q->rtail++;
	q->rn++;
}

/* The oldest record of a queue, or NULL. */
static struct sort_ent *
queue_head(struct tp_sort_queue *q)
{
	struct sort_ent *late = late_head(q);

	if (q->rn > 0 && (late == NULL || item_less(q->s, run_front(q), late)))
		return run_front(q);
	return late;
}

static struct sort_ent
queue_take(struct tp_sort_queue *q)
{
	struct sort_ent *late = late_head(q);

	if (q->rn > 0 && (late == NULL || item_less(q->s, run_front(q), late)))
		return run_pop(q);
	return late_take(q);
}

/*
 * The record that leaves next, as upstream's release picks it: the head
 * of the queue being drained while it is no newer than the bound, else
 * the head of the queue with the oldest one (the first made on a tie),
 * the bound then being the oldest head among the others. NULL: empty.
 */
static struct sort_ent *
sorter_next(struct tp_sorter *s, int *fresh)
{
	struct sort_ent *h, *best = NULL;
	int64_t second = INT64_MAX;
	size_t i, bi = 0;

	*fresh = 0;
	if (s->nitems == 0)
		return NULL;
	if (s->has_cur && (h = queue_head(&s->qs[s->cur])) != NULL &&
	    h->ts <= s->bound)
		return h;
	*fresh = 1;
	for (i = 0; i < s->nq; i++) {
		if ((h = queue_head(&s->qs[i])) == NULL)
			continue;
		if (best == NULL || h->ts < best->ts) {
			if (best != NULL)
				second = best->ts;
			best = h;
			bi = i;
		} else if (h->ts < second)
			second = h->ts;
	}
	s->cur = bi;
	s->bound = second;
	s->has_cur = 1;
	return best;
}

/* Each release looks afresh, as upstream's does. */
static void
sorter_batch(struct tp_sorter *s)
{
	s->has_cur = 0;
}

/* A record parsed as the machine it came from (tokenizing goes on as
 * the machine it was at); on the parse thread it is always that one. */
void
tp_sorter_parse(struct tp *tp, struct tp_sort_item *it)
{
	uint32_t machine = tp->machine;

	if (it->machine != machine)
		tp->machine = it->machine;
	item_dispatch(tp, it);
	if (tp->machine != machine)
		tp->machine = machine;
}

/* A record parsed: its importer context and its share of block blk
 * given back. */
void
tp_sorter_done(struct tp *tp, const struct tp_sort_item *it, uint64_t blk)
{
	if (it->kind != SK_JSON && it->ref != NULL)
		tp_proto_unref(it->ref);
	blk_unref(&tp->sorter, blk);
}

/* The next record out: parsed here, after what the parse thread was
 * given (the callers waited for it before they pop), or queued for the
 * thread (batch: a release's records, tp_pipe.h). */
static void
sorter_pop(struct tp *tp, int batch)
{
	struct tp_sorter *s = &tp->sorter;
	struct sort_ent e;
	struct tp_sort_item it;
	struct tp_sort_at at;
	int fresh;

	if (sorter_next(s, &fresh) == NULL)
		return;
	e = queue_take(&s->qs[s->cur]);
	rec_get(s, &e, &it);
	s->nitems--;
	s->bytes -= (size_t)(it.data - rec_at(s, e.pos)) + it.len + sizeof(e);
	s->last_popped = it.ts;
	s->popped_any = 1;
	if (batch) {
		at.ts = e.ts;
		at.blk = blk_at(s, e.pos);
		at.pos = e.pos;
		if (tp_pipe_add(tp, &at, it.machine) == 0)
			return;
	}
	/* Parsed here, after whatever the thread was given. */
	tp_pipe_sync(tp);
	tp_sorter_parse(tp, &it);
	tp_sorter_done(tp, &it, (e.pos & ~ENT_JSON) >> BLK_SHIFT);
}

/* Appends empty queues up to n; -1 when out of memory. */
static int
queues_grow(struct tp_sorter *s, size_t n)
{
	struct tp_sort_queue *p;
	size_t i;

	if (n <= s->nq)
		return 0;
	if ((p = realloc(s->qs, n * sizeof(*p))) == NULL)
		return -1;
	memset(p + s->nq, 0, (n - s->nq) * sizeof(*p));
	for (i = s->nq; i < n; i++)
		p[i].s = s;
	s->qs = p;
	s->nq = n;
	return 0;
}

/*
 * The queue of a record: a fixed one, or its cpu's of its class, made
 * with those of the lower cpus not seen yet as upstream makes them.
 */
static struct tp_sort_queue *
queue_of(struct tp_sorter *s, enum tp_sort_kind kind, uint32_t aux)
{
	size_t c, k, fixed;
	uint32_t *p;

	switch (kind) {
	case SK_FTRACE:
	case SK_FTRACE_PART:
		c = 0;
		break;
	case SK_COMPACT_SWITCH:
		c = 1;
		break;
	case SK_COMPACT_WAKING:
		c = 2;
		break;
	case SK_ETW:
		c = 3;
		break;
	default:
		/* A track event, or the systrace of a JSON trace. */
		fixed = (kind == SK_PACKET && (aux & TP_SORT_TRACK_EVENT)) ||
		    kind == SK_SYSTRACE ? Q_SECOND : Q_MAIN;
		if (queues_grow(s, Q_FIXED) == -1)
			return NULL;
		return &s->qs[fixed];
	}
	if (aux >= SORT_MAX_CPUS)
		aux = SORT_MAX_CPUS - 1;
	if (aux >= s->ncpu_q[c]) {
		if (queues_grow(s, Q_FIXED) == -1 ||
		    (p = realloc(s->cpu_q[c], (aux + 1) * sizeof(*p))) == NULL)
			return NULL;
		s->cpu_q[c] = p;
		if (queues_grow(s, s->nq + aux + 1 - s->ncpu_q[c]) == -1)
			return NULL;
		for (k = s->ncpu_q[c]; k <= aux; k++)
			p[k] = (uint32_t)(s->nq - (aux + 1 - k));
		s->ncpu_q[c] = aux + 1;
	}
	return &s->qs[s->cpu_q[c][aux]];
}

static int
sorter_push(struct tp *tp, int64_t ts, enum tp_sort_kind kind,
    uint32_t aux, void *ref, int64_t key, const void *hdr, size_t hlen,
    const void *data, size_t len)
{
	struct tp_sorter *s = &tp->sorter;
	struct tp_sort_queue *q;
	struct tp_sort_blk *b;
	struct tp_sort_item r;
	struct sort_ent *it;
	uint8_t *p;
	int64_t k = kind == SK_JSON ? key : TP_JSON_KEY_OTHER;
	int late;

	if (ts < 0) {
		tp_stat_inc(tp, ST_TRACE_SORTER_NEGATIVE_TS, 1);
		return -1;
	}
	if (s->popped_any && ts < s->last_popped) {
		tp_stat_inc(tp, ST_SORTER_OUT_OF_ORDER, 1);
		return -1;
	}
	if (len > UINT32_MAX - hlen || (q = queue_of(s, kind, aux)) == NULL)
		return -1;
	/* The run stays in item_less order: equal ts, no smaller key. */
	late = !(q->rn == 0 || ts > q->run_max || (ts == q->run_max &&
	    k >= q->run_max_key));
	if (!late) {
		if ((it = run_slot(q)) == NULL)
			return -1;
	} else {
		if ((it = late_slot(q)) == NULL)
			return -1;
	}
	if (hlen + len > SIZE_MAX - REC_HDR_MAX ||
	    blk_room(tp, REC_HDR_MAX + hlen + len) == -1)
		return -1;
	if (kind == SK_JSON)
		r.key = key;
	else
		r.ref = ref;
	r.len = (uint32_t)(hlen + len);
	r.aux = aux;
	r.kind = (uint8_t)kind;
	r.machine = tp->machine;
	it->ts = ts;
	it->pos = sorter_wpos(s) | (kind == SK_JSON ? ENT_JSON : 0);
	b = s->blks[s->fill - s->blk0];
	p = rec_put(b, &r);
	if (hlen > 0)
		memcpy(p, hdr, hlen);
	if (len > 0)
		memcpy(p + hlen, data, len);
	s->bytes += (size_t)(p - (b->data + b->used)) + hlen + len +
	    sizeof(*it);
	b->used = (size_t)(p + hlen + len - b->data);
	b->refs++;
	s->nitems++;
	/* A new head may be older than the bound: look again. */
	sorter_batch(s);
	if (!s->pushed_any || ts > s->newest)
		s->newest = ts;
	s->pushed_any = 1;
	if (late) {
		late_push(q);
	} else {
		run_push(q);
		q->run_max = ts;
		q->run_max_key = k;
	}
	return 0;
}

int
tp_sorter_push(struct tp *tp, int64_t ts, enum tp_sort_kind kind,
    uint32_t aux, void *ref, const void *data, size_t len)
{
	return sorter_push(tp, ts, kind, aux, ref, 0, NULL, 0, data, len);
}

int
tp_sorter_push_hdr(struct tp *tp, int64_t ts, enum tp_sort_kind kind,
    uint32_t aux, void *ref, const void *hdr, size_t hlen, const void *data,
    size_t len)
{
	return sorter_push(tp, ts, kind, aux, ref, 0, hdr, hlen, data, len);
}

int
tp_sorter_push_json(struct tp *tp, int64_t ts, int64_t key,
    const void *data, size_t len)
{
	return sorter_push(tp, ts, SK_JSON, 0, NULL, key, NULL, 0, data, len);
}

void
tp_sorter_drain(struct tp *tp, int flush)
{
	struct tp_sorter *s = &tp->sorter;
	int synced = 0;

	sorter_batch(s);
	while (s->nitems > 0 && (flush || (!s->full &&
	    tp->cfg.sort_window_bytes > 0 &&
	    s->bytes > tp->cfg.sort_window_bytes))) {
		if (!synced++)
			tp_pipe_sync(tp);
		sorter_pop(tp, 0);
	}
}

/*
 * A checkpoint's release: whatever is older than upto leaves now. Items
 * pushed later with an older timestamp are dropped and counted, as any
 * item older than one already released.
 */
void
tp_sorter_release(struct tp *tp, int64_t upto)
{
	struct sort_ent *it;
	int fresh;

	tp_pipe_sync(tp);
	sorter_batch(&tp->sorter);
	while ((it = sorter_next(&tp->sorter, &fresh)) != NULL &&
	    it->ts < upto)
		sorter_pop(tp, 0);
	tp_sorter_drain(tp, 0);
}

void
tp_sorter_flushed(struct tp *tp)
{
	tp->sorter.flushes++;
}

void
tp_sorter_read_done(struct tp *tp)
{
	struct tp_sorter *s = &tp->sorter;
	struct sort_ent *it;
	int fresh, batch;

	if (s->flushes < 2 || tp->cfg.full_sort || s->full)
		return;
	/*
	 * As upstream: a record that came after the previous read stops
	 * the queue being drained; the release ends when a fresh pick
	 * falls on one.
	 */
	batch = tp_pipe_batching(tp);
	sorter_batch(s);
	while ((it = sorter_next(s, &fresh)) != NULL) {
		if ((it->pos & ~ENT_JSON) >= s->mark) {
			if (fresh)
				break;
			sorter_batch(s);
			continue;
		}
		sorter_pop(tp, batch);
	}
	tp_pipe_go(tp);
	s->mark = sorter_wpos(s);
	s->flushes = 0;
}

int
tp_sorter_can_hold(const struct tp *tp)
{
	/* A live stream releases by its window: it has no end to wait for. */
	return !tp->sorter.popped_any && !tp->cfg.streaming;
}

void
tp_sorter_hold(struct tp *tp)
{
	tp->sorter.full = 1;
}

int64_t
tp_newest_ts(struct tp *tp)
{
	int64_t ts = tp->ts_max;

	if (tp->sorter.pushed_any && tp->sorter.newest > ts)
		ts = tp->sorter.newest;
	return ts;
}

void
tp_sorter_free(struct tp *tp)
{
	struct tp_sorter *s = &tp->sorter;
	struct tp_sort_queue *q;
	size_t i, j;

	for (j = 0; j < s->nq; j++) {
		q = &s->qs[j];
		while (late_head(q) != NULL) {
			struct sort_ent it = late_take(q);

			item_release(tp, &it);
		}
		/* What a sort without memory left behind. */
		for (i = q->nsorted; i < q->n; i++)
			item_release(tp, late_at(q, i));
		for (i = 0; i < q->nsegs; i++)
			free(q->lsegs[i]);
		free(q->lsegs);
		free(q->runs);
		while (q->rn > 0) {
			struct sort_ent it = run_pop(q);

			item_release(tp, &it);
		}
		free(q->rfirst);

	}
	for (j = 0; j < 4; j++)
		free(s->cpu_q[j]);
	if (s->filling)
		blk_unref(s, s->fill);
	free(s->blks);
	free(s->qs);
	memset(s, 0, sizeof(*s));
}
