/*
 * heapprofd's heap dumps (ProfilePacket), as upstream: a heap_profile row
 * per process, heap and dump; and heap_profile_allocation rows of what
 * each callstack allocated (count and size > 0) and freed (< 0) since the
 * previous dump, the dumps carrying totals since the profile began.
 * A dump spanning packets (continued) is taken once its last one came.
 *
 * Callstacks come from the sequence's InternedData; the older producers'
 * interning inside ProfilePacket itself is not read.
 */
#include <stdlib.h>
#include <string.h>

#include "pbdec.h"
#include "tp_hash.h"
#include "tp_int.h"
#include "tp_proto.h"

#define HEAP_NAME_LEN		128
#define MAX_PENDING		(1 << 20)	/* samples awaiting their dump */
#define ART_HEAP		"com.android.art"	/* reports no frees */

/* One HeapSample of a dump. */
struct alloc {
	uint32_t	 seq;
	struct tp_gen	*g;
	int64_t		 upid, ts;
	char		 heap[HEAP_NAME_LEN];
	uint64_t	 callstack;
	int64_t		 v[4];	/* alloc count and size, free count and size */
};

struct tp_heapprof {
	struct tp_hash	 index;		/* seq -> last packet's index + 1 */
	struct tp_hash	 dumps;		/* heap_profile rows made */
	int64_t		 ndumps, nallocs;
	struct alloc	*pend;
	size_t		 npend, cappend;
	/* Per sequence: the totals last seen per process and callsite, and
	 * the correction a callstack id takes when it names a new callsite
	 * (its state was cleared: totals start again). */
	struct tp_hash	 prev;		/* seq, upid, callsite -> vals[] */
	struct tp_hash	 seen;		/* seq, upid, iid, heap, callsite */
	struct tp_hash	 corr;		/* seq, iid -> vals[] */
	int64_t		(*vals)[4];
	size_t		 nvals, capvals;
};

static struct tp_heapprof *
hp_get(struct tp *tp)
{
	struct tp_heapprof *h = tp->heapprof;

	if (h == NULL && (h = tp->heapprof = calloc(1, sizeof(*h))) != NULL) {
		tp_hash_init(&h->index);
		tp_hash_init(&h->dumps);
		tp_hash_init(&h->prev);
		tp_hash_init(&h->seen);
		tp_hash_init(&h->corr);
	}
	return h;
}

static uint64_t
key_of(const void *k, size_t len)
{
	return tp_hash_bytes(0x68656170, k, len);
}

/* The index of the four values kept under key, made zero on first use;
 * -1 when out of memory. */
static int64_t
vals_get(struct tp_heapprof *h, struct tp_hash *map, uint64_t key)
{
	uint64_t *v = tp_hash_get(map, key);

	if (v != NULL)
		return (int64_t)*v;
	if (h->nvals == h->capvals) {
		size_t ncap = h->capvals ? h->capvals * 2 : 64;
		void *p = realloc(h->vals, ncap * sizeof(*h->vals));

		if (p == NULL)
			return -1;
		h->vals = p;
		h->capvals = ncap;
	}
	memset(h->vals[h->nvals], 0, sizeof(h->vals[0]));
	if (tp_hash_put(map, key, h->nvals) == -1)
		return -1;
	return (int64_t)h->nvals++;
}

static void
alloc_row(struct tp *tp, struct tp_heapprof *h, const struct alloc *a,
    int64_t callsite, int64_t count, int64_t size)
{
	struct tp_val *r = tp_row_new(tp, SQ_HEAP_ALLOC);

	tp_val_int(&r[0], h->nallocs++);
	tp_val_int(&r[1], a->ts);
	tp_val_int(&r[2], a->upid);
	(void)tp_val_str(tp, SQ_HEAP_ALLOC, &r[3], a->heap, strlen(a->heap));
	tp_val_int(&r[4], callsite);
	tp_val_int(&r[5], count);
	tp_val_int(&r[6], size);
}

static void
alloc_commit(struct tp *tp, struct tp_heapprof *h, const struct alloc *a)
{
	int64_t cs = tp_stack_profile_callsite(tp, a->g, a->upid, a->callstack);
	uint64_t pk[3], sk[5], ck[2], *c;
	int64_t row[4], *prev, pi, ci;
	int i;

	if (cs < 0)
		return;
	pk[0] = sk[0] = ck[0] = a->seq;
	pk[1] = sk[1] = (uint64_t)a->upid;
	pk[2] = sk[4] = (uint64_t)cs;
	sk[2] = ck[1] = a->callstack;
	sk[3] = tp_hash_bytes(0, a->heap, strlen(a->heap));
	if ((pi = vals_get(h, &h->prev, key_of(pk, sizeof(pk)))) < 0)
		return;
	if (tp_hash_get(&h->seen, key_of(sk, sizeof(sk))) == NULL) {
		(void)tp_hash_put(&h->seen, key_of(sk, sizeof(sk)), 1);
		if ((ci = vals_get(h, &h->corr, key_of(ck, sizeof(ck)))) < 0)
			return;
		memcpy(h->vals[ci], h->vals[pi], sizeof(row));
	}
	memset(row, 0, sizeof(row));
	if ((c = tp_hash_get(&h->corr, key_of(ck, sizeof(ck)))) != NULL)
		memcpy(row, h->vals[*c], sizeof(row));
	for (i = 0; i < 4; i++)
		row[i] += a->v[i];
	prev = h->vals[pi];
	/* Totals only grow: anything else is a broken dump. */
	if (row[0] < prev[0] || row[1] < prev[1] || row[2] > prev[2] ||
	    row[3] > prev[3]) {
		tp_stat_add_indexed(tp, ST_HEAPPROFD_MALFORMED_PACKET, a->upid,
		    1);
		return;
	}
	if (row[0] != prev[0] || row[1] != prev[1])
		alloc_row(tp, h, a, cs, row[0] - prev[0], row[1] - prev[1]);
	if (strcmp(a->heap, ART_HEAP) != 0 &&
	    (row[2] != prev[2] || row[3] != prev[3]))
		alloc_row(tp, h, a, cs, row[2] - prev[2], row[3] - prev[3]);
	memcpy(prev, row, sizeof(row));
}

/* The dump's samples of sequence seq are complete. */
static void
pending_commit(struct tp *tp, struct tp_heapprof *h, uint32_t seq)
{
	size_t i, j = 0;

	for (i = 0; i < h->npend; i++) {
		if (h->pend[i].seq != seq) {
			h->pend[j++] = h->pend[i];
			continue;
		}
		alloc_commit(tp, h, &h->pend[i]);
		tp_proto_unref(h->pend[i].g);
	}
	h->npend = j;
}

static void
pending_add(struct tp_heapprof *h, const struct alloc *a)
{
	if (h->npend == MAX_PENDING)
		return;
	if (h->npend == h->cappend) {
		size_t ncap = h->cappend ? h->cappend * 2 : 64;
		void *p = realloc(h->pend, ncap * sizeof(*h->pend));

		if (p == NULL)
			return;
		h->pend = p;
		h->cappend = ncap;
	}
	h->pend[h->npend] = *a;
	if (a->g != NULL)
		tp_proto_ref(a->g);
	h->npend++;
}

/* heap_profile: once per process, dump time and heap. */
static void
dump_row(struct tp *tp, struct tp_heapprof *h, int64_t upid, int64_t start,
    int64_t end, const char *heap, size_t heaplen)
{
	uint64_t k[3] = { (uint64_t)upid, (uint64_t)end,
	    heap != NULL ? tp_hash_bytes(1, heap, heaplen) : 0 };
	uint64_t key = key_of(k, sizeof(k));
	struct tp_val *r;

	if (tp_hash_get(&h->dumps, key) != NULL)
		return;
	(void)tp_hash_put(&h->dumps, key, 1);
	r = tp_row_new(tp, SQ_HEAP_PROFILE);
	tp_val_int(&r[0], h->ndumps++);
	tp_val_int(&r[1], start);
	tp_val_int(&r[2], end);
	tp_val_int(&r[3], end - start);
	tp_val_int(&r[4], upid);
	if (heap != NULL)
		(void)tp_val_str(tp, SQ_HEAP_PROFILE, &r[5], heap, heaplen);
}

/* HeapSample: callstack_id 1, self_allocated 2, self_freed 3,
 * alloc_count 5, free_count 6, self_max 8, self_max_count 9. */
static void
sample(struct tp_heapprof *h, struct alloc *a, const uint8_t *buf,
    size_t len, int max_count_ok)
{
	uint64_t v[10] = { 0 };
	int has_max = 0;
	struct pb it;
	struct pb_field f;

	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1)
		if (f.id < 10 && f.wire == PB_VARINT) {
			v[f.id] = f.u;
			has_max |= f.id == 8;
		}
	a->callstack = v[1];
	if (has_max) {
		/* A dump of the peak: no frees; its count only from
		 * producers that got it right (orig_sampling_interval
		 * came with the fix). */
		a->v[0] = max_count_ok ? (int64_t)v[9] : 0;
		a->v[1] = (int64_t)v[8];
		a->v[2] = a->v[3] = 0;
	} else {
		a->v[0] = (int64_t)v[5];
		a->v[1] = (int64_t)v[2];
		a->v[2] = -(int64_t)v[6];
		a->v[3] = -(int64_t)v[3];
	}
	pending_add(h, a);
}

/*
 * A dump's stats, by pid, in the order upstream sets them. f: the
 * ProcessHeapSamples' varints by field number (rejected_concurrent 4,
 * disconnected 6, buffer_overran 7, buffer_corrupted 8, hit_guardrail
 * 10, sampling_interval_bytes 12, orig_sampling_interval_bytes 13,
 * client_error 14); ps: its ProcessStats (heap_samples 2,
 * total_unwinding_time_us 5, client_spinlock_blocked_us 6).
 */
static void
dump_stats(struct tp *tp, int64_t pid, int64_t ts, const uint64_t *f,
    const uint8_t *ps, size_t pslen)
{
	struct pb it;
	struct pb_field sf;
	uint64_t st[7] = { 0 };

	tp_stat_set_indexed(tp, ST_HEAPPROFD_LAST_PROFILE_TIMESTAMP, pid, ts);
	if (f[6])
		tp_stat_add_indexed(tp, ST_HEAPPROFD_CLIENT_DISCONNECTED, pid,
		    1);
	if (f[8])
		tp_stat_add_indexed(tp, ST_HEAPPROFD_BUFFER_CORRUPTED, pid, 1);
	/* A client that timed out (CLIENT_ERROR_HIT_TIMEOUT) overran. */
	if (f[7] || f[14] == 1)
		tp_stat_add_indexed(tp, ST_HEAPPROFD_BUFFER_OVERRAN, pid, 1);
	if (f[14])
		tp_stat_set_indexed(tp, ST_HEAPPROFD_CLIENT_ERROR, pid,
		    (int64_t)f[14]);
	if (f[4])
		tp_stat_add_indexed(tp, ST_HEAPPROFD_REJECTED_CONCURRENT, pid,
		    1);
	if (f[10])
		tp_stat_add_indexed(tp, ST_HEAPPROFD_HIT_GUARDRAIL, pid, 1);
	if (f[13])
		tp_stat_set_indexed(tp, ST_HEAPPROFD_SAMPLING_INTERVAL_ADJUSTED,
		    pid, (int64_t)(f[12] - f[13]));
	pb_init(&it, ps, pslen);
	while (pb_next_untrusted(&it, &sf) == 1)
		if (sf.id < 7 && sf.wire == PB_VARINT)
			st[sf.id] = sf.u;
	tp_stat_add_indexed(tp, ST_HEAPPROFD_UNWIND_TIME_US, pid,
	    (int64_t)st[5]);
	tp_stat_add_indexed(tp, ST_HEAPPROFD_UNWIND_SAMPLES, pid,
	    (int64_t)st[2]);
	tp_stat_add_indexed(tp, ST_HEAPPROFD_CLIENT_SPINLOCK_BLOCKED, pid,
	    (int64_t)st[6]);
}

/* ProcessHeapSamples: pid 1, samples 2, stats 5, timestamp 9, heap_name
 * 11, start_timestamp 15 and dump_stats' fields, of a packet at ts. */
static void
dump(struct tp *tp, struct tp_heapprof *h, struct tp_gen *g, uint32_t seq,
    int64_t ts, const uint8_t *buf, size_t len)
{
	struct alloc a;
	struct pb it;
	struct pb_field f;
	const char *heap = NULL;
	const uint8_t *ps = NULL;
	size_t heaplen = 0, pslen = 0;
	uint64_t v[16] = { 0 };
	int has_start = 0;
	int64_t tend, tstart;

	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		if (f.id == 11 && f.wire == PB_LEN) {
			heap = (const char *)f.data;
			heaplen = f.len;
		} else if (f.id == 5 && f.wire == PB_LEN) {
			ps = f.data;
			pslen = f.len;
		} else if (f.wire == PB_VARINT && f.id < 16) {
			v[f.id] = f.u;
			has_start |= f.id == 15;
		}
	}
	if (it.err || tp_clock_to_trace(tp, seq, TP_CLOCK_MONOTONIC_COARSE,
	    (int64_t)v[9], &tend) == -1)
		return;
	dump_stats(tp, (int64_t)(int32_t)v[1], ts, v, ps, pslen);
	tstart = tend;
	if (has_start && tp_clock_to_trace(tp, seq, TP_CLOCK_MONOTONIC_COARSE,
	    (int64_t)v[15], &tstart) == -1)
		tstart = tend;
	memset(&a, 0, sizeof(a));
	a.seq = seq;
	a.g = g;
	a.ts = tend;
	a.upid = tp_process_get(tp, (int64_t)(uint32_t)v[1]);
	if (heaplen == 0)
		heap = NULL;
	dump_row(tp, h, a.upid, tstart, tend, heap, heaplen);
	if (heap == NULL || heaplen >= sizeof(a.heap))
		memcpy(a.heap, "unknown", sizeof("unknown"));
	else
		memcpy(a.heap, heap, heaplen);
	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1)
		if (f.id == 2 && f.wire == PB_LEN)
			sample(h, &a, f.data, f.len, v[13] > 0);
}

/* ProfilePacket: process_dumps 5, continued 6, index 7. */
void
tp_heap_profile_packet(struct tp *tp, struct tp_gen *g, uint32_t seq,
    int64_t ts, const uint8_t *buf, size_t len)
{
	struct tp_heapprof *h;
	struct pb it;
	struct pb_field f;
	uint64_t index = 0, *last;
	int continued = 0;

	if ((h = hp_get(tp)) == NULL)
		return;
	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1)
		if (f.id == 6 && f.wire == PB_VARINT)
			continued = f.u != 0;
		else if (f.id == 7 && f.wire == PB_VARINT)
			index = f.u;
	/* Indices count from 0 on each sequence: a gap is a lost packet. */
	last = tp_hash_get(&h->index, seq);
	if ((last == NULL && index != 0) || (last != NULL && *last != index))
		tp_stat_inc(tp, ST_HEAPPROFD_MISSING_PACKET, 1);
	(void)tp_hash_put(&h->index, seq, index + 1);
	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1)
		if (f.id == 5 && f.wire == PB_LEN)
			dump(tp, h, g, seq, ts, f.data, f.len);
	if (!continued)
		pending_commit(tp, h, seq);
}

void
tp_heap_profile_free(struct tp *tp)
{
	struct tp_heapprof *h = tp->heapprof;
	size_t i;

	if (h == NULL)
		return;
	for (i = 0; i < h->npend; i++)
		tp_proto_unref(h->pend[i].g);
	free(h->pend);
	free(h->vals);
	tp_hash_free(&h->index);
	tp_hash_free(&h->dumps);
	tp_hash_free(&h->prev);
	tp_hash_free(&h->seen);
	tp_hash_free(&h->corr);
	free(h);
	tp->heapprof = NULL;
}
