/*
 * Table-valued functions that return a set of rows of an engine table
 * (slice or flow) chosen by a computation on one argument:
 *
 *   SELECT * FROM ancestor_slice(42);
 *
 * Each is an eponymous-only virtual table whose columns mirror the source
 * table plus one HIDDEN column holding the argument. xFilter runs the
 * definition's computation to get the row ids; the cursor then steps a
 * lookup by id through them, and columns are read straight from it. These
 * are mostly used in correlated joins, where xFilter runs once per outer
 * row, so the cursor keeps its lookup statement across xFilter calls.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "ops_int.h"
#include "tp_ops.h"
#include "ops_tvf.h"

struct tvf_vtab {
	sqlite3_vtab		 base;
	sqlite3			*db;
	const struct ops_tvf_def *def;
	int			 ncols;		/* not counting the argument */
	char			*fetch_sql;
	struct ops_stmt		 fetch;
	int			*handles;	/* the engine's, per column */
	struct ops_walk		 walk;
};

struct tvf_cursor {
	sqlite3_vtab_cursor	 base;
	sqlite3_stmt		*fetch;		/* on the row of ids.v[pos] */
	size_t			 pos;
	/* the argument (the hidden column): an integer, or NULL when
	 * !has_arg (no copy of SQLite's value per call) */
	int64_t			 arg;
	int			 has_arg;
	struct ops_ids		 ids;
};

/* Does the table have this column? 1 yes, 0 no, -1 error. */
static int
tvf_has_column(sqlite3 *db, const char *table, const char *col, char **err)
{
	sqlite3_stmt	*st;
	int		 rc, found = 0;

	if (sqlite3_prepare_v2(db,
	    "SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2", -1, &st,
	    NULL) != SQLITE_OK) {
		ops_seterr(err, "%s", sqlite3_errmsg(db));
		return -1;
	}
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, col, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		found = 1;
	else if (rc != SQLITE_DONE) {
		ops_seterr(err, "%s", sqlite3_errmsg(db));
		found = -1;
	}
	sqlite3_finalize(st);
	return found;
}

/*
 * Builds the declared schema and the fetch query. With def->cols unset the
 * columns are all of the source's, in its order; otherwise the listed ones,
 * a column the source lacks reading as NULL.
 */
static int
tvf_build(struct tvf_vtab *t, char **err)
{
	const struct ops_tvf_def *def = t->def;
	sqlite3_str	*decl, *sel;
	sqlite3_stmt	*st = NULL;
	const char	*name, *type;
	int		 i, rc, has;

	decl = sqlite3_str_new(t->db);
	sel = sqlite3_str_new(t->db);
	sqlite3_str_appendall(decl, "CREATE TABLE x(");
	sqlite3_str_appendall(sel, "SELECT ");
	if (def->cols == NULL) {
		if (sqlite3_prepare_v2(t->db,
		    "SELECT name, type FROM pragma_table_info(?1)", -1, &st,
		    NULL) != SQLITE_OK)
			goto sqlerr;
		sqlite3_bind_text(st, 1, def->source, -1, SQLITE_STATIC);
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			name = (const char *)sqlite3_column_text(st, 0);
			type = (const char *)sqlite3_column_text(st, 1);
			if (name == NULL)
				continue;
			if (t->ncols > 0) {
				sqlite3_str_appendall(decl, ", ");
				sqlite3_str_appendall(sel, ", ");
			}
			ops_str_ident(decl, name);
			if (type != NULL && *type != '\0')
				sqlite3_str_appendf(decl, " %s", type);
			ops_str_ident(sel, name);
			t->ncols++;
		}
		if (rc != SQLITE_DONE)
			goto sqlerr;
		sqlite3_finalize(st);
		st = NULL;
		if (t->ncols == 0) {
			ops_seterr(err, "%s: no table %s", def->name,
			    def->source);
			goto fail;
		}
	} else {
		int found = 0;

		for (i = 0; def->cols[i].name != NULL; i++) {
			if (i > 0) {
				sqlite3_str_appendall(decl, ", ");
				sqlite3_str_appendall(sel, ", ");
			}
			ops_str_ident(decl, def->cols[i].name);
			sqlite3_str_appendf(decl, " %s", def->cols[i].type);
			if ((has = tvf_has_column(t->db, def->source,
			    def->cols[i].name, err)) == -1)
				goto fail;
			if (has)
				ops_str_ident(sel, def->cols[i].name);
			else
				sqlite3_str_appendall(sel, "NULL");
			found += has;
			t->ncols++;
		}
		/* Not there yet: fail now and connect again once it is. */
		if (found == 0) {
			ops_seterr(err, "%s: no table %s", def->name,
			    def->source);
			goto fail;
		}
	}
	sqlite3_str_appendf(decl, ", \"%w\" HIDDEN)", def->arg);
	sqlite3_str_appendf(sel, " FROM \"%w\" WHERE id = ?1", def->source);

	if ((rc = sqlite3_declare_vtab(t->db, sqlite3_str_value(decl))) !=
	    SQLITE_OK) {
		ops_seterr(err, "%s: %s", def->name, sqlite3_errstr(rc));
		goto fail;
	}
	sqlite3_free(sqlite3_str_finish(decl));
	t->fetch_sql = sqlite3_str_finish(sel);
	if (t->fetch_sql == NULL) {
		ops_seterr(err, "out of memory");
		return -1;
	}
	t->fetch.sql = t->fetch_sql;
	return 0;

sqlerr:
	ops_seterr(err, "%s: %s", def->name, sqlite3_errmsg(t->db));
fail:
	sqlite3_finalize(st);
	sqlite3_free(sqlite3_str_finish(decl));
	sqlite3_free(sqlite3_str_finish(sel));
	return -1;
}

/*
 * The engine's handles on the source's columns (the declared ones, or all
 * of the source's), when it has one for every column: the rows are then
 * read without SQL. -1: no memory.
 */
static int
tvf_handles(struct tvf_vtab *t)
{
	const struct tp_ops_hooks *h = t->walk.hooks;
	sqlite3_stmt *st = NULL;
	const char *name;
	int i;

	if (h == NULL || h->col_handle == NULL || (t->def->cols == NULL &&
	    sqlite3_prepare_v2(t->db, "SELECT name FROM pragma_table_info(?1)",
	    -1, &st, NULL) != SQLITE_OK))
		return 0;
	if ((t->handles = sqlite3_malloc(t->ncols * (int)sizeof(int))) ==
	    NULL) {
		sqlite3_finalize(st);
		return -1;
	}
	if (st != NULL)
		sqlite3_bind_text(st, 1, t->def->source, -1, SQLITE_STATIC);
	for (i = 0; i < t->ncols; i++) {
		if (st != NULL)
			name = sqlite3_step(st) == SQLITE_ROW ?
			    (const char *)sqlite3_column_text(st, 0) : NULL;
		else
			name = t->def->cols[i].name;
		if (name == NULL || (t->handles[i] = h->col_handle(h->ctx,
		    t->def->source, name)) < 0)
			break;
	}
	sqlite3_finalize(st);
	if (i < t->ncols) {
		sqlite3_free(t->handles);
		t->handles = NULL;
	}
	return 0;
}

static int
tvf_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
    sqlite3_vtab **out, char **err)
{
	struct tvf_vtab	*t;

	if ((t = sqlite3_malloc(sizeof(*t))) == NULL)
		return SQLITE_NOMEM;
	memset(t, 0, sizeof(*t));
	t->db = db;
	t->def = aux;
	ops_walk_init(&t->walk, db);
	if (tvf_build(t, err) == -1 || tvf_handles(t) == -1) {
		sqlite3_free(t->fetch_sql);
		sqlite3_free(t);
		return SQLITE_ERROR;
	}
	sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
	*out = &t->base;
	return SQLITE_OK;
}

static int
tvf_disconnect(sqlite3_vtab *vt)
{
	struct tvf_vtab	*t = (struct tvf_vtab *)vt;

	ops_stmt_fini(&t->fetch);
	ops_walk_fini(&t->walk);
	sqlite3_free(t->handles);
	sqlite3_free(t->fetch_sql);
	sqlite3_free(t);
	return SQLITE_OK;
}

/*
 * The argument must come as an equality on the hidden column. A plan where
 * it is present but not yet usable is refused so SQLite orders the join
 * the other way; with no argument at all xFilter reports it.
 */
static int
tvf_best_index(sqlite3_vtab *vt, sqlite3_index_info *info)
{
	struct tvf_vtab	*t = (struct tvf_vtab *)vt;
	int		 i, seen = 0;

	for (i = 0; i < info->nConstraint; i++) {
		if (info->aConstraint[i].iColumn != t->ncols ||
		    info->aConstraint[i].op != SQLITE_INDEX_CONSTRAINT_EQ)
			continue;
		seen = 1;
		if (!info->aConstraint[i].usable)
			continue;
		info->aConstraintUsage[i].argvIndex = 1;
		info->aConstraintUsage[i].omit = 1;
		info->idxNum = 1;
		info->estimatedCost = 10;
		info->estimatedRows = 10;
		return SQLITE_OK;
	}
	if (seen)
		return SQLITE_CONSTRAINT;
	info->idxNum = 0;
	info->estimatedCost = 1e12;
	return SQLITE_OK;
}

static int
tvf_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out)
{
	struct tvf_cursor *c;

	if ((c = sqlite3_malloc(sizeof(*c))) == NULL)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof(*c));
	*out = &c->base;
	return SQLITE_OK;
}

static void
tvf_cursor_reset(struct tvf_cursor *c)
{
	if (c->fetch != NULL)
		sqlite3_reset(c->fetch);
	c->pos = 0;
	c->has_arg = 0;
	ops_ids_clear(&c->ids);
}

static int
tvf_close(sqlite3_vtab_cursor *cur)
{
	struct tvf_cursor *c = (struct tvf_cursor *)cur;
	struct tvf_vtab	*t = (struct tvf_vtab *)cur->pVtab;

	tvf_cursor_reset(c);
	ops_stmt_put(&t->fetch, c->fetch);
	ops_ids_free(&c->ids);
	sqlite3_free(c);
	return SQLITE_OK;
}

static int
tvf_fail(struct tvf_vtab *t, char *msg)
{
	sqlite3_free(t->base.zErrMsg);
	t->base.zErrMsg = msg != NULL ? msg :
	    sqlite3_mprintf("%s: out of memory", t->def->name);
	return SQLITE_ERROR;
}

/* Moves the lookup onto ids.v[pos], skipping ids whose row went away. */
static int
tvf_seek(struct tvf_vtab *t, struct tvf_cursor *c, char **err)
{
	const struct tp_ops_hooks *h = t->walk.hooks;

	if (t->handles != NULL) {
		while (c->pos < c->ids.n && !h->row_exists(h->ctx,
		    t->handles[0], c->ids.v[c->pos]))
			c->pos++;
		return 0;
	}
	for (; c->pos < c->ids.n; c->pos++) {
		sqlite3_reset(c->fetch);
		sqlite3_bind_int64(c->fetch, 1, c->ids.v[c->pos]);
		switch (sqlite3_step(c->fetch)) {
		case SQLITE_ROW:
			return 0;
		case SQLITE_DONE:
			break;
		default:
			ops_seterr(err, "%s", sqlite3_errmsg(t->db));
			return -1;
		}
	}
	return 0;
}

static int
tvf_filter(sqlite3_vtab_cursor *cur, int idxnum, const char *idxstr,
    int argc, sqlite3_value **argv)
{
	struct tvf_cursor *c = (struct tvf_cursor *)cur;
	struct tvf_vtab	*t = (struct tvf_vtab *)cur->pVtab;
	char		*err = NULL, *msg;

	tvf_cursor_reset(c);
	if (idxnum != 1 || argc != 1)
		return tvf_fail(t, sqlite3_mprintf("%s: missing argument %s",
		    t->def->name, t->def->arg));
	/* Nothing matches a NULL argument. */
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
		return SQLITE_OK;
	if (sqlite3_value_type(argv[0]) != SQLITE_INTEGER)
		return tvf_fail(t, sqlite3_mprintf(
		    "%s: start id should be an integer.", t->def->name));
	c->arg = sqlite3_value_int64(argv[0]);
	c->has_arg = 1;
	/* The lookup stays with the cursor until it closes. */
	if ((c->fetch == NULL &&
	    (c->fetch = ops_stmt_get(t->db, &t->fetch, &err)) == NULL) ||
	    t->def->run(&t->walk, sqlite3_value_int64(argv[0]), &c->ids,
	    &err) == -1 || tvf_seek(t, c, &err) == -1) {
		tvf_cursor_reset(c);
		msg = sqlite3_mprintf("%s: %s", t->def->name,
		    err != NULL ? err : "failed");
		sqlite3_free(err);
		return tvf_fail(t, msg);
	}
	sqlite3_free(err);
	return SQLITE_OK;
}

static int
tvf_next(sqlite3_vtab_cursor *cur)
{
	struct tvf_cursor *c = (struct tvf_cursor *)cur;
	struct tvf_vtab	*t = (struct tvf_vtab *)cur->pVtab;
	char		*err = NULL;

	c->pos++;
	if (tvf_seek(t, c, &err) == -1) {
		c->pos = c->ids.n;
		return tvf_fail(t, err);
	}
	return SQLITE_OK;
}

static int
tvf_eof(sqlite3_vtab_cursor *cur)
{
	struct tvf_cursor *c = (struct tvf_cursor *)cur;

	return c->pos >= c->ids.n;
}

static int
tvf_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int i)
{
	struct tvf_cursor *c = (struct tvf_cursor *)cur;
	struct tvf_vtab	*t = (struct tvf_vtab *)cur->pVtab;

	if (i == t->ncols) {
		if (c->has_arg)
			sqlite3_result_int64(ctx, c->arg);
		return SQLITE_OK;
	}
	if (i < 0 || i >= t->ncols || c->pos >= c->ids.n)
		return SQLITE_OK;
	if (t->handles != NULL)
		t->walk.hooks->cell(t->walk.hooks->ctx, t->handles[i],
		    c->ids.v[c->pos], ctx);
	else
		sqlite3_result_value(ctx, sqlite3_column_value(c->fetch, i));
	return SQLITE_OK;
}

static int
tvf_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
	*rowid = (sqlite3_int64)((struct tvf_cursor *)cur)->pos;
	return SQLITE_OK;
}

static const sqlite3_module tvf_module = {
	.iVersion = 1,
	.xCreate = NULL,		/* eponymous only */
	.xConnect = tvf_connect,
	.xBestIndex = tvf_best_index,
	.xDisconnect = tvf_disconnect,
	.xDestroy = tvf_disconnect,
	.xOpen = tvf_open,
	.xClose = tvf_close,
	.xFilter = tvf_filter,
	.xNext = tvf_next,
	.xEof = tvf_eof,
	.xColumn = tvf_column,
	.xRowid = tvf_rowid,
};

int
ops_tvf_register(sqlite3 *db, const struct ops_tvf_def *def, char **err)
{
	int	 rc;

	rc = sqlite3_create_module_v2(db, def->name, &tvf_module,
	    (void *)(uintptr_t)def, NULL);
	if (rc != SQLITE_OK) {
		ops_seterr(err, "%s: %s", def->name, sqlite3_errmsg(db));
		return -1;
	}
	return 0;
}
