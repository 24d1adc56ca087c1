/*
 * __intrinsic_tree_partition(tree) -> (id, parent_id, group_key), tree
 * being rows (id, parent_id, group_key): splits a forest by group so each
 * node's new parent is its nearest ancestor of the same group (NULL when
 * it has none). Rows come back in id order.
 *
 * Ids must be unique, every parent_id must be an id of the tree and the
 * parent links must not loop; anything else is an error. A NULL group_key
 * is a group of its own.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "ops_int.h"
#include "ops_graph.h"

static int
part_cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* Dense number of each node's group, from a sorted copy of the keys. */
static int
part_groups(const struct ops_grows *t, const struct ops_graph *g,
    uint32_t *grp, size_t *ngroups, char **err)
{
	int64_t		*keys;
	size_t		 i, j, lo, hi, mid;
	int64_t		 k;

	if ((keys = malloc((t->n + 1) * sizeof(*keys))) == NULL) {
		ops_seterr(err, "out of memory");
		return -1;
	}
	for (i = 0; i < t->n; i++)
		keys[i] = t->v[3 * i + 2];
	qsort(keys, t->n, sizeof(*keys), part_cmp);
	for (i = j = 0; i < t->n; i++)
		if (j == 0 || keys[j - 1] != keys[i])
			keys[j++] = keys[i];
	*ngroups = j;
	for (i = 0; i < t->n; i++) {
		k = t->v[3 * i + 2];
		for (lo = 0, hi = j; lo < hi;) {
			mid = lo + (hi - lo) / 2;
			if (keys[mid] < k)
				lo = mid + 1;
			else
				hi = mid;
		}
		grp[ops_graph_find(g, t->v[3 * i])] = (uint32_t)lo;
	}
	free(keys);
	return 0;
}

static int
part_run(sqlite3 *db, sqlite3_value **argv, struct ops_grows *out,
    char **err)
{
	struct ops_grows t, e = { 0 };
	struct ops_graph g;
	uint32_t	*grp = NULL, *stack = NULL, *last = NULL, *saved = NULL;
	uint32_t	*newp = NULL, v, c;
	size_t		*edge = NULL, i, sp, ngroups, done = 0;
	int64_t		 row[3], *ids = NULL, *key = NULL;
	int		 rc = -1;

	(void)db;
	memset(&g, 0, sizeof(g));
	if (ops_grows_decode(argv[0], 3, &t, err) == -1)
		return -1;
	/* Edges parent -> child; every id is a node even without edges. */
	e.ncols = 2;
	if ((ids = malloc((t.n + 1) * sizeof(*ids))) == NULL)
		goto nomem;
	for (i = 0; i < t.n; i++) {
		if ((ids[i] = t.v[3 * i]) == OPS_GRAPH_NULL) {
			ops_seterr(err, "a node id is NULL");
			goto out;
		}
		row[0] = t.v[3 * i + 1];
		row[1] = t.v[3 * i];
		if (row[0] != OPS_GRAPH_NULL && ops_grows_add(&e, row,
		    err) == -1)
			goto out;
	}
	if (ops_graph_build(&g, &e, 0, ids, t.n, err) == -1)
		goto out;
	if (g.n != t.n) {
		ops_seterr(err, g.n < t.n ? "duplicate node id" :
		    "a parent_id is not a node id");
		goto out;
	}
	grp = malloc((g.n + 1) * sizeof(*grp));
	stack = malloc((g.n + 1) * sizeof(*stack));
	saved = malloc((g.n + 1) * sizeof(*saved));
	newp = malloc((g.n + 1) * sizeof(*newp));
	edge = malloc((g.n + 1) * sizeof(*edge));
	key = malloc((g.n + 1) * sizeof(*key));
	if (grp == NULL || stack == NULL || saved == NULL || newp == NULL ||
	    edge == NULL || key == NULL)
		goto nomem;
	for (i = 0; i < t.n; i++)
		key[ops_graph_find(&g, t.v[3 * i])] = t.v[3 * i + 2];
	if (part_groups(&t, &g, grp, &ngroups, err) == -1)
		goto out;
	/* last[k]: the deepest node of group k on the current path. */
	if ((last = malloc((ngroups + 1) * sizeof(*last))) == NULL)
		goto nomem;
	for (i = 0; i < ngroups; i++)
		last[i] = UINT32_MAX;

	for (i = 0; i < t.n; i++) {
		if (t.v[3 * i + 1] != OPS_GRAPH_NULL)
			continue;
		v = (uint32_t)ops_graph_find(&g, t.v[3 * i]);
		sp = 0;
		stack[sp++] = v;
		newp[v] = UINT32_MAX;
		saved[v] = last[grp[v]];
		last[grp[v]] = v;
		edge[v] = g.off[v];
		done++;
		while (sp > 0) {
			v = stack[sp - 1];
			if (edge[v] == g.off[v + 1]) {
				last[grp[v]] = saved[v];
				sp--;
				continue;
			}
			c = g.adj[edge[v]++];
			newp[c] = last[grp[c]];
			saved[c] = last[grp[c]];
			last[grp[c]] = c;
			edge[c] = g.off[c];
			stack[sp++] = c;
			done++;
		}
	}
	/* Nodes no root leads to sit on a loop of parent links. */
	if (done != g.n) {
		ops_seterr(err, "parent_id links form a loop");
		goto out;
	}
	for (i = 0; i < g.n; i++) {
		row[0] = g.ids[i];
		row[1] = newp[i] == UINT32_MAX ? OPS_GRAPH_NULL :
		    g.ids[newp[i]];
		row[2] = key[i];
		if (ops_grows_add(out, row, err) == -1)
			goto out;
	}
	rc = 0;
	goto out;
nomem:
	ops_seterr(err, "out of memory");
out:
	free(grp);
	free(stack);
	free(last);
	free(saved);
	free(newp);
	free(edge);
	free(ids);
	free(key);
	ops_grows_free(&e);
	ops_grows_free(&t);
	ops_graph_free(&g);
	return rc;
}

static const char *const part_cols[] = {
	"id", "parent_id", "group_key", NULL
};
static const char *const part_args[] = { "tree", NULL };
static const struct ops_rowfn part_fn = {
	.name = "__intrinsic_tree_partition",
	.cols = part_cols,
	.args = part_args,
	.run = part_run,
};

int
ops_graph_part_register(sqlite3 *db, char **err)
{
	return ops_rowfn_register(db, &part_fn, NULL, NULL, err);
}
