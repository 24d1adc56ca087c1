/*
 * The dense graph the algorithms work on.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "ops_int.h"
#include "ops_graph.h"

static int
graph_cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

int64_t
ops_graph_find(const struct ops_graph *g, int64_t id)
{
	size_t	 lo = 0, hi = g->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (g->ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < g->n && g->ids[lo] == id ? (int64_t)lo : -1;
}

void
ops_graph_free(struct ops_graph *g)
{
	free(g->ids);
	free(g->off);
	free(g->adj);
	free(g->w);
	memset(g, 0, sizeof(*g));
}

int
ops_graph_build(struct ops_graph *g, const struct ops_grows *e, int weighted,
    const int64_t *extra, size_t nextra, char **err)
{
	const int64_t	*r;
	size_t		 i, j, k, *fill = NULL;
	int64_t		 s, d;

	memset(g, 0, sizeof(*g));
	/* Every end of every edge, plus the extras: sorted, deduplicated. */
	if ((g->ids = malloc((2 * e->n + nextra + 1) * sizeof(*g->ids))) ==
	    NULL)
		goto nomem;
	for (i = 0; i < e->n; i++) {
		r = e->v + i * e->ncols;
		if (r[0] == OPS_GRAPH_NULL || r[1] == OPS_GRAPH_NULL)
			continue;
		g->ids[g->n++] = r[0];
		g->ids[g->n++] = r[1];
		g->m++;
	}
	for (i = 0; i < nextra; i++)
		if (extra[i] != OPS_GRAPH_NULL)
			g->ids[g->n++] = extra[i];
	qsort(g->ids, g->n, sizeof(*g->ids), graph_cmp);
	for (i = j = 0; i < g->n; i++)
		if (j == 0 || g->ids[j - 1] != g->ids[i])
			g->ids[j++] = g->ids[i];
	g->n = j;
	if (g->n >= UINT32_MAX) {
		ops_seterr(err, "too many nodes");
		goto fail;
	}

	/* Out-edges grouped by source, each group in input order. */
	g->off = calloc(g->n + 1, sizeof(*g->off));
	g->adj = malloc((g->m + 1) * sizeof(*g->adj));
	fill = malloc((g->n + 1) * sizeof(*fill));
	if (weighted)
		g->w = malloc((g->m + 1) * sizeof(*g->w));
	if (g->off == NULL || g->adj == NULL || fill == NULL ||
	    (weighted && g->w == NULL))
		goto nomem;
	for (i = 0; i < e->n; i++) {
		r = e->v + i * e->ncols;
		if (r[0] != OPS_GRAPH_NULL && r[1] != OPS_GRAPH_NULL)
			g->off[ops_graph_find(g, r[0]) + 1]++;
	}
	for (i = 0; i < g->n; i++) {
		g->off[i + 1] += g->off[i];
		fill[i] = g->off[i];
	}
	for (i = 0; i < e->n; i++) {
		r = e->v + i * e->ncols;
		if (r[0] == OPS_GRAPH_NULL || r[1] == OPS_GRAPH_NULL)
			continue;
		s = ops_graph_find(g, r[0]);
		d = ops_graph_find(g, r[1]);
		k = fill[s]++;
		g->adj[k] = (uint32_t)d;
		if (weighted)
			g->w[k] = r[2];
	}
	free(fill);
	return 0;
nomem:
	ops_seterr(err, "out of memory");
fail:
	free(fill);
	ops_graph_free(g);
	return -1;
}
