/*
 * ftrace: every event into ftrace_event with its fields in args, and the
 * events with a meaning of their own into sched, thread_state, counters,
 * slices and the thread/process tables. The proto bundles and the text
 * importer (tp_systrace.c) both end up here.
 *
 * Kernel addresses (workqueue functions, funcgraph functions, ...) arrive
 * as iids into the sequence's InternedData.kernel_symbols when the trace
 * was recorded with FtraceConfig.symbolize_ksyms. Each event is sorted
 * holding a reference to the interning generation of its bundle, so it
 * resolves against the table as it stood in sequence order, whatever the
 * timestamp order.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tp_gen_tables.h"
#include "tp_pipe.h"
#include "tp_proto.h"

#define EV_PRINT		3
#define EV_SCHED_SWITCH		4
#define EV_CPU_FREQUENCY	11
#define EV_CPU_IDLE		13
#define EV_SCHED_WAKEUP		17
#define EV_SCHED_BLOCKED_REASON	18
#define EV_SCHED_WAKING		20
#define EV_SOFTIRQ_ENTRY	24
#define EV_SOFTIRQ_EXIT		25
#define EV_IRQ_HANDLER_ENTRY	36
#define EV_IRQ_HANDLER_EXIT	37
#define EV_WORKQUEUE_ACTIVATE	56
#define EV_WORKQUEUE_END	57
#define EV_WORKQUEUE_START	58
#define EV_WORKQUEUE_QUEUE	59
#define EV_SCHED_WAKEUP_NEW	114
#define EV_TASK_NEWTASK		235
#define EV_TASK_RENAME		236
#define EV_SCHED_PROCESS_EXIT	238
#define EV_SCHED_PROCESS_FREE	240
#define EV_GENERIC		327
#define EV_FUNCGRAPH_ENTRY	437
#define EV_FUNCGRAPH_EXIT	438
#define EV_KPROBE_EVENT		542

#define INTERNED_KERNEL_SYMBOLS	26	/* InternedData field */
#define INTERNED_STRING_STR	2	/* InternedString field */
#define KSYM_MAX		1024	/* slice names; KSYM_NAME_LEN is 512 */

#define CLONE_THREAD		0x00010000
#define MAX_CPUS		4096
#define COMM_MAX		64

struct cpu_state {
	int64_t		 sched_id;	/* open sched slice, -1 none */
	int64_t		 ts;
	int64_t		 utid;
	int64_t		 prio;
	/* the running task, for compact sched's implied prev fields */
	int64_t		 pid;
	char		 comm[COMM_MAX];
	/* Its Irq and SoftIrq Cpu tracks, -1 until made, and whose. */
	int64_t		 irq_track[2];
	uint32_t	 irq_machine[2];
};

struct state_row {
	int64_t		 id;		/* -1: none */
	int64_t		 ts, dur;
	int64_t		 cpu;
	int64_t		 waker;
	int64_t		 waker_id;	/* the waker's running row, TP_NULL */
	int64_t		 irq_context;	/* woken in an interrupt, TP_NULL */
	int64_t		 io_wait;	/* TP_NULL until sched_blocked_reason */
	char		 state[16];
	char		 blocked_fn[128];	/* its caller, "" if unknown */
};

/*
 * A thread's open thread_state row, and its last blocked row once closed:
 * the sched_blocked_reason that follows a wakeup still fills that row
 * until the thread runs or blocks again (upstream's last_blocked_row).
 */
struct open_state {
	struct state_row cur;
	struct state_row held;
};

/* A machine's cpus: each machine numbers its own from 0. */
struct cpu_set {
	struct cpu_state	*cpus;
	size_t			 ncpus;
};

struct tp_ftrace {
	struct cpu_set		*sets;		/* by machine */
	size_t			 nsets;
	struct open_state	*states;	/* by utid */
	size_t			 nstates;
	/*
	 * Each cpu's buffer holds data from the end of its first bundle's
	 * previous one (or its last read event); before the latest such
	 * start some cpus may have lost data, so events before it only go
	 * to ftrace_event (upstream's soft drop): a begin there could pair
	 * with an end lost on another cpu.
	 */
	uint64_t		 first_bundle[MAX_CPUS / 64];
	int64_t			 latest_start;	/* -1: none known */
	/* The same for remote machines: machine << 32 | cpu -> 1, and
	 * machine -> its latest start (events are soft-dropped by the
	 * host's). */
	struct tp_hash		 remote_first;
	struct tp_hash		 remote_latest;
	int64_t			 soft_drop;	/* -1: not fixed yet */
};

static struct tp_ftrace *
ft_get(struct tp *tp)
{
	if (tp->ftrace == NULL &&
	    (tp->ftrace = calloc(1, sizeof(*tp->ftrace))) != NULL)
		tp->ftrace->latest_start = tp->ftrace->soft_drop = -1;
	return tp->ftrace;
}

/* Whether an event at ts predates the data of some cpu: fixed at the
 * first event parsed, from the bundles read by then, as upstream. */
static int
soft_dropped(struct tp *tp, int64_t ts)
{
	struct tp_ftrace *ft = ft_get(tp);

	if (ft == NULL)
		return 0;
	if (ft->soft_drop < 0)
		ft->soft_drop = ft->latest_start > 0 ? ft->latest_start : 0;
	return ts < ft->soft_drop;
}

/* A cpu's first bundle says from when its data is complete. */
static void
bundle_start(struct tp *tp, uint32_t cpu, int64_t start)
{
	struct tp_ftrace *ft;
	uint64_t bit = 1ULL << (cpu % 64), *latest;
	uint64_t key = (uint64_t)tp->machine << 32 | cpu;

	/* A cpu's first bundle waits for the parse thread's queue: the
	 * parse reads what it sets. */
	if (tp->ftrace == NULL || tp->machine != 0 ||
	    !(tp->ftrace->first_bundle[cpu / 64] & bit))
		tp_pipe_sync(tp);
	if ((ft = ft_get(tp)) == NULL)
		return;
	if (tp->machine != 0) {
		if (tp_hash_get(&ft->remote_first, key) != NULL ||
		    tp_hash_put(&ft->remote_first, key, 1) == -1)
			return;
		latest = tp_hash_get(&ft->remote_latest, tp->machine);
		if (start < 0 || (latest != NULL && start <= (int64_t)*latest))
			return;
		(void)tp_hash_put(&ft->remote_latest, tp->machine,
		    (uint64_t)start);
		tp_metadata_int(tp, "ftrace_latest_data_start_ns", start);
		return;
	}
	if (ft->first_bundle[cpu / 64] & bit)
		return;
	ft->first_bundle[cpu / 64] |= bit;
	if (start < 0 || start <= ft->latest_start)
		return;
	ft->latest_start = start;
	tp_metadata_int(tp, "ftrace_latest_data_start_ns", start);
}

static struct cpu_state *
cpu_get(struct tp *tp, uint32_t cpu)
{
	struct tp_ftrace *ft = ft_get(tp);
	struct cpu_set *s;
	size_t i;

	if (ft == NULL || cpu >= MAX_CPUS)
		return NULL;
	if (tp->machine >= ft->nsets) {
		size_t n = (size_t)tp->machine + 1;

		if ((s = realloc(ft->sets, n * sizeof(*s))) == NULL)
			return NULL;
		memset(s + ft->nsets, 0, (n - ft->nsets) * sizeof(*s));
		ft->sets = s;
		ft->nsets = n;
	}
	s = &ft->sets[tp->machine];
	if (cpu >= s->ncpus) {
		size_t n = cpu + 1;
		struct cpu_state *c = realloc(s->cpus, n * sizeof(*c));

		if (c == NULL)
			return NULL;
		for (i = s->ncpus; i < n; i++) {
			memset(&c[i], 0, sizeof(c[i]));
			c[i].sched_id = -1;
			c[i].pid = -1;
			c[i].irq_track[0] = c[i].irq_track[1] = -1;
		}
		s->cpus = c;
		s->ncpus = n;
	}
	return &s->cpus[cpu];
}

static struct open_state *
state_get(struct tp *tp, int64_t utid)
{
	struct tp_ftrace *ft = ft_get(tp);
	size_t i;

	if (ft == NULL || utid < 0)
		return NULL;
	if ((size_t)utid >= ft->nstates) {
		size_t n = (size_t)utid * 2 + 16;
		struct open_state *s = realloc(ft->states, n * sizeof(*s));

		if (s == NULL)
			return NULL;
		for (i = ft->nstates; i < n; i++)
			s[i].cur.id = s[i].held.id = -1;
		ft->states = s;
		ft->nstates = n;
	}
	return &ft->states[utid];
}

/* Decoded task state flags: the low six bits keep the kernel's values. */
enum {
	TS_PARKED = 0x40, TS_DEAD = 0x80, TS_WAKEKILL = 0x100,
	TS_WAKING = 0x200, TS_NOLOAD = 0x400, TS_IDLE = 0x4000,
	TS_PREEMPTED = 0x8000
};

/* Kernels without a recorded release are read as 4.4, as upstream. */
static unsigned
task_state_decode(unsigned raw, int kver, int *valid)
{
	unsigned f = raw & 0x3f;

	*valid = 1;
	if (kver == 0)
		kver = 4004;
	if (kver >= 4014) {
		/* 4.14 masks to TASK_REPORT: 0x80 is TASK_REPORT_IDLE and
		 * 0x100 TASK_REPORT_MAX, meaning preempted. */
		f |= raw & 0x40 ? TS_PARKED : 0;
		f |= raw & 0x80 ? TS_IDLE : 0;
		f |= raw & 0x100 ? TS_PREEMPTED : 0;
		if (raw & 0xfe00)
			*valid = 0;
		return f;
	}
	f |= raw & 0x40 ? TS_DEAD : 0;
	f |= raw & 0x80 ? TS_WAKEKILL : 0;
	f |= raw & 0x100 ? TS_WAKING : 0;
	f |= raw & 0x200 ? TS_PARKED : 0;
	f |= raw & 0x400 ? TS_NOLOAD : 0;
	if (f == (0x2 | TS_NOLOAD))
		f = TS_IDLE;
	/* TASK_STATE_MAX (preemption) is 0x1000 from 4.8, 0x800 before. */
	if (raw & (kver >= 4008 ? 0x1000 : 0x800))
		f |= TS_PREEMPTED;
	return f;
}

/* Upstream's letters, in the order it prints them. */
static const struct { unsigned flag; char c; } state_letters[] = {
	{ 0x1, 'S' }, { 0x2, 'D' }, { 0x4, 'T' }, { 0x8, 't' },
	{ 0x10, 'X' }, { 0x20, 'Z' }, { TS_PARKED, 'P' },
	{ TS_DEAD, 'x' }, { TS_WAKEKILL, 'K' }, { TS_WAKING, 'W' },
	{ TS_NOLOAD, 'N' }, { TS_IDLE, 'I' },
};
#define NSTATE_LETTERS	(sizeof(state_letters) / sizeof(state_letters[0]))

static int
state_print(unsigned f, char *buf, size_t len)
{
	size_t i, n = 0;

	if ((f & ~TS_PREEMPTED) == 0) {
		tp_strlcpy(buf, len, "R+", f & TS_PREEMPTED ? 2 : 1);
		return 1;
	}
	/* Upstream keeps at most three letters. */
	for (i = 0; i < NSTATE_LETTERS; i++)
		if ((f & state_letters[i].flag) && n < 3 && n + 1 < len)
			buf[n++] = state_letters[i].c;
	buf[n] = '\0';
	return 1;
}

int
tp_task_state_str(int64_t state, int kver, char *buf, size_t len)
{
	int valid;
	unsigned f = task_state_decode((uint16_t)state, kver, &valid);

	buf[0] = '\0';
	return valid ? state_print(f, buf, len) : 0;
}

int64_t
tp_task_state_text(const char *s, size_t slen)
{
	unsigned f = 0;
	size_t i, j;
	int64_t raw;

	if (slen == 0)
		return 0xffff;
	if (s[0] == 'R')
		return slen == 2 && s[1] == '+' ? 0x800 : 0;
	for (i = 0; i < slen; i++) {
		if (s[i] == '|')
			continue;
		for (j = 0; j < NSTATE_LETTERS && state_letters[j].c != s[i];
		    j++)
			;
		if (j == NSTATE_LETTERS)
			return 0xffff;
		f |= state_letters[j].flag;
	}
	/* Back into the bits of a 4.4 kernel, the release text is read as. */
	raw = f & 0x3f;
	raw |= f & TS_DEAD ? 0x40 : 0;
	raw |= f & TS_WAKEKILL ? 0x80 : 0;
	raw |= f & TS_WAKING ? 0x100 : 0;
	raw |= f & TS_PARKED ? 0x200 : 0;
	raw |= f & TS_NOLOAD ? 0x400 : 0;
	raw |= f & TS_IDLE ? 0x2 | 0x400 : 0;
	return raw;
}

/* Upstream's blocked: any state but "R" and "Running" (so "R+" too). */
static int
state_blocked(const char *st)
{
	return strcmp(st, "R") != 0 && strcmp(st, "Running") != 0;
}

static void
row_write(struct tp *tp, int64_t utid, struct state_row *r)
{
	if (r->id < 0)
		return;
	tp_thread_state_insert(tp, r->id, r->ts, r->dur, r->cpu, utid,
	    r->state[0] != '\0' ? r->state : NULL, r->io_wait, r->waker,
	    r->waker_id, r->irq_context, r->blocked_fn[0] != '\0' ?
	    r->blocked_fn : NULL);
	r->id = -1;
}

/* lost: events were lost, so the end is unknown and dur stays -1. */
static void
state_close(struct tp *tp, int64_t utid, struct open_state *s, int64_t ts,
    int lost)
{
	if (s->cur.id < 0)
		return;
	if (!lost)
		s->cur.dur = ts - s->cur.ts;
	if (!state_blocked(s->cur.state)) {
		row_write(tp, utid, &s->cur);
		return;
	}
	row_write(tp, utid, &s->held);
	s->held = s->cur;
	s->cur.id = -1;
}

static void
state_open(struct tp *tp, int64_t utid, struct open_state *s, int64_t ts,
    const char *st, int64_t cpu, int64_t waker, int64_t flags)
{
	struct tp_ftrace *ft = tp->ftrace;
	const struct state_row *w;

	/* Running or blocking again ends the wait for a blocked reason. */
	if (strcmp(st, "Running") == 0 || state_blocked(st))
		row_write(tp, utid, &s->held);
	s->cur.id = tp->next_tstate++;
	s->cur.ts = ts;
	s->cur.dur = -1;
	s->cur.cpu = cpu;
	s->cur.waker = waker;
	/* The waker's row when it is running, as upstream links them. */
	w = waker != TP_NULL && waker >= 0 && ft != NULL &&
	    (size_t)waker < ft->nstates ? &ft->states[waker].cur : NULL;
	s->cur.waker_id = w != NULL && w->id >= 0 &&
	    strcmp(w->state, "Running") == 0 ? w->id : TP_NULL;
	/* Woken from hard or soft irq context (the event's common_flags
	 * TRACE_FLAG_HARDIRQ | TRACE_FLAG_SOFTIRQ). */
	s->cur.irq_context = flags == TP_NULL ? TP_NULL : (flags & 0x18) != 0;
	s->cur.io_wait = TP_NULL;
	s->cur.blocked_fn[0] = '\0';
	tp_strlcpy(s->cur.state, sizeof(s->cur.state), st, strlen(st));
}

/* sched_blocked_reason: why the thread blocked, for its last blocked row,
 * open or held; nothing when it has run since. fn: the caller's symbol,
 * NULL when the sequence does not name it (upstream leaves it NULL then,
 * with no hex fallback). */
void
tp_ftrace_blocked_reason(struct tp *tp, int64_t tid, int64_t io_wait,
    const char *fn, size_t fnlen)
{
	struct open_state *s;
	struct state_row *r;

	if (tid == 0 || (s = state_get(tp, tp_thread_get(tp, tid))) == NULL)
		return;
	if (s->cur.id >= 0 && state_blocked(s->cur.state))
		r = &s->cur;
	else if (s->held.id >= 0)
		r = &s->held;
	else
		return;
	r->io_wait = io_wait != 0;
	if (fn != NULL)
		tp_strlcpy(r->blocked_fn, sizeof(r->blocked_fn), fn, fnlen);
}

void
tp_ftrace_sched_switch(struct tp *tp, int64_t ts, uint32_t cpu,
    const char *prev_comm, size_t prev_comm_len, int64_t prev_pid,
    int64_t prev_prio, const char *st, const char *next_comm,
    size_t next_comm_len, int64_t next_pid, int64_t next_prio)
{
	struct cpu_state *c = cpu_get(tp, cpu);
	struct open_state *s;
	int64_t prev_utid, next_utid;

	if (c == NULL)
		return;
	tp_seen_ts(tp, ts);
	/* The next task's thread first, as upstream makes them. */
	next_utid = tp_thread_get(tp, next_pid);
	prev_utid = tp_thread_get(tp, prev_pid);
	/* The idle task (a machine's utid of tid 0; in a JSON trace's
	 * systrace, tid 0 is a task like any) keeps its name and has no
	 * thread states. */
	if (prev_comm != NULL && !tp->threads[prev_utid].is_idle)
		tp_thread_set_name(tp, prev_utid, prev_comm, prev_comm_len,
		    TP_NAME_SCHED);
	if (next_comm != NULL && !tp->threads[next_utid].is_idle)
		tp_thread_set_name(tp, next_utid, next_comm, next_comm_len,
		    TP_NAME_SCHED);
	if (st[0] == '\0')
		tp_stat_inc(tp, ST_TASK_STATE_INVALID, 1);

	if (c->sched_id >= 0 && c->pid == prev_pid)
		tp_sched_insert(tp, c->sched_id, c->ts, ts - c->ts, cpu,
		    c->utid, st[0] != '\0' ? st : NULL, c->prio);
	else if (c->sched_id >= 0) {
		/* Events were lost between the two switches: the slice's
		 * end is unknown, so it stays open (dur -1), as upstream. */
		tp_stat_inc(tp, ST_MISMATCHED_SCHED_SWITCH_TIDS, 1);
		tp_sched_insert(tp, c->sched_id, c->ts, -1, cpu, c->utid,
		    NULL, c->prio);
	}
	c->sched_id = tp->next_sched++;
	c->ts = ts;
	c->utid = next_utid;
	c->prio = next_prio;
	c->pid = next_pid;
	tp_strlcpy(c->comm, sizeof(c->comm), next_comm, next_comm_len);

	/* A task switched out that was not running: its switch-in was
	 * lost, so the state before it has no known end. */
	if (!tp->threads[prev_utid].is_idle &&
	    (s = state_get(tp, prev_utid)) != NULL) {
		state_close(tp, prev_utid, s, ts, s->cur.id >= 0 &&
		    strcmp(s->cur.state, "Running") != 0);
		state_open(tp, prev_utid, s, ts, st, TP_NULL, TP_NULL, TP_NULL);
	}
	if (!tp->threads[next_utid].is_idle &&
	    (s = state_get(tp, next_utid)) != NULL) {
		state_close(tp, next_utid, s, ts, 0);
		state_open(tp, next_utid, s, ts, "Running", cpu, TP_NULL,
		    TP_NULL);
	}
}

void
tp_ftrace_sched_waking(struct tp *tp, int64_t ts, uint32_t cpu,
    int64_t waker_tid, int64_t pid, const char *comm, size_t comm_len,
    int64_t flags)
{
	int64_t utid = tp_thread_get(tp, pid);
	int64_t waker = waker_tid >= 0 ? tp_thread_get(tp, waker_tid) :
	    TP_NULL;
	struct open_state *s;

	(void)cpu;
	tp_seen_ts(tp, ts);
	if (tp->threads[utid].is_idle)
		return;
	if (comm != NULL)
		tp_thread_set_name(tp, utid, comm, comm_len, TP_NAME_SCHED);
	if ((s = state_get(tp, utid)) == NULL)
		return;
	/* Already running or runnable: nothing changes. */
	if (s->cur.id >= 0 && !state_blocked(s->cur.state))
		return;
	state_close(tp, utid, s, ts, 0);
	state_open(tp, utid, s, ts, "R", TP_NULL, waker, flags);
}

/* A new task is runnable from its creation, woken by its creator. */
static void
task_runnable(struct tp *tp, int64_t utid, int64_t creator, int64_t ts)
{
	struct open_state *s = state_get(tp, utid);

	if (s != NULL)
		state_open(tp, utid, s, ts, "R", TP_NULL, creator, 0);
}

static void
task_new(struct tp *tp, int64_t ts, int64_t pid, int64_t child,
    const char *comm, size_t commlen, int64_t flags)
{
	int64_t creator, utid, upid;

	/* Boot-time tracing sees init create the idle tasks. */
	if (child == 0)
		return;
	/* A new thread joins its creator's process; else a new process
	 * with a new main thread, named by its comm. */
	creator = tp_thread_get(tp, pid);
	if (flags & CLONE_THREAD) {
		/* Of its creator's process, known now or later. */
		utid = tp_thread_new(tp, child, ts);
		tp_thread_associate(tp, creator, utid);
	} else {
		upid = tp_process_new(tp, child, tp->threads[creator].upid,
		    ts);
		if (tp->threads[creator].upid == TP_NULL)
			tp_process_parent_wait(tp, upid, creator);
		if (comm != NULL)
			tp_process_set_name(tp, upid, comm, commlen,
			    TP_PNAME_SYSTEM);
		utid = tp_thread_new(tp, child, ts);
		tp->threads[utid].upid = upid;
	}
	task_runnable(tp, utid, creator, ts);
	if (comm != NULL)
		tp_thread_set_name(tp, utid, comm, commlen, TP_NAME_SCHED);
}

static void
task_rename(struct tp *tp, int64_t tid, const char *comm, size_t len)
{
	int64_t utid = tp_thread_get(tp, tid), upid;

	if (comm == NULL)
		return;
	tp_thread_set_name(tp, utid, comm, len, TP_NAME_SCHED);
	/* A main thread's new comm names its process, as upstream. */
	upid = tp->threads[utid].upid;
	if (upid != TP_NULL && tp->procs[upid].pid == tid)
		tp_process_set_name(tp, upid, comm, len, TP_PNAME_SYSTEM);
}

void
tp_ftrace_cpu_counter(struct tp *tp, int64_t ts, const char *kind,
    const char *name, int64_t cpu, double v)
{
	int64_t track = tp_track_intern(tp, TT_CPU_COUNTER, name, cpu);

	tp_track_kind(tp, track, kind);
	if (track >= 0)
		tp_counter_insert(tp, ts, track, v, TP_NULL);
}

static int
field_int(const char **p, const char *end, int64_t *v)
{
	const char *q = *p;
	int neg = 0;
	int64_t n = 0;

	if (q < end && *q == '-') {
		neg = 1;
		q++;
	}
	if (q >= end || *q < '0' || *q > '9')
		return -1;
	while (q < end && *q >= '0' && *q <= '9') {
		n = n * 10 + (*q - '0');
		q++;
	}
	*v = neg ? -n : n;
	*p = q;
	return 0;
}

/*
 * trace_marker text: "B|tgid|name", "E|tgid", "C|tgid|name|value",
 * "S|tgid|name|cookie", "F|tgid|name|cookie", "I|tgid|name".
 */
void
tp_ftrace_print(struct tp *tp, int64_t ts, int64_t tid, const char *buf,
    size_t len)
{
	const char *p = buf, *end = buf + len, *name, *name_end;
	char nbuf[1024];
	int64_t tgid = 0, v = 0, track, upid, utid, set;
	char ph;

	while (end > p && (end[-1] == '\n' || end[-1] == '\0' ||
	    end[-1] == ' '))
		end--;
	if (end - p < 1)
		return;
	ph = *p++;
	if (ph != 'B' && ph != 'E' && ph != 'C' && ph != 'S' && ph != 'F' &&
	    ph != 'I' && ph != 'N')
		return;
	if (ph == 'E' && p == end) {
		tp_slice_end(tp, tp_thread_track(tp, tp_thread_get(tp, tid)),
		    ts, NULL, TP_NULL, NULL);
		return;
	}
	if (p >= end || *p++ != '|' || field_int(&p, end, &tgid) == -1) {
		tp_stat_inc(tp, ST_SYSTRACE_PARSE_FAILURE, 1);
		return;
	}
	if (ph == 'E') {
		tp_slice_end(tp, tp_thread_track(tp, tp_thread_get(tp, tid)),
		    ts, NULL, TP_NULL, NULL);
		return;
	}
	if (p >= end || *p++ != '|') {
		tp_stat_inc(tp, ST_SYSTRACE_PARSE_FAILURE, 1);
		return;
	}
	name = p;
	name_end = end;
	if (ph == 'C' || ph == 'S' || ph == 'F') {
		/* The value or cookie is after the last '|'. */
		const char *q = end;

		while (q > name && q[-1] != '|')
			q--;
		if (q == name) {
			tp_stat_inc(tp, ST_SYSTRACE_PARSE_FAILURE, 1);
			return;
		}
		name_end = q - 1;
		if (field_int(&q, end, &v) == -1) {
			tp_stat_inc(tp, ST_SYSTRACE_PARSE_FAILURE, 1);
			return;
		}
	}
	if (ph == 'N') {
		/* "N|tgid|track|name": of the tracks, only Android's
		 * DeviceStateChanged is known. */
		const char *bar = memchr(name, '|', (size_t)(end - name));
		const char *inst = bar != NULL ? bar + 1 : end, *iend = inst;

		while (iend < end && *iend != '|')
			iend++;
		if (bar == NULL || bar == name || iend == inst) {
			tp_stat_inc(tp, ST_SYSTRACE_PARSE_FAILURE, 1);
			return;
		}
		if (bar - name == 18 && memcmp(name, "DeviceStateChanged",
		    18) == 0)
			tp_device_state_slice(tp, ts, inst,
			    (size_t)(iend - inst));
		return;
	}
	snprintf(nbuf, sizeof(nbuf), "%.*s", (int)(name_end - name), name);
	switch (ph) {
	case 'B':
		utid = tgid > 0 ? tp_thread_in_process(tp, tid, tgid) :
		    tp_thread_get(tp, tid);
		tp_slice_begin(tp, tp_thread_track(tp, utid), ts, NULL, nbuf,
		    TP_NULL, TP_NULL);
		break;
	case 'I':
		utid = tgid > 0 ? tp_thread_in_process(tp, tid, tgid) :
		    tp_thread_get(tp, tid);
		tp_slice_complete(tp, tp_thread_track(tp, utid), ts, 0, NULL,
		    nbuf, TP_NULL, TP_NULL, TP_NULL);
		break;
	case 'C':
		/* Android's own counters: global tracks, no process. */
		if (strncmp(nbuf, "battery_stats.", 14) == 0) {
			tp_battery_stats_counter(tp, ts, nbuf, (double)v);
			break;
		}
		if (strcmp(nbuf, "ScreenState") == 0) {
			tp_screen_state_counter(tp, ts, (double)v);
			break;
		}
		/* Upstream's: a track of the process and the name, each
		 * value with the writing thread (if known) as its arg. */
		upid = tp_process_get(tp, tgid);
		track = tp_track_intern_dims(tp, TT_PROCESS_COUNTER, nbuf,
		    upid, (const char *const[]){ "name", nbuf }, 1);
		tp_track_kind(tp, track, "atrace_counter");
		if (track < 0)
			break;
		set = TP_NULL;
		if ((utid = tp_thread_find(tp, tid)) >= 0) {
			set = tp_arg_set_new(tp);
			tp_arg_int_fixed(tp, set, "utid", utid, "uint");
		}
		tp_counter_insert(tp, ts, track, (double)v, set);
		break;
	case 'S':
	case 'F': {
		/* Tracks of the process and name, shared by cookies whose
		 * slices do not overlap, as upstream's. */
		struct tp_pool_key k = { .kind = "atrace_async_slice",
		    .name = nbuf, .upid = tp_process_get(tp, tgid),
		    .name_dim = 1 };
		int64_t start;

		track = tp_track_pool_take(tp, &k, (uint64_t)v,
		    ph == 'S' ? TP_POOL_BEGIN_ONCE : -1);
		if (track < 0)
			break;
		/* A begin while its slice is open is no new slice (Android
		 * code emits runs of them), as upstream, which counts the
		 * track's begins and gives each slice, as it ends, how many
		 * and when the last one was. */
		if (ph == 'S') {
			tp->tracks[track].unnest_begins++;
			tp->tracks[track].unnest_last_ts = ts;
			if (tp_slice_top(tp, track, ts, &start) >= 0)
				break;
			set = tp_arg_set_new(tp);
			tp_arg_int_fixed(tp, set, "cookie", v, "int");
			tp_slice_begin(tp, track, ts, NULL, nbuf, set, TP_NULL);
		} else if (tp_slice_end(tp, track, ts, NULL, TP_NULL, &set) >=
		    0 && set != TP_NULL) {
			tp_arg_int_fixed(tp, set,
			    "legacy_unnestable_begin_count",
			    tp->tracks[track].unnest_begins, "int");
			tp_arg_int_fixed(tp, set,
			    "legacy_unnestable_last_begin_ts",
			    tp->tracks[track].unnest_last_ts, "int");
		}
		break;
	}
	}
}

/* Kernel symbols ------------------------------------------------------ */

/* The field of event evid that holds a kernel function address, or 0
 * (upstream's list, for the events our protos carry). */
static uint32_t
ksym_field(uint32_t evid)
{
	switch (evid) {
	case EV_SCHED_BLOCKED_REASON:	/* caller */
	case EV_WORKQUEUE_ACTIVATE:	/* function */
	case EV_WORKQUEUE_END:
	case EV_WORKQUEUE_START:
	case EV_WORKQUEUE_QUEUE:
	case EV_FUNCGRAPH_ENTRY:	/* func */
		return 2;
	case EV_FUNCGRAPH_EXIT:		/* func */
		return 3;
	default:
		return 0;
	}
}

/* The symbol interned as iid on the event's sequence; -1 when unknown
 * (no symbolize_ksyms, a lost or cleared table, a legacy trace), which
 * upstream counts as it looks up. */
static int
ksym_lookup(struct tp *tp, const struct tp_gen *g, uint64_t iid,
    const char **s, size_t *len)
{
	if (tp_gen_string(g, INTERNED_KERNEL_SYMBOLS, iid,
	    INTERNED_STRING_STR, s, len) == 0)
		return 0;
	tp_stat_inc(tp, ST_INTERNED_DATA_TOKENIZER_ERRORS, 1);
	return -1;
}

/* The symbol as a C string in buf (cut to fit: args keep it whole), or
 * upstream's fallback for an unknown iid: the value in hex ("%#" PRIx64,
 * so "0" for 0). */
static const char *
ksym_name(struct tp *tp, const struct tp_gen *g, uint64_t iid, char *buf,
    size_t bufsz)
{
	const char *s;
	size_t len;

	if (ksym_lookup(tp, g, iid, &s, &len) == 0)
		snprintf(buf, bufsz, "%.*s", (int)(len < bufsz ? len :
		    bufsz - 1), s);
	else
		snprintf(buf, bufsz, "%#" PRIx64, iid);
	return buf;
}

/* A slice per work item on the worker's thread track, category
 * "workqueue", as upstream; the end closes the innermost work item. */
void
tp_ftrace_workqueue(struct tp *tp, int64_t ts, int64_t cpu, int64_t tid,
    const char *function)
{
	int64_t track = tp_thread_track(tp, tp_thread_get(tp, tid));
	int64_t set = TP_NULL;

	if (function == NULL) {
		(void)tp_slice_end_matching(tp, track, ts, "workqueue",
		    NULL, TP_NULL, NULL);
		return;
	}
	if (cpu != TP_NULL) {
		set = tp_arg_set_new(tp);
		tp_arg_int(tp, set, "cpu", "cpu", cpu, "int");
	}
	(void)tp_slice_begin(tp, track, ts, "workqueue", function, set,
	    TP_NULL);
}

/*
 * funcgraph_entry/exit: a slice per function call, named by the function,
 * nested by the call stack, on a "Funcgraph" track of the thread. The
 * idle tasks of all cpus share pid 0 and run at the same time, so theirs
 * go on a track per cpu instead.
 */
static void
funcgraph_event(struct tp *tp, const struct tp_gen *g, int64_t ts,
    uint32_t cpu, int64_t pid, uint32_t evid, uint64_t func)
{
	char name[KSYM_MAX], tname[64];
	int64_t track;

	if (pid != 0) {
		track = tp_track_intern(tp, TT_THREAD, "Funcgraph",
		    tp_thread_get(tp, pid));
		tp_track_kind(tp, track, "thread_funcgraph");
	} else {
		snprintf(tname, sizeof(tname), "swapper%" PRIu32 " -funcgraph",
		    cpu);
		track = tp_track_intern(tp, TT_CPU, tname, cpu);
		tp_track_kind(tp, track, "cpu_funcgraph");
	}
	ksym_name(tp, g, func, name, sizeof(name));
	if (evid == EV_FUNCGRAPH_ENTRY)
		(void)tp_slice_begin(tp, track, ts, NULL, name, TP_NULL,
		    TP_NULL);
	else
		(void)tp_slice_end_matching(tp, track, ts, NULL, name,
		    TP_NULL, NULL);
}

/* Event fields into args, named as the proto names them; a kernel
 * function field shows its symbol when the sequence has it. */
static int64_t
event_args_untrusted(struct tp *tp, const struct tp_gen *g, uint32_t evid,
    const uint8_t *buf, size_t len)
{
	const struct tp_ftrace_desc *d = evid < tp_ftrace_ndescs ?
	    &tp_ftrace_descs[evid] : NULL;
	struct pb it, ft;
	struct pb_field f, ff;
	int64_t set = TP_NULL;
	uint32_t kfield = ksym_field(evid);
	const char *sym;
	size_t i, symlen;

	pb_init(&it, buf, len);
	if (evid == EV_GENERIC) {
		while (pb_next_untrusted(&it, &f) == 1) {
			char key[256] = "";

			if (f.id != 2 || f.wire != PB_LEN)
				continue;
			pb_init(&ft, f.data, f.len);
			while (pb_next_untrusted(&ft, &ff) == 1)
				if (ff.id == 1 && ff.wire == PB_LEN)
					snprintf(key, sizeof(key), "%.*s",
					    (int)ff.len, ff.data);
			if (key[0] == '\0')
				continue;
			if (set == TP_NULL)
				set = tp_arg_set_new(tp);
			pb_init(&ft, f.data, f.len);
			while (pb_next_untrusted(&ft, &ff) == 1) {
				if (ff.id == 3 && ff.wire == PB_LEN)
					tp_arg_str(tp, set, key, key,
					    (const char *)ff.data, ff.len,
					    NULL);
				else if (ff.id == 4 || ff.id == 5)
					/* Upstream stores uint_value as int. */
					tp_arg_int(tp, set, key, key,
					    (int64_t)ff.u, "int");
			}
		}
		return set;
	}
	if (d == NULL || d->fields == NULL)
		return TP_NULL;
	while (pb_next_untrusted(&it, &f) == 1) {
		const struct tp_ftrace_field *fd = NULL;

		for (i = 0; i < d->nfields; i++)
			if (d->fields[i].id == f.id) {
				fd = &d->fields[i];
				break;
			}
		if (fd == NULL)
			continue;
		if (set == TP_NULL)
			set = tp_arg_set_new(tp);
		if (f.id == kfield && f.wire == PB_VARINT &&
		    ksym_lookup(tp, g, f.u, &sym, &symlen) == 0) {
			tp_arg_str_fixed(tp, set, fd->name, sym, symlen);
			continue;
		}
		switch (fd->type) {
		case FT_STR:
			if (f.wire == PB_LEN)
				tp_arg_str_fixed(tp, set, fd->name,
				    (const char *)f.data, f.len);
			break;
		case FT_UINT:
		case FT_FIXED64:
		case FT_FIXED32:
			if (f.wire != PB_LEN)
				tp_arg_int_fixed(tp, set, fd->name,
				    (int64_t)f.u, "uint");
			break;
		case FT_INT:
			if (f.wire == PB_VARINT)
				tp_arg_int_fixed(tp, set, fd->name,
				    (int64_t)f.u, "int");
			break;
		case FT_SINT:
			if (f.wire == PB_VARINT)
				tp_arg_int_fixed(tp, set, fd->name,
				    pb_zigzag(f.u), "int");
			break;
		case FT_DOUBLE:
			if (f.wire == PB_FIXED64)
				tp_arg_real_fixed(tp, set, fd->name,
				    pb_double(&f));
			break;
		case FT_BYTES:
			break;
		}
	}
	return set;
}

/*
 * An event's args, stored: the set made before from the same fields when
 * there was one (most events repeat another's fields: the same tasks
 * switch again and again), else made now. A kernel symbol field depends
 * on its sequence's symbols as well: those are always made.
 */
static int64_t
event_args(struct tp *tp, const struct tp_gen *g, uint32_t evid,
    const uint8_t *buf, size_t len, uint32_t hash)
{
	int64_t set;

	if (ksym_field(evid) != 0)
		return event_args_untrusted(tp, g, evid, buf, len);
	if ((set = tp_arg_memo_get(tp, evid, buf, len, hash)) != TP_NULL)
		return set;
	set = tp_arg_set_done(tp, event_args_untrusted(tp, g, evid, buf,
	    len));
	tp_arg_memo_put(tp, evid, buf, len, hash, set);
	return set;
}

void
tp_ftrace_ev_decode(const uint8_t *buf, size_t len, struct tp_ftrace_ev *e)
{
	struct pb it;
	struct pb_field f;

	memset(e, 0, sizeof(*e));
	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		if (f.id >= TP_EV_FIELDS)
			continue;
		e->has |= 1u << f.id;
		if (f.wire == PB_LEN) {
			e->s[f.id] = (const char *)f.data;
			e->slen[f.id] = f.len;
		} else {
			e->v[f.id] = (int64_t)f.u;
		}
	}
}

/* The softirq vectors' names, by number, as upstream names the slices. */
static const char *const softirq_names[] = {
	"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "BLOCK_IOPOLL",
	"TASKLET", "SCHED", "HRTIMER", "RCU",
};

/* The cpu's Irq (or SoftIrq) Cpu track, kept by the cpu once made. */
static int64_t
irq_track(struct tp *tp, uint32_t cpu, int soft)
{
	struct cpu_state *c = cpu_get(tp, cpu);
	char tname[32];
	int64_t track;

	if (c != NULL && c->irq_track[soft] >= 0 &&
	    c->irq_machine[soft] == tp->machine)
		return c->irq_track[soft];
	snprintf(tname, sizeof(tname), "%s Cpu %" PRIu32, soft ? "SoftIrq" :
	    "Irq", cpu);
	if ((track = tp_track_intern(tp, TT_CPU, tname, cpu)) < 0)
		return -1;
	tp_track_kind(tp, track, soft ? "cpu_softirq" : "cpu_irq");
	if (c != NULL) {
		c->irq_track[soft] = track;
		c->irq_machine[soft] = tp->machine;
	}
	return track;
}

/*
 * irq_handler_entry/exit and softirq_entry/exit: a slice per handler,
 * category "irq", on the cpu's "Irq Cpu N" or "SoftIrq Cpu N" track, as
 * upstream; the exit closes the innermost irq slice there and adds its
 * "ret" (handled or not) or "vec".
 */
static void
irq_event(struct tp *tp, int64_t ts, uint32_t cpu, uint32_t evid,
    const struct tp_ftrace_ev *e)
{
	char name[128];
	int soft = evid == EV_SOFTIRQ_ENTRY || evid == EV_SOFTIRQ_EXIT;
	int64_t track, set;

	if (soft && (uint64_t)e->v[1] >= sizeof(softirq_names) /
	    sizeof(softirq_names[0]))
		return;	/* no such vector: upstream ignores it too */
	if ((track = irq_track(tp, cpu, soft)) < 0)
		return;
	switch (evid) {
	case EV_IRQ_HANDLER_ENTRY:
		snprintf(name, sizeof(name), "IRQ (%.*s)",
		    (int)(e->slen[2] < 100 ? e->slen[2] : 100),
		    e->s[2] != NULL ? e->s[2] : "");
		(void)tp_slice_begin(tp, track, ts, "irq", name, TP_NULL,
		    TP_NULL);
		break;
	case EV_SOFTIRQ_ENTRY:
		(void)tp_slice_begin(tp, track, ts, "irq",
		    softirq_names[e->v[1]], TP_NULL, TP_NULL);
		break;
	case EV_IRQ_HANDLER_EXIT:
		(void)tp_slice_end_matching(tp, track, ts, "irq", NULL,
		    TP_NULL, &set);
		if (set != TP_NULL)
			tp_arg_str(tp, set, "ret", "ret", e->v[2] == 1 ?
			    "handled" : "unhandled", e->v[2] == 1 ? 7 : 9,
			    "string");
		break;
	case EV_SOFTIRQ_EXIT:
		(void)tp_slice_end_matching(tp, track, ts, "irq", NULL,
		    TP_NULL, &set);
		if (set != TP_NULL)
			tp_arg_int(tp, set, "vec", "vec", e->v[1], "int");
		break;
	}
}

/* KprobeEvent.type: a begin, an end or an instant on the thread's track. */
enum { KPROBE_BEGIN = 1, KPROBE_END, KPROBE_INSTANT };

static void
kprobe_event(struct tp *tp, int64_t ts, int64_t pid,
    const struct tp_ftrace_ev *e)
{
	char name[KSYM_MAX];
	int64_t track;

	if (e->v[2] < KPROBE_BEGIN || e->v[2] > KPROBE_INSTANT)
		return;
	snprintf(name, sizeof(name), "%.*s", (int)(e->slen[1] <
	    sizeof(name) ? e->slen[1] : sizeof(name) - 1),
	    e->s[1] != NULL ? e->s[1] : "");
	track = tp_thread_track(tp, tp_thread_get(tp, pid));
	if (e->v[2] == KPROBE_BEGIN)
		(void)tp_slice_begin(tp, track, ts, NULL, name, TP_NULL,
		    TP_NULL);
	else if (e->v[2] == KPROBE_END)
		(void)tp_slice_end_matching(tp, track, ts, NULL, name,
		    TP_NULL, NULL);
	else
		(void)tp_slice_complete(tp, track, ts, 0, NULL, name, TP_NULL,
		    TP_NULL, TP_NULL);
}

static void
event_effects(struct tp *tp, const struct tp_gen *g, int64_t ts,
    uint32_t cpu, int64_t pid, uint32_t evid, const uint8_t *buf, size_t len,
    const struct tp_ftrace_ev *decoded)
{
	struct tp_ftrace_ev own;
	const struct tp_ftrace_ev *e = decoded;
	char sym[KSYM_MAX], st[TP_STATE_MAX];

	if (e == NULL) {
		tp_ftrace_ev_decode(buf, len, &own);
		e = &own;
	}
	switch (evid) {
	case EV_SCHED_SWITCH:
		(void)tp_task_state_str(e->v[4], tp->kernel_version, st,
		    sizeof(st));
		tp_ftrace_sched_switch(tp, ts, cpu, e->s[1], e->slen[1],
		    (int32_t)e->v[2], (int32_t)e->v[3], st, e->s[5], e->slen[5],
		    (int32_t)e->v[6], (int32_t)e->v[7]);
		break;
	case EV_SCHED_WAKING:
		/* As upstream, only compact wakings give irq_context; and
		 * sched_wakeup and sched_wakeup_new (waking's later twins)
		 * stay raw events: a thread's state is its waking's. */
		tp_ftrace_sched_waking(tp, ts, cpu, pid, (int32_t)e->v[2],
		    e->s[1], e->slen[1], TP_NULL);
		break;
	case EV_CPU_FREQUENCY:
		tp_ftrace_cpu_counter(tp, ts, "cpu_frequency", "cpufreq",
		    (uint32_t)e->v[2],
		    (double)(uint32_t)e->v[1]);
		break;
	case EV_CPU_IDLE:
		tp_ftrace_cpu_counter(tp, ts, "cpu_idle", "cpuidle",
		    (uint32_t)e->v[2],
		    (double)(uint32_t)e->v[1]);
		break;
	case EV_PRINT:
		if (e->s[2] != NULL)
			tp_ftrace_print(tp, ts, pid, e->s[2], e->slen[2]);
		break;
	case EV_TASK_NEWTASK:
		task_new(tp, ts, pid, (int32_t)e->v[1], e->s[2],
		    e->slen[2], e->v[3]);
		break;
	case EV_TASK_RENAME:
		task_rename(tp, (int32_t)e->v[1], e->s[3], e->slen[3]);
		break;
	case EV_SCHED_PROCESS_FREE:
		tp_thread_end(tp, (int32_t)e->v[2], ts);
		break;
	case EV_SCHED_BLOCKED_REASON: {
		const char *fn;
		size_t fnlen;

		if (ksym_lookup(tp, g, (uint64_t)e->v[2], &fn, &fnlen) != 0)
			fn = NULL, fnlen = 0;
		tp_ftrace_blocked_reason(tp, (int32_t)e->v[1], e->v[3], fn,
		    fnlen);
		break;
	}
	case EV_WORKQUEUE_START:
		tp_ftrace_workqueue(tp, ts, cpu, pid, ksym_name(tp, g,
		    (uint64_t)e->v[2], sym, sizeof(sym)));
		break;
	case EV_WORKQUEUE_END:
		tp_ftrace_workqueue(tp, ts, cpu, pid, NULL);
		break;
	case EV_FUNCGRAPH_ENTRY:
		funcgraph_event(tp, g, ts, cpu, pid, evid, (uint64_t)e->v[2]);
		break;
	case EV_IRQ_HANDLER_ENTRY:
	case EV_IRQ_HANDLER_EXIT:
	case EV_SOFTIRQ_ENTRY:
	case EV_SOFTIRQ_EXIT:
		irq_event(tp, ts, cpu, evid, e);
		break;
	case EV_FUNCGRAPH_EXIT:
		funcgraph_event(tp, g, ts, cpu, pid, evid, (uint64_t)e->v[3]);
		break;
	case EV_KPROBE_EVENT:
		kprobe_event(tp, ts, pid, e);
		break;
	default:
		if (!tp_ftrace_cpu_event(tp, ts, cpu, pid, evid, e) &&
		    !tp_ftrace_power_event(tp, ts, cpu, pid, evid, e) &&
		    !tp_ftrace_block_event(tp, ts, cpu, pid, evid, e) &&
		    !tp_ftrace_mm_event(tp, ts, cpu, pid, evid, e) &&
		    !tp_ftrace_f2fs_event(tp, ts, cpu, pid, evid, e) &&
		    !tp_ftrace_thermal_event(tp, ts, cpu, pid, evid, e) &&
		    !tp_ftrace_ufs_event(tp, ts, cpu, pid, evid, e) &&
		    !tp_ftrace_kmark_event(tp, ts, cpu, pid, evid, e) &&
		    !tp_ftrace_androidfs_event(tp, ts, cpu, pid, evid, e) &&
		    !tp_ftrace_adreno_event(tp, ts, cpu, pid, evid, e) &&
		    !tp_ftrace_drm_event(tp, ts, cpu, pid, evid, e) &&
		    !tp_ftrace_v4l2_event(tp, ts, cpu, pid, evid, e) &&
		    !tp_ftrace_virtio_gpu_event(tp, ts, cpu, pid, evid, e) &&
		    !tp_ftrace_virtio_video_event(tp, ts, cpu, pid, evid, e) &&
		    !tp_gpu_ftrace_event(tp, ts, cpu, pid, evid, e) &&
		    !tp_ftrace_cros_event(tp, ts, cpu, pid, evid, e) &&
		    !tp_ftrace_binder_event(tp, ts, cpu, pid, evid, e))
			(void)tp_ftrace_net_event(tp, ts, cpu, pid, evid, e);
		break;
	}
}

static int64_t	switch_args_make(struct tp *, const char *, size_t, int64_t,
		    int64_t, int64_t, const char *, size_t, int64_t, int64_t);

/*
 * An FtraceEvent as the sorter keeps it: its wrapper, read once by the
 * tokenizer (ftrace_scan), then the event's own bytes. A record of an
 * event the wrapper holds none of, or that did not parse, has evid 0 and
 * no bytes: its parse counts it.
 */
struct ftrace_rec {
	uint32_t	 evid : 31;	/* the event's field in FtraceEvent */
	uint32_t	 has_flags : 1;
	uint32_t	 pid;
	uint32_t	 flags;		/* common_flags, when has_flags */
	uint32_t	 memo;		/* the event's tp_arg_memo_hash */
};

/* A part's record has its own time and parts first. */
struct ftrace_part_rec {
	int64_t		 raw_ts;
	uint32_t	 parts;
	struct ftrace_rec rec;
};

/* What the tokenizer reads of an FtraceEvent. */
struct ftrace_scan {
	struct ftrace_rec rec;
	const uint8_t	*ev;
	size_t		 evlen;
	int64_t		 ts;		/* negative: none */
	int		 adreno;	/* an event Adreno's tokenizer takes */
	struct pb_field	 acpm;		/* one ACPM's tokenizer takes */
};

static void
ftrace_scan(const uint8_t *buf, size_t len, struct ftrace_scan *s)
{
	struct pb it;
	struct pb_field f;

	memset(s, 0, sizeof(*s));
	s->ts = -1;
	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		if (f.id == 1) {
			if (f.wire == PB_VARINT && s->ts < 0)
				s->ts = (int64_t)f.u;
			continue;
		}
		if (f.id == 2)
			s->rec.pid = (uint32_t)f.u;
		else if (f.id == 5) {
			s->rec.flags = (uint32_t)f.u;
			s->rec.has_flags = 1;
		} else if (f.id >= 3 && f.wire == PB_LEN && s->ev == NULL) {
			s->rec.evid = f.id;
			s->ev = f.data;
			s->evlen = f.len;
		}
		if (f.wire == PB_LEN && tp_ftrace_adreno_tokenizes(f.id))
			s->adreno = 1;
		else if (f.wire == PB_LEN && tp_ftrace_thermal_tokenizes(f.id))
			s->acpm = f;
	}
	if (it.err || s->ev == NULL) {
		s->rec.evid = 0;
		s->ev = NULL;
		s->evlen = 0;
	}
	/* Taken here, on the tokenizer's thread, for the parse's lookup. */
	if (s->ev != NULL)
		s->rec.memo = tp_arg_memo_hash(s->rec.evid, s->ev, s->evlen);
}

/* parts: FT_ROW (its ftrace_event row), FT_EFFECTS (what it means);
 * raw_ts: when it happened, for the soft drop (an event placed at
 * another time keeps its own). */
static void
ftrace_event(struct tp *tp, const struct tp_gen *g, int64_t ts,
    uint32_t cpu, const struct ftrace_rec *r, const uint8_t *evbuf,
    size_t evlen, int parts, int64_t raw_ts)
{
	struct tp_ftrace_ev sw;
	const struct tp_ftrace_ev *decoded = NULL;
	int64_t pid = r->pid, flags = r->has_flags ? r->flags : TP_NULL, set,
	    utid;
	uint32_t evid = r->evid;
	const char *name = NULL;
	char gname[256];
	int drop;

	if (evid == 0) {
		tp_stat_inc(tp, ST_FTRACE_BUNDLE_TOKENIZER_ERRORS, 1);
		return;
	}
	if (evid == EV_GENERIC) {
		struct pb gt;
		struct pb_field gf;

		pb_init(&gt, evbuf, evlen);
		gname[0] = '\0';
		while (pb_next_untrusted(&gt, &gf) == 1)
			if (gf.id == 1 && gf.wire == PB_LEN)
				snprintf(gname, sizeof(gname), "%.*s",
				    (int)gf.len, gf.data);
		name = gname[0] ? gname : "generic";
	} else if (evid < tp_ftrace_ndescs &&
	    tp_ftrace_descs[evid].name != NULL) {
		name = tp_ftrace_descs[evid].name;
	} else {
		snprintf(gname, sizeof(gname), "ftrace_event_%u", evid);
		name = gname;
	}
	/* A dropped sched_switch is not even in ftrace_event: upstream
	 * writes that row where it parses the switch. */
	drop = soft_dropped(tp, raw_ts);
	if (drop && evid == EV_SCHED_SWITCH)
		return;
	if ((parts & FT_ROW) && tp->cfg.ftrace_raw) {
		/*
		 * Upstream writes a switch's row where it parses the switch:
		 * after making the next task's thread, and as the prev's.
		 */
		if (evid == EV_SCHED_SWITCH) {
			tp_ftrace_ev_decode(evbuf, evlen, &sw);
			decoded = &sw;
			(void)tp_thread_get(tp, (int32_t)sw.v[6]);
			utid = tp_thread_get(tp, (int32_t)sw.v[2]);
			/* Remembered by the event's bytes, as others are. */
			if ((set = tp_arg_memo_get(tp, evid, evbuf, evlen,
			    r->memo)) == TP_NULL) {
				set = switch_args_make(tp, sw.s[1], sw.slen[1],
				    (int32_t)sw.v[2], (int32_t)sw.v[3],
				    sw.v[4], sw.s[5], sw.slen[5],
				    (int32_t)sw.v[6], (int32_t)sw.v[7]);
				tp_arg_memo_put(tp, evid, evbuf, evlen,
				    r->memo, set);
			}
		} else {
			utid = tp_thread_get(tp, pid);
			set = event_args(tp, g, evid, evbuf, evlen, r->memo);
		}
		tp_ftrace_insert(tp, ts, name, cpu, utid, set, flags);
	}
	if (!drop && (parts & FT_EFFECTS))
		event_effects(tp, g, ts, cpu, pid, evid, evbuf, evlen,
		    decoded);
}

void
tp_ftrace_ahead(struct tp *tp, const uint8_t *buf, size_t len)
{
	struct ftrace_rec r;

	if (len < sizeof(r))
		return;
	memcpy(&r, buf, sizeof(r));
	tp_arg_memo_ahead(tp, r.memo);
}

void
tp_ftrace_parse_event(struct tp *tp, const struct tp_gen *g, int64_t ts,
    uint32_t cpu, const uint8_t *buf, size_t len)
{
	struct ftrace_rec r;

	if (len < sizeof(r))
		return;
	memcpy(&r, buf, sizeof(r));
	ftrace_event(tp, g, ts, cpu, &r, buf + sizeof(r), len - sizeof(r),
	    FT_ROW | FT_EFFECTS, ts);
}

void
tp_ftrace_parse_event_part(struct tp *tp, const struct tp_gen *g, int64_t ts,
    uint32_t cpu, const uint8_t *buf, size_t len)
{
	struct ftrace_part_rec r;

	if (len < sizeof(r))
		return;
	memcpy(&r, buf, sizeof(r));
	ftrace_event(tp, g, ts, cpu, &r.rec, buf + sizeof(r),
	    len - sizeof(r), (int)r.parts, r.raw_ts);
}

/* Compact sched ------------------------------------------------------- */

struct compact_switch {
	int64_t		 prev_state;
	int32_t		 next_pid;
	int32_t		 next_prio;
};

struct compact_waking {
	int32_t		 pid;
	int32_t		 target_cpu;
	int32_t		 prio;
	uint32_t	 flags;
};

/*
 * The fields a compact record's args are made of, as a key of the
 * remembered sets (tp_arg_memo_get): one too long for it gets a length
 * past TP_ARG_MEMO_MAX, never remembered.
 */
struct memo_key {
	uint8_t		 b[TP_ARG_MEMO_MAX];
	size_t		 n;
};

/* Tags of the compact records' keys, apart from the events' (evid). */
#define MEMO_COMPACT	(1u << 31)

static void
memo_key_add(struct memo_key *k, const void *p, size_t len)
{
	if (k->n > sizeof(k->b) || len > sizeof(k->b) - k->n) {
		k->n = sizeof(k->b) + 1;
		return;
	}
	memcpy(k->b + k->n, p, len);
	k->n += len;
}

static void
memo_key_str(struct memo_key *k, const char *s, size_t len)
{
	/* An absent string is not an empty one. */
	uint32_t l = s != NULL ? (uint32_t)len : UINT32_MAX;

	memo_key_add(k, &l, sizeof(l));
	/* No memcpy from NULL: the compiler may take s for non-NULL after. */
	if (s != NULL)
		memo_key_add(k, s, len);
}

/* A comm as upstream stores it: an absent one is a NULL string. */
static void
comm_arg(struct tp *tp, int64_t set, const char *key, const char *s,
    size_t len)
{
	if (s != NULL)
		tp_arg_str_fixed(tp, set, key, s, len);
	else
		tp_arg_str_null(tp, set, key);
}

/*
 * A sched_switch's args, stored: all seven fields, given or not (upstream
 * writes them from the decoded event, defaults and all).
 */
static int64_t
switch_args_make(struct tp *tp, const char *prev_comm, size_t prev_comm_len,
    int64_t prev_pid, int64_t prev_prio, int64_t prev_state,
    const char *next_comm, size_t next_comm_len, int64_t next_pid,
    int64_t next_prio)
{
	int64_t set = tp_arg_set_new(tp);

	comm_arg(tp, set, "prev_comm", prev_comm, prev_comm_len);
	tp_arg_int_fixed(tp, set, "prev_pid", prev_pid, "int");
	tp_arg_int_fixed(tp, set, "prev_prio", prev_prio, "int");
	tp_arg_int_fixed(tp, set, "prev_state", prev_state, "int");
	comm_arg(tp, set, "next_comm", next_comm, next_comm_len);
	tp_arg_int_fixed(tp, set, "next_pid", next_pid, "int");
	tp_arg_int_fixed(tp, set, "next_prio", next_prio, "int");
	return tp_arg_set_done(tp, set);
}

/* A compact sched_switch's args, remembered by their values. */
static int64_t
switch_args(struct tp *tp, const char *prev_comm, size_t prev_comm_len,
    int64_t prev_pid, int64_t prev_prio, int64_t prev_state,
    const char *next_comm, size_t next_comm_len, int64_t next_pid,
    int64_t next_prio)
{
	int64_t set, v[5] = { prev_pid, prev_prio, prev_state, next_pid,
	    next_prio };
	struct memo_key k = { .n = 0 };
	uint32_t hash;

	memo_key_add(&k, v, sizeof(v));
	memo_key_str(&k, prev_comm, prev_comm_len);
	memo_key_str(&k, next_comm, next_comm_len);
	hash = tp_arg_memo_hash(MEMO_COMPACT | EV_SCHED_SWITCH, k.b, k.n);
	if ((set = tp_arg_memo_get(tp, MEMO_COMPACT | EV_SCHED_SWITCH, k.b,
	    k.n, hash)) != TP_NULL)
		return set;
	set = switch_args_make(tp, prev_comm, prev_comm_len, prev_pid,
	    prev_prio, prev_state, next_comm, next_comm_len, next_pid,
	    next_prio);
	tp_arg_memo_put(tp, MEMO_COMPACT | EV_SCHED_SWITCH, k.b, k.n, hash,
	    set);
	return set;
}

/* A compact sched_switch's ftrace_event row, from its fields
 * (--no-ftrace-raw: none). */
static void
switch_raw(struct tp *tp, int64_t ts, uint32_t cpu, const char *prev_comm,
    size_t prev_comm_len, int64_t prev_pid, int64_t prev_prio,
    int64_t prev_state, const char *next_comm, size_t next_comm_len,
    int64_t next_pid, int64_t next_prio)
{
	if (!tp->cfg.ftrace_raw)
		return;
	tp_ftrace_insert(tp, ts, "sched_switch", cpu, tp_thread_get(tp,
	    prev_pid), switch_args(tp, prev_comm, prev_comm_len, prev_pid,
	    prev_prio, prev_state, next_comm, next_comm_len, next_pid,
	    next_prio), TP_NULL);
}

void
tp_ftrace_compact_switch(struct tp *tp, int64_t ts, uint32_t cpu,
    const uint8_t *buf, size_t len)
{
	struct compact_switch r;
	struct cpu_state *c = cpu_get(tp, cpu);
	const char *comm = (const char *)buf + sizeof(r);
	size_t commlen = len - sizeof(r);
	char prev_comm[COMM_MAX];
	int64_t prev_pid, prev_prio, utid;
	int drop;

	if (c == NULL || len < sizeof(r))
		return;
	drop = soft_dropped(tp, ts);
	memcpy(&r, buf, sizeof(r));
	utid = tp_thread_get(tp, r.next_pid);
	if (c->pid < 0 || drop) {
		/* A cpu's first switch has no prev fields to imply: upstream
		 * keeps only who runs next. One before the data of all cpus
		 * is complete only goes to ftrace_event. */
		if (c->pid < 0)
			tp_stat_inc(tp, ST_COMPACT_SCHED_SWITCH_SKIPPED, 1);
		if (r.next_pid != 0)
			tp_thread_set_name(tp, utid, comm, commlen,
			    TP_NAME_SCHED);
		if (c->pid >= 0) {
			prev_pid = c->pid;
			utid = tp_thread_get(tp, prev_pid);
			tp_strlcpy(prev_comm, sizeof(prev_comm),
			    tp->threads[utid].name, tp->threads[utid].name ?
			    strlen(tp->threads[utid].name) : 0);
			switch_raw(tp, ts, cpu, prev_comm, strlen(prev_comm),
			    prev_pid, c->prio, r.prev_state, comm, commlen,
			    r.next_pid, r.next_prio);
		}
		c->pid = r.next_pid;
		c->utid = tp_thread_get(tp, r.next_pid);
		c->prio = r.next_prio;
		return;
	}
	prev_pid = c->pid;
	prev_prio = c->prio;
	utid = tp_thread_get(tp, prev_pid);
	/* The prev task's name now: it may have been renamed meanwhile. */
	tp_strlcpy(prev_comm, sizeof(prev_comm), tp->threads[utid].name,
	    tp->threads[utid].name ? strlen(tp->threads[utid].name) : 0);
	tp_ftrace_switch_fields(tp, ts, cpu, prev_comm, strlen(prev_comm),
	    prev_pid, prev_prio, r.prev_state, comm, commlen, r.next_pid,
	    r.next_prio);
}

void
tp_ftrace_switch_fields(struct tp *tp, int64_t ts, uint32_t cpu,
    const char *prev_comm, size_t prev_comm_len, int64_t prev_pid,
    int64_t prev_prio, int64_t prev_state, const char *next_comm,
    size_t next_comm_len, int64_t next_pid, int64_t next_prio)
{
	char st[TP_STATE_MAX];

	switch_raw(tp, ts, cpu, prev_comm, prev_comm_len, prev_pid,
	    prev_prio, prev_state, next_comm, next_comm_len, next_pid,
	    next_prio);
	(void)tp_task_state_str(prev_state, tp->kernel_version, st,
	    sizeof(st));
	tp_ftrace_sched_switch(tp, ts, cpu, prev_comm, prev_comm_len,
	    prev_pid, prev_prio, st, next_comm, next_comm_len, next_pid,
	    next_prio);
}

void
tp_ftrace_compact_waking(struct tp *tp, int64_t ts, uint32_t cpu,
    const uint8_t *buf, size_t len)
{
	struct compact_waking r;
	struct cpu_state *c = cpu_get(tp, cpu);
	const char *comm = (const char *)buf + sizeof(r);
	size_t commlen = len - sizeof(r);
	struct memo_key k = { .n = 0 };
	uint32_t hash;
	int64_t set;

	if (c == NULL || len < sizeof(r))
		return;
	/*
	 * The compact form has no waker: it is whoever runs on the cpu, as
	 * upstream takes it. Before the cpu's first switch nobody is known
	 * to run, and upstream drops the waking.
	 */
	if (c->pid < 0) {
		tp_stat_inc(tp, ST_COMPACT_SCHED_WAKING_SKIPPED, 1);
		return;
	}
	memcpy(&r, buf, sizeof(r));
	if (!tp->cfg.ftrace_raw)
		goto typed;
	memo_key_add(&k, &r, sizeof(r) - sizeof(r.flags));
	memo_key_str(&k, comm, commlen);
	hash = tp_arg_memo_hash(MEMO_COMPACT | EV_SCHED_WAKING, k.b, k.n);
	if ((set = tp_arg_memo_get(tp, MEMO_COMPACT | EV_SCHED_WAKING, k.b,
	    k.n, hash)) == TP_NULL) {
		set = tp_arg_set_new(tp);
		tp_arg_str_fixed(tp, set, "comm", comm, commlen);
		tp_arg_int_fixed(tp, set, "pid", r.pid, "int");
		tp_arg_int_fixed(tp, set, "prio", r.prio, "int");
		tp_arg_int_fixed(tp, set, "target_cpu", r.target_cpu, "int");
		set = tp_arg_set_done(tp, set);
		tp_arg_memo_put(tp, MEMO_COMPACT | EV_SCHED_WAKING, k.b, k.n,
		    hash, set);
	}
	tp_ftrace_insert(tp, ts, "sched_waking", cpu, tp_thread_get(tp,
	    c->pid), set, r.flags);
typed:
	if (!soft_dropped(tp, ts))
		tp_ftrace_sched_waking(tp, ts, cpu, c->pid, r.pid, comm,
		    commlen, r.flags);
}

struct vec {
	uint64_t	*v;
	size_t		 n, cap;
};

static void
vec_push(struct vec *v, uint64_t x)
{
	if (v->n == v->cap) {
		size_t ncap = v->cap ? v->cap * 2 : 64;
		void *p = realloc(v->v, ncap * sizeof(*v->v));

		if (p == NULL)
			return;
		v->v = p;
		v->cap = ncap;
	}
	v->v[v->n++] = x;
}

static void
vec_field(struct vec *v, const struct pb_field *f)
{
	struct pb_packed pk;
	uint64_t x;

	if (f->wire == PB_VARINT) {
		vec_push(v, f->u);
		return;
	}
	if (f->wire != PB_LEN)
		return;
	pb_packed_init(&pk, f);
	while (pb_packed_varint_untrusted(&pk, &x))
		vec_push(v, x);
}

enum { CS_SW_TS = 1, CS_SW_STATE, CS_SW_PID, CS_SW_PRIO, CS_INTERN,
    CS_SW_COMM, CS_WK_TS, CS_WK_PID, CS_WK_CPU, CS_WK_PRIO, CS_WK_COMM,
    CS_WK_FLAGS, CS_MAX };

static void
compact_sched_untrusted(struct tp *tp, uint32_t cpu, int64_t offset,
    const uint8_t *buf, size_t len)
{
	struct vec v[CS_MAX];
	struct pb it;
	struct pb_field f;
	const uint8_t *strs[1024];
	size_t strl[1024], nstr = 0, i;
	uint8_t rec[sizeof(struct compact_switch) + COMM_MAX];
	uint64_t ts;

	memset(v, 0, sizeof(v));
	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		if (f.id == CS_INTERN) {
			if (f.wire == PB_LEN && nstr < 1024) {
				strs[nstr] = f.data;
				strl[nstr++] = f.len < COMM_MAX - 1 ? f.len :
				    COMM_MAX - 1;
			}
		} else if (f.id > 0 && f.id < CS_MAX) {
			vec_field(&v[f.id], &f);
		}
	}
	if (it.err || v[CS_SW_STATE].n != v[CS_SW_TS].n ||
	    v[CS_SW_PID].n != v[CS_SW_TS].n || v[CS_SW_PRIO].n !=
	    v[CS_SW_TS].n || v[CS_SW_COMM].n != v[CS_SW_TS].n ||
	    v[CS_WK_PID].n != v[CS_WK_TS].n || v[CS_WK_CPU].n !=
	    v[CS_WK_TS].n || v[CS_WK_PRIO].n != v[CS_WK_TS].n ||
	    v[CS_WK_COMM].n != v[CS_WK_TS].n) {
		tp_stat_inc(tp, ST_COMPACT_SCHED_HAS_PARSE_ERRORS, 1);
		goto out;
	}
	/* Timestamps are deltas from the previous one in the bundle. */
	for (ts = 0, i = 0; i < v[CS_SW_TS].n; i++) {
		struct compact_switch r;
		size_t ci = v[CS_SW_COMM].v[i], cl = 0;

		ts += v[CS_SW_TS].v[i];
		r.prev_state = (int64_t)v[CS_SW_STATE].v[i];
		r.next_pid = (int32_t)v[CS_SW_PID].v[i];
		r.next_prio = (int32_t)v[CS_SW_PRIO].v[i];
		memcpy(rec, &r, sizeof(r));
		if (ci < nstr) {
			cl = strl[ci];
			memcpy(rec + sizeof(r), strs[ci], cl);
		} else {
			tp_stat_inc(tp, ST_COMPACT_SCHED_HAS_PARSE_ERRORS, 1);
		}
		tp_sorter_push(tp, (int64_t)ts + offset, SK_COMPACT_SWITCH,
		    cpu, NULL, rec, sizeof(r) + cl);
	}
	for (ts = 0, i = 0; i < v[CS_WK_TS].n; i++) {
		struct compact_waking r;
		size_t ci = v[CS_WK_COMM].v[i], cl = 0;

		ts += v[CS_WK_TS].v[i];
		r.pid = (int32_t)v[CS_WK_PID].v[i];
		r.target_cpu = (int32_t)v[CS_WK_CPU].v[i];
		r.prio = (int32_t)v[CS_WK_PRIO].v[i];
		r.flags = i < v[CS_WK_FLAGS].n ?
		    (uint32_t)v[CS_WK_FLAGS].v[i] : 0;
		memcpy(rec, &r, sizeof(r));
		if (ci < nstr) {
			cl = strl[ci];
			memcpy(rec + sizeof(r), strs[ci], cl);
		}
		tp_sorter_push(tp, (int64_t)ts + offset, SK_COMPACT_WAKING,
		    cpu, NULL, rec, sizeof(r) + cl);
	}
out:
	for (i = 0; i < CS_MAX; i++)
		free(v[i].v);
}

/* An event the tokenizer read (sc) into the sorter: whole, or a part. */
static void
ftrace_rec_push(struct tp *tp, struct tp_gen *g, uint32_t cpu, int64_t ts,
    int64_t raw_ts, int parts, const struct ftrace_scan *sc)
{
	struct ftrace_part_rec pr;
	int rc;

	if (g != NULL)
		tp_proto_ref(g);
	if (parts == 0) {
		rc = tp_sorter_push_hdr(tp, ts, SK_FTRACE, cpu, g, &sc->rec,
		    sizeof(sc->rec), sc->ev, sc->evlen);
	} else {
		memset(&pr, 0, sizeof(pr));
		pr.raw_ts = raw_ts;
		pr.parts = (uint32_t)parts;
		pr.rec = sc->rec;
		rc = tp_sorter_push_hdr(tp, ts, SK_FTRACE_PART, cpu, g, &pr,
		    sizeof(pr), sc->ev, sc->evlen);
	}
	if (rc == -1 && g != NULL)
		tp_proto_unref(g);
}

void
tp_ftrace_push(struct tp *tp, struct tp_gen *g, uint32_t cpu, int64_t ts,
    int64_t raw_ts, int parts, const uint8_t *ev, size_t len)
{
	struct ftrace_scan sc;

	ftrace_scan(ev, len, &sc);
	ftrace_rec_push(tp, g, cpu, ts, raw_ts, parts, &sc);
}

void
tp_proto_ftrace_bundle(struct tp *tp, struct tp_gen *g, const uint8_t *buf,
    size_t len)
{
	struct pb it;
	struct pb_field f;
	uint32_t cpu = 0;
	int64_t offset = 0, ftrace_ts = 0, boot_ts = 0, start = -1;
	int clock = 0, used = 0;	/* used: a time of the bundle read */

	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		switch (f.id) {
		case 1:
			cpu = (uint32_t)f.u;
			break;
		case 3:
			if (f.u)
				tp_stat_set_indexed(tp,
				    ST_FTRACE_CPU_HAS_DATA_LOSS, cpu, 1);
			break;
		case 5:
			clock = (int)f.u;
			break;
		case 6:
			ftrace_ts = (int64_t)f.u;
			break;
		case 7:
			boot_ts = (int64_t)f.u;
			break;
		case 9:		/* last_read_event_timestamp */
		case 10:	/* previous_bundle_end_timestamp */
			if (f.wire == PB_VARINT && (start < 0 || f.id == 10))
				start = (int64_t)(f.u & INT64_MAX);
			break;
		}
	}
	if (it.err || cpu >= MAX_CPUS) {
		tp_stat_inc(tp, ST_FTRACE_BUNDLE_TOKENIZER_ERRORS, 1);
		if (cpu >= MAX_CPUS)
			return;
	}
	/* A non-boot ftrace clock comes with a pair to convert it. */
	if (clock > 1 && ftrace_ts != 0 && boot_ts != 0)
		offset = boot_ts - ftrace_ts;
	bundle_start(tp, cpu, start >= 0 ? start + offset : -1);
	/* The compact records first, as upstream reads them: the sorter
	 * orders records of one time by the queues they came first to. */
	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1)
		if (f.id == 4 && f.wire == PB_LEN) {
			if (!used && (used = 1))
				tp_clock_first_use(tp);
			compact_sched_untrusted(tp, cpu, offset, f.data,
			    f.len);
		}
	pb_init(&it, buf, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		struct ftrace_scan sc;

		if (f.wire != PB_LEN || f.id != 2)
			continue;
		/* Its time and wrapper, and whether Adreno's or ACPM's
		 * tokenizer wants it. */
		ftrace_scan(f.data, f.len, &sc);
		if (sc.ts < 0) {
			tp_stat_inc(tp, ST_FTRACE_BUNDLE_TOKENIZER_ERRORS, 1);
			continue;
		}
		if (!used && (used = 1))
			tp_clock_first_use(tp);
		/* These two tokenizers keep state the parse reads. */
		if (sc.adreno || sc.acpm.id != 0)
			tp_pipe_sync(tp);
		if (sc.adreno && tp_ftrace_adreno_tokenize(tp, g, cpu,
		    sc.ts + offset, f.data, f.len))
			continue;
		if (sc.acpm.id != 0) {
			tp_ftrace_thermal_tokenize(tp, g, cpu, sc.ts + offset,
			    f.data, f.len, sc.acpm.data, sc.acpm.len);
			continue;
		}
		ftrace_rec_push(tp, g, cpu, sc.ts + offset, sc.ts + offset, 0,
		    &sc);
	}
}

/*
 * Sched slices and thread states still open, written as they stand (dur
 * -1, as upstream leaves what is still running at the end). final: the
 * trace is over and the rows are closed for good; else (a checkpoint)
 * they stay open and are written again when they end.
 */
static void
write_open(struct tp *tp, int final)
{
	struct tp_ftrace *ft = tp->ftrace;
	struct state_row r;
	uint32_t machine;
	size_t i, k;

	if (ft == NULL)
		return;
	/* Each row is written as its machine's (rows hold its ucpu). */
	machine = tp->machine;
	for (k = 0; k < ft->nsets; k++) {
		tp->machine = (uint32_t)k;
		for (i = 0; i < ft->sets[k].ncpus; i++) {
			struct cpu_state *c = &ft->sets[k].cpus[i];

			if (c->sched_id >= 0)
				tp_sched_insert(tp, c->sched_id, c->ts, -1,
				    (int64_t)i, c->utid, NULL, c->prio);
			if (final)
				c->sched_id = -1;
		}
	}
	for (i = 0; i < ft->nstates; i++) {
		struct state_row *rows[2] = { &ft->states[i].held,
		    &ft->states[i].cur };

		for (k = 0; k < 2; k++) {
			/* row_write closes the row it writes: a copy
			 * keeps it open. */
			r = *rows[k];
			if (i < tp->nthreads)
				tp->machine = tp->threads[i].machine;
			row_write(tp, (int64_t)i, final ? rows[k] : &r);
		}
	}
	tp->machine = machine;
}

void
tp_ftrace_end(struct tp *tp)
{
	write_open(tp, 1);
}

void
tp_ftrace_write_open(struct tp *tp)
{
	write_open(tp, 0);
}

void
tp_ftrace_free(struct tp *tp)
{
	size_t i;

	tp_ftrace_power_free(tp);
	tp_ftrace_mm_free(tp);
	tp_ftrace_net_free(tp);
	tp_ftrace_androidfs_free(tp);
	tp_ftrace_adreno_free(tp);
	tp_ftrace_drm_free(tp);
	tp_ftrace_v4l2_free(tp);
	tp_ftrace_virtio_gpu_free(tp);
	tp_ftrace_binder_free(tp);
	if (tp->ftrace == NULL)
		return;
	for (i = 0; i < tp->ftrace->nsets; i++)
		free(tp->ftrace->sets[i].cpus);
	free(tp->ftrace->sets);
	free(tp->ftrace->states);
	tp_hash_free(&tp->ftrace->remote_first);
	tp_hash_free(&tp->ftrace->remote_latest);
	free(tp->ftrace);
	tp->ftrace = NULL;
}
