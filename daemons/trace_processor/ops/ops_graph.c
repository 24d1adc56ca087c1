/*
 * The dense graph the algorithms work on, and the table function shell
 * that feeds them their arguments and returns their rows.
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

/* The table function shell. */

struct gfn_vtab {
	sqlite3_vtab		 base;
	const struct ops_graph_fn *fn;
	int			 ncols, nargs;
};

struct gfn_cursor {
	sqlite3_vtab_cursor	 base;
	struct ops_grows	 rows;
	size_t			 pos;
	sqlite3_value		*argv[8];
};

static int
gfn_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
    sqlite3_vtab **out, char **err)
{
	const struct ops_graph_fn *fn = aux;
	struct gfn_vtab	*t;
	sqlite3_str	*decl;
	int		 i, rc;

	(void)argc;
	(void)argv;
	if ((t = sqlite3_malloc(sizeof(*t))) == NULL)
		return SQLITE_NOMEM;
	memset(t, 0, sizeof(*t));
	t->fn = fn;
	decl = sqlite3_str_new(db);
	sqlite3_str_appendall(decl, "CREATE TABLE x(");
	for (i = 0; fn->cols[i] != NULL; i++)
		sqlite3_str_appendf(decl, "%s\"%w\" INTEGER", i ? ", " : "",
		    fn->cols[i]);
	t->ncols = i;
	for (i = 0; fn->args[i] != NULL; i++)
		sqlite3_str_appendf(decl, ", \"%w\" HIDDEN", fn->args[i]);
	t->nargs = i;
	sqlite3_str_appendall(decl, ")");
	rc = sqlite3_declare_vtab(db, sqlite3_str_value(decl));
	sqlite3_free(sqlite3_str_finish(decl));
	if (rc != SQLITE_OK || t->nargs > 8) {
		ops_seterr(err, "%s: cannot declare table", fn->name);
		sqlite3_free(t);
		return SQLITE_ERROR;
	}
	sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
	*out = &t->base;
	return SQLITE_OK;
}

static int
gfn_disconnect(sqlite3_vtab *vt)
{
	sqlite3_free(vt);
	return SQLITE_OK;
}

/* All arguments must come as usable equalities on the hidden columns. */
static int
gfn_best_index(sqlite3_vtab *vt, sqlite3_index_info *info)
{
	struct gfn_vtab	*t = (struct gfn_vtab *)vt;
	int		 i, a, have = 0, seen = 0;

	for (i = 0; i < info->nConstraint; i++) {
		a = info->aConstraint[i].iColumn - t->ncols;
		if (a < 0 || a >= t->nargs ||
		    info->aConstraint[i].op != SQLITE_INDEX_CONSTRAINT_EQ)
			continue;
		seen = 1;
		if (!info->aConstraint[i].usable)
			continue;
		info->aConstraintUsage[i].argvIndex = a + 1;
		info->aConstraintUsage[i].omit = 1;
		have |= 1 << a;
	}
	if (have == (1 << t->nargs) - 1) {
		info->idxNum = 1;
		info->estimatedCost = 1000;
		return SQLITE_OK;
	}
	if (seen)
		return SQLITE_CONSTRAINT;
	info->idxNum = 0;
	info->estimatedCost = 1e12;
	return SQLITE_OK;
}

static int
gfn_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out)
{
	struct gfn_cursor *c;

	(void)vt;
	if ((c = sqlite3_malloc(sizeof(*c))) == NULL)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof(*c));
	*out = &c->base;
	return SQLITE_OK;
}

static void
gfn_reset(struct gfn_cursor *c)
{
	size_t	 i;

	ops_grows_free(&c->rows);
	c->pos = 0;
	for (i = 0; i < sizeof(c->argv) / sizeof(c->argv[0]); i++) {
		sqlite3_value_free(c->argv[i]);
		c->argv[i] = NULL;
	}
}

static int
gfn_close(sqlite3_vtab_cursor *cur)
{
	gfn_reset((struct gfn_cursor *)cur);
	sqlite3_free(cur);
	return SQLITE_OK;
}

static int
gfn_filter(sqlite3_vtab_cursor *cur, int idxnum, const char *idxstr,
    int argc, sqlite3_value **argv)
{
	struct gfn_cursor *c = (struct gfn_cursor *)cur;
	struct gfn_vtab	*t = (struct gfn_vtab *)cur->pVtab;
	char		*err = NULL;
	int		 i;

	(void)idxstr;
	gfn_reset(c);
	sqlite3_free(t->base.zErrMsg);
	t->base.zErrMsg = NULL;
	if (idxnum != 1 || argc != t->nargs) {
		t->base.zErrMsg = sqlite3_mprintf("%s: needs %d arguments",
		    t->fn->name, t->nargs);
		return SQLITE_ERROR;
	}
	for (i = 0; i < argc; i++)
		if ((c->argv[i] = sqlite3_value_dup(argv[i])) == NULL)
			return SQLITE_NOMEM;
	c->rows.ncols = (size_t)t->ncols;
	if (t->fn->run(argv, &c->rows, &err) == -1) {
		ops_grows_free(&c->rows);
		t->base.zErrMsg = sqlite3_mprintf("%s: %s", t->fn->name,
		    err != NULL ? err : "failed");
		sqlite3_free(err);
		return SQLITE_ERROR;
	}
	return SQLITE_OK;
}

static int
gfn_next(sqlite3_vtab_cursor *cur)
{
	((struct gfn_cursor *)cur)->pos++;
	return SQLITE_OK;
}

static int
gfn_eof(sqlite3_vtab_cursor *cur)
{
	struct gfn_cursor *c = (struct gfn_cursor *)cur;

	return c->pos >= c->rows.n;
}

static int
gfn_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int i)
{
	struct gfn_cursor *c = (struct gfn_cursor *)cur;
	struct gfn_vtab	*t = (struct gfn_vtab *)cur->pVtab;
	int64_t		 v;

	if (i >= t->ncols) {
		if (i - t->ncols < t->nargs && c->argv[i - t->ncols] != NULL)
			sqlite3_result_value(ctx, c->argv[i - t->ncols]);
		return SQLITE_OK;
	}
	if (i < 0 || c->pos >= c->rows.n)
		return SQLITE_OK;
	v = c->rows.v[c->pos * c->rows.ncols + (size_t)i];
	if (v != OPS_GRAPH_NULL)
		sqlite3_result_int64(ctx, v);
	return SQLITE_OK;
}

static int
gfn_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
	*rowid = (sqlite3_int64)((struct gfn_cursor *)cur)->pos;
	return SQLITE_OK;
}

static const sqlite3_module gfn_module = {
	.iVersion = 1,
	.xCreate = NULL,		/* eponymous only */
	.xConnect = gfn_connect,
	.xBestIndex = gfn_best_index,
	.xDisconnect = gfn_disconnect,
	.xDestroy = gfn_disconnect,
	.xOpen = gfn_open,
	.xClose = gfn_close,
	.xFilter = gfn_filter,
	.xNext = gfn_next,
	.xEof = gfn_eof,
	.xColumn = gfn_column,
	.xRowid = gfn_rowid,
};

int
ops_graph_fn_register(sqlite3 *db, const struct ops_graph_fn *fn, char **err)
{
	if (sqlite3_create_module_v2(db, fn->name, &gfn_module,
	    (void *)(uintptr_t)fn, NULL) != SQLITE_OK) {
		ops_seterr(err, "%s: %s", fn->name, sqlite3_errmsg(db));
		return -1;
	}
	return 0;
}
