/*
 * Reachability searches (the graphs.search module):
 *
 *   __intrinsic_graph_dfs(edges, starts)    -> (node_id, parent_node_id)
 *   __intrinsic_graph_bfs(edges, starts)    -> (node_id, parent_node_id)
 *   __intrinsic_graph_dfs_bounded(edges, roots, is_floor)
 *                          -> (root_node_id, node_id, parent_node_id)
 *
 * edges: rows (source, dest) or (source, dest, weight); starts: rows (id);
 * roots: rows (id, target weight), all packed by __intrinsic_int_rows.
 * Each node found is returned once with the node it was first reached
 * from (NULL for a start); a start that is no node of the graph is still
 * returned, alone. Out-edges are followed in input order.
 *
 * The depth-first search visits as a recursive one would, starting from
 * the last start node given and going back to the first. The breadth-
 * first search starts from all of them at once, in the order given.
 *
 * The bounded search runs one depth-first search per root on its own,
 * adding up the weights of the edges it takes (whole search, not per
 * path): once the sum passes the root's target it stops, keeping the node
 * that passed it when is_floor is true and dropping it otherwise.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "ops_int.h"
#include "ops_graph.h"

/* A node to visit: dense number (or a start outside the graph) and from. */
struct visit {
	int64_t		 node;		/* dense number */
	int64_t		 from;		/* id, or OPS_GRAPH_NULL */
	int64_t		 weight;
};

struct visits {
	struct visit	*v;
	size_t		 n, cap, head;
};

static int
visits_push(struct visits *q, int64_t node, int64_t from, int64_t weight,
    char **err)
{
	struct visit	*nv;
	size_t		 ncap;

	if (q->n == q->cap) {
		ncap = q->cap ? q->cap * 2 : 64;
		if ((nv = realloc(q->v, ncap * sizeof(*nv))) == NULL) {
			ops_seterr(err, "out of memory");
			return -1;
		}
		q->v = nv;
		q->cap = ncap;
	}
	q->v[q->n].node = node;
	q->v[q->n].from = from;
	q->v[q->n].weight = weight;
	q->n++;
	return 0;
}

/* Decodes the inputs and builds the graph with the start ids as nodes. */
static int
search_setup(sqlite3_value *ev, size_t ecols, sqlite3_value *sv,
    size_t scols, struct ops_graph *g, struct ops_grows *starts, char **err)
{
	struct ops_grows e;
	int64_t		*ids = NULL;
	size_t		 i;
	int		 rc;

	if (ops_grows_decode(ev, ecols, &e, err) == -1)
		return -1;
	if (ops_grows_decode(sv, scols, starts, err) == -1) {
		ops_grows_free(&e);
		return -1;
	}
	if ((ids = malloc((starts->n + 1) * sizeof(*ids))) == NULL) {
		ops_seterr(err, "out of memory");
		rc = -1;
		goto out;
	}
	for (i = 0; i < starts->n; i++)
		ids[i] = starts->v[i * scols];
	rc = ops_graph_build(g, &e, ecols == 3, ids, starts->n, err);
	if (rc == 0 && ecols == 3) {
		for (i = 0; i < g->m; i++)
			if (g->w[i] < 0 || g->w[i] == OPS_GRAPH_NULL) {
				ops_seterr(err, "edge weights must be "
				    "non-negative integers");
				rc = -1;
				ops_graph_free(g);
				break;
			}
	}
out:
	free(ids);
	ops_grows_free(&e);
	if (rc == -1)
		ops_grows_free(starts);
	return rc;
}

static int
search_emit(struct ops_grows *out, int64_t root, int with_root, int64_t node,
    int64_t from, char **err)
{
	int64_t	 row[3];

	if (with_root) {
		row[0] = root;
		row[1] = node;
		row[2] = from;
	} else {
		row[0] = node;
		row[1] = from;
	}
	return ops_grows_add(out, row, err);
}

static int
search_dfs(sqlite3 *db, sqlite3_value **argv, struct ops_grows *out,
    char **err)
{
	struct ops_graph g;
	struct ops_grows starts;
	struct visits	 st = { 0 };
	struct visit	 cur;
	unsigned char	*seen = NULL;
	size_t		 i, k;
	int64_t		 d;
	int		 rc = -1;

	(void)db;
	if (search_setup(argv[0], 2, argv[1], 1, &g, &starts, err) == -1)
		return -1;
	if ((seen = calloc(g.n + 1, 1)) == NULL) {
		ops_seterr(err, "out of memory");
		goto out;
	}
	for (i = 0; i < starts.n; i++)
		if (starts.v[i] != OPS_GRAPH_NULL && visits_push(&st,
		    ops_graph_find(&g, starts.v[i]), OPS_GRAPH_NULL, 0,
		    err) == -1)
			goto out;
	while (st.n > 0) {
		cur = st.v[--st.n];
		if (seen[cur.node])
			continue;
		seen[cur.node] = 1;
		if (search_emit(out, 0, 0, g.ids[cur.node], cur.from,
		    err) == -1)
			goto out;
		/* Reversed, so the first edge is taken first. */
		for (k = g.off[cur.node + 1]; k > g.off[cur.node]; k--) {
			d = g.adj[k - 1];
			if (!seen[d] && visits_push(&st, d, g.ids[cur.node], 0,
			    err) == -1)
				goto out;
		}
	}
	rc = 0;
out:
	free(st.v);
	free(seen);
	ops_grows_free(&starts);
	ops_graph_free(&g);
	return rc;
}

static int
search_bfs(sqlite3 *db, sqlite3_value **argv, struct ops_grows *out,
    char **err)
{
	struct ops_graph g;
	struct ops_grows starts;
	struct visits	 q = { 0 };
	struct visit	 cur;
	unsigned char	*seen = NULL;
	size_t		 i, k;
	int64_t		 n, d;
	int		 rc = -1;

	(void)db;
	if (search_setup(argv[0], 2, argv[1], 1, &g, &starts, err) == -1)
		return -1;
	if ((seen = calloc(g.n + 1, 1)) == NULL) {
		ops_seterr(err, "out of memory");
		goto out;
	}
	for (i = 0; i < starts.n; i++) {
		if (starts.v[i] == OPS_GRAPH_NULL)
			continue;
		n = ops_graph_find(&g, starts.v[i]);
		if (seen[n])
			continue;
		seen[n] = 1;
		if (visits_push(&q, n, OPS_GRAPH_NULL, 0, err) == -1)
			goto out;
	}
	/* Each node enters the queue once: q never holds more than g.n. */
	for (q.head = 0; q.head < q.n; q.head++) {
		cur = q.v[q.head];
		if (search_emit(out, 0, 0, g.ids[cur.node], cur.from,
		    err) == -1)
			goto out;
		for (k = g.off[cur.node]; k < g.off[cur.node + 1]; k++) {
			d = g.adj[k];
			if (seen[d])
				continue;
			seen[d] = 1;
			if (visits_push(&q, d, g.ids[cur.node], 0, err) == -1)
				goto out;
		}
	}
	rc = 0;
out:
	free(q.v);
	free(seen);
	ops_grows_free(&starts);
	ops_graph_free(&g);
	return rc;
}

static int
search_dfs_bounded(sqlite3 *db, sqlite3_value **argv, struct ops_grows *out,
    char **err)
{
	struct ops_graph g;
	struct ops_grows roots;
	struct visits	 st = { 0 };
	struct visit	 cur;
	uint32_t	*stamp = NULL;
	size_t		 i, k;
	int64_t		 root, target, total;
	int		 floor, rc = -1;

	(void)db;
	if (sqlite3_value_type(argv[2]) != SQLITE_INTEGER) {
		ops_seterr(err, "is_target_weight_floor must be an integer");
		return -1;
	}
	floor = sqlite3_value_int64(argv[2]) != 0;
	if (search_setup(argv[0], 3, argv[1], 2, &g, &roots, err) == -1)
		return -1;
	/* Visited marks by root number, so no clearing between roots. */
	if ((stamp = calloc(g.n + 1, sizeof(*stamp))) == NULL) {
		ops_seterr(err, "out of memory");
		goto out;
	}
	if (roots.n >= UINT32_MAX) {
		ops_seterr(err, "too many roots");
		goto out;
	}
	for (i = 0; i < roots.n; i++) {
		root = roots.v[2 * i];
		target = roots.v[2 * i + 1];
		if (root == OPS_GRAPH_NULL)
			continue;
		if (target < 0) {
			ops_seterr(err, "root target weights must be "
			    "non-negative integers");
			goto out;
		}
		st.n = 0;
		if (visits_push(&st, ops_graph_find(&g, root), OPS_GRAPH_NULL,
		    0, err) == -1)
			goto out;
		total = 0;
		while (st.n > 0) {
			cur = st.v[--st.n];
			if (stamp[cur.node] == i + 1)
				continue;
			stamp[cur.node] = (uint32_t)(i + 1);
			if (__builtin_add_overflow(total, cur.weight, &total))
				total = INT64_MAX;
			if (!floor && total > target)
				break;
			if (search_emit(out, root, 1, g.ids[cur.node],
			    cur.from, err) == -1)
				goto out;
			if (total > target)
				break;
			for (k = g.off[cur.node + 1]; k > g.off[cur.node];
			    k--)
				if (stamp[g.adj[k - 1]] != i + 1 &&
				    visits_push(&st, g.adj[k - 1],
				    g.ids[cur.node], g.w[k - 1], err) == -1)
					goto out;
		}
	}
	rc = 0;
out:
	free(st.v);
	free(stamp);
	ops_grows_free(&roots);
	ops_graph_free(&g);
	return rc;
}

static const char *const node_parent_cols[] = {
	"node_id", "parent_node_id", NULL
};
static const char *const bounded_cols[] = {
	"root_node_id", "node_id", "parent_node_id", NULL
};
static const char *const search_args[] = { "edges", "starts", NULL };
static const char *const bounded_args[] = {
	"edges", "roots", "is_floor", NULL
};

static const struct ops_rowfn search_fns[] = {
	{ .name = "__intrinsic_graph_dfs", .cols = node_parent_cols,
	    .args = search_args, .run = search_dfs },
	{ .name = "__intrinsic_graph_bfs", .cols = node_parent_cols,
	    .args = search_args, .run = search_bfs },
	{ .name = "__intrinsic_graph_dfs_bounded", .cols = bounded_cols,
	    .args = bounded_args, .run = search_dfs_bounded },
};

int
ops_graph_search_register(sqlite3 *db, char **err)
{
	size_t	 i;

	for (i = 0; i < sizeof(search_fns) / sizeof(search_fns[0]); i++)
		if (ops_rowfn_register(db, &search_fns[i], NULL, NULL,
		    err) == -1)
			return -1;
	return 0;
}
