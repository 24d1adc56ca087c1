/*
 * Functions upstream has built in that read the trace's own tables:
 *
 *   extract_metadata(name)                     a metadata value
 *   extract_metadata_for_machine(machine, name)
 *   extract_metadata_for_trace(trace, name)
 *   trace_start(), trace_end(), trace_dur()    the trace bounds
 *   to_ftrace(ftrace_event id)                 the event as ftrace text
 *   string_agg(x, sep)                         group_concat's newer name
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <sqlite3.h>

#include "ops_int.h"

struct lookup {
	const char	*name;
	int		 nargs;
	const char	*sql;	/* ?1.. are the arguments; first column */
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
	{ "trace_start", 0, "SELECT start_ts FROM trace_bounds" },
	{ "trace_end", 0, "SELECT end_ts FROM trace_bounds" },
	{ "trace_dur", 0, "SELECT end_ts - start_ts FROM trace_bounds" },
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

/* A sched_switch prev_state as the kernel prints it. */
static void
ftrace_task_state(sqlite3_str *out, int64_t state)
{
	static const char letters[] = "SDTtXZPI";
	size_t	 i;

	if (state & ~(int64_t)0xff) {
		sqlite3_str_appendall(out, "R+");
		return;
	}
	if (state == 0) {
		sqlite3_str_appendall(out, "R");
		return;
	}
	for (i = 0; i < sizeof(letters) - 1; i++)
		if (state & ((int64_t)1 << i))
			sqlite3_str_appendchar(out, 1, letters[i]);
}

static int
ftrace_args(sqlite3 *db, sqlite3_str *out, const char *event,
    sqlite3_int64 set)
{
	sqlite3_stmt	*st;
	const char	*key, *val;
	int		 rc, n = 0, sw = strcmp(event, "sched_switch") == 0;

	if (sqlite3_prepare_v2(db, "SELECT key, display_value, int_value"
	    " FROM args WHERE arg_set_id = ?1 ORDER BY id", -1, &st,
	    NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, set);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		key = (const char *)sqlite3_column_text(st, 0);
		val = (const char *)sqlite3_column_text(st, 1);
		if (key == NULL)
			continue;
		if (strncmp(key, "args.", 5) == 0)
			key += 5;
		if (sw && strcmp(key, "next_comm") == 0)
			sqlite3_str_appendall(out, " ==>");
		sqlite3_str_appendf(out, "%s%s=", n++ ? " " : "", key);
		if (sw && strcmp(key, "prev_state") == 0)
			ftrace_task_state(out, sqlite3_column_int64(st, 2));
		else
			sqlite3_str_appendall(out, val ? val : "");
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* "<comm>-<tid> (<tgid>) [<cpu>] .... <s>.<us>: <event>: <args>" */
static void
fn_to_ftrace(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	sqlite3		*db = sqlite3_context_db_handle(ctx);
	sqlite3_stmt	*st;
	sqlite3_str	*out;
	const char	*comm, *event;
	char		 tgid[24];
	int64_t		 ts, tid;
	int		 rc;

	(void)argc;
	if (sqlite3_prepare_v2(db, "SELECT f.ts, f.cpu, f.name, t.tid,"
	    " t.name, p.pid, f.arg_set_id FROM ftrace_event f"
	    " LEFT JOIN thread t USING (utid) LEFT JOIN process p"
	    " ON p.upid = t.upid WHERE f.id = ?1", -1, &st, NULL) !=
	    SQLITE_OK) {
		sqlite3_result_error(ctx, sqlite3_errmsg(db), -1);
		return;
	}
	sqlite3_bind_value(st, 1, argv[0]);
	if ((rc = sqlite3_step(st)) != SQLITE_ROW) {
		if (rc != SQLITE_DONE)
			sqlite3_result_error(ctx, sqlite3_errmsg(db), -1);
		sqlite3_finalize(st);
		return;
	}
	ts = sqlite3_column_int64(st, 0);
	tid = sqlite3_column_int64(st, 3);
	comm = (const char *)sqlite3_column_text(st, 4);
	event = (const char *)sqlite3_column_text(st, 2);
	if (sqlite3_column_type(st, 5) == SQLITE_NULL)
		strcpy(tgid, "-----");
	else
		snprintf(tgid, sizeof(tgid), "%5lld",
		    (long long)sqlite3_column_int64(st, 5));
	out = sqlite3_str_new(db);
	sqlite3_str_appendf(out, "%16s-%-5lld (%s) [%03d] .... %lld.%06lld:"
	    " %s: ", tid == 0 ? "<idle>" : comm ? comm : "<...>",
	    (long long)tid, tgid, sqlite3_column_int(st, 1),
	    (long long)(ts / 1000000000), (long long)(ts / 1000 % 1000000),
	    event ? event : "");
	if (sqlite3_column_type(st, 6) != SQLITE_NULL &&
	    ftrace_args(db, out, event ? event : "",
	    sqlite3_column_int64(st, 6)) == -1) {
		sqlite3_result_error(ctx, sqlite3_errmsg(db), -1);
		sqlite3_free(sqlite3_str_finish(out));
		sqlite3_finalize(st);
		return;
	}
	sqlite3_finalize(st);
	if (sqlite3_str_errcode(out) != SQLITE_OK) {
		sqlite3_free(sqlite3_str_finish(out));
		sqlite3_result_error_nomem(ctx);
		return;
	}
	sqlite3_result_text(ctx, sqlite3_str_finish(out), -1, sqlite3_free);
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
	if (sqlite3_create_function_v2(db, "to_ftrace", 1, flags, NULL,
	    fn_to_ftrace, NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_create_function_v2(db, "string_agg", 2, flags |
	    SQLITE_DETERMINISTIC, NULL, NULL, fn_string_agg_step,
	    fn_string_agg_final, NULL) != SQLITE_OK)
		goto fail;
	return 0;
fail:
	ops_seterr(err, "%s", sqlite3_errmsg(db));
	return -1;
}
