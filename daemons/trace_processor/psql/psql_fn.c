/*
 * CREATE PERFETTO FUNCTION: SQL bodies called as SQLite functions.
 *
 * A scalar function is an SQLite function whose call binds the
 * arguments to the body's $name parameters and returns the first column
 * of its single row (NULL with none; more than one row is an error).
 * Arguments are checked against their declared types as upstream checks
 * them. A function returning TABLE(...) is an eponymous virtual table
 * whose hidden columns are the arguments: SELECT * FROM f(1, 'x') runs
 * the body with them bound, row by row.
 *
 * SQLite owns each definition once registered and frees it when the
 * function is replaced or the database closes; the engine's list keeps
 * only names, for "already exists" and DROP.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "psql_int.h"
#include "daemons/trace_processor/tp_hash.h"

/*
 * Calls nest on the C stack (a body calling a function steps another
 * statement inside this one): past this depth a call fails, so runaway
 * recursion is an error and not a stack overflow.
 */
#define FN_DEPTH_MAX	100

static int	fn_depth;

/* Steps a body's statement; SQLITE_TOOBIG: calls nest too deep. */
static int
fn_step(sqlite3_stmt *st)
{
	int rc;

	if (fn_depth >= FN_DEPTH_MAX)
		return SQLITE_TOOBIG;
	fn_depth++;
	rc = sqlite3_step(st);
	fn_depth--;
	return rc;
}

/* The message of a failed step of f's body, malloc'd. */
static char *
fn_step_error(const char *name, sqlite3 *db, int rc)
{
	if (rc == SQLITE_TOOBIG)
		return psql_fmt("%s: functions nest more than %d deep", name,
		    FN_DEPTH_MAX);
	return psql_fmt("%s: %s", name, sqlite3_errmsg(db));
}

struct fn {
	sqlite3			*db;
	char			*name;
	struct psql_args	 args;
	struct psql_args	 cols;		/* table functions */
	int			 table;
	char			*body;
	sqlite3_stmt		*cached;	/* scalar: reused unless busy */
	/* experimental_memoize(): results by integer argument. */
	int			 memo;
	struct tp_hash		 memo_index;	/* argument -> memo_vals[i] */
	sqlite3_value		**memo_vals;
	size_t			 nmemo;
};

struct tf_vtab {
	sqlite3_vtab	 base;
	struct fn	*fn;
};

struct tf_cursor {
	sqlite3_vtab_cursor	 base;
	sqlite3_stmt		*st;
	sqlite3_value		**args;
	sqlite3_int64		 row;
	int			 eof;
};

static void
fn_free(void *arg)
{
	struct fn *f = arg;

	if (f == NULL)
		return;
	sqlite3_finalize(f->cached);
	while (f->nmemo > 0)
		sqlite3_value_free(f->memo_vals[--f->nmemo]);
	free(f->memo_vals);
	if (f->memo)
		tp_hash_free(&f->memo_index);
	free(f->name);
	free(f->body);
	psql_args_free(&f->args);
	psql_args_free(&f->cols);
	free(f);
}

/* The SQLite type names upstream reports for a value. */
static const char *
value_kind(int type)
{
	switch (type) {
	case SQLITE_INTEGER:
		return "BOOL/INT/UINT/LONG";
	case SQLITE_FLOAT:
		return "FLOAT/DOUBLE";
	case SQLITE_TEXT:
		return "STRING";
	case SQLITE_BLOB:
		return "BYTES";
	}
	return "NULL";
}

/* Does a value of SQLite type fit the declared type? NULL fits all. */
static int
type_fits(const char *decl, int type)
{
	static const char *const ints[] = { "LONG", "INT", "UINT", "BOOL",
	    "TIMESTAMP", "DURATION", "ID", "JOINID", "ARGSETID", NULL };
	size_t i, n = strcspn(decl, "(");

	if (type == SQLITE_NULL)
		return 1;
	for (i = 0; ints[i] != NULL; i++)
		if (strlen(ints[i]) == n && strncmp(decl, ints[i], n) == 0)
			return type == SQLITE_INTEGER;
	if (strcmp(decl, "DOUBLE") == 0 || strcmp(decl, "FLOAT") == 0)
		return type == SQLITE_FLOAT;
	if (strcmp(decl, "STRING") == 0)
		return type == SQLITE_TEXT;
	if (strcmp(decl, "BYTES") == 0)
		return type == SQLITE_BLOB;
	return 1;
}

/* Binds the arguments to the body's $name parameters. */
static void
args_bind(const struct fn *f, sqlite3_stmt *st, sqlite3_value **argv)
{
	char pname[256];
	size_t i;
	int idx;

	for (i = 0; i < f->args.n; i++) {
		snprintf(pname, sizeof(pname), "$%s", f->args.v[i].name);
		if ((idx = sqlite3_bind_parameter_index(st, pname)) > 0)
			sqlite3_bind_value(st, idx, argv[i]);
	}
}

/* A remembered result for the integer argument: 1, set on ctx. */
static int
memo_lookup(struct fn *f, sqlite3_context *ctx, sqlite3_value *arg)
{
	uint64_t *i;

	if (sqlite3_value_type(arg) != SQLITE_INTEGER ||
	    (i = tp_hash_get(&f->memo_index,
	    (uint64_t)sqlite3_value_int64(arg))) == NULL)
		return 0;
	sqlite3_result_value(ctx, f->memo_vals[*i]);
	return 1;
}

/* Remembers a result; NULL results are not, as upstream. */
static void
memo_store(struct fn *f, sqlite3_value *arg, sqlite3_value *v)
{
	sqlite3_value **nv, *d;

	if (sqlite3_value_type(arg) != SQLITE_INTEGER ||
	    sqlite3_value_type(v) == SQLITE_NULL ||
	    (d = sqlite3_value_dup(v)) == NULL)
		return;
	if ((nv = realloc(f->memo_vals, (f->nmemo + 1) * sizeof(*nv))) ==
	    NULL || tp_hash_put(&f->memo_index,
	    (uint64_t)sqlite3_value_int64(arg), f->nmemo) == -1) {
		if (nv != NULL)
			f->memo_vals = nv;
		sqlite3_value_free(d);
		return;
	}
	f->memo_vals = nv;
	f->memo_vals[f->nmemo++] = d;
}

static void
fn_call(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct fn *f = sqlite3_user_data(ctx);
	sqlite3_stmt *st = f->cached;
	char *msg;
	int i, rc;

	for (i = 0; i < argc; i++)
		if (!type_fits(f->args.v[i].type,
		    sqlite3_value_type(argv[i]))) {
			msg = psql_fmt("%s[arg=%s]: argument %d does not have"
			    " expected type: expected %s, actual %s", f->name,
			    sqlite3_value_text(argv[i]), i, f->args.v[i].type,
			    value_kind(sqlite3_value_type(argv[i])));
			sqlite3_result_error(ctx, msg ? msg : "bad argument",
			    -1);
			free(msg);
			return;
		}
	if (f->memo && memo_lookup(f, ctx, argv[0]))
		return;
	/* A body calling its own function (recursion) needs a new one. */
	if (st == NULL || sqlite3_stmt_busy(st))
		if (sqlite3_prepare_v2(f->db, f->body, -1, &st, NULL) !=
		    SQLITE_OK) {
			sqlite3_result_error(ctx, sqlite3_errmsg(f->db), -1);
			return;
		}
	args_bind(f, st, argv);
	rc = fn_step(st);
	if (rc == SQLITE_ROW) {
		sqlite3_result_value(ctx, sqlite3_column_value(st, 0));
		if (f->memo)
			memo_store(f, argv[0], sqlite3_column_value(st, 0));
		if ((rc = fn_step(st)) == SQLITE_ROW) {
			msg = psql_fmt("%s: multiple values were returned when"
			    " executing function body. Executed SQL was %s",
			    f->name, f->body);
			sqlite3_result_error(ctx, msg ? msg : "multiple rows",
			    -1);
			free(msg);
		}
	} else if (rc == SQLITE_DONE)
		sqlite3_result_null(ctx);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		msg = fn_step_error(f->name, f->db, rc);
		sqlite3_result_error(ctx, msg ? msg : "error", -1);
		free(msg);
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (f->cached == NULL)
		f->cached = st;
	else if (st != f->cached)
		sqlite3_finalize(st);
}

static int
tf_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
    sqlite3_vtab **out, char **err)
{
	struct fn *f = aux;
	struct tf_vtab *t;
	char *sql, *col;
	size_t i;
	int rc;

	(void)argc;
	(void)argv;
	if ((sql = sqlite3_mprintf("CREATE TABLE x(")) == NULL)
		return SQLITE_NOMEM;
	for (i = 0; i < f->cols.n + f->args.n; i++) {
		col = i < f->cols.n ? sqlite3_mprintf("%s\"%w\"", i ? "," : "",
		    f->cols.v[i].name) : sqlite3_mprintf("%s\"$%w\" HIDDEN",
		    i ? "," : "", f->args.v[i - f->cols.n].name);
		sql = sqlite3_mprintf("%z%z", sql, col);
		if (sql == NULL)
			return SQLITE_NOMEM;
	}
	if ((sql = sqlite3_mprintf("%z)", sql)) == NULL)
		return SQLITE_NOMEM;
	rc = sqlite3_declare_vtab(db, sql);
	sqlite3_free(sql);
	if (rc != SQLITE_OK) {
		*err = sqlite3_mprintf("%s", sqlite3_errmsg(db));
		return rc;
	}
	if ((t = sqlite3_malloc(sizeof(*t))) == NULL)
		return SQLITE_NOMEM;
	memset(t, 0, sizeof(*t));
	t->fn = f;
	*out = &t->base;
	return SQLITE_OK;
}

static int
tf_disconnect(sqlite3_vtab *vt)
{
	sqlite3_free(vt);
	return SQLITE_OK;
}

/* Every argument needs an equality constraint; they go to xFilter. */
static int
tf_best_index(sqlite3_vtab *vt, sqlite3_index_info *info)
{
	struct fn *f = ((struct tf_vtab *)vt)->fn;
	int ncols = (int)f->cols.n, i, a, found[64] = { 0 };

	if (f->args.n > 64)
		return SQLITE_ERROR;
	for (i = 0; i < info->nConstraint; i++) {
		const struct sqlite3_index_constraint *c = &info->aConstraint[i];

		if (c->iColumn < ncols || !c->usable ||
		    c->op != SQLITE_INDEX_CONSTRAINT_EQ)
			continue;
		a = c->iColumn - ncols;
		if (found[a])
			continue;
		found[a] = 1;
		info->aConstraintUsage[i].argvIndex = a + 1;
		info->aConstraintUsage[i].omit = 1;
	}
	for (a = 0; a < (int)f->args.n; a++)
		if (!found[a])
			return SQLITE_CONSTRAINT;
	info->estimatedCost = 1000;
	info->estimatedRows = 1000;
	return SQLITE_OK;
}

static int
tf_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out)
{
	struct tf_cursor *c;

	(void)vt;
	if ((c = sqlite3_malloc(sizeof(*c))) == NULL)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof(*c));
	*out = &c->base;
	return SQLITE_OK;
}

static void
tf_args_free(struct tf_cursor *c, size_t n)
{
	size_t i;

	if (c->args == NULL)
		return;
	for (i = 0; i < n; i++)
		sqlite3_value_free(c->args[i]);
	sqlite3_free(c->args);
	c->args = NULL;
}

static int
tf_close(sqlite3_vtab_cursor *cur)
{
	struct tf_cursor *c = (struct tf_cursor *)cur;

	tf_args_free(c, ((struct tf_vtab *)cur->pVtab)->fn->args.n);
	sqlite3_finalize(c->st);
	sqlite3_free(c);
	return SQLITE_OK;
}

static int
tf_step(struct tf_cursor *c)
{
	struct fn *f = ((struct tf_vtab *)c->base.pVtab)->fn;
	int rc = fn_step(c->st);
	char *msg;

	c->row++;
	c->eof = rc != SQLITE_ROW;
	if (rc == SQLITE_ROW || rc == SQLITE_DONE)
		return SQLITE_OK;
	msg = fn_step_error(f->name, f->db, rc);
	sqlite3_free(c->base.pVtab->zErrMsg);
	c->base.pVtab->zErrMsg = sqlite3_mprintf("%s", msg ? msg : "error");
	free(msg);
	return SQLITE_ERROR;
}

static int
tf_filter(sqlite3_vtab_cursor *cur, int idx, const char *idxs, int argc,
    sqlite3_value **argv)
{
	struct tf_cursor *c = (struct tf_cursor *)cur;
	struct fn *f = ((struct tf_vtab *)cur->pVtab)->fn;
	int i;

	(void)idx;
	(void)idxs;
	if ((size_t)argc != f->args.n)
		return SQLITE_ERROR;
	tf_args_free(c, f->args.n);
	if (argc > 0) {
		if ((c->args = sqlite3_malloc(argc * (int)sizeof(*c->args))) ==
		    NULL)
			return SQLITE_NOMEM;
		for (i = 0; i < argc; i++)
			c->args[i] = sqlite3_value_dup(argv[i]);
	}
	if (c->st == NULL && sqlite3_prepare_v2(f->db, f->body, -1, &c->st,
	    NULL) != SQLITE_OK) {
		cur->pVtab->zErrMsg = sqlite3_mprintf("%s: %s", f->name,
		    sqlite3_errmsg(f->db));
		return SQLITE_ERROR;
	}
	sqlite3_reset(c->st);
	sqlite3_clear_bindings(c->st);
	args_bind(f, c->st, argv);
	c->row = 0;
	return tf_step(c);
}

static int
tf_next(sqlite3_vtab_cursor *cur)
{
	return tf_step((struct tf_cursor *)cur);
}

static int
tf_eof(sqlite3_vtab_cursor *cur)
{
	return ((struct tf_cursor *)cur)->eof;
}

static int
tf_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
	struct tf_cursor *c = (struct tf_cursor *)cur;
	struct fn *f = ((struct tf_vtab *)cur->pVtab)->fn;

	if (col < (int)f->cols.n)
		sqlite3_result_value(ctx, sqlite3_column_value(c->st, col));
	else if (c->args != NULL)
		sqlite3_result_value(ctx, c->args[col - (int)f->cols.n]);
	return SQLITE_OK;
}

static int
tf_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
	*rowid = ((struct tf_cursor *)cur)->row;
	return SQLITE_OK;
}

static const sqlite3_module tf_module = {
	.iVersion = 0,
	.xConnect = tf_connect,
	.xBestIndex = tf_best_index,
	.xDisconnect = tf_disconnect,
	.xOpen = tf_open,
	.xClose = tf_close,
	.xFilter = tf_filter,
	.xNext = tf_next,
	.xEof = tf_eof,
	.xColumn = tf_column,
	.xRowid = tf_rowid,
};

static struct psql_fnname *
fnname_find(struct psql *ps, const char *name)
{
	struct psql_fnname *n;

	for (n = ps->fns; n != NULL; n = n->next)
		if (strcasecmp(n->name, name) == 0)
			return n;
	return NULL;
}

/* Unregisters name from SQLite and the list. */
static void
fn_unregister(struct psql *ps, struct psql_fnname *n)
{
	struct psql_fnname **pp;

	if (n->table)
		sqlite3_create_module_v2(ps->db, n->name, NULL, NULL, NULL);
	else
		sqlite3_create_function_v2(ps->db, n->name, n->nargs,
		    SQLITE_UTF8, NULL, NULL, NULL, NULL, NULL);
	for (pp = &ps->fns; *pp != n; pp = &(*pp)->next)
		;
	*pp = n->next;
	free(n->name);
	free(n);
}

/* Unregisters every function the connection's SQL defined. */
void
psql_fns_drop(struct psql *ps)
{
	while (ps->fns != NULL)
		fn_unregister(ps, ps->fns);
}

/* Before the database closes: no statement of ours may stay open. */
void
psql_fns_free(struct psql *ps)
{
	struct psql_fnname *n;

	while ((n = ps->fns) != NULL) {
		ps->fns = n->next;
		sqlite3_finalize(n->fn->cached);
		n->fn->cached = NULL;
		free(n->name);
		free(n);
	}
}

int
psql_fn_memoize(struct psql *ps, const char *name, char **err)
{
	struct psql_fnname *n = fnname_find(ps, name);

	if (n == NULL || n->table || n->nargs != 1) {
		*err = psql_fmt("experimental_memoize: %s is not a function of"
		    " one argument", name);
		return -1;
	}
	if (!n->fn->memo) {
		tp_hash_init(&n->fn->memo_index);
		n->fn->memo = 1;
	}
	return 0;
}

int
psql_fn_drop(struct psql *ps, const char *name, char **err)
{
	struct psql_fnname *n = fnname_find(ps, name);

	if (n == NULL) {
		*err = psql_fmt("DROP PERFETTO FUNCTION: no function %s", name);
		return -1;
	}
	fn_unregister(ps, n);
	return 0;
}

static int
args_same(const struct psql_args *a, const struct psql_args *b)
{
	size_t i;

	if (a->n != b->n)
		return 0;
	for (i = 0; i < a->n; i++)
		if (strcmp(a->v[i].name, b->v[i].name) != 0 ||
		    strcmp(a->v[i].type, b->v[i].type) != 0)
			return 0;
	return 1;
}

static int
fn_same(const struct fn *a, const struct fn *b)
{
	return a->table == b->table && strcmp(a->body, b->body) == 0 &&
	    args_same(&a->args, &b->args) && args_same(&a->cols, &b->cols);
}

/*
 * After CREATE [OR REPLACE] PERFETTO FUNCTION:
 *   name(args) RETURNS TYPE | TABLE(cols) AS body
 */
int
psql_fn_define(struct psql *ps, struct psql_cur *c, int replace,
    char **err)
{
	struct psql_fnname *n, *old;
	sqlite3_stmt *st = NULL;
	struct fn *f;
	char *ret;
	int rc;

	if ((f = calloc(1, sizeof(*f))) == NULL ||
	    (f->name = psql_name(c)) == NULL) {
		*err = psql_fmt("CREATE PERFETTO FUNCTION: expected a name");
		goto fail;
	}
	f->db = ps->db;
	if (psql_args_parse(c, &f->args, err) == -1)
		goto fail;
	if (!psql_accept(c, "RETURNS")) {
		*err = psql_fmt("%s: expected RETURNS", f->name);
		goto fail;
	}
	if (psql_accept(c, "TABLE")) {
		f->table = 1;
		if (psql_args_parse(c, &f->cols, err) == -1)
			goto fail;
	} else if ((ret = psql_name(c)) == NULL) {
		*err = psql_fmt("%s: expected a return type", f->name);
		goto fail;
	} else
		free(ret);
	if (!psql_accept(c, "AS") ||
	    (f->body = psql_trim(c->p, c->end)) == NULL || *f->body == '\0') {
		*err = psql_fmt("%s: expected AS and the function's body",
		    f->name);
		goto fail;
	}
	old = fnname_find(ps, f->name);
	if (old != NULL && fn_same(f, old->fn)) {
		/* Defined again as it is: nothing to do (and SQLite refuses
		 * to replace a function while a statement runs). */
		fn_free(f);
		return 0;
	}
	if (old != NULL && !replace) {
		*err = psql_fmt("CREATE PERFETTO FUNCTION[prototype=%s(...)]:"
		    " function already exists", f->name);
		goto fail;
	}
	if ((n = calloc(1, sizeof(*n))) == NULL ||
	    (n->name = strdup(f->name)) == NULL) {
		free(n);
		*err = psql_fmt("out of memory");
		goto fail;
	}
	n->nargs = (int)f->args.n;
	n->table = f->table;
	n->fn = f;
	if (old != NULL)
		fn_unregister(ps, old);
	rc = f->table ? sqlite3_create_module_v2(ps->db, f->name, &tf_module,
	    f, fn_free) : sqlite3_create_function_v2(ps->db, f->name,
	    n->nargs, SQLITE_UTF8, f, fn_call, NULL, NULL, fn_free);
	if (rc != SQLITE_OK) {
		/* SQLite has freed f through the destructor. */
		*err = strdup(sqlite3_errmsg(ps->db));
		free(n->name);
		free(n);
		return -1;
	}
	n->next = ps->fns;
	ps->fns = n;
	/*
	 * The body must prepare now, as upstream checks it; the function
	 * is registered first so that its body may call it (recursion).
	 */
	if (sqlite3_prepare_v2(ps->db, f->body, -1, &st, NULL) != SQLITE_OK) {
		*err = strdup(sqlite3_errmsg(ps->db));
		fn_unregister(ps, n);
		return -1;
	}
	sqlite3_finalize(st);
	if (f->table && psql_columns_check(ps, f->name, f->body, &f->cols, 1,
	    err) == -1) {
		fn_unregister(ps, n);
		return -1;
	}
	return 0;
fail:
	fn_free(f);
	return -1;
}
