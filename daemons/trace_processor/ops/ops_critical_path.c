/*
 * __intrinsic_critical_path_walk(nodes, roots) -> (root_id, depth, ts, dur,
 * blocker_id, blocker_utid, parent_id): who kept a thread from running,
 * for sched.thread_executing_span.
 *
 * nodes: rows (id, utid, ts, dur, idle_dur, waker_id, prev_id) of a wakeup
 * graph: the thread utid runs over [ts, ts + dur) after being idle over
 * [ts - idle_dur, ts) (no lower bound when idle_dur is NULL), woken by
 * node waker_id; prev_id is the thread's previous node. roots: rows (id).
 *
 * For each root the time from the start of its idle period to the end of
 * its run is given away piece by piece: the node's own run is its own; its
 * idle time goes to whoever woke it, walking on to the waker's own idle
 * time one level deeper, and with no waker to the thread itself when it
 * has a previous node (woken from an interrupt); time before a node's idle
 * period goes back to the thread's previous node at the same depth.
 * parent_id is the root for every row. Unknown roots give nothing.
 *
 * A walk that does not end (a node woken by itself, in bad data) stops
 * with an error after a bounded number of steps.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "ops_int.h"
#include "ops_graph.h"

#define CP_MAX_STEPS	((uint64_t)1 << 26)

enum { N_ID, N_UTID, N_TS, N_DUR, N_IDLE, N_WAKER, N_PREV, N_COLS };

/* A piece of time [start, end) to give away from node, at depth. */
struct cp_frame {
	int64_t		 node;
	int64_t		 start, end;
	int64_t		 depth;
};

struct cp_stack {
	struct cp_frame	*v;
	size_t		 n, cap;
};

static int
cp_push(struct cp_stack *s, int64_t node, int64_t start, int64_t end,
    int64_t depth, char **err)
{
	struct cp_frame	*nv;
	size_t		 ncap;

	if (node == OPS_GRAPH_NULL || start >= end)
		return 0;
	if (s->n == s->cap) {
		ncap = s->cap ? s->cap * 2 : 64;
		if ((nv = realloc(s->v, ncap * sizeof(*nv))) == NULL) {
			ops_seterr(err, "out of memory");
			return -1;
		}
		s->v = nv;
		s->cap = ncap;
	}
	s->v[s->n].node = node;
	s->v[s->n].start = start;
	s->v[s->n].end = end;
	s->v[s->n].depth = depth;
	s->n++;
	return 0;
}

/* a + b, held at the int64 limits rather than overflowing. */
static int64_t
cp_add(int64_t a, int64_t b)
{
	int64_t	 r;

	if (__builtin_add_overflow(a, b, &r))
		return b > 0 ? INT64_MAX : INT64_MIN + 1;
	return r;
}

static int
cp_cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* The row of node id, or NULL. */
static const int64_t *
cp_find(const struct ops_grows *g, int64_t id)
{
	size_t	 lo = 0, hi = g->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (g->v[mid * N_COLS] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < g->n && g->v[lo * N_COLS] == id ? g->v + lo * N_COLS :
	    NULL;
}

static int
cp_emit(struct ops_grows *out, int64_t root, int64_t depth, int64_t start,
    int64_t end, const int64_t *n, char **err)
{
	int64_t	 row[7] = {
		root, depth, start, end - start, n[N_ID], n[N_UTID], root
	};

	return ops_grows_add(out, row, err);
}

static int
cp_walk(const struct ops_grows *g, int64_t root, struct cp_stack *st,
    uint64_t *steps, struct ops_grows *out, char **err)
{
	const int64_t	*r, *n;
	struct cp_frame	 f;
	int64_t		 idle_start, run_end, from, to, idle_end;

	if ((r = cp_find(g, root)) == NULL)
		return 0;
	st->n = 0;
	/* Unknown idle_dur: the walk starts at the run. */
	if (cp_push(st, root, cp_add(r[N_TS], r[N_IDLE] == OPS_GRAPH_NULL ?
	    0 : -r[N_IDLE]), cp_add(r[N_TS], r[N_DUR]), 0, err) == -1)
		return -1;
	while (st->n > 0) {
		f = st->v[--st->n];
		if (++*steps > CP_MAX_STEPS) {
			ops_seterr(err, "walk from root %lld does not end "
			    "(a node woken by itself?)", (long long)root);
			return -1;
		}
		if ((n = cp_find(g, f.node)) == NULL)
			continue;
		idle_start = n[N_IDLE] == OPS_GRAPH_NULL ? f.start :
		    cp_add(n[N_TS], -n[N_IDLE]);
		run_end = cp_add(n[N_TS], n[N_DUR]);
		/* Before this node's idle period: the thread's earlier node. */
		if (n[N_IDLE] != OPS_GRAPH_NULL && f.start < idle_start &&
		    cp_push(st, n[N_PREV], f.start, f.end < idle_start ?
		    f.end : idle_start, f.depth, err) == -1)
			return -1;
		from = f.start > idle_start ? f.start : idle_start;
		to = f.end < run_end ? f.end : run_end;
		if (from >= to)
			continue;
		/* Idle: the waker's, a level down; without one, the thread's. */
		idle_end = to < n[N_TS] ? to : n[N_TS];
		if (from < idle_end) {
			if (n[N_WAKER] != OPS_GRAPH_NULL) {
				if (cp_push(st, n[N_WAKER], from, idle_end,
				    f.depth + 1, err) == -1)
					return -1;
			} else if (n[N_PREV] != OPS_GRAPH_NULL &&
			    cp_emit(out, root, f.depth, from, idle_end, n,
			    err) == -1)
				return -1;
		}
		/* Running: its own. */
		if (from < n[N_TS])
			from = n[N_TS];
		if (from < to && cp_emit(out, root, f.depth, from, to, n,
		    err) == -1)
			return -1;
	}
	return 0;
}

static int
cp_run(sqlite3 *db, sqlite3_value **argv, struct ops_grows *out,
    char **err)
{
	struct ops_grows g, roots;
	struct cp_stack	 st = { 0 };
	uint64_t	 steps = 0;
	size_t		 i;
	int		 rc = -1;

	(void)db;
	if (ops_grows_decode(argv[0], N_COLS, &g, err) == -1)
		return -1;
	if (ops_grows_decode(argv[1], 1, &roots, err) == -1) {
		ops_grows_free(&g);
		return -1;
	}
	for (i = 0; i < g.n; i++)
		if (g.v[i * N_COLS + N_ID] == OPS_GRAPH_NULL ||
		    g.v[i * N_COLS + N_UTID] == OPS_GRAPH_NULL ||
		    g.v[i * N_COLS + N_TS] == OPS_GRAPH_NULL ||
		    g.v[i * N_COLS + N_DUR] == OPS_GRAPH_NULL) {
			ops_seterr(err, "node id, utid, ts and dur must not "
			    "be NULL");
			goto out;
		}
	if (g.n > 1)
		qsort(g.v, g.n, N_COLS * sizeof(int64_t), cp_cmp);
	for (i = 1; i < g.n; i++)
		if (g.v[i * N_COLS] == g.v[(i - 1) * N_COLS]) {
			ops_seterr(err, "duplicate node id %lld",
			    (long long)g.v[i * N_COLS]);
			goto out;
		}
	for (i = 0; i < roots.n; i++)
		if (roots.v[i] != OPS_GRAPH_NULL &&
		    cp_walk(&g, roots.v[i], &st, &steps, out, err) == -1)
			goto out;
	rc = 0;
out:
	free(st.v);
	ops_grows_free(&g);
	ops_grows_free(&roots);
	return rc;
}

static const char *const cp_cols[] = {
	"root_id", "depth", "ts", "dur", "blocker_id", "blocker_utid",
	"parent_id", NULL
};
static const char *const cp_args[] = { "nodes", "roots", NULL };
static const struct ops_rowfn cp_fn = {
	.name = "__intrinsic_critical_path_walk",
	.cols = cp_cols,
	.args = cp_args,
	.run = cp_run,
};

int
ops_critical_path_register(sqlite3 *db, char **err)
{
	return ops_rowfn_register(db, &cp_fn, NULL, NULL, err);
}
