/*
 * to_ftrace(id): an ftrace_event row as the kernel's trace file prints it,
 * for the UI's ftrace panel:
 *
 *   <comm>-<tid> (<tgid>) [<cpu>] .... <s>.<us>: <event>: <key>=<value> ...
 *
 * sched_switch's prev_state reads as the task state letters of the kernel
 * that wrote the trace (tp_task_state_str), and "==>" parts prev_ from
 * next_. The idle task is "<idle>"; a '-' in a name reads '_' (the
 * first '-' parts name from tid); a tgid not known (or 0) is "-----".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tp_int.h"

static int
ftrace_args(struct tp *tp, sqlite3_str *out, const char *event,
    sqlite3_int64 set)
{
	sqlite3_stmt *st;
	const char *key, *val;
	char state[TP_STATE_MAX];
	int rc, n = 0, sw = strcmp(event, "sched_switch") == 0;

	if (sqlite3_prepare_v2(tp->db, "SELECT key, display_value, int_value"
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
		if (sw && strcmp(key, "prev_state") == 0) {
			(void)tp_task_state_str(sqlite3_column_int64(st, 2),
			    tp->kernel_version, state, sizeof(state));
			val = state;
		}
		sqlite3_str_appendf(out, "%s%s=%s", n++ ? " " : "", key,
		    val ? val : "");
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

static void
fn_to_ftrace(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct tp *tp = sqlite3_user_data(ctx);
	sqlite3_stmt *st;
	sqlite3_str *out;
	const char *comm, *event;
	char tgid[24], *name = NULL, *p;
	int64_t ts, tid, pid;
	int rc;

	(void)argc;
	if (sqlite3_prepare_v2(tp->db, "SELECT f.ts, f.cpu, f.name, t.tid,"
	    " t.name, p.pid, f.arg_set_id FROM ftrace_event f"
	    " LEFT JOIN thread t USING (utid) LEFT JOIN process p"
	    " ON p.upid = t.upid WHERE f.id = ?1", -1, &st, NULL) !=
	    SQLITE_OK) {
		sqlite3_result_error(ctx, sqlite3_errmsg(tp->db), -1);
		return;
	}
	sqlite3_bind_value(st, 1, argv[0]);
	if ((rc = sqlite3_step(st)) != SQLITE_ROW) {
		if (rc != SQLITE_DONE)
			sqlite3_result_error(ctx, sqlite3_errmsg(tp->db), -1);
		sqlite3_finalize(st);
		return;
	}
	ts = sqlite3_column_int64(st, 0);
	tid = sqlite3_column_int64(st, 3);
	comm = (const char *)sqlite3_column_text(st, 4);
	event = (const char *)sqlite3_column_text(st, 2);
	pid = sqlite3_column_int64(st, 5);
	if (pid == 0)
		snprintf(tgid, sizeof(tgid), "-----");
	else
		snprintf(tgid, sizeof(tgid), "%5lld", (long long)pid);
	if (tid == 0)
		comm = "<idle>";
	else if (comm == NULL)
		comm = "<...>";
	else if ((name = strdup(comm)) != NULL) {
		for (p = name; *p != '\0'; p++)
			if (*p == '-')
				*p = '_';
		comm = name;
	}
	out = sqlite3_str_new(tp->db);
	sqlite3_str_appendf(out, "%16s-%-5lld (%s) [%03d] .... %lld.%06lld:"
	    " %s: ", comm,
	    (long long)tid, tgid, sqlite3_column_int(st, 1),
	    (long long)(ts / 1000000000), (long long)(ts / 1000 % 1000000),
	    event ? event : "");
	free(name);
	if (sqlite3_column_type(st, 6) != SQLITE_NULL && ftrace_args(tp, out,
	    event ? event : "", sqlite3_column_int64(st, 6)) == -1) {
		sqlite3_result_error(ctx, sqlite3_errmsg(tp->db), -1);
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

int
tp_to_ftrace_register(struct tp *tp)
{
	if (sqlite3_create_function_v2(tp->db, "to_ftrace", 1, SQLITE_UTF8,
	    tp, fn_to_ftrace, NULL, NULL, NULL) != SQLITE_OK)
		return tp_seterr(tp, "%s: %s", __func__,
		    sqlite3_errmsg(tp->db));
	return 0;
}
