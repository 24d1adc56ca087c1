/*
 * Adreno GPU command batches (kgsl_adreno_cmdbatch_*), as upstream draws
 * them: a "GPU" slice per retired batch on a track of its context and
 * priority, named after the process that queued it. The slice starts when
 * the GPU started the batch, long before the retired event: the batch's
 * sync event pairs GPU ticks with trace time, so at tokenization the
 * retired event's meaning is placed at that start (its ftrace_event row
 * stays where it was recorded), waiting for its sync if that comes later.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pbdec.h"
#include "tp_int.h"
#include "tp_proto.h"

#define EV_QUEUED	534
#define EV_SYNC		536
#define EV_RETIRED	537

#define XO_HZ		19200000	/* the GPU's always-on tick rate */
#define MAX_PENDING	65536		/* retired events awaiting a sync */
#define NAME_MAX_LEN	256

/* A retired event whose sync has not come yet. */
struct pending {
	uint64_t	 stamp;		/* the batch's timestamp field */
	uint32_t	 cpu;
	int64_t		 raw_ts;
	uint64_t	 start;		/* GPU ticks */
	struct tp_gen	*g;
	uint8_t		*ev;
	size_t		 len;
};

/* The tracks of one context and priority: a batch takes the first whose
 * last batch has ended (upstream's compressor). */
struct ctx_tracks {
	uint32_t	 ctx, prio;
	int64_t		 group;		/* the tracks' track_group_id */
	int64_t		*track;
	int64_t		*end;
	size_t		 n;
};

struct tp_fadreno {
	struct tp_hash	 sync_ts;	/* stamp -> trace time of its sync */
	struct tp_hash	 sync_ticks;	/* stamp -> GPU ticks then */
	struct pending	*pend;
	size_t		 npend, cappend;
	struct tp_hash	 queued;	/* context -> tid that queued */
	struct ctx_tracks *ctxs;
	size_t		 nctxs;
};

static struct tp_fadreno *
adreno_get(struct tp *tp)
{
	struct tp_fadreno *a = tp->fadreno;

	if (a == NULL && (a = tp->fadreno = calloc(1, sizeof(*a))) != NULL) {
		tp_hash_init(&a->sync_ts);
		tp_hash_init(&a->sync_ticks);
		tp_hash_init(&a->queued);
	}
	return a;
}

/* Where the batch started in trace time, from its sync; -1 if the ticks
 * are too far apart to say. */
static int64_t
gpu_start(int64_t sync_ts, uint64_t sync_ticks, uint64_t start)
{
	int64_t ns;

	if (__builtin_mul_overflow((int64_t)(start - sync_ticks),
	    (int64_t)1000000000, &ns))
		return -1;
	return sync_ts + ns / XO_HZ;
}

/* The retired event: its row at raw_ts, its slice at the batch's start. */
static void
push_retired(struct tp *tp, struct tp_gen *g, uint32_t cpu, int64_t raw_ts,
    int64_t start_ts, const uint8_t *ev, size_t len)
{
	tp_ftrace_push(tp, g, cpu, raw_ts, raw_ts, FT_ROW, ev, len);
	if (start_ts >= 0)
		tp_ftrace_push(tp, g, cpu, start_ts, raw_ts, FT_EFFECTS, ev, len);
}

static void
pending_drop(struct tp_fadreno *a, size_t i)
{
	if (a->pend[i].g != NULL)
		tp_proto_unref(a->pend[i].g);
	free(a->pend[i].ev);
	a->pend[i] = a->pend[--a->npend];
}

int
tp_ftrace_adreno_tokenizes(uint32_t evid)
{
	return evid == EV_SYNC || evid == EV_RETIRED;
}

int
tp_ftrace_adreno_tokenize(struct tp *tp, struct tp_gen *g, uint32_t cpu,
    int64_t ts, const uint8_t *buf, size_t len)
{
	struct tp_fadreno *a;
	struct tp_ftrace_ev e;
	struct pb it;
	struct pb_field f, ev = { 0 };
	uint64_t stamp, *sts, *sticks;
	struct pending *p;
	size_t i;

	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1)
		if ((f.id == EV_SYNC || f.id == EV_RETIRED) &&
		    f.wire == PB_LEN)
			ev = f;
	if (it.err || ev.id == 0 || (a = adreno_get(tp)) == NULL)
		return 0;
	tp_ftrace_ev_decode(ev.data, ev.len, &e);
	stamp = (uint64_t)e.v[2];
	if (ev.id == EV_SYNC) {
		/* ticks 3 */
		(void)tp_hash_put(&a->sync_ts, stamp, (uint64_t)ts);
		(void)tp_hash_put(&a->sync_ticks, stamp, (uint64_t)e.v[3]);
		for (i = 0; i < a->npend; i++) {
			p = &a->pend[i];
			if (p->stamp != stamp)
				continue;
			push_retired(tp, p->g, p->cpu, p->raw_ts, gpu_start(ts,
			    (uint64_t)e.v[3], p->start), p->ev, p->len);
			pending_drop(a, i);
			(void)tp_hash_del(&a->sync_ts, stamp);
			(void)tp_hash_del(&a->sync_ticks, stamp);
			break;
		}
		tp_ftrace_push(tp, g, cpu, ts, ts, 0, buf, len);
		return 1;
	}
	/* start 6 */
	sts = tp_hash_get(&a->sync_ts, stamp);
	sticks = tp_hash_get(&a->sync_ticks, stamp);
	if (sts != NULL && sticks != NULL) {
		push_retired(tp, g, cpu, ts, gpu_start((int64_t)*sts, *sticks,
		    (uint64_t)e.v[6]), buf, len);
		(void)tp_hash_del(&a->sync_ts, stamp);
		(void)tp_hash_del(&a->sync_ticks, stamp);
		return 1;
	}
	/* Its row now; its slice when the sync comes (beyond MAX_PENDING
	 * waiting, never). */
	tp_ftrace_push(tp, g, cpu, ts, ts, FT_ROW, buf, len);
	if (a->npend == MAX_PENDING)
		return 1;
	if (a->npend == a->cappend) {
		size_t ncap = a->cappend ? a->cappend * 2 : 16;
		void *np = realloc(a->pend, ncap * sizeof(*a->pend));

		if (np == NULL)
			return 1;
		a->pend = np;
		a->cappend = ncap;
	}
	p = &a->pend[a->npend];
	if ((p->ev = malloc(len)) == NULL)
		return 1;
	memcpy(p->ev, buf, len);
	p->len = len;
	p->stamp = stamp;
	p->cpu = cpu;
	p->raw_ts = ts;
	p->start = (uint64_t)e.v[6];
	p->g = g;
	if (g != NULL)
		tp_proto_ref(g);
	a->npend++;
	return 1;
}

/* The track of this context and priority free at ts, taken until end. */
static int64_t
ctx_track(struct tp *tp, struct tp_fadreno *a, uint32_t ctx, uint32_t prio,
    const char *name, int64_t ts, int64_t end)
{
	struct ctx_tracks *c = NULL;
	size_t i;
	int64_t track, set;
	void *p;

	for (i = 0; i < a->nctxs; i++)
		if (a->ctxs[i].ctx == ctx && a->ctxs[i].prio == prio)
			c = &a->ctxs[i];
	if (c == NULL) {
		if ((p = realloc(a->ctxs, (a->nctxs + 1) *
		    sizeof(*a->ctxs))) == NULL)
			return -1;
		a->ctxs = p;
		c = &a->ctxs[a->nctxs++];
		memset(c, 0, sizeof(*c));
		c->ctx = ctx;
		c->prio = prio;
		c->group = tp->track_groups++;
	}
	for (i = 0; i < c->n; i++)
		if (c->end[i] <= ts) {
			c->end[i] = end;
			return c->track[i];
		}
	if ((p = realloc(c->track, (c->n + 1) * sizeof(*c->track))) == NULL)
		return -1;
	c->track = p;
	if ((p = realloc(c->end, (c->n + 1) * sizeof(*c->end))) == NULL)
		return -1;
	c->end = p;
	if ((track = tp_track_new(tp, TT_TRACK, name, TP_NULL)) < 0)
		return -1;
	tp_track_kind(tp, track, "adreno_gpu_cmdbatch");
	tp->tracks[track].group = c->group;
	set = tp_track_dim_set(tp, track);
	tp_arg_int(tp, set, "context_id", "context_id", ctx, "int");
	tp_arg_int(tp, set, "prio", "prio", prio, "int");
	tp_arg_int(tp, set, "track_compressor_idx", "track_compressor_idx",
	    (int64_t)c->n, "int");
	c->track[c->n] = track;
	c->end[c->n++] = end;
	return track;
}

int
tp_ftrace_adreno_event(struct tp *tp, int64_t ts, uint32_t cpu, int64_t pid,
    uint32_t evid, const struct tp_ftrace_ev *e)
{
	struct tp_fadreno *a;
	uint64_t start, retire, *tid;
	uint32_t ctx, prio;
	const char *pname = NULL;
	char name[NAME_MAX_LEN + 64];
	int64_t dur, track, utid, upid;

	(void)cpu;
	if (evid != EV_QUEUED && evid != EV_RETIRED)
		return 0;
	if ((a = adreno_get(tp)) == NULL)
		return 1;
	ctx = (uint32_t)e->v[1];
	if (evid == EV_QUEUED) {
		(void)tp_hash_put(&a->queued, ctx, (uint64_t)pid);
		return 1;
	}
	/* start 6, retire 7, prio 8 */
	start = (uint64_t)e->v[6];
	retire = (uint64_t)e->v[7];
	prio = (uint32_t)e->v[8];
	if (retire < start || retire - start > INT64_MAX ||
	    __builtin_mul_overflow((int64_t)(retire - start),
	    (int64_t)1000000000, &dur))
		return 1;
	dur /= XO_HZ;
	/* Named after the process that queued the batch, when known. */
	if ((tid = tp_hash_get(&a->queued, ctx)) != NULL) {
		utid = tp_thread_get(tp, (int64_t)*tid);
		upid = tp->threads[utid].upid;
		if (upid != TP_NULL)
			pname = tp->procs[upid].name;
	}
	if (pname != NULL)
		snprintf(name, sizeof(name), "GPU %.*s (Ctx=%u, Prio=%u)",
		    NAME_MAX_LEN, pname, ctx, prio);
	else
		snprintf(name, sizeof(name), "GPU (Ctx=%u, Prio=%u)", ctx,
		    prio);
	if ((track = ctx_track(tp, a, ctx, prio, name, ts, ts + dur)) < 0)
		return 1;
	/* A track made before the process was named gets its name now. */
	if (pname != NULL)
		tp_setstr(&tp->tracks[track].name, name, strlen(name));
	(void)tp_slice_complete(tp, track, ts, dur, NULL, "GPU", TP_NULL,
	    TP_NULL, TP_NULL);
	return 1;
}

void
tp_ftrace_adreno_free(struct tp *tp)
{
	struct tp_fadreno *a = tp->fadreno;
	size_t i;

	if (a == NULL)
		return;
	while (a->npend > 0)
		pending_drop(a, a->npend - 1);
	free(a->pend);
	for (i = 0; i < a->nctxs; i++) {
		free(a->ctxs[i].track);
		free(a->ctxs[i].end);
	}
	free(a->ctxs);
	tp_hash_free(&a->sync_ts);
	tp_hash_free(&a->sync_ticks);
	tp_hash_free(&a->queued);
	free(a);
	tp->fadreno = NULL;
}
