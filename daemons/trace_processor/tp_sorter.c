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
 * Most records arrive in order:
 * those go to a FIFO run (O(1)); only records older than the run's newest
 * go to a min-heap of (timestamp, arrival). The oldest is the smaller of the
 * two heads. A record older than one already released cannot be placed any
 * more: it is dropped and counted (sorter_push_event_out_of_order).
 */
#include <stdlib.h>
#include <string.h>

#include "tp_int.h"

/*
 * Record copies are packed into 1 MiB blocks, each freed when its last
 * record has been parsed: no allocation per record, and records that
 * arrive together (and mostly leave together) share their memory.
 */
#define BLK_SIZE	(1u << 20)

struct tp_sort_blk {
	size_t		 refs;		/* live records, +1 while filling */
	size_t		 used, cap;
	uint8_t		 data[];
};

static void
blk_unref(struct tp_sort_blk *b)
{
	if (b != NULL && --b->refs == 0)
		free(b);
}

/* Room for len bytes; NULL when out of memory. */
static uint8_t *
blk_alloc(struct tp_sorter *s, size_t len, struct tp_sort_blk **bp)
{
	struct tp_sort_blk *b = s->blk;
	uint8_t *p;

	/* Keep records 8-byte aligned for the structs some of them hold. */
	len = (len + 7) & ~(size_t)7;
	if (b == NULL || b->cap - b->used < len) {
		size_t cap = len > BLK_SIZE ? len : BLK_SIZE;

		if ((b = malloc(sizeof(*b) + cap)) == NULL)
			return NULL;
		b->refs = 1;
		b->used = 0;
		b->cap = cap;
		blk_unref(s->blk);
		s->blk = b;
	}
	p = b->data + b->used;
	b->used += len;
	b->refs++;
	*bp = b;
	return p;
}

/* Among records of one timestamp: JSON ones by their key, the rest after. */
static int64_t
item_key(const struct tp_sort_item *it)
{
	return it->kind == SK_JSON ? it->key : TP_JSON_KEY_OTHER;
}

static int
item_less(const struct tp_sort_item *a, const struct tp_sort_item *b)
{
	int64_t ka, kb;

	if (a->ts != b->ts)
		return a->ts < b->ts;
	if ((ka = item_key(a)) != (kb = item_key(b)))
		return ka < kb;
	return a->seq < b->seq;
}

static void
heap_up(struct tp_sort_item *h, size_t i)
{
	struct tp_sort_item x = h[i];

	while (i > 0) {
		size_t p = (i - 1) / 2;

		if (!item_less(&x, &h[p]))
			break;
		h[i] = h[p];
		i = p;
	}
	h[i] = x;
}

static void
heap_down(struct tp_sort_item *h, size_t n, size_t i)
{
	struct tp_sort_item x = h[i];

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && item_less(&h[c + 1], &h[c]))
			c++;
		if (!item_less(&h[c], &x))
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = x;
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

/* What an item holds: its importer context, its share of a block. */
static void
item_release(struct tp_sort_item *it)
{
	if (it->kind != SK_JSON && it->ref != NULL)
		tp_proto_unref(it->ref);
	blk_unref(it->blk);
}

static void
sorter_pop(struct tp *tp)
{
	struct tp_sorter *s = &tp->sorter;
	struct tp_sort_item it;
	uint32_t machine;

	if (s->rn > 0 && (s->n == 0 ||
	    item_less(&s->run[s->rhead], &s->heap[0]))) {
		it = s->run[s->rhead];
		s->rhead = (s->rhead + 1) % s->rcap;
		s->rn--;
	} else {
		it = s->heap[0];
		s->heap[0] = s->heap[--s->n];
		if (s->n > 0)
			heap_down(s->heap, s->n, 0);
	}
	s->bytes -= it.len + sizeof(it);
	s->last_popped = it.ts;
	s->popped_any = 1;
	/* Parsed as the machine it came from; tokenizing goes on as the
	 * machine it was at. */
	machine = tp->machine;
	tp->machine = it.machine;
	item_dispatch(tp, &it);
	tp->machine = machine;
	item_release(&it);
}

/* Doubles the ring, unwrapping it. */
static int
run_grow(struct tp_sorter *s)
{
	size_t ncap = s->rcap ? s->rcap * 2 : 1024, i;
	struct tp_sort_item *n = malloc(ncap * sizeof(*n));

	if (n == NULL)
		return -1;
	for (i = 0; i < s->rn; i++)
		n[i] = s->run[(s->rhead + i) % s->rcap];
	free(s->run);
	s->run = n;
	s->rcap = ncap;
	s->rhead = 0;
	return 0;
}

static int
sorter_push(struct tp *tp, int64_t ts, enum tp_sort_kind kind,
    uint32_t aux, void *ref, int64_t key, const void *data, size_t len)
{
	struct tp_sorter *s = &tp->sorter;
	struct tp_sort_item *it;
	int64_t k = kind == SK_JSON ? key : TP_JSON_KEY_OTHER;
	int to_heap;

	if (ts < 0) {
		tp_stat_inc(tp, ST_TRACE_SORTER_NEGATIVE_TS, 1);
		return -1;
	}
	if (s->popped_any && ts < s->last_popped) {
		tp_stat_inc(tp, ST_SORTER_OUT_OF_ORDER, 1);
		return -1;
	}
	if (len > UINT32_MAX)
		return -1;
	/* The run stays in item_less order: equal ts, no smaller key. */
	to_heap = !(s->rn == 0 || ts > s->run_max || (ts == s->run_max &&
	    k >= s->run_max_key));
	if (!to_heap) {
		if (s->rn == s->rcap && run_grow(s) == -1)
			return -1;
		it = &s->run[(s->rhead + s->rn) % s->rcap];
	} else {
		if (s->n == s->cap) {
			size_t ncap = s->cap ? s->cap * 2 : 1024;
			void *p = realloc(s->heap, ncap * sizeof(*it));

			if (p == NULL)
				return -1;
			s->heap = p;
			s->cap = ncap;
		}
		it = &s->heap[s->n];
	}
	if ((it->data = blk_alloc(s, len, &it->blk)) == NULL)
		return -1;
	memcpy(it->data, data, len);
	it->ts = ts;
	it->seq = s->seq++;
	if (kind == SK_JSON)
		it->key = key;
	else
		it->ref = ref;
	it->len = (uint32_t)len;
	it->aux = aux;
	it->kind = (uint8_t)kind;
	it->machine = tp->machine;
	s->bytes += len + sizeof(*it);
	if (!s->pushed_any || ts > s->newest)
		s->newest = ts;
	s->pushed_any = 1;
	if (to_heap) {
		heap_up(s->heap, s->n++);
	} else {
		s->rn++;
		s->run_max = ts;
		s->run_max_key = k;
	}
	return 0;
}

int
tp_sorter_push(struct tp *tp, int64_t ts, enum tp_sort_kind kind,
    uint32_t aux, void *ref, const void *data, size_t len)
{
	return sorter_push(tp, ts, kind, aux, ref, 0, data, len);
}

int
tp_sorter_push_json(struct tp *tp, int64_t ts, int64_t key,
    const void *data, size_t len)
{
	return sorter_push(tp, ts, SK_JSON, 0, NULL, key, data, len);
}

void
tp_sorter_drain(struct tp *tp, int flush)
{
	struct tp_sorter *s = &tp->sorter;

	while ((s->n > 0 || s->rn > 0) && (flush ||
	    (tp->cfg.sort_window_bytes > 0 &&
	    s->bytes > tp->cfg.sort_window_bytes)))
		sorter_pop(tp);
}

/* The oldest item's timestamp, or INT64_MAX when empty. */
static int64_t
sorter_oldest(const struct tp_sorter *s)
{
	int64_t ts = INT64_MAX;

	if (s->rn > 0)
		ts = s->run[s->rhead].ts;
	if (s->n > 0 && s->heap[0].ts < ts)
		ts = s->heap[0].ts;
	return ts;
}

/*
 * A checkpoint's release: whatever is older than upto leaves now. Items
 * pushed later with an older timestamp are dropped and counted, as any
 * item older than one already released.
 */
void
tp_sorter_release(struct tp *tp, int64_t upto)
{
	while (sorter_oldest(&tp->sorter) < upto)
		sorter_pop(tp);
	tp_sorter_drain(tp, 0);
}

void
tp_sorter_flushed(struct tp *tp)
{
	tp->sorter.flushes++;
}

/* The oldest item's arrival number, or UINT64_MAX when empty. */
static uint64_t
sorter_oldest_seq(const struct tp_sorter *s)
{
	const struct tp_sort_item *it = NULL;

	if (s->rn > 0)
		it = &s->run[s->rhead];
	if (s->n > 0 && (it == NULL || item_less(&s->heap[0], it)))
		it = &s->heap[0];
	return it != NULL ? it->seq : UINT64_MAX;
}

void
tp_sorter_read_done(struct tp *tp)
{
	struct tp_sorter *s = &tp->sorter;

	if (s->flushes < 2 || tp->cfg.full_sort)
		return;
	/* Oldest first, while the oldest came before the previous read. */
	while (sorter_oldest_seq(s) < s->mark)
		sorter_pop(tp);
	s->mark = s->seq;
	s->flushes = 0;
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
	size_t i;

	for (i = 0; i < s->n; i++)
		item_release(&s->heap[i]);
	for (i = 0; i < s->rn; i++)
		item_release(&s->run[(s->rhead + i) % s->rcap]);
	blk_unref(s->blk);
	free(s->run);
	free(s->heap);
	memset(s, 0, sizeof(*s));
}
