/*
 * ftrace text, as /sys/kernel/tracing/trace and systrace print it:
 *
 *   <comm>-<tid> [ (<tgid>) ] [<cpu>] [flags] <sec>.<usec>: <event>: <args>
 *
 * Each line goes through the sorter, then into ftrace_event with its
 * key=value fields as args, and into the same sched/thread_state/slice
 * logic as the proto importer (tp_ftrace.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tp_int.h"

#define MAX_FIELDS	32

struct tp_systrace {
	struct tp_lines	 lines;
	uint64_t	 off;		/* bytes of the lines before this one */
	int64_t		 failures;	/* lines counted as unparsable */
	int		 marker;	/* atrace's "TRACE:" line was seen */
	int		 first;		/* this line is the first of the trace */
};

/* trace-cmd's "cpus=<n>" header line. */
static int
cpus_header(const char *s, size_t len)
{
	size_t i;

	if (len < 5 || memcmp(s, "cpus=", 5) != 0)
		return 0;
	for (i = 5; i < len; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}

struct kv {
	const char	*k, *v;
	size_t		 klen, vlen;
};

static int
parse_i64(const char *s, size_t len, int64_t *out)
{
	int64_t v = 0;
	size_t i = 0;
	int neg = 0;

	if (len > 0 && s[0] == '-') {
		neg = 1;
		i = 1;
	}
	if (i >= len)
		return -1;
	for (; i < len; i++) {
		if (s[i] < '0' || s[i] > '9' || v > INT64_MAX / 10)
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	*out = neg ? -v : v;
	return 0;
}

/* "key=value key=value ..." (values end at the next " key="). */
static size_t
split_kv(const char *s, size_t len, struct kv *kv, size_t max)
{
	size_t n = 0, i = 0;

	while (i < len && n < max) {
		size_t ks, ke, vs;

		while (i < len && s[i] == ' ')
			i++;
		ks = i;
		while (i < len && s[i] != '=' && s[i] != ' ')
			i++;
		if (i >= len || s[i] != '=') {
			/* Not key=value ("==>" of sched_switch): skip word. */
			while (i < len && s[i] != ' ')
				i++;
			continue;
		}
		ke = i++;
		vs = i;
		/* The value runs to the next " word=" or the end. */
		for (;;) {
			size_t j;

			while (i < len && s[i] != ' ')
				i++;
			if (i >= len)
				break;
			for (j = i + 1; j < len && s[j] != ' ' && s[j] != '=';
			    j++)
				;
			if ((j < len && s[j] == '=' && j > i + 1) ||
			    (i + 4 <= len && memcmp(s + i, " ==>", 4) == 0))
				break;
			i++;
		}
		kv[n].k = s + ks;
		kv[n].klen = ke - ks;
		kv[n].v = s + vs;
		kv[n].vlen = i - vs;
		n++;
	}
	return n;
}

static const struct kv *
kv_get(const struct kv *kv, size_t n, const char *k)
{
	size_t kl = strlen(k), i;

	for (i = 0; i < n; i++)
		if (kv[i].klen == kl && memcmp(kv[i].k, k, kl) == 0)
			return &kv[i];
	return NULL;
}

static int64_t
kv_int(const struct kv *kv, size_t n, const char *k, int64_t dflt)
{
	const struct kv *e = kv_get(kv, n, k);
	int64_t v;

	return e != NULL && parse_i64(e->v, e->vlen, &v) == 0 ? v : dflt;
}

/*
 * Splits a line's header. Returns 0 with the fields set, -1 when the line
 * is not an event line. task (when not NULL) gets the task's name.
 */
static int
line_header(const char *s, size_t len, int64_t *tid, int64_t *tgid,
    int64_t *cpu, int64_t *ts, const char **ev, size_t *evlen,
    const char **args, size_t *argslen, struct kv *task)
{
	const char *p, *end = s + len, *b, *q = NULL, *dash, *colon, *tstart;
	int64_t sec = 0;
	char num[48];

	/* The cpu field "[NNN]" ends the task part. */
	for (b = s; b + 4 < end; b++) {
		if (b[0] != ' ' || b[1] != '[')
			continue;
		for (q = b + 2; q < end && *q >= '0' && *q <= '9'; q++)
			;
		if (q < end && *q == ']' && q > b + 2)
			break;
	}
	if (b + 4 >= end || q == NULL)
		return -1;
	if (parse_i64(b + 2, (size_t)(q - (b + 2)), cpu) == -1)
		return -1;
	/* Optional "(tgid)" before the cpu. */
	*tgid = -1;
	p = b;
	while (p > s && p[-1] == ' ')
		p--;
	if (p > s && p[-1] == ')') {
		const char *o = p - 1;

		while (o > s && *o != '(')
			o--;
		if (*o == '(') {
			const char *d = o + 1;

			while (d < p - 1 && *d == ' ')
				d++;
			if (parse_i64(d, (size_t)(p - 1 - d), tgid) == -1)
				*tgid = -1;
			p = o;
			while (p > s && p[-1] == ' ')
				p--;
		}
	}
	if (p == s)
		return -1;	/* no task field */
	for (dash = p - 1; dash > s && *dash != '-'; dash--)
		;
	if (*dash != '-' || parse_i64(dash + 1, (size_t)(p - dash - 1),
	    tid) == -1)
		return -1;
	if (task != NULL) {
		for (task->k = s; task->k < dash && *task->k == ' '; task->k++)
			;
		task->klen = (size_t)(dash - task->k);
	}
	/* After "]": optional flags, then "sec.frac:". */
	p = q + 1;
	for (colon = p; colon < end && *colon != ':'; colon++)
		;
	if (colon >= end)
		return -1;
	b = colon;
	while (b > p && b[-1] != ' ')
		b--;
	/* The four irq flags may run into the time ("d...316.19:"). */
	if (colon - b > 4 && (*b < '0' || *b > '9') && b[4] >= '0' &&
	    b[4] <= '9')
		b += 4;
	tstart = b;
	for (; b < colon && *b >= '0' && *b <= '9'; b++) {
		if (sec > INT64_MAX / 1000000000 / 10)
			return -1;	/* beyond int64 nanoseconds */
		sec = sec * 10 + (*b - '0');
	}
	if (b < colon && *b == '.')
		for (b++; b < colon && *b >= '0' && *b <= '9'; b++)
			;
	if (b != colon || (size_t)(colon - tstart) >= sizeof(num))
		return -1;
	/* Upstream reads the seconds as a double and truncates their
	 * nanoseconds: the same rounding gives the same rows. */
	memcpy(num, tstart, (size_t)(colon - tstart));
	num[colon - tstart] = '\0';
	*ts = (int64_t)(strtod(num, NULL) * 1e9);
	p = colon + 1;
	while (p < end && *p == ' ')
		p++;
	for (colon = p; colon < end && *colon != ':'; colon++)
		;
	if (colon >= end)
		return -1;
	*ev = p;
	*evlen = (size_t)(colon - p);
	p = colon + 1;
	if (p < end && *p == ' ')
		p++;
	*args = p;
	*argslen = (size_t)(end - p);
	return 0;
}

/* The NAME after "function " in a workqueue_execute_start line, cut at
 * the first blank: 0, or -1 when there is none. */
static int
workqueue_function(const char *a, size_t len, char *out, size_t outsz)
{
	static const char key[] = "function ";
	size_t i, n;

	for (i = 0; i + sizeof(key) - 1 <= len; i++)
		if (memcmp(a + i, key, sizeof(key) - 1) == 0)
			break;
	if (i + sizeof(key) - 1 > len)
		return -1;
	a += i + sizeof(key) - 1;
	len -= i + sizeof(key) - 1;
	for (n = 0; n < len && a[n] != ' ' && a[n] != '\t' && a[n] != '\r';
	    n++)
		;
	if (n == 0)
		return -1;
	snprintf(out, outsz, "%.*s", (int)(n < outsz ? n : outsz - 1), a);
	return 0;
}

/* A line's integer field as a number: 0, or -1 when it is not there. */
static int
kv_num(const struct kv *kv, size_t n, const char *k, double *v)
{
	const struct kv *e = kv_get(kv, n, k);
	int64_t i;

	if (e == NULL || parse_i64(e->v, e->vlen, &i) == -1)
		return -1;
	*v = (double)i;
	return 0;
}

/* The field k1 if the line has it, else k2 (its other spelling). */
static int
kv_num_either(const struct kv *kv, size_t n, const char *k1, const char *k2,
    double *v)
{
	return kv_num(kv, n, kv_get(kv, n, k1) != NULL ? k1 : k2, v);
}

/* cpu_frequency_limits, in the kernel's older ("min=") or newer
 * ("min_freq=") spelling; a line without its cpu is ignored. */
static void
freq_limits(struct tp *tp, int64_t ts, const struct kv *kv, size_t n)
{
	double cpu, max, min;
	int hmax, hmin;

	if (kv_num(kv, n, "cpu_id", &cpu) == -1 || cpu < 0 ||
	    cpu > UINT32_MAX)
		return;
	hmax = kv_num_either(kv, n, "max", "max_freq", &max) == 0;
	hmin = kv_num_either(kv, n, "min", "min_freq", &min) == 0;
	tp_ftrace_cpu_freq_limits(tp, ts, (int64_t)cpu, hmax ? &max : NULL,
	    hmin ? &min : NULL);
}

/* A field's first word (what follows "cmd=0x7206 BR_..." is a name) as an
 * integer in base (0: as C spells it) within [lo, hi]: 0, or -1. */
static int
kv_word(const struct kv *kv, size_t n, const char *k, int base, int64_t lo,
    int64_t hi, int64_t *v)
{
	const struct kv *e = kv_get(kv, n, k);
	char buf[32], *end;
	size_t len;

	if (e == NULL)
		return -1;
	for (len = 0; len < e->vlen && e->v[len] != ' '; len++)
		;
	if (len == 0 || len >= sizeof(buf) || e->v[0] == '-')
		return -1;
	memcpy(buf, e->v, len);
	buf[len] = '\0';
	*v = (int64_t)strtoull(buf, &end, base);
	return *end == '\0' && *v >= lo && *v <= hi ? 0 : -1;
}

/* The binder driver's events; 1 when name is one of them. A line missing
 * a field the tracker needs is left out. */
static int
binder_line(struct tp *tp, int64_t ts, int64_t tid, const char *name,
    const struct kv *kv, size_t n)
{
	struct tp_binder_txn t;
	const struct kv *c;
	int64_t v, w;
	char code[256];
	size_t len;

	if (strcmp(name, "binder_transaction") == 0) {
		c = kv_get(kv, n, "code");
		for (len = 0; c != NULL && len < c->vlen && c->v[len] != ' ';
		    len++)
			;
		snprintf(code, sizeof(code), "%.*s Java Layer Dependent",
		    (int)len, c != NULL ? c->v : "");
		t.code = code;
		t.flags = kv_word(kv, n, "flags", 16, 0, INT64_MAX, &v) == 0 ?
		    (uint32_t)v : 0;
		if (kv_word(kv, n, "transaction", 10, 0, INT32_MAX, &t.id) ==
		    0 && kv_word(kv, n, "dest_node", 10, 0, INT32_MAX,
		    &t.dest_node) == 0 && kv_word(kv, n, "dest_proc", 10, 0,
		    UINT32_MAX, &t.dest_tgid) == 0 && kv_word(kv, n,
		    "dest_thread", 10, 0, UINT32_MAX, &t.dest_tid) == 0 &&
		    kv_word(kv, n, "reply", 10, 0, INT32_MAX, &v) == 0) {
			t.reply = v == 1;
			tp_binder_transaction(tp, ts, tid, &t);
		}
	} else if (strcmp(name, "binder_transaction_received") == 0) {
		if (kv_word(kv, n, "transaction", 10, 0, INT32_MAX, &v) == 0)
			tp_binder_received(tp, ts, tid, v);
	} else if (strcmp(name, "binder_command") == 0) {
		if (kv_word(kv, n, "cmd", 0, 0, UINT32_MAX, &v) == 0)
			tp_binder_command(tp, tid, (uint32_t)v);
	} else if (strcmp(name, "binder_return") == 0) {
		if (kv_word(kv, n, "cmd", 0, 0, UINT32_MAX, &v) == 0)
			tp_binder_return(tp, ts, tid, (uint32_t)v);
	} else if (strcmp(name, "binder_transaction_alloc_buf") == 0) {
		if (kv_word(kv, n, "data_size", 10, 0, INT64_MAX, &v) == 0 &&
		    kv_word(kv, n, "offsets_size", 10, 0, INT64_MAX, &w) == 0)
			tp_binder_alloc_buf(tp, tid, (uint64_t)v, (uint64_t)w);
	} else if (strcmp(name, "binder_lock") == 0) {
		tp_binder_lock(tp, ts, tid, TP_BINDER_LOCK);
	} else if (strcmp(name, "binder_locked") == 0) {
		tp_binder_lock(tp, ts, tid, TP_BINDER_LOCKED);
	} else if (strcmp(name, "binder_unlock") == 0) {
		tp_binder_lock(tp, ts, tid, TP_BINDER_UNLOCK);
	} else {
		return 0;
	}
	return 1;
}

void
tp_systrace_parse_sorted(struct tp *tp, struct tp_sort_item *it)
{
	const char *s = (const char *)it->data, *ev, *args;
	size_t len = it->len, evlen, argslen, n;
	int64_t tid, tgid, cpu, ts;
	struct kv kv[MAX_FIELDS], task;
	int64_t utid;
	char name[128];

	if (line_header(s, len, &tid, &tgid, &cpu, &ts, &ev, &evlen, &args,
	    &argslen, &task) == -1 || cpu < 0 || cpu >= 4096)
		return;
	snprintf(name, sizeof(name), "%.*s", (int)evlen, ev);
	/* The task of the line exists, in its process when known, and is
	 * named by the line unless ftrace did not know its name ("<...>"). */
	utid = tgid > 0 ? tp_thread_in_process(tp, tid, tgid) :
	    tp_thread_get(tp, tid);
	if (!(task.klen == 5 && memcmp(task.k, "<...>", 5) == 0))
		tp_thread_set_name(tp, utid, task.k, task.klen,
		    TP_NAME_SCHED);
	/* As upstream's text importer: known events only, and only
	 * sched_switch in ftrace_event. */
	if (strcmp(name, "tracing_mark_write") == 0 ||
	    strcmp(name, "print") == 0 || strcmp(name, "0") == 0) {
		tp_ftrace_print(tp, ts, tid, args, argslen);
		return;
	}
	n = split_kv(args, argslen, kv, MAX_FIELDS);
	if (strncmp(name, "binder_", 7) == 0 &&
	    binder_line(tp, ts, tid, name, kv, n))
		return;
	if (strcmp(name, "sched_switch") == 0) {
		const struct kv *pc = kv_get(kv, n, "prev_comm");
		const struct kv *nc = kv_get(kv, n, "next_comm");
		const struct kv *ps = kv_get(kv, n, "prev_state");

		tp_ftrace_switch_fields(tp, ts, (uint32_t)cpu,
		    pc ? pc->v : "", pc ? pc->vlen : 0,
		    kv_int(kv, n, "prev_pid", 0), kv_int(kv, n, "prev_prio", 0),
		    ps ? tp_task_state_text(ps->v, ps->vlen) : 0xffff,
		    nc ? nc->v : "", nc ? nc->vlen : 0,
		    kv_int(kv, n, "next_pid", 0), kv_int(kv, n, "next_prio", 0));
	} else if (strcmp(name, "sched_waking") == 0) {
		const struct kv *c = kv_get(kv, n, "comm");

		tp_ftrace_sched_waking(tp, ts, (uint32_t)cpu, tid,
		    kv_int(kv, n, "pid", 0), c ? c->v : NULL, c ? c->vlen : 0,
		    TP_NULL);
	} else if (strcmp(name, "workqueue_execute_start") == 0) {
		char fn[256];

		/* Not key=value: "work struct 0x...: function NAME". */
		if (workqueue_function(args, argslen, fn, sizeof(fn)) == 0)
			tp_ftrace_workqueue(tp, ts, TP_NULL, tid, fn);
	} else if (strcmp(name, "workqueue_execute_end") == 0) {
		tp_ftrace_workqueue(tp, ts, TP_NULL, tid, NULL);
	} else if (strcmp(name, "cpu_frequency") == 0) {
		tp_ftrace_cpu_counter(tp, ts, "cpu_frequency", "cpufreq",
		    kv_int(kv, n, "cpu_id", cpu), (double)kv_int(kv, n, "state",
		    0));
	} else if (strcmp(name, "cpu_idle") == 0) {
		tp_ftrace_cpu_counter(tp, ts, "cpu_idle", "cpuidle",
		    kv_int(kv, n, "cpu_id", cpu), (double)(uint32_t)kv_int(kv,
		    n, "state", 0));
	} else if (strcmp(name, "cpu_frequency_limits") == 0) {
		freq_limits(tp, ts, kv, n);
	} else if (strcmp(name, "sched_blocked_reason") == 0) {
		/* The caller as the kernel printed it ("fn+0x../0x.."). */
		const struct kv *c = kv_get(kv, n, "caller");

		tp_ftrace_blocked_reason(tp, kv_int(kv, n, "pid", 0),
		    kv_int(kv, n, "iowait", 0), c ? c->v : NULL,
		    c ? c->vlen : 0);
	} else if (strcmp(name, "sched_process_free") == 0) {
		tp_thread_end(tp, kv_int(kv, n, "pid", -1), ts);
	}
}

/*
 * As upstream: text before atrace's "TRACE:" marker (within the first 128
 * bytes) is not the trace, nor is a first "cpus=<n>" line; any other line
 * that is not a comment and not an event is counted unparsable.
 */
static void
line_done(struct tp *tp, const char *s, size_t len)
{
	struct tp_systrace *st = tp->systrace;
	int64_t tid, tgid, cpu, ts;
	const char *ev, *args;
	size_t evlen, argslen;
	uint64_t at = st->off;
	int first = at == 0 || st->first;

	st->off += len + 1;
	st->first = 0;
	while (len > 0 && (s[len - 1] == '\r' || s[len - 1] == ' '))
		len--;
	if (!st->marker && len >= 6 && memcmp(s + len - 6, "TRACE:", 6) ==
	    0 && at + len + 1 <= 128) {
		tp_stat_inc(tp, ST_SYSTRACE_PARSE_FAILURE, -st->failures);
		st->failures = 0;
		st->marker = st->first = 1;
		return;
	}
	if (len == 0 || s[0] == '#' || (first && cpus_header(s, len)))
		return;
	if (line_header(s, len, &tid, &tgid, &cpu, &ts, &ev, &evlen, &args,
	    &argslen, NULL) == -1) {
		tp_stat_inc(tp, ST_SYSTRACE_PARSE_FAILURE, 1);
		st->failures++;
		return;
	}
	tp_sorter_push(tp, ts, SK_SYSTRACE, 0, NULL, s, len);
}

int
tp_systrace_feed(struct tp *tp, const uint8_t *buf, size_t len)
{
	struct tp_systrace *st = tp->systrace;

	if (st == NULL && (st = tp->systrace = calloc(1, sizeof(*st))) == NULL)
		return tp_seterr(tp, "%s: out of memory", __func__);
	return tp_lines_feed(tp, &st->lines, buf, len, line_done,
	    ST_SYSTRACE_PARSE_FAILURE);
}

int
tp_systrace_end(struct tp *tp)
{
	const char *s;
	size_t len;

	/* ftrace text's last line may lack its newline. */
	if (tp->systrace != NULL && tp_lines_rest(&tp->systrace->lines, &s,
	    &len))
		line_done(tp, s, len);
	return 0;
}

void
tp_systrace_free(struct tp *tp)
{
	if (tp->systrace == NULL)
		return;
	tp_lines_free(&tp->systrace->lines);
	free(tp->systrace);
	tp->systrace = NULL;
}
