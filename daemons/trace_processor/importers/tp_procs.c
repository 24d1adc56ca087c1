/*
 * Threads and processes. A tid or pid maps to the live utid/upid; a new
 * task with a reused id gets a new row, so utid/upid survive pid reuse.
 * The threads of one tid form a list, newest first, so that a tid named
 * with its pid finds the thread of that process, as upstream finds it.
 * Row 0 of each table is the idle task (tid 0, pid 0), as upstream.
 */
#include <stdlib.h>
#include <string.h>

#include "tp_int.h"

void
tp_strlcpy(char *dst, size_t cap, const char *s, size_t len)
{
	if (s == NULL)
		len = 0;
	if (len > cap - 1)
		len = cap - 1;
	memcpy(dst, s != NULL ? s : "", len);
	dst[len] = '\0';
}

char *
tp_strndup(const char *s, size_t len)
{
	char *p = malloc(len + 1);

	if (p == NULL)
		return NULL;
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

void
tp_setstr(char **dst, const char *s, size_t len)
{
	char *n = s ? tp_strndup(s, len) : NULL;

	if (s != NULL && n == NULL)
		return;		/* keep the old value when out of memory */
	free(*dst);
	*dst = n;
}

int
tp_grow(void **arr, size_t *cap, size_t n, size_t elsz)
{
	size_t ncap;
	void *p;

	if (n < *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 64;
	if ((p = realloc(*arr, ncap * elsz)) == NULL)
		return -1;
	*arr = p;
	*cap = ncap;
	return 0;
}

/* The current machine's maps of tids and pids. */
#define TIDS(tp)	tp_machine_ids((tp), (tp)->machine, 0)
#define PIDS(tp)	tp_machine_ids((tp), (tp)->machine, 1)

static int64_t
thread_new_on(struct tp *tp, uint32_t machine, int64_t tid, int64_t ts)
{
	struct tp_hash *tids = tp_machine_ids(tp, machine, 0);
	struct tp_thread *t;
	uint64_t *u;

	if (tp_grow((void **)&tp->threads, &tp->capthreads, tp->nthreads,
	    sizeof(*t)) == -1)
		return 0;	/* out of memory: fold into the idle thread */
	t = &tp->threads[tp->nthreads];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->upid = TP_NULL;
	t->older = (u = tp_hash_get(tids, (uint64_t)tid)) != NULL ?
	    (int64_t)*u : TP_NULL;
	t->start_ts = ts;
	t->end_ts = TP_NULL;
	t->main_thread = -1;
	t->arg_set_id = TP_NULL;
	t->machine = machine;
	(void)tp_hash_put(tids, (uint64_t)tid, tp->nthreads);
	return (int64_t)tp->nthreads++;
}

int64_t
tp_thread_new(struct tp *tp, int64_t tid, int64_t ts)
{
	return thread_new_on(tp, tp->machine, tid, ts);
}

int64_t
tp_thread_find(struct tp *tp, int64_t tid)
{
	uint64_t *u = tp_hash_get(TIDS(tp), (uint64_t)tid);

	return u != NULL ? (int64_t)*u : -1;
}

int64_t
tp_thread_get(struct tp *tp, int64_t tid)
{
	int64_t utid = tp_thread_find(tp, tid);

	return utid >= 0 ? utid : tp_thread_new(tp, tid, TP_NULL);
}

static int64_t
process_new_on(struct tp *tp, uint32_t machine, int64_t pid,
    int64_t parent_upid, int64_t ts)
{
	struct tp_process *p;

	if (tp_grow((void **)&tp->procs, &tp->capprocs, tp->nprocs,
	    sizeof(*p)) == -1)
		return 0;
	p = &tp->procs[tp->nprocs];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->parent_upid = parent_upid;
	p->uid = TP_NULL;
	p->arg_set_id = TP_NULL;
	p->start_ts = ts;
	p->end_ts = TP_NULL;
	p->machine = machine;
	(void)tp_hash_put(tp_machine_ids(tp, machine, 1), (uint64_t)pid,
	    tp->nprocs);
	return (int64_t)tp->nprocs++;
}

int64_t
tp_process_new(struct tp *tp, int64_t pid, int64_t parent_upid, int64_t ts)
{
	return process_new_on(tp, tp->machine, pid, parent_upid, ts);
}

void
tp_process_set_parent(struct tp *tp, int64_t upid, int64_t parent,
    int64_t ts)
{
	struct tp_process *p = &tp->procs[upid];

	if (parent == TP_NULL || p->parent_upid == parent)
		return;
	if (p->parent_upid == TP_NULL)
		p->parent_upid = parent;
	else
		tp_import_log(tp, ST_PROCESS_TRACKER_PARENT_PID_CHANGED, ts,
		    TP_NULL, TP_NULL);
}

int64_t
tp_process_get(struct tp *tp, int64_t pid)
{
	uint64_t *u = tp_hash_get(PIDS(tp), (uint64_t)pid);
	int64_t upid;

	if (u != NULL)
		return (int64_t)*u;
	upid = tp_process_new(tp, pid, TP_NULL, TP_NULL);
	/* A process comes with its main thread, as upstream numbers utids. */
	(void)tp_thread_in_process(tp, pid, pid);
	return upid;
}

int64_t
tp_process_get_bare(struct tp *tp, int64_t pid)
{
	uint64_t *u = tp_hash_get(PIDS(tp), (uint64_t)pid);

	return u != NULL ? (int64_t)*u : tp_process_new(tp, pid, TP_NULL,
	    TP_NULL);
}

/* As upstream: a thread is dead once it ended, or its process ended or
 * was replaced by a newer one of its pid. */
static int
thread_alive(const struct tp *tp, const struct tp_thread *t)
{
	const struct tp_process *p;
	uint64_t *u;

	if (t->end_ts != TP_NULL)
		return 0;
	if (t->upid == TP_NULL)
		return 1;
	p = &tp->procs[t->upid];
	if (p->end_ts != TP_NULL)
		return 0;
	u = tp_hash_get(tp_machine_ids((struct tp *)tp, p->machine, 1),
	    (uint64_t)p->pid);
	return u == NULL || (int64_t)*u == t->upid;
}

void
tp_process_parent_wait(struct tp *tp, int64_t child_upid, int64_t parent_utid)
{
	if (tp_grow((void **)&tp->pwait, &tp->cappwait, tp->npwait,
	    sizeof(*tp->pwait)) == -1)
		return;
	tp->pwait[tp->npwait].parent_utid = parent_utid;
	tp->pwait[tp->npwait++].child_upid = child_upid;
}

/* Thread utid joins process upid: the processes it created get their
 * parent. */
static void
thread_join(struct tp *tp, int64_t utid, int64_t upid)
{
	size_t i = 0;

	tp->threads[utid].upid = upid;
	while (i < tp->npwait) {
		struct tp_parent_wait *w = &tp->pwait[i];

		if (w->parent_utid != utid) {
			i++;
			continue;
		}
		if (tp->procs[w->child_upid].parent_upid == TP_NULL &&
		    w->child_upid != upid)
			tp->procs[w->child_upid].parent_upid = upid;
		*w = tp->pwait[--tp->npwait];
	}
	/* The threads bound to it join too (each may free others). */
	for (i = 0; i < tp->ntpairs;) {
		struct tp_thread_pair *p = &tp->tpairs[i];
		int64_t other = p->a == utid ? p->b : p->b == utid ? p->a : -1;

		if (other < 0) {
			i++;
			continue;
		}
		*p = tp->tpairs[--tp->ntpairs];
		if (tp->threads[other].upid == TP_NULL) {
			thread_join(tp, other, upid);
			i = 0;
		}
	}
}

void
tp_thread_associate(struct tp *tp, int64_t a, int64_t b)
{
	int64_t ua = tp->threads[a].upid, ub = tp->threads[b].upid;

	if (ua != TP_NULL && ub == TP_NULL) {
		thread_join(tp, b, ua);
	} else if (ub != TP_NULL && ua == TP_NULL) {
		thread_join(tp, a, ub);
	} else if (ua != TP_NULL) {
		if (ua != ub)
			tp_stat_inc(tp, ST_PROCESS_TRACKER_ERRORS, 1);
	} else if (tp_grow((void **)&tp->tpairs, &tp->captpairs,
	    tp->ntpairs, sizeof(*tp->tpairs)) == 0) {
		tp->tpairs[tp->ntpairs].a = a;
		tp->tpairs[tp->ntpairs++].b = b;
	}
}

int64_t
tp_thread_with_parent(struct tp *tp, int64_t tid, int64_t upid)
{
	uint64_t *u = tp_hash_get(TIDS(tp), (uint64_t)tid);
	int64_t utid = u != NULL ? (int64_t)*u : TP_NULL;
	struct tp_thread *t;

	for (; utid != TP_NULL; utid = t->older) {
		t = &tp->threads[utid];
		if (!thread_alive(tp, t))
			continue;
		if (t->upid == TP_NULL)
			thread_join(tp, utid, upid);
		if (t->upid == upid)
			return utid;
	}
	utid = tp_thread_new(tp, tid, TP_NULL);
	tp->threads[utid].upid = upid;
	return utid;
}

int64_t
tp_thread_in_process(struct tp *tp, int64_t tid, int64_t pid)
{
	int64_t upid = tp_process_get(tp, pid);
	uint64_t *u = tp_hash_get(TIDS(tp), (uint64_t)tid);
	int64_t utid = u != NULL ? (int64_t)*u : TP_NULL;
	struct tp_thread *t;

	/* The newest live thread of this tid that is in no process yet or
	 * in one with this pid; else the tid was reused: a new thread. */
	for (; utid != TP_NULL; utid = t->older) {
		t = &tp->threads[utid];
		if (!thread_alive(tp, t))
			continue;
		if (t->upid == TP_NULL)
			thread_join(tp, utid, upid);
		if (tp->procs[t->upid].pid == pid)
			return utid;
	}
	utid = tp_thread_new(tp, tid, TP_NULL);
	tp->threads[utid].upid = upid;
	return utid;
}

void
tp_process_set_sort_index(struct tp *tp, int64_t upid, int64_t v, int prio)
{
	struct tp_process *p = &tp->procs[upid];

	if (p->sort_prio == 0) {
		p->sort_index = v;
		p->sort_prio = prio;
	}
}

void
tp_thread_set_sort_index(struct tp *tp, int64_t utid, int64_t v, int prio)
{
	struct tp_thread *t = &tp->threads[utid];

	if (t->sort_prio == 0) {
		t->sort_index = v;
		t->sort_prio = prio;
	}
}

/*
 * The arg sets of n rows (the set of row i at stride * i bytes from
 * first) are done in the order upstream stores them: that of its hash
 * map of the rows that have args.
 */
static void
sets_done(struct tp *tp, int64_t *first, size_t stride, size_t n)
{
	uint32_t *keys;
	size_t *order = NULL, i, k = 0;

#define SET_OF(i)	((int64_t *)(void *)((char *)first + stride * (i)))
	if ((keys = calloc(n, sizeof(*keys))) != NULL) {
		for (i = 0; i < n; i++)
			if (*SET_OF(i) != TP_NULL)
				keys[k++] = (uint32_t)i;
		/* an entry: the id and its args' inserter */
		order = tp_hashorder(keys, k, 0, 44);
	}
	/* Out of memory: in row order. */
	if (order != NULL)
		for (i = 0; i < k; i++)
			*SET_OF(keys[order[i]]) = tp_arg_set_done(tp,
			    *SET_OF(keys[order[i]]));
	for (i = 0; i < n; i++)
		*SET_OF(i) = tp_arg_set_done(tp, *SET_OF(i));
#undef SET_OF
	free(order);
	free(keys);
}

/* As upstream keeps them: process_sort_index_hint and
 * thread_sort_index_hint args, added once the trace is read. */
void
tp_procs_sort_args(struct tp *tp)
{
	size_t i;

	for (i = 0; i < tp->nprocs; i++) {
		struct tp_process *p = &tp->procs[i];

		if (p->sort_prio == 0)
			continue;
		tp_arg_int(tp, tp_process_arg_set(tp, (int64_t)i),
		    "process_sort_index_hint",
		    "process_sort_index_hint", p->sort_index, "int");
	}
	for (i = 0; i < tp->nthreads; i++) {
		struct tp_thread *t = &tp->threads[i];

		if (t->sort_prio == 0)
			continue;
		if (t->arg_set_id == TP_NULL)
			t->arg_set_id = tp_arg_set_new(tp);
		tp_arg_int(tp, t->arg_set_id, "thread_sort_index_hint",
		    "thread_sort_index_hint", t->sort_index, "int");
	}
	/* Their args are all in: stored, processes' first, as upstream
	 * stores them once the trace is read. */
	if (tp->nprocs > 0)
		sets_done(tp, &tp->procs[0].arg_set_id, sizeof(tp->procs[0]),
		    tp->nprocs);
	if (tp->nthreads > 0)
		sets_done(tp, &tp->threads[0].arg_set_id,
		    sizeof(tp->threads[0]), tp->nthreads);
}

void
tp_thread_set_name(struct tp *tp, int64_t utid, const char *s, size_t len,
    int prio)
{
	struct tp_thread *t = &tp->threads[utid];

	if (len == 0 || prio < t->name_prio)
		return;
	if (t->name != NULL && strlen(t->name) == len &&
	    memcmp(t->name, s, len) == 0) {
		t->name_prio = prio;
		return;
	}
	tp_setstr(&t->name, s, len);
	t->name_prio = prio;
}

void
tp_process_set_name(struct tp *tp, int64_t upid, const char *s, size_t len,
    enum tp_pname prio)
{
	struct tp_process *p = &tp->procs[upid];

	if (len == 0 || (int)prio < p->name_prio)
		return;
	tp_setstr(&p->name, s, len);
	p->name_prio = prio;
}

int64_t
tp_process_arg_set(struct tp *tp, int64_t upid)
{
	struct tp_process *p = &tp->procs[upid];

	if (p->arg_set_id == TP_NULL)
		p->arg_set_id = tp_arg_set_new(tp);
	return p->arg_set_id;
}

void
tp_cmdline_append(char *buf, size_t cap, size_t *len, const uint8_t *arg,
    size_t arglen)
{
	if (*len + arglen + 1 >= cap)
		return;
	if (*len > 0)
		buf[(*len)++] = ' ';
	memcpy(buf + *len, arg, arglen);
	*len += arglen;
}

void
tp_process_set_cmdline(struct tp *tp, int64_t upid, const char *s,
    size_t len)
{
	tp_setstr(&tp->procs[upid].cmdline, s, len);
}

void
tp_thread_end(struct tp *tp, int64_t tid, int64_t ts)
{
	uint64_t *u = tp_hash_get(TIDS(tp), (uint64_t)tid);
	struct tp_thread *t;
	int64_t older;

	if (u == NULL)
		return;
	t = &tp->threads[*u];
	t->end_ts = ts;
	/* A later event for this tid is a new thread, or an older one
	 * still alive in another process. */
	for (older = t->older; older != TP_NULL &&
	    tp->threads[older].end_ts != TP_NULL;
	    older = tp->threads[older].older)
		;
	if (older != TP_NULL)
		(void)tp_hash_put(TIDS(tp), (uint64_t)tid, (uint64_t)older);
	else
		(void)tp_hash_del(TIDS(tp), (uint64_t)tid);
	if (t->upid != TP_NULL && tp->procs[t->upid].pid == tid) {
		tp->procs[t->upid].end_ts = ts;
		(void)tp_hash_del(PIDS(tp), (uint64_t)tid);
	}
}

void
tp_procs_init(struct tp *tp)
{
	tp_hash_init(&tp->tid_map);
	tp_hash_init(&tp->pid_map);
	tp_procs_add_idle(tp, 0);
}

void
tp_procs_add_idle(struct tp *tp, uint32_t machine)
{
	int64_t upid = process_new_on(tp, machine, 0, TP_NULL, TP_NULL);
	int64_t utid = thread_new_on(tp, machine, 0, TP_NULL);

	tp->threads[utid].upid = upid;
	tp->threads[utid].is_idle = 1;
	/* Remote machines are in proto traces only: a kernel's idle task,
	 * named as the host's is (tp_parse). */
	if (machine != 0)
		tp_thread_set_name(tp, utid, "swapper", 7, TP_NAME_TREE);
}

void
tp_procs_unmap_idle(struct tp *tp)
{
	(void)tp_hash_del(&tp->tid_map, 0);
	(void)tp_hash_del(&tp->pid_map, 0);
}

void
tp_procs_free(struct tp *tp)
{
	size_t i;

	for (i = 0; i < tp->nthreads; i++)
		free(tp->threads[i].name);
	for (i = 0; i < tp->nprocs; i++) {
		free(tp->procs[i].name);
		free(tp->procs[i].cmdline);
	}
	free(tp->threads);
	free(tp->procs);
	free(tp->pwait);
	free(tp->tpairs);
	tp_hash_free(&tp->tid_map);
	tp_hash_free(&tp->pid_map);
}
