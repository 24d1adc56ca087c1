/*
 * Upstream's generic kernel packets, for kernels that are not Linux or
 * tracers that are not ftrace: a task's state changes (which give the
 * sched and thread_state tables), renames, a process tree and cpu
 * frequencies. A task changing to Running on a cpu switches out the one
 * that ran there; its state is told by its own event at the same time.
 */
#include <stdlib.h>
#include <string.h>

#include "pbdec.h"
#include "tp_int.h"
#include "tp_proto.h"

#define NAME_MAX_LEN	256

enum {
	GK_UNKNOWN, GK_CREATED, GK_RUNNABLE, GK_RUNNING, GK_SLEEP_S,
	GK_SLEEP_D, GK_STOPPED, GK_DEAD, GK_DESTROYED, GK_NSTATES
};

/* The thread_state letters of each state, as upstream spells them. */
static const char *const state_names[GK_NSTATES] = {
	"Unknown", "Created", "R", "Running", "S", "D", "T", "Z", "X",
};

/* A sched slice: open on its cpu, or closed and waiting for the state
 * its task's own event gives at the same time. */
struct gk_slice {
	int64_t		 id;		/* -1: none */
	int64_t		 ts, end;
	int64_t		 cpu, utid, prio;
};

struct gk_cpu {
	struct gk_slice	 cur;
	int64_t		 tid;		/* who runs, when cur is open */
};

/* A thread's last thread_state row, open until its next state. */
struct gk_row {
	int64_t		 id;		/* -1: none */
	int64_t		 ts, dur, cpu;
	const char	*state;		/* one of state_names, or NULL */
};

struct gk_thread {
	struct gk_row	 row;
	struct gk_slice	 hung;		/* switched out, state not told */
};

struct tp_gkernel {
	struct gk_cpu	*cpus;
	size_t		 ncpus;
	struct gk_thread *th;		/* by utid */
	size_t		 nth;
};

static struct tp_gkernel *
gk_get(struct tp *tp)
{
	if (tp->gkernel == NULL)
		tp->gkernel = calloc(1, sizeof(*tp->gkernel));
	return tp->gkernel;
}

static struct gk_cpu *
cpu_get(struct tp *tp, int64_t cpu)
{
	struct tp_gkernel *g = gk_get(tp);
	size_t i, n;
	struct gk_cpu *c;

	if (g == NULL || cpu < 0 || cpu >= TP_MAX_CPUS)
		return NULL;
	if ((size_t)cpu >= g->ncpus) {
		n = (size_t)cpu + 1;
		if ((c = realloc(g->cpus, n * sizeof(*c))) == NULL)
			return NULL;
		for (i = g->ncpus; i < n; i++) {
			memset(&c[i], 0, sizeof(c[i]));
			c[i].cur.id = -1;
		}
		g->cpus = c;
		g->ncpus = n;
	}
	return &g->cpus[cpu];
}

static struct gk_thread *
th_get(struct tp *tp, int64_t utid)
{
	struct tp_gkernel *g = gk_get(tp);
	size_t i, n;
	struct gk_thread *t;

	if (g == NULL || utid < 0)
		return NULL;
	if ((size_t)utid >= g->nth) {
		n = (size_t)utid * 2 + 16;
		if ((t = realloc(g->th, n * sizeof(*t))) == NULL)
			return NULL;
		for (i = g->nth; i < n; i++) {
			memset(&t[i], 0, sizeof(t[i]));
			t[i].row.id = t[i].hung.id = -1;
		}
		g->th = t;
		g->nth = n;
	}
	return &g->th[utid];
}

static void
slice_write(struct tp *tp, const struct gk_slice *s, const char *end_state)
{
	(void)tp_sched_insert(tp, s->id, s->ts, s->end >= 0 ? s->end - s->ts :
	    -1, s->cpu, s->utid, end_state, s->prio);
}

static void
row_write(struct tp *tp, int64_t utid, const struct gk_row *r)
{
	tp_thread_state_insert(tp, r->id, r->ts, r->dur, r->cpu, utid,
	    r->state, TP_NULL, TP_NULL, TP_NULL, TP_NULL, NULL);
}

/* The thread's last row ends at ts and a new one opens; the idle task
 * has none. Two states at one time cannot both be true. */
static void
state_push(struct tp *tp, int64_t ts, int64_t utid, const char *state,
    int64_t cpu)
{
	struct gk_thread *t = th_get(tp, utid);

	if (t == NULL)
		return;
	if (t->row.id >= 0) {
		t->row.dur = ts - t->row.ts;
		row_write(tp, utid, &t->row);
		if (t->row.ts == ts)
			tp_stat_inc(tp, ST_GENERIC_TASK_STATE_INVALID_ORDER,
			    1);
	}
	if (utid == 0)
		return;
	t->row.id = tp->next_tstate++;
	t->row.ts = ts;
	t->row.dur = -1;
	t->row.cpu = cpu;
	t->row.state = state;
}

/* The utid the event is about, or -1 when it cannot be (counted). */
static int64_t
task_utid(struct tp *tp, int64_t ts, int64_t tid, int state,
    const char *comm, size_t commlen)
{
	uint64_t *u = tp_hash_get(tp_machine_ids(tp, tp->machine, 0),
	    (uint64_t)tid);
	struct gk_thread *t;
	int64_t utid;

	switch (state) {
	case GK_CREATED:
		if (u != NULL) {
			tp_stat_inc(tp, ST_GENERIC_TASK_STATE_INVALID_ORDER, 1);
			return -1;
		}
		utid = tp_thread_new(tp, tid, ts);
		break;
	case GK_DESTROYED:
		utid = tp_thread_get(tp, tid);
		if (u == NULL)
			tp_thread_set_name(tp, utid, comm, commlen,
			    TP_NAME_SCHED);
		tp_thread_end(tp, tid, ts);
		return utid;
	case GK_RUNNABLE: case GK_RUNNING: case GK_SLEEP_S: case GK_SLEEP_D:
	case GK_STOPPED: case GK_DEAD:
		utid = tp_thread_get(tp, tid);
		/* Nothing follows death but destruction, and a running
		 * task does not start running. */
		if (u != NULL && (t = th_get(tp, utid)) != NULL &&
		    t->row.id >= 0 && t->row.state != NULL &&
		    (strcmp(t->row.state, "Z") == 0 || (state == GK_RUNNING &&
		    strcmp(t->row.state, "Running") == 0))) {
			tp_stat_inc(tp, ST_GENERIC_TASK_STATE_INVALID_ORDER, 1);
			return -1;
		}
		break;
	default:
		tp_stat_inc(tp, ST_TASK_STATE_INVALID, 1);
		return -1;
	}
	tp_thread_set_name(tp, utid, comm, commlen, TP_NAME_SCHED);
	return utid;
}

static void
task_state(struct tp *tp, int64_t ts, const uint8_t *buf, size_t len)
{
	struct pb it;
	struct pb_field f;
	const char *comm = NULL, *st;
	size_t commlen = 0;
	int64_t cpu = 0, tid = 0, prio = 0, state = 0, utid, prev = -1;
	struct gk_cpu *c;
	struct gk_thread *t;

	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		if (f.id == 2 && f.wire == PB_LEN) {
			comm = (const char *)f.data;
			commlen = f.len < NAME_MAX_LEN ? f.len : NAME_MAX_LEN;
		} else if (f.wire == PB_VARINT) {
			if (f.id == 1)
				cpu = (int32_t)f.u;
			else if (f.id == 3)
				tid = (int64_t)f.u;
			else if (f.id == 4)
				state = (int64_t)f.u;
			else if (f.id == 5)
				prio = (int32_t)f.u;
		}
	}
	if (it.err || (c = cpu_get(tp, cpu)) == NULL) {
		tp_stat_inc(tp, ST_PROTO_DECODE_ERRORS, 1);
		return;
	}
	if (state < 0 || state >= GK_NSTATES)
		state = GK_UNKNOWN;
	if ((utid = task_utid(tp, ts, tid, (int)state, comm, commlen)) < 0)
		return;
	st = state_names[state];
	tp_seen_ts(tp, ts);
	if (state == GK_RUNNING) {
		/* Whoever ran here is switched out; its state comes with
		 * its own event at this time, else it stays unknown. */
		if (c->cur.id >= 0) {
			c->cur.end = ts;
			slice_write(tp, &c->cur, NULL);
			prev = c->cur.utid;
			if ((t = th_get(tp, prev)) != NULL)
				t->hung = c->cur;
			state_push(tp, ts, prev, NULL, TP_NULL);
		}
		c->cur.id = tp->next_sched++;
		c->cur.ts = ts;
		c->cur.end = -1;
		c->cur.cpu = cpu;
		c->cur.utid = utid;
		c->cur.prio = prio;
		c->tid = tid;
		state_push(tp, ts, utid, st, cpu);
		return;
	}
	if (c->cur.id >= 0 && tid == c->tid) {
		c->cur.end = ts;
		slice_write(tp, &c->cur, st);
		c->cur.id = -1;
	} else if ((t = th_get(tp, utid)) != NULL && t->hung.id >= 0 &&
	    t->hung.end == ts) {
		/* The state of a switch out told just after it. */
		slice_write(tp, &t->hung, st);
		t->hung.id = -1;
		if (t->row.id >= 0)
			t->row.state = st;
		return;
	}
	state_push(tp, ts, utid, st, TP_NULL);
}

static void
task_rename(struct tp *tp, const uint8_t *buf, size_t len)
{
	struct pb it;
	struct pb_field f;
	const char *comm = NULL;
	size_t commlen = 0;
	int64_t tid = 0, utid, upid;

	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		if (f.id == 1 && f.wire == PB_VARINT)
			tid = (int64_t)f.u;
		else if (f.id == 2 && f.wire == PB_LEN) {
			comm = (const char *)f.data;
			commlen = f.len < NAME_MAX_LEN ? f.len : NAME_MAX_LEN;
		}
	}
	if (it.err) {
		tp_stat_inc(tp, ST_PROTO_DECODE_ERRORS, 1);
		return;
	}
	utid = tp_thread_get(tp, tid);
	tp_thread_set_name(tp, utid, comm, commlen, TP_NAME_SCHED);
	/* A main thread's name is its process's. */
	upid = tp->threads[utid].upid;
	if (comm != NULL && upid != TP_NULL && tp->procs[upid].pid == tid)
		tp_process_set_name(tp, upid, comm, commlen, TP_PNAME_SYSTEM);
}

static void
tree_process(struct tp *tp, const uint8_t *buf, size_t len)
{
	struct pb it;
	struct pb_field f;
	const char *cmd = NULL;
	size_t cmdlen = 0, namelen;
	int64_t pid = 0, ppid = 0, upid, pupid;

	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		if (f.id == 1 && f.wire == PB_VARINT)
			pid = (int64_t)f.u;
		else if (f.id == 2 && f.wire == PB_VARINT)
			ppid = (int64_t)f.u;
		else if (f.id == 3 && f.wire == PB_LEN) {
			cmd = (const char *)f.data;
			cmdlen = f.len;
		}
	}
	/* Without a cmdline there is nothing to say of it. */
	if (it.err || cmd == NULL)
		return;
	pupid = tp_process_get_bare(tp, ppid);
	upid = tp_process_get_bare(tp, pid);
	tp_process_set_parent(tp, upid, pupid, TP_NULL);
	/* Its name is argv0. */
	for (namelen = 0; namelen < cmdlen && cmd[namelen] != ' '; namelen++)
		;
	tp_process_set_name(tp, upid, cmd, namelen, TP_PNAME_SYSTEM);
	tp_process_set_cmdline(tp, upid, cmd, cmdlen);
}

static void
tree_thread(struct tp *tp, const uint8_t *buf, size_t len)
{
	struct pb it;
	struct pb_field f;
	const char *comm = NULL;
	size_t commlen = 0;
	int64_t tid = 0, pid = 0, utid;
	int main_thread = 0, idle = 0;

	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		if (f.wire == PB_LEN && f.id == 3) {
			comm = (const char *)f.data;
			commlen = f.len < NAME_MAX_LEN ? f.len : NAME_MAX_LEN;
		} else if (f.wire == PB_VARINT) {
			if (f.id == 1)
				tid = (int64_t)f.u;
			else if (f.id == 2)
				pid = (int64_t)f.u;
			else if (f.id == 4)
				main_thread = f.u != 0;
			else if (f.id == 5)
				idle = f.u != 0;
		}
	}
	if (it.err)
		return;
	utid = tp_thread_with_parent(tp, tid, tp_process_get_bare(tp, pid));
	tp->threads[utid].main_thread = main_thread;
	tp->threads[utid].is_idle = idle;
	if (comm != NULL)
		tp_thread_set_name(tp, utid, comm, commlen, TP_NAME_TREE);
}

/* Processes first: the threads name theirs. */
static void
process_tree(struct tp *tp, const uint8_t *buf, size_t len)
{
	struct pb it;
	struct pb_field f;
	uint32_t pass;

	for (pass = 1; pass <= 2; pass++) {
		pb_init(&it, buf, len);
		while (pb_next_untrusted(&it, &f) == 1)
			if (f.id == pass && f.wire == PB_LEN) {
				if (pass == 1)
					tree_process(tp, f.data, f.len);
				else
					tree_thread(tp, f.data, f.len);
			}
		if (it.err) {
			tp_stat_inc(tp, ST_PROTO_DECODE_ERRORS, 1);
			return;
		}
	}
}

static void
cpu_freq(struct tp *tp, int64_t ts, const uint8_t *buf, size_t len)
{
	struct pb it;
	struct pb_field f;
	int64_t cpu = 0, hz = 0;

	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1)
		if (f.id == 1 && f.wire == PB_VARINT)
			cpu = (int32_t)f.u;
		else if (f.id == 2 && f.wire == PB_VARINT)
			hz = (int64_t)f.u;
	if (it.err || cpu < 0 || cpu >= TP_MAX_CPUS) {
		tp_stat_inc(tp, ST_PROTO_DECODE_ERRORS, 1);
		return;
	}
	/* In kHz, as cpu_frequency is. */
	tp_ftrace_cpu_counter(tp, ts, "cpu_frequency", "cpufreq", cpu,
	    (double)hz / 1000.0);
}

static void
gpu_freq(struct tp *tp, int64_t ts, const uint8_t *buf, size_t len)
{
	struct pb it;
	struct pb_field f;
	uint32_t gpu = 0, khz = 0;

	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1)
		if (f.id == 1 && f.wire == PB_VARINT)
			gpu = (uint32_t)f.u;
		else if (f.id == 2 && f.wire == PB_VARINT)
			khz = (uint32_t)f.u;
	if (it.err) {
		tp_stat_inc(tp, ST_PROTO_DECODE_ERRORS, 1);
		return;
	}
	tp_gpu_frequency(tp, ts, gpu, (double)khz);
}

void
tp_generic_kernel_packet(struct tp *tp, uint32_t field, int64_t ts,
    const uint8_t *buf, size_t len)
{
	switch (field) {
	case TP_GK_TASK_STATE:
		task_state(tp, ts, buf, len);
		break;
	case TP_GK_CPU_FREQ:
		cpu_freq(tp, ts, buf, len);
		break;
	case TP_GK_TASK_RENAME:
		task_rename(tp, buf, len);
		break;
	case TP_GK_PROCESS_TREE:
		process_tree(tp, buf, len);
		break;
	case TP_GK_GPU_FREQ:
		gpu_freq(tp, ts, buf, len);
		break;
	}
}

/* Open sched slices and thread states as they stand (dur -1). */
void
tp_generic_kernel_write_open(struct tp *tp)
{
	struct tp_gkernel *g = tp->gkernel;
	size_t i;

	if (g == NULL)
		return;
	for (i = 0; i < g->ncpus; i++)
		if (g->cpus[i].cur.id >= 0)
			slice_write(tp, &g->cpus[i].cur, NULL);
	for (i = 0; i < g->nth; i++)
		if (g->th[i].row.id >= 0)
			row_write(tp, (int64_t)i, &g->th[i].row);
}

void
tp_generic_kernel_free(struct tp *tp)
{
	if (tp->gkernel == NULL)
		return;
	free(tp->gkernel->cpus);
	free(tp->gkernel->th);
	free(tp->gkernel);
	tp->gkernel = NULL;
}
