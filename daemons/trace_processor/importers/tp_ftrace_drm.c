/*
 * DRM events as upstream draws them:
 *  - vblanks (drm_vblank_event, _delivered): instants on "vblank-<crtc>";
 *  - the GPU scheduler (drm_sched_job/drm_run_job/drm_sched_process_job
 *    before Linux 6.17, drm_sched_job_queue/_run/_done since): an instant
 *    on the queueing thread, then a "job" slice on the ring's
 *    "sched-<ring>" track while it runs, the first flowing to the second;
 *  - dma-fences: a "fence" slice per pending fence on its timeline's
 *    "fence-<timeline>-<context>" track, and a thread's dma_fence_wait.
 *
 * A job is known by different ids as it goes before 6.17: a number local
 * to its ring when queued, the address of its fence when done, both when
 * run. Since 6.17 always by its fence's context and seqno.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tp_hash.h"
#include "tp_int.h"

#define EV_VBLANK		409
#define EV_VBLANK_DELIVERED	410
#define EV_SCHED_JOB		411
#define EV_RUN_JOB		412
#define EV_SCHED_PROCESS_JOB	413
#define EV_FENCE_INIT		414
#define EV_FENCE_EMIT		415
#define EV_FENCE_SIGNALED	416
#define EV_FENCE_WAIT_START	417
#define EV_FENCE_WAIT_END	418
#define EV_SCHED_JOB_DONE	592
#define EV_SCHED_JOB_QUEUE	593
#define EV_SCHED_JOB_RUN	594

#define NAME_MAX_LEN		200

/* Which of a job's ids are known. */
#define JOB_FENCE	0x1	/* id0 the fence context, id1 its seqno */
#define JOB_GLOBAL	0x2	/* id0 the fence's address */
#define JOB_LOCAL	0x4	/* id1 the ring's number */

struct job {
	unsigned	 types;
	uint64_t	 id0, id1;
};

/* A queue of jobs, or of fence seqnos (in id1). */
struct jobq {
	struct job	*v;
	size_t		 head, n, cap;
};

struct ring {
	char		*name;
	int64_t		 track;
	struct jobq	 running;	/* the first is on the GPU */
	struct tp_hash	 queued;	/* local_key() -> its queue slice */
};

struct timeline {
	int64_t		 track;
	int		 has_emit;	/* dma_fence_emit seen: init ignored */
	struct jobq	 pending;
};

struct tp_fdrm {
	struct ring	*rings;
	size_t		 nrings, caprings;
	struct tp_hash	 ring_by_name;	/* name hash -> rings[] */
	struct tp_hash	 busy;		/* global_key() -> rings[] */
	struct timeline	*tls;
	size_t		 ntls, captls;
	struct tp_hash	 tl_by_ctx;	/* context -> tls[] */
};

static struct tp_fdrm *
drm_get(struct tp *tp)
{
	struct tp_fdrm *d = tp->fdrm;

	if (d == NULL && (d = tp->fdrm = calloc(1, sizeof(*d))) != NULL) {
		tp_hash_init(&d->ring_by_name);
		tp_hash_init(&d->busy);
		tp_hash_init(&d->tl_by_ctx);
	}
	return d;
}

static int
jobq_push(struct jobq *q, struct job j)
{
	if (q->head > 0 && q->head + q->n == q->cap) {
		memmove(q->v, q->v + q->head, q->n * sizeof(*q->v));
		q->head = 0;
	}
	if (q->n == q->cap) {
		size_t ncap = q->cap ? q->cap * 2 : 8;
		void *p = realloc(q->v, ncap * sizeof(*q->v));

		if (p == NULL)
			return -1;
		q->v = p;
		q->cap = ncap;
	}
	q->v[q->head + q->n++] = j;
	return 0;
}

static void
jobq_pop(struct jobq *q)
{
	if (q->n > 0) {
		q->head++;
		if (--q->n == 0)
			q->head = 0;
	}
}

/* The keys a job is found by: upstream hashes the fence id when there is
 * one, else the local id (a ring's queued jobs) or the global one (busy
 * jobs). The type goes in so that ids of other kinds never meet. */
static uint64_t
job_key(const struct job *j, unsigned other)
{
	uint64_t v[2];

	if (j->types & JOB_FENCE) {
		v[0] = j->id0;
		v[1] = j->id1;
		return tp_hash_bytes(JOB_FENCE, v, sizeof(v));
	}
	v[0] = other == JOB_LOCAL ? j->id1 : j->id0;
	return tp_hash_bytes(other, v, sizeof(v[0]));
}

/* The job's args: its fence when known, else its number in the ring. */
static void
job_args(struct tp *tp, int64_t set, const struct job *j)
{
	if (j->types & JOB_FENCE) {
		tp_arg_int(tp, set, "fence context", "fence context",
		    (int64_t)j->id0, "uint");
		tp_arg_int(tp, set, "fence seqno", "fence seqno",
		    (int64_t)j->id1, "uint");
	} else {
		tp_arg_int(tp, set, "gpu sched job", "gpu sched job",
		    (int64_t)(j->types & JOB_LOCAL ? j->id1 : 0), "uint");
	}
}

static void
copy_name(char *dst, size_t size, const struct tp_ftrace_ev *e, unsigned f)
{
	size_t n = e->slen[f] < size ? e->slen[f] : size - 1;

	if (e->s[f] != NULL)
		memcpy(dst, e->s[f], n);
	else
		n = 0;
	dst[n] = '\0';
}

static void
vblank(struct tp *tp, int64_t ts, const struct tp_ftrace_ev *e,
    const char *what)
{
	/* crtc 1, seq 3 */
	uint32_t crtc = (uint32_t)e->v[1];
	struct tp_dim dim = { "drm_crtc", NULL, crtc };
	char name[32];
	int64_t track, set;

	snprintf(name, sizeof(name), "vblank-%" PRIu32, crtc);
	if ((track = tp_track_intern_dimv(tp, TT_TRACK, NULL, name, TP_NULL, &dim,
	    1, NULL)) < 0)
		return;
	tp_track_kind(tp, track, "drm_vblank");
	set = tp_arg_set_new(tp);
	tp_arg_int(tp, set, "vblank seqno", "vblank seqno",
	    (uint32_t)e->v[3], "uint");
	(void)tp_slice_complete(tp, track, ts, 0, NULL, what, set, TP_NULL,
	    TP_NULL);
}

static struct ring *
ring_get(struct tp *tp, struct tp_fdrm *d, const char *name)
{
	uint64_t h = tp_hash_bytes(0, name, strlen(name)), *v;
	struct tp_dim dim = { "name", name, 0 };
	char tname[NAME_MAX_LEN + 8];
	struct ring *r;
	size_t i;

	if ((v = tp_hash_get(&d->ring_by_name, h)) != NULL &&
	    strcmp(d->rings[*v].name, name) == 0)
		return &d->rings[*v];
	if (v != NULL)
		for (i = 0; i < d->nrings; i++)
			if (strcmp(d->rings[i].name, name) == 0)
				return &d->rings[i];
	if (d->nrings == d->caprings) {
		size_t ncap = d->caprings ? d->caprings * 2 : 4;
		void *p = realloc(d->rings, ncap * sizeof(*d->rings));

		if (p == NULL)
			return NULL;
		d->rings = p;
		d->caprings = ncap;
	}
	r = &d->rings[d->nrings];
	memset(r, 0, sizeof(*r));
	snprintf(tname, sizeof(tname), "sched-%s", name);
	if ((r->name = strdup(name)) == NULL ||
	    (r->track = tp_track_intern_dimv(tp, TT_TRACK, NULL, tname, TP_NULL,
	    &dim, 1, NULL)) < 0) {
		free(r->name);
		return NULL;
	}
	tp_track_kind(tp, r->track, "drm_sched_ring");
	tp_hash_init(&r->queued);
	if (v == NULL)
		(void)tp_hash_put(&d->ring_by_name, h, d->nrings);
	return &d->rings[d->nrings++];
}

/* The ring's first running job starts on the GPU: its slice, and the
 * flow from where it was queued. */
static void
ring_slice_begin(struct tp *tp, struct ring *r, int64_t ts)
{
	const struct job *j = &r->running.v[r->running.head];
	uint64_t key = job_key(j, JOB_LOCAL), *out;
	int64_t set = tp_arg_set_new(tp), id;

	job_args(tp, set, j);
	id = tp_slice_begin(tp, r->track, ts, NULL, "job", set, TP_NULL);
	if (id < 0 || (out = tp_hash_get(&r->queued, key)) == NULL)
		return;
	tp_flow_insert(tp, (int64_t)*out, id, TP_NULL, TP_NULL);
	(void)tp_hash_del(&r->queued, key);
}

static void
sched_queue(struct tp *tp, struct tp_fdrm *d, int64_t ts, int64_t pid,
    const char *ring, const struct job *j)
{
	int64_t track = tp_thread_track(tp, tp_thread_get(tp, pid));
	int64_t set = tp_arg_set_new(tp), id;
	struct ring *r;

	tp_arg_str(tp, set, "gpu sched ring", "gpu sched ring", ring,
	    strlen(ring), NULL);
	job_args(tp, set, j);
	id = tp_slice_complete(tp, track, ts, 0, NULL, "drm_sched_job_queue",
	    set, TP_NULL, TP_NULL);
	if (id >= 0 && (r = ring_get(tp, d, ring)) != NULL)
		(void)tp_hash_put(&r->queued, job_key(j, JOB_LOCAL),
		    (uint64_t)id);
}

static void
sched_run(struct tp *tp, struct tp_fdrm *d, int64_t ts, const char *ring,
    const struct job *j)
{
	struct ring *r = ring_get(tp, d, ring);
	uint64_t key = job_key(j, JOB_GLOBAL);

	if (r == NULL || jobq_push(&r->running, *j) == -1)
		return;
	if (tp_hash_get(&d->busy, key) == NULL)
		(void)tp_hash_put(&d->busy, key, (uint64_t)(r - d->rings));
	if (r->running.n == 1)
		ring_slice_begin(tp, r, ts);
}

/* As upstream, the ring's first job is the one that ends, whichever job
 * the event names. */
static void
sched_done(struct tp *tp, struct tp_fdrm *d, int64_t ts, const struct job *j)
{
	uint64_t key = job_key(j, JOB_GLOBAL), *v;
	struct ring *r;

	if ((v = tp_hash_get(&d->busy, key)) == NULL)
		return;
	r = &d->rings[*v];
	(void)tp_hash_del(&d->busy, key);
	jobq_pop(&r->running);
	(void)tp_slice_end(tp, r->track, ts, NULL, TP_NULL, NULL);
	if (r->running.n > 0)
		ring_slice_begin(tp, r, ts);
}

static struct timeline *
timeline_get(struct tp *tp, struct tp_fdrm *d, uint32_t ctx, const char *name)
{
	struct tp_dim dims[2] = { { "name", name, 0 },
	    { "context", NULL, ctx } };
	char tname[NAME_MAX_LEN + 32];
	uint64_t *v;
	struct timeline *tl;

	if ((v = tp_hash_get(&d->tl_by_ctx, ctx)) != NULL)
		return &d->tls[*v];
	if (d->ntls == d->captls) {
		size_t ncap = d->captls ? d->captls * 2 : 4;
		void *p = realloc(d->tls, ncap * sizeof(*d->tls));

		if (p == NULL)
			return NULL;
		d->tls = p;
		d->captls = ncap;
	}
	tl = &d->tls[d->ntls];
	memset(tl, 0, sizeof(*tl));
	snprintf(tname, sizeof(tname), "fence-%s-%" PRIu32, name, ctx);
	if ((tl->track = tp_track_intern_dimv(tp, TT_TRACK, NULL, tname, TP_NULL,
	    dims, 2, NULL)) < 0 || tp_hash_put(&d->tl_by_ctx, ctx, d->ntls) == -1)
		return NULL;
	tp_track_kind(tp, tl->track, "drm_fence");
	return &d->tls[d->ntls++];
}

static void
fence_slice_begin(struct tp *tp, struct timeline *tl, int64_t ts)
{
	int64_t set = tp_arg_set_new(tp);

	tp_arg_int(tp, set, "fence seqno", "fence seqno",
	    (int64_t)tl->pending.v[tl->pending.head].id1, "uint");
	(void)tp_slice_begin(tp, tl->track, ts, NULL, "fence", set, TP_NULL);
}

/* dma_fence_init, _emit and _signaled: context 1, seqno 3, timeline 4.
 * Fences of "unbound" timelines (arrays, chains of others) are skipped:
 * such timelines come and go, each would make a track. */
static void
fence_event(struct tp *tp, struct tp_fdrm *d, int64_t ts, uint32_t evid,
    const struct tp_ftrace_ev *e)
{
	char name[NAME_MAX_LEN];
	struct job seq = { 0, 0, (uint32_t)e->v[3] };
	struct timeline *tl;

	copy_name(name, sizeof(name), e, 4);
	if (strcmp(name, "unbound") == 0 ||
	    (tl = timeline_get(tp, d, (uint32_t)e->v[1], name)) == NULL)
		return;
	switch (evid) {
	case EV_FENCE_INIT:
		if (tl->has_emit)
			return;
		break;
	case EV_FENCE_EMIT:
		/* emit is the better start: once seen, init is ignored and
		 * what init began is dropped. */
		if (!tl->has_emit) {
			tl->has_emit = 1;
			if (tl->pending.n > 0) {
				(void)tp_slice_end(tp, tl->track, ts, NULL,
				    TP_NULL, NULL);
				tl->pending.n = tl->pending.head = 0;
			}
		}
		break;
	case EV_FENCE_SIGNALED:
		if (tl->pending.n == 0 ||
		    seq.id1 < tl->pending.v[tl->pending.head].id1)
			return;
		jobq_pop(&tl->pending);
		(void)tp_slice_end(tp, tl->track, ts, NULL, TP_NULL, NULL);
		if (tl->pending.n > 0)
			fence_slice_begin(tp, tl, ts);
		return;
	}
	if (jobq_push(&tl->pending, seq) == 0 && tl->pending.n == 1)
		fence_slice_begin(tp, tl, ts);
}

int
tp_ftrace_drm_event(struct tp *tp, int64_t ts, uint32_t cpu, int64_t pid,
    uint32_t evid, const struct tp_ftrace_ev *e)
{
	struct tp_fdrm *d;
	char ring[NAME_MAX_LEN];
	struct job j = { 0, 0, 0 };
	int64_t track, set;

	(void)cpu;
	switch (evid) {
	case EV_VBLANK:
		vblank(tp, ts, e, "signal");
		return 1;
	case EV_VBLANK_DELIVERED:
		vblank(tp, ts, e, "deliver");
		return 1;
	case EV_SCHED_JOB:
	case EV_RUN_JOB:
	case EV_SCHED_PROCESS_JOB:
	case EV_FENCE_INIT:
	case EV_FENCE_EMIT:
	case EV_FENCE_SIGNALED:
	case EV_SCHED_JOB_DONE:
	case EV_SCHED_JOB_QUEUE:
	case EV_SCHED_JOB_RUN:
		break;
	case EV_FENCE_WAIT_START:
		/* context 1, seqno 3 */
		track = tp_thread_track(tp, tp_thread_get(tp, pid));
		set = tp_arg_set_new(tp);
		tp_arg_int(tp, set, "fence context", "fence context",
		    (uint32_t)e->v[1], "uint");
		tp_arg_int(tp, set, "fence seqno", "fence seqno",
		    (uint32_t)e->v[3], "uint");
		(void)tp_slice_begin(tp, track, ts, NULL, "dma_fence_wait",
		    set, TP_NULL);
		return 1;
	case EV_FENCE_WAIT_END:
		track = tp_thread_track(tp, tp_thread_get(tp, pid));
		(void)tp_slice_end(tp, track, ts, NULL, TP_NULL, NULL);
		return 1;
	default:
		return 0;
	}
	if ((d = drm_get(tp)) == NULL)
		return 1;
	switch (evid) {
	case EV_SCHED_JOB:
		/* id 4, name 6 */
		j.types = JOB_LOCAL;
		j.id1 = (uint64_t)e->v[4];
		copy_name(ring, sizeof(ring), e, 6);
		sched_queue(tp, d, ts, pid, ring, &j);
		break;
	case EV_RUN_JOB:
		/* fence 2, id 4, name 6 */
		j.types = JOB_GLOBAL | JOB_LOCAL;
		j.id0 = (uint64_t)e->v[2];
		j.id1 = (uint64_t)e->v[4];
		copy_name(ring, sizeof(ring), e, 6);
		sched_run(tp, d, ts, ring, &j);
		break;
	case EV_SCHED_PROCESS_JOB:
		/* fence 1 */
		j.types = JOB_GLOBAL;
		j.id0 = (uint64_t)e->v[1];
		sched_done(tp, d, ts, &j);
		break;
	case EV_SCHED_JOB_DONE:
		/* fence_context 1, fence_seqno 2 */
		j.types = JOB_FENCE;
		j.id0 = (uint64_t)e->v[1];
		j.id1 = (uint64_t)e->v[2];
		sched_done(tp, d, ts, &j);
		break;
	case EV_SCHED_JOB_QUEUE:
	case EV_SCHED_JOB_RUN:
		/* name 1, fence_context 5, fence_seqno 6 */
		j.types = JOB_FENCE;
		j.id0 = (uint64_t)e->v[5];
		j.id1 = (uint64_t)e->v[6];
		copy_name(ring, sizeof(ring), e, 1);
		if (evid == EV_SCHED_JOB_QUEUE)
			sched_queue(tp, d, ts, pid, ring, &j);
		else
			sched_run(tp, d, ts, ring, &j);
		break;
	default:
		fence_event(tp, d, ts, evid, e);
		break;
	}
	return 1;
}

void
tp_ftrace_drm_free(struct tp *tp)
{
	struct tp_fdrm *d = tp->fdrm;
	size_t i;

	if (d == NULL)
		return;
	for (i = 0; i < d->nrings; i++) {
		free(d->rings[i].name);
		free(d->rings[i].running.v);
		tp_hash_free(&d->rings[i].queued);
	}
	for (i = 0; i < d->ntls; i++)
		free(d->tls[i].pending.v);
	free(d->rings);
	free(d->tls);
	tp_hash_free(&d->ring_by_name);
	tp_hash_free(&d->busy);
	tp_hash_free(&d->tl_by_ctx);
	free(d);
	tp->fdrm = NULL;
}
