/*
 * Memory allocator ftrace events.
 *
 * Contiguous memory allocator: an allocation is an "mm_cma_alloc" slice
 * on the allocating thread, from cma_alloc_start to cma_alloc_info
 * (kernels 5.10 to 6.0) or cma_alloc_finish (6.1 on, with the counts of
 * the mm_alloc_contig_migrate_range_info between them). Kernels of
 * unknown release are left alone, as upstream leaves them.
 *
 * ION (ion_stat) and DMA-BUF heaps (dma_heap_stat): the total allocated,
 * each allocation's size as a counter of its thread, and each buffer a
 * "N kB" slice while it lives.
 *
 * OOM kills (mark_victim): a "mem.oom_kill" instant on the victim's
 * thread.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tp_int.h"

#define EV_MARK_VICTIM		334
#define EV_ION_STAT		335
#define EV_DMA_HEAP_STAT	351
#define EV_CMA_ALLOC_START	465
#define EV_CMA_ALLOC_INFO	466
#define EV_CMA_ALLOC_FINISH	576
#define EV_MIGRATE_RANGE_INFO	577

#define KV_5_10		5010
#define KV_6_1		6001

struct migration {
	uint64_t	 nr_migrated, nr_reclaimed, nr_mapped;
};

struct tp_fmm {
	struct migration *m;		/* by utid */
	size_t		 n;
};

static struct migration *
migration_get(struct tp *tp, int64_t utid)
{
	struct tp_fmm *mm = tp->fmm;
	size_t n;

	if (utid < 0)
		return NULL;
	if (mm == NULL && (mm = tp->fmm = calloc(1, sizeof(*mm))) == NULL)
		return NULL;
	if ((size_t)utid >= mm->n) {
		struct migration *p;

		n = (size_t)utid * 2 + 16;
		if ((p = realloc(mm->m, n * sizeof(*p))) == NULL)
			return NULL;
		memset(p + mm->n, 0, (n - mm->n) * sizeof(*p));
		mm->m = p;
		mm->n = n;
	}
	return &mm->m[utid];
}

static void
arg_uint(struct tp *tp, int64_t set, const char *key, uint64_t v)
{
	tp_arg_int(tp, set, key, key, (int64_t)v, "uint");
}

/* The allocation's end; its args from the event that ends it. */
static void
cma_end(struct tp *tp, int64_t ts, int64_t utid, const char *name,
    size_t namelen, uint64_t pfn, uint64_t count, const struct migration *m,
    const uint64_t *fails)
{
	int64_t set = TP_NULL;

	(void)tp_slice_end(tp, tp_thread_track(tp, utid), ts, NULL, TP_NULL,
	    &set);
	if (set == TP_NULL)
		return;
	tp_arg_str(tp, set, "cma_name", "cma_name", name, namelen, NULL);
	arg_uint(tp, set, "cma_pfn", pfn);
	arg_uint(tp, set, "cma_req_pages", count);
	arg_uint(tp, set, "cma_nr_migrated", m->nr_migrated);
	arg_uint(tp, set, "cma_nr_reclaimed", m->nr_reclaimed);
	arg_uint(tp, set, "cma_nr_mapped", m->nr_mapped);
	if (fails == NULL)
		return;
	arg_uint(tp, set, "cma_nr_isolate_fail", fails[0]);
	arg_uint(tp, set, "cma_nr_migrate_fail", fails[1]);
	arg_uint(tp, set, "cma_nr_test_fail", fails[2]);
}

/* A counter track with a heap_name dimension that is NULL (ion_stat
 * does not say which heap), first as upstream's. */
static int64_t
ion_track(struct tp *tp, enum tp_track_type type, const char *name,
    int64_t scope, const char *kind)
{
	int64_t track = tp_track_intern_lead(tp, type, name, scope,
	    "heap_name");

	if (track >= 0)
		tp_track_kind(tp, track, kind);
	return track;
}

/* A buffer allocated (len > 0) or freed, on the pool of its kind. */
static void
buffer_slice(struct tp *tp, int64_t ts, const char *kind, const char *name,
    uint64_t id, int64_t len)
{
	char size[32];
	int64_t track;

	if (len > 0) {
		track = tp_track_pool_begin(tp, kind, name, id);
		snprintf(size, sizeof(size), "%" PRId64 " kB", len / 1024);
		(void)tp_slice_begin(tp, track, ts, NULL, size, TP_NULL,
		    TP_NULL);
	} else {
		track = tp_track_pool_end(tp, kind, name, id);
		(void)tp_slice_end(tp, track, ts, NULL, TP_NULL, NULL);
	}
}

/* buffer_id 1, len 2, total_allocated 3 */
static void
ion_stat(struct tp *tp, int64_t ts, int64_t pid, const struct tp_ftrace_ev *e)
{
	int64_t track, len = (int32_t)e->v[2];

	if ((track = ion_track(tp, TT_COUNTER, "mem.ion", TP_NULL, "ion")) >=
	    0)
		tp_counter_insert(tp, ts, track, (double)(uint64_t)e->v[3],
		    TP_NULL);
	if ((track = ion_track(tp, TT_THREAD_COUNTER, "mem.ion_change",
	    tp_thread_get(tp, pid), "ion_change")) >= 0)
		tp_counter_insert(tp, ts, track, (double)len, TP_NULL);
	buffer_slice(tp, ts, "android_ion_allocations", "mem.ion_buffer",
	    (uint64_t)e->v[1], len);
}

/* inode 1, len 2, total_allocated 3 */
static void
dma_heap_stat(struct tp *tp, int64_t ts, int64_t pid,
    const struct tp_ftrace_ev *e)
{
	int64_t track, set, len = (int64_t)e->v[2];

	track = tp_track_intern(tp, TT_COUNTER, "mem.dma_heap", TP_NULL);
	tp_track_kind(tp, track, "android_dma_heap");
	if (track >= 0)
		tp_counter_insert(tp, ts, track, (double)(uint64_t)e->v[3],
		    TP_NULL);
	track = tp_track_intern(tp, TT_THREAD_COUNTER, "mem.dma_heap_change",
	    tp_thread_get(tp, pid));
	tp_track_kind(tp, track, "android_dma_heap_change");
	if (track >= 0) {
		set = tp_arg_set_new(tp);
		tp_arg_int(tp, set, "inode", "inode", e->v[1], "uint");
		tp_counter_insert(tp, ts, track, (double)len, set);
	}
	buffer_slice(tp, ts, "android_dma_allocations", "mem.dma_buffer",
	    (uint64_t)e->v[1], len);
}

int
tp_ftrace_mm_event(struct tp *tp, int64_t ts, uint32_t cpu, int64_t pid,
    uint32_t evid, const struct tp_ftrace_ev *e)
{
	int kv = tp->kernel_version;
	struct migration *m, none = { 0, 0, 0 };
	uint64_t fails[3];
	int64_t utid;

	(void)cpu;
	if (evid == EV_ION_STAT) {
		ion_stat(tp, ts, pid, e);
		return 1;
	}
	if (evid == EV_MARK_VICTIM) {
		/* pid 1: the victim */
		(void)tp_slice_complete(tp, tp_thread_track(tp,
		    tp_thread_get(tp, (uint32_t)e->v[1])), ts, 0, NULL,
		    "mem.oom_kill", TP_NULL, TP_NULL, TP_NULL);
		return 1;
	}
	if (evid == EV_DMA_HEAP_STAT) {
		dma_heap_stat(tp, ts, pid, e);
		return 1;
	}
	if (evid != EV_CMA_ALLOC_START && evid != EV_CMA_ALLOC_INFO &&
	    evid != EV_CMA_ALLOC_FINISH && evid != EV_MIGRATE_RANGE_INFO)
		return 0;
	if (kv < KV_5_10)
		return 1;
	utid = tp_thread_get(tp, pid);
	switch (evid) {
	case EV_CMA_ALLOC_START:
		/* A fresh allocation: counts of an earlier one go. */
		if (kv >= KV_6_1 && (m = migration_get(tp, utid)) != NULL)
			*m = none;
		(void)tp_slice_begin(tp, tp_thread_track(tp, utid), ts, NULL,
		    "mm_cma_alloc", TP_NULL, TP_NULL);
		break;
	case EV_MIGRATE_RANGE_INFO:
		/* nr_migrated 3, nr_reclaimed 4, nr_mapped 5 */
		if (kv >= KV_6_1 && (m = migration_get(tp, utid)) != NULL) {
			m->nr_migrated = (uint64_t)e->v[3];
			m->nr_reclaimed = (uint64_t)e->v[4];
			m->nr_mapped = (uint64_t)e->v[5];
		}
		break;
	case EV_CMA_ALLOC_FINISH:
		/* name 1, pfn 2, count 4 */
		if (kv < KV_6_1)
			break;
		if ((m = migration_get(tp, utid)) == NULL)
			m = &none;
		cma_end(tp, ts, utid, e->s[1], e->slen[1], (uint64_t)e->v[2],
		    (uint64_t)e->v[4], m, NULL);
		break;
	case EV_CMA_ALLOC_INFO:
		/* count 2, err_iso 3, err_mig 4, err_test 5, name 6,
		 * nr_mapped 7, nr_migrated 8, nr_reclaimed 9, pfn 10 */
		if (kv >= KV_6_1)
			break;
		none.nr_mapped = (uint64_t)e->v[7];
		none.nr_migrated = (uint64_t)e->v[8];
		none.nr_reclaimed = (uint64_t)e->v[9];
		fails[0] = (uint64_t)e->v[3];
		fails[1] = (uint64_t)e->v[4];
		fails[2] = (uint64_t)e->v[5];
		cma_end(tp, ts, utid, e->s[6], e->slen[6], (uint64_t)e->v[10],
		    (uint64_t)e->v[2], &none, fails);
		break;
	}
	return 1;
}

void
tp_ftrace_mm_free(struct tp *tp)
{
	if (tp->fmm == NULL)
		return;
	free(tp->fmm->m);
	free(tp->fmm);
	tp->fmm = NULL;
}
