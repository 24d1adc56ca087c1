/*
 * The shell of the table functions computed in C (see ops_rowfn.h): the
 * schema from the function's column and argument names, every argument
 * required as an equality, run() once per xFilter, its rows read back.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "ops_int.h"
#include "ops_rowfn.h"

int
ops_grows_add(struct ops_grows *r, const int64_t *row, char **err)
{
	int64_t	*nv;
	size_t	 ncap;

	if (r->cap - r->n * r->ncols < r->ncols) {
		ncap = r->cap ? r->cap * 2 : 64 * r->ncols;
		if (ncap > OPS_ROWFN_MAX_VALUES)
			ncap = OPS_ROWFN_MAX_VALUES;
		if (ncap - r->n * r->ncols < r->ncols) {
			ops_seterr(err, "more than %llu values",
			    (unsigned long long)OPS_ROWFN_MAX_VALUES);
			return -1;
		}
		if ((nv = realloc(r->v, ncap * sizeof(*nv))) == NULL) {
			ops_seterr(err, "out of memory");
			return -1;
		}
		r->v = nv;
		r->cap = ncap;
	}
	memcpy(r->v + r->n * r->ncols, row, r->ncols * sizeof(*row));
	r->n++;
	return 0;
}

void
ops_grows_free(struct ops_grows *r)
{
	free(r->v);
	memset(r, 0, sizeof(*r));
}


/* What a registration keeps: the function and its aux. */
struct rowfn_reg {
	const struct ops_rowfn	*fn;
	void			*aux;
	void			(*aux_free)(void *);
};

struct rowfn_vtab {
	sqlite3_vtab		 base;
	sqlite3			*db;
	const struct rowfn_reg	*reg;
	const struct ops_rowfn	*fn;
	int			 ncols, nargs;
};

struct rowfn_cursor {
	sqlite3_vtab_cursor	 base;
	struct ops_grows	 rows;		/* run */
	void			*res;		/* run_values */
	size_t			 nrows, pos;
	sqlite3_value		*argv[8];
};

static int
rowfn_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
    sqlite3_vtab **out, char **err)
{
	const struct rowfn_reg *reg = aux;
	const struct ops_rowfn *fn = reg->fn;
	struct rowfn_vtab	*t;
	sqlite3_str	*decl;
	int		 i, rc;

	(void)argc;
	(void)argv;
	if ((t = sqlite3_malloc(sizeof(*t))) == NULL)
		return SQLITE_NOMEM;
	memset(t, 0, sizeof(*t));
	t->db = db;
	t->reg = reg;
	t->fn = fn;
	decl = sqlite3_str_new(db);
	sqlite3_str_appendall(decl, "CREATE TABLE x(");
	for (i = 0; fn->cols[i] != NULL; i++)
		sqlite3_str_appendf(decl, "%s\"%w\"%s", i ? ", " : "",
		    fn->cols[i], fn->run != NULL ? " INTEGER" : "");
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
	if (!fn->runs_sql)
		sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
	*out = &t->base;
	return SQLITE_OK;
}

static int
rowfn_disconnect(sqlite3_vtab *vt)
{
	sqlite3_free(vt);
	return SQLITE_OK;
}

/* All arguments must come as usable equalities on the hidden columns. */
static int
rowfn_best_index(sqlite3_vtab *vt, sqlite3_index_info *info)
{
	struct rowfn_vtab	*t = (struct rowfn_vtab *)vt;
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
rowfn_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out)
{
	struct rowfn_cursor *c;

	(void)vt;
	if ((c = sqlite3_malloc(sizeof(*c))) == NULL)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof(*c));
	*out = &c->base;
	return SQLITE_OK;
}

static void
rowfn_reset(struct rowfn_vtab *t, struct rowfn_cursor *c)
{
	size_t	 i;

	ops_grows_free(&c->rows);
	if (c->res != NULL && t->fn->drop != NULL)
		t->fn->drop(c->res);
	c->res = NULL;
	c->nrows = c->pos = 0;
	for (i = 0; i < sizeof(c->argv) / sizeof(c->argv[0]); i++) {
		sqlite3_value_free(c->argv[i]);
		c->argv[i] = NULL;
	}
}

static int
rowfn_close(sqlite3_vtab_cursor *cur)
{
	rowfn_reset((struct rowfn_vtab *)cur->pVtab, (struct rowfn_cursor *)cur);
	sqlite3_free(cur);
	return SQLITE_OK;
}

static int
rowfn_filter(sqlite3_vtab_cursor *cur, int idxnum, const char *idxstr,
    int argc, sqlite3_value **argv)
{
	struct rowfn_cursor *c = (struct rowfn_cursor *)cur;
	struct rowfn_vtab	*t = (struct rowfn_vtab *)cur->pVtab;
	char		*err = NULL;
	int		 i;

	(void)idxstr;
	rowfn_reset(t, c);
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
	if (t->fn->run != NULL ? t->fn->run(t->db, argv, &c->rows, &err) :
	    t->fn->run_values(t->reg->aux, t->db, argv, &c->res, &c->nrows,
	    &err)) {
		rowfn_reset(t, c);
		t->base.zErrMsg = sqlite3_mprintf("%s: %s", t->fn->name,
		    err != NULL ? err : "failed");
		sqlite3_free(err);
		return SQLITE_ERROR;
	}
	if (t->fn->run != NULL)
		c->nrows = c->rows.n;
	return SQLITE_OK;
}

static int
rowfn_next(sqlite3_vtab_cursor *cur)
{
	((struct rowfn_cursor *)cur)->pos++;
	return SQLITE_OK;
}

static int
rowfn_eof(sqlite3_vtab_cursor *cur)
{
	struct rowfn_cursor *c = (struct rowfn_cursor *)cur;

	return c->pos >= c->nrows;
}

static int
rowfn_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int i)
{
	struct rowfn_cursor *c = (struct rowfn_cursor *)cur;
	struct rowfn_vtab	*t = (struct rowfn_vtab *)cur->pVtab;
	int64_t		 v;

	if (i >= t->ncols) {
		if (i - t->ncols < t->nargs && c->argv[i - t->ncols] != NULL)
			sqlite3_result_value(ctx, c->argv[i - t->ncols]);
		return SQLITE_OK;
	}
	if (i < 0 || c->pos >= c->nrows)
		return SQLITE_OK;
	if (t->fn->run == NULL) {
		t->fn->cell(c->res, c->pos, (size_t)i, ctx);
		return SQLITE_OK;
	}
	v = c->rows.v[c->pos * c->rows.ncols + (size_t)i];
	if (v != OPS_ROWFN_NULL)
		sqlite3_result_int64(ctx, v);
	return SQLITE_OK;
}

static int
rowfn_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
	*rowid = (sqlite3_int64)((struct rowfn_cursor *)cur)->pos;
	return SQLITE_OK;
}

static const sqlite3_module rowfn_module = {
	.iVersion = 1,
	.xCreate = NULL,		/* eponymous only */
	.xConnect = rowfn_connect,
	.xBestIndex = rowfn_best_index,
	.xDisconnect = rowfn_disconnect,
	.xDestroy = rowfn_disconnect,
	.xOpen = rowfn_open,
	.xClose = rowfn_close,
	.xFilter = rowfn_filter,
	.xNext = rowfn_next,
	.xEof = rowfn_eof,
	.xColumn = rowfn_column,
	.xRowid = rowfn_rowid,
};

static void
rowfn_reg_free(void *p)
{
	struct rowfn_reg *reg = p;

	if (reg->aux_free != NULL)
		reg->aux_free(reg->aux);
	sqlite3_free(reg);
}

int
ops_rowfn_register(sqlite3 *db, const struct ops_rowfn *fn, void *aux,
    void (*aux_free)(void *), char **err)
{
	struct rowfn_reg *reg;

	if ((reg = sqlite3_malloc(sizeof(*reg))) == NULL) {
		if (aux_free != NULL)
			aux_free(aux);
		ops_seterr(err, "out of memory");
		return -1;
	}
	reg->fn = fn;
	reg->aux = aux;
	reg->aux_free = aux_free;
	/* On failure SQLite calls the destructor: reg and aux are freed. */
	if (sqlite3_create_module_v2(db, fn->name, &rowfn_module, reg,
	    rowfn_reg_free) != SQLITE_OK) {
		ops_seterr(err, "%s: %s", fn->name, sqlite3_errmsg(db));
		return -1;
	}
	return 0;
}
