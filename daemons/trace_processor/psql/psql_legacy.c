/*
 * The function-call forms upstream kept from before PerfettoSQL had
 * statements, still found in shared queries and older metrics:
 *
 *   SELECT IMPORT('a.b');                         INCLUDE PERFETTO MODULE
 *   SELECT create_function('f(x INT)', 'INT', 'SELECT ...');
 *   SELECT create_view_function('f(x INT)', 'a INT, b STRING', 'SELECT ...');
 *   SELECT experimental_memoize('f');             cache f's results
 *
 * They return a "void" value: the statement counts as one without
 * output and the shell prints nothing for it (psql_stmt_is_void()).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "psql_int.h"

/* The pointer type of a void result, as upstream marks it. */
static const char void_type[] = "VOID";
static char void_marker;

static void
result_void(sqlite3_context *ctx)
{
	sqlite3_result_pointer(ctx, &void_marker, void_type, NULL);
}

int
psql_stmt_is_void(sqlite3_stmt *st, int has_row)
{
	if (sqlite3_column_count(st) != 1)
		return 0;
	if (strcmp(sqlite3_column_name(st, 0), "suppress_query_output") == 0)
		return 1;
	return has_row && sqlite3_value_pointer(sqlite3_column_value(st, 0),
	    void_type) != NULL;
}

/* Runs sql (malloc'd, freed here) as the legacy call named what. */
static void
run_text(sqlite3_context *ctx, const char *what, char *sql)
{
	struct psql *ps = sqlite3_user_data(ctx);
	char *err = NULL;

	if (sql == NULL) {
		sqlite3_result_error_nomem(ctx);
		return;
	}
	if (psql_run(ps, what, sql, &err) == -1) {
		sqlite3_result_error(ctx, err ? err : "out of memory", -1);
		free(err);
	} else
		result_void(ctx);
	free(sql);
}

static const char *
arg_text(sqlite3_value *v)
{
	const char *s = (const char *)sqlite3_value_text(v);

	return s != NULL ? s : "";
}

static void
legacy_import(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc;
	run_text(ctx, "IMPORT", psql_fmt("INCLUDE PERFETTO MODULE %s;",
	    arg_text(argv[0])));
}

static void
legacy_create_function(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc;
	run_text(ctx, "create_function", psql_fmt("CREATE OR REPLACE PERFETTO"
	    " FUNCTION %s RETURNS %s AS %s", arg_text(argv[0]),
	    arg_text(argv[1]), arg_text(argv[2])));
}

static void
legacy_create_view_function(sqlite3_context *ctx, int argc,
    sqlite3_value **argv)
{
	(void)argc;
	run_text(ctx, "create_view_function", psql_fmt("CREATE OR REPLACE"
	    " PERFETTO FUNCTION %s RETURNS TABLE(%s) AS %s", arg_text(argv[0]),
	    arg_text(argv[1]), arg_text(argv[2])));
}

static void
legacy_memoize(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct psql *ps = sqlite3_user_data(ctx);
	char *err = NULL;

	(void)argc;
	if (psql_fn_memoize(ps, arg_text(argv[0]), &err) == -1) {
		sqlite3_result_error(ctx, err ? err : "out of memory", -1);
		free(err);
	} else
		result_void(ctx);
}

int
psql_legacy_register(struct psql *ps)
{
	static const struct {
		const char	*name;
		int		 nargs;
		void		(*fn)(sqlite3_context *, int, sqlite3_value **);
	} fns[] = {
		{ "import", 1, legacy_import },
		{ "create_function", 3, legacy_create_function },
		{ "create_view_function", 3, legacy_create_view_function },
		{ "experimental_memoize", 1, legacy_memoize },
	};
	size_t i;

	for (i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
		if (sqlite3_create_function_v2(ps->db, fns[i].name,
		    fns[i].nargs, SQLITE_UTF8, ps, fns[i].fn, NULL, NULL,
		    NULL) != SQLITE_OK)
			return -1;
	return 0;
}
