/*
 * __intrinsic_graph_dominator_tree(edges, root) -> (node_id,
 * dominator_node_id): the immediate dominator of every node reachable
 * from root (NULL for root itself), in node id order. Nodes root cannot
 * reach are left out; a NULL root gives no rows, a root that is no node
 * of the graph is an error.
 *
 * Lengauer and Tarjan's algorithm with path compression (the "simple"
 * version, O(m log n)), written without recursion so a deep graph cannot
 * overflow the stack.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "ops_int.h"
#include "ops_graph.h"

#define NONE	UINT32_MAX

struct dom {
	const struct ops_graph *g;
	uint32_t	*num;		/* DFS number of a node, NONE: unreached */
	uint32_t	*vertex;	/* node of a DFS number */
	uint32_t	*parent, *semi, *label, *ancestor, *idom;
	uint32_t	*bhead, *bnext;	/* buckets of nodes by semidominator */
	uint32_t	*work;		/* DFS stack, compression path */
	size_t		*edge;		/* DFS: next out-edge of a node */
	size_t		*poff;		/* predecessors, grouped by node */
	uint32_t	*pred;
	uint32_t	 count;		/* nodes reached */
};

static void
dom_free(struct dom *d)
{
	free(d->num);
	free(d->vertex);
	free(d->parent);
	free(d->semi);
	free(d->label);
	free(d->ancestor);
	free(d->idom);
	free(d->bhead);
	free(d->bnext);
	free(d->work);
	free(d->edge);
	free(d->poff);
	free(d->pred);
}

static int
dom_alloc(struct dom *d, const struct ops_graph *g)
{
	size_t	 n = g->n + 1, i, k;

	memset(d, 0, sizeof(*d));
	d->g = g;
	d->num = malloc(n * sizeof(uint32_t));
	d->vertex = malloc(n * sizeof(uint32_t));
	d->parent = malloc(n * sizeof(uint32_t));
	d->semi = malloc(n * sizeof(uint32_t));
	d->label = malloc(n * sizeof(uint32_t));
	d->ancestor = malloc(n * sizeof(uint32_t));
	d->idom = malloc(n * sizeof(uint32_t));
	d->bhead = malloc(n * sizeof(uint32_t));
	d->bnext = malloc(n * sizeof(uint32_t));
	d->work = malloc(n * sizeof(uint32_t));
	d->edge = malloc(n * sizeof(size_t));
	d->poff = calloc(n + 1, sizeof(size_t));
	d->pred = malloc((g->m + 1) * sizeof(uint32_t));
	if (d->num == NULL || d->vertex == NULL || d->parent == NULL ||
	    d->semi == NULL || d->label == NULL || d->ancestor == NULL ||
	    d->idom == NULL || d->bhead == NULL || d->bnext == NULL ||
	    d->work == NULL || d->edge == NULL || d->poff == NULL ||
	    d->pred == NULL)
		return -1;
	for (i = 0; i < g->n; i++) {
		d->num[i] = d->ancestor[i] = d->bhead[i] = NONE;
		d->idom[i] = NONE;
		d->label[i] = (uint32_t)i;
	}
	/* Reverse edges: count, prefix sums, place (edge reused as fill). */
	for (k = 0; k < g->m; k++)
		d->poff[g->adj[k] + 1]++;
	for (i = 0; i < g->n; i++) {
		d->poff[i + 1] += d->poff[i];
		d->edge[i] = d->poff[i];
	}
	for (i = 0; i < g->n; i++)
		for (k = g->off[i]; k < g->off[i + 1]; k++)
			d->pred[d->edge[g->adj[k]]++] = (uint32_t)i;
	return 0;
}

/* Numbers the nodes reachable from r in depth-first order. */
static void
dom_number(struct dom *d, uint32_t r)
{
	const struct ops_graph *g = d->g;
	size_t		 sp = 0;
	uint32_t	 v, w;

	d->num[r] = d->semi[r] = 0;
	d->vertex[0] = r;
	d->parent[r] = NONE;
	d->count = 1;
	d->edge[r] = g->off[r];
	d->work[sp++] = r;
	while (sp > 0) {
		v = d->work[sp - 1];
		if (d->edge[v] == g->off[v + 1]) {
			sp--;
			continue;
		}
		w = g->adj[d->edge[v]++];
		if (d->num[w] != NONE)
			continue;
		d->num[w] = d->semi[w] = d->count;
		d->vertex[d->count++] = w;
		d->parent[w] = v;
		d->edge[w] = g->off[w];
		d->work[sp++] = w;
	}
}

/* The node of least semidominator on v's compressed ancestor path. */
static uint32_t
dom_eval(struct dom *d, uint32_t v)
{
	size_t		 n = 0;
	uint32_t	 u = v, a;

	if (d->ancestor[v] == NONE)
		return v;
	while (d->ancestor[d->ancestor[u]] != NONE) {
		d->work[n++] = u;
		u = d->ancestor[u];
	}
	while (n > 0) {
		u = d->work[--n];
		a = d->ancestor[u];
		if (d->semi[d->label[a]] < d->semi[d->label[u]])
			d->label[u] = d->label[a];
		d->ancestor[u] = d->ancestor[a];
	}
	return d->label[v];
}

static void
dom_compute(struct dom *d)
{
	uint32_t	 i, w, v, u, p;
	size_t		 k;

	for (i = d->count - 1; i > 0; i--) {
		w = d->vertex[i];
		for (k = d->poff[w]; k < d->poff[w + 1]; k++) {
			v = d->pred[k];
			if (d->num[v] == NONE)
				continue;
			u = dom_eval(d, v);
			if (d->semi[u] < d->semi[w])
				d->semi[w] = d->semi[u];
		}
		u = d->vertex[d->semi[w]];
		d->bnext[w] = d->bhead[u];
		d->bhead[u] = w;
		p = d->parent[w];
		d->ancestor[w] = p;
		for (v = d->bhead[p]; v != NONE; v = d->bnext[v]) {
			u = dom_eval(d, v);
			d->idom[v] = d->semi[u] < d->semi[v] ? u : p;
		}
		d->bhead[p] = NONE;
	}
	for (i = 1; i < d->count; i++) {
		w = d->vertex[i];
		if (d->idom[w] != d->vertex[d->semi[w]])
			d->idom[w] = d->idom[d->idom[w]];
	}
}

static int
dom_run(sqlite3 *db, sqlite3_value **argv, struct ops_grows *out,
    char **err)
{
	struct ops_grows e;
	struct ops_graph g;
	struct dom	 d;
	int64_t		 root, r, row[2];
	size_t		 i;
	int		 rc = -1;

	(void)db;
	memset(&d, 0, sizeof(d));
	if (sqlite3_value_type(argv[1]) == SQLITE_NULL)
		return 0;
	if (sqlite3_value_type(argv[1]) != SQLITE_INTEGER) {
		ops_seterr(err, "root node id must be an integer");
		return -1;
	}
	root = sqlite3_value_int64(argv[1]);
	if (ops_grows_decode(argv[0], 2, &e, err) == -1)
		return -1;
	rc = ops_graph_build(&g, &e, 0, NULL, 0, err);
	ops_grows_free(&e);
	if (rc == -1)
		return -1;
	rc = -1;
	if ((r = ops_graph_find(&g, root)) == -1) {
		ops_seterr(err, "root node is not in the graph");
		goto out;
	}
	if (dom_alloc(&d, &g) == -1) {
		ops_seterr(err, "out of memory");
		goto out;
	}
	dom_number(&d, (uint32_t)r);
	dom_compute(&d);
	for (i = 0; i < g.n; i++) {
		if (d.num[i] == NONE)
			continue;
		row[0] = g.ids[i];
		row[1] = i == (size_t)r ? OPS_GRAPH_NULL : g.ids[d.idom[i]];
		if (ops_grows_add(out, row, err) == -1)
			goto out;
	}
	rc = 0;
out:
	dom_free(&d);
	ops_graph_free(&g);
	return rc;
}

static const char *const dom_cols[] = {
	"node_id", "dominator_node_id", NULL
};
static const char *const dom_args[] = { "edges", "root", NULL };
static const struct ops_rowfn dom_fn = {
	.name = "__intrinsic_graph_dominator_tree",
	.cols = dom_cols,
	.args = dom_args,
	.run = dom_run,
};

int
ops_graph_dom_register(sqlite3 *db, char **err)
{
	return ops_rowfn_register(db, &dom_fn, NULL, NULL, err);
}
