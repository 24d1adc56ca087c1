/*
 * Functions upstream has built in that read the trace's own tables:
 *
 *   extract_metadata(name)                     a metadata value
 *   extract_metadata_for_machine(machine, name)
 *   extract_metadata_for_trace(trace, name)
 *   string_agg(x, sep)                         group_concat's newer name
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include <sqlite3.h>

#include "ops_int.h"

struct lookup {
	const char	*name;
	int		 nargs;
	const char	*sql;	/* ?1.. the arguments; first column */
};

static const struct lookup lookups[] = {
	{ "extract_metadata", 1, "SELECT coalesce(int_value, str_value)"
	    " FROM metadata WHERE name = ?1 ORDER BY id LIMIT 1" },
	{ "extract_metadata_for_machine", 2,
	    "SELECT coalesce(int_value, str_value) FROM metadata"
	    " WHERE machine_id IS ?1 AND name = ?2 ORDER BY id LIMIT 1" },
	{ "extract_metadata_for_trace", 2,
	    "SELECT coalesce(int_value, str_value) FROM metadata"
	    " WHERE trace_id IS ?1 AND name = ?2 ORDER BY id LIMIT 1" },
};

static void
fn_lookup(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const struct lookup *l = sqlite3_user_data(ctx);
	sqlite3		*db = sqlite3_context_db_handle(ctx);
	sqlite3_stmt	*st;
	int		 i, rc;

	if (sqlite3_prepare_v2(db, l->sql, -1, &st, NULL) != SQLITE_OK) {
		sqlite3_result_error(ctx, sqlite3_errmsg(db), -1);
		return;
	}
	for (i = 0; i < argc; i++)
		sqlite3_bind_value(st, i + 1, argv[i]);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW)
		sqlite3_result_value(ctx, sqlite3_column_value(st, 0));
	else if (rc != SQLITE_DONE)
		sqlite3_result_error(ctx, sqlite3_errmsg(db), -1);
	sqlite3_finalize(st);
}

struct agg {
	sqlite3_str	*s;
	int		 n;
};

static void
fn_string_agg_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct agg	*a;
	const char	*v, *sep;

	(void)argc;
	if ((a = sqlite3_aggregate_context(ctx, sizeof(*a))) == NULL) {
		sqlite3_result_error_nomem(ctx);
		return;
	}
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
		return;
	if (a->s == NULL)
		a->s = sqlite3_str_new(sqlite3_context_db_handle(ctx));
	v = (const char *)sqlite3_value_text(argv[0]);
	sep = (const char *)sqlite3_value_text(argv[1]);
	if (a->n++ > 0 && sep != NULL)
		sqlite3_str_appendall(a->s, sep);
	sqlite3_str_appendall(a->s, v ? v : "");
}

static void
fn_string_agg_final(sqlite3_context *ctx)
{
	struct agg	*a = sqlite3_aggregate_context(ctx, 0);

	if (a == NULL || a->s == NULL)
		return;
	if (sqlite3_str_errcode(a->s) != SQLITE_OK) {
		sqlite3_free(sqlite3_str_finish(a->s));
		sqlite3_result_error_nomem(ctx);
		return;
	}
	sqlite3_result_text(ctx, sqlite3_str_finish(a->s), -1, sqlite3_free);
}

int
ops_meta_fns_register(sqlite3 *db, char **err)
{
	size_t	 i;
	int	 flags = SQLITE_UTF8;

	for (i = 0; i < sizeof(lookups) / sizeof(lookups[0]); i++)
		if (sqlite3_create_function_v2(db, lookups[i].name,
		    lookups[i].nargs, flags, (void *)&lookups[i], fn_lookup,
		    NULL, NULL, NULL) != SQLITE_OK)
			goto fail;
	if (sqlite3_create_function_v2(db, "string_agg", 2, flags |
	    SQLITE_DETERMINISTIC, NULL, NULL, fn_string_agg_step,
	    fn_string_agg_final, NULL) != SQLITE_OK)
		goto fail;
	return 0;
fail:
	ops_seterr(err, "%s", sqlite3_errmsg(db));
	return -1;
}
