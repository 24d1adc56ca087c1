/*
 * The fleet export: see ch_export.h. Each table is one SQLite query whose
 * rows are streamed as TabSeparated into one INSERT, trace_id first; the
 * column types below are the ClickHouse side of the same query.
 * Denormalized where a fleet query would otherwise need a chain of joins
 * (old ClickHouse allows one JOIN per SELECT): slices carry their thread
 * and process, threads their process's pid and name, tracks the
 * dimensions fleet queries group by (cpu, utid, upid, block_device).
 * Args go only where an exported row points at them (not the raw ftrace
 * events' args, which are most of a kernel trace's rows and which no
 * fleet query reads).
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet/ch_export.h"

struct ch_table {
	const char	*name;
	const char	*columns;	/* after "trace_id String" */
	const char	*order_by;	/* after trace_id */
	const char	*select;	/* the columns, in order; ?1: host */
};

/* Written in this order: "traces" last, as the mark of a whole load. */
static const struct ch_table ch_tables[] = {
	{ "metadata",
	  "name String, key_type String, int_value Nullable(Int64), "
	  "str_value Nullable(String)", "name",
	  "select name, key_type, int_value, str_value from metadata" },
	{ "stats",
	  "name String, idx Nullable(Int64), severity String, "
	  "source String, value Int64", "name",
	  "select name, idx, severity, source, value from stats" },
	{ "process",
	  "upid Int64, pid Nullable(Int64), name Nullable(String), "
	  "cmdline Nullable(String), parent_upid Nullable(Int64), "
	  "uid Nullable(Int64), start_ts Nullable(Int64), "
	  "end_ts Nullable(Int64)", "upid",
	  "select upid, pid, name, cmdline, parent_upid, uid, start_ts, "
	  "end_ts from process" },
	{ "thread",
	  "utid Int64, tid Nullable(Int64), name Nullable(String), "
	  "upid Nullable(Int64), pid Nullable(Int64), "
	  "process_name Nullable(String), start_ts Nullable(Int64), "
	  "end_ts Nullable(Int64), is_main_thread Nullable(UInt8)", "utid",
	  "select t.utid, t.tid, t.name, t.upid, p.pid, p.name, t.start_ts, "
	  "t.end_ts, t.is_main_thread from thread t "
	  "left join process p using (upid)" },
	{ "track",
	  "id Int64, name Nullable(String), type Nullable(String), "
	  "parent_id Nullable(Int64), dimension_arg_set_id Nullable(Int64), "
	  "cpu Nullable(Int64), utid Nullable(Int64), upid Nullable(Int64), "
	  "block_device Nullable(Int64), unit Nullable(String)", "id",
	  "select t.id, t.name, t.type, t.parent_id, t.dimension_arg_set_id, "
	  "extract_arg(t.dimension_arg_set_id, 'cpu'), "
	  "extract_arg(t.dimension_arg_set_id, 'utid'), "
	  "extract_arg(t.dimension_arg_set_id, 'upid'), "
	  "extract_arg(t.dimension_arg_set_id, 'block_device'), c.unit "
	  "from track t left join counter_track c using (id)" },
	{ "slice",
	  "id Int64, ts Int64, dur Int64, track_id Int64, "
	  "category Nullable(String), name Nullable(String), depth Int64, "
	  "parent_id Nullable(Int64), arg_set_id Nullable(Int64), "
	  "utid Nullable(Int64), upid Nullable(Int64)", "ts",
	  "with owner as (select id, "
	  "extract_arg(dimension_arg_set_id, 'utid') as utid, "
	  "extract_arg(dimension_arg_set_id, 'upid') as upid from track) "
	  "select s.id, s.ts, s.dur, s.track_id, s.category, s.name, s.depth, "
	  "s.parent_id, s.arg_set_id, o.utid, coalesce(o.upid, t.upid) "
	  "from slice s left join owner o on o.id = s.track_id "
	  "left join thread t on t.utid = o.utid" },
	{ "sched",
	  "id Int64, ts Int64, dur Int64, cpu Int64, utid Int64, "
	  "end_state Nullable(String), priority Int64", "ts",
	  "select id, ts, dur, cpu, utid, end_state, priority from sched" },
	{ "thread_state",
	  "id Int64, ts Int64, dur Int64, cpu Nullable(Int64), utid Int64, "
	  "state Nullable(String), io_wait Nullable(Int64), "
	  "blocked_function Nullable(String), waker_utid Nullable(Int64)",
	  "ts",
	  "select id, ts, dur, cpu, utid, state, io_wait, blocked_function, "
	  "waker_utid from thread_state" },
	/* Disk requests, from block_io slices (block_io_start/done) and
	 * from block_rq_issue paired with the next block_rq_complete of
	 * its device and sector. */
	{ "disk_request",
	  "ts Int64, dur Int64, device Int64, sector Nullable(Int64), "
	  "nr_sector Nullable(Int64), kind Nullable(String)", "ts",
	  "select s.ts, s.dur, extract_arg(t.dimension_arg_set_id, "
	  "'block_device'), extract_arg(s.arg_set_id, 'sector'), null, null "
	  "from slice s join track t on t.id = s.track_id "
	  "where t.type = 'block_io' and s.dur >= 0 "
	  "union all "
	  "select ts, next_ts - ts, dev, sector, nr, kind from ("
	  "select e.ts, e.name, extract_arg(e.arg_set_id, 'dev') as dev, "
	  "extract_arg(e.arg_set_id, 'sector') as sector, "
	  "extract_arg(e.arg_set_id, 'nr_sector') as nr, "
	  "substr(extract_arg(e.arg_set_id, 'rwbs'), 1, 1) as kind, "
	  "lead(e.ts) over w as next_ts, lead(e.name) over w as next_name "
	  "from ftrace_event e "
	  "where e.name in ('block_rq_issue', 'block_rq_complete') "
	  "window w as (partition by extract_arg(e.arg_set_id, 'dev'), "
	  "extract_arg(e.arg_set_id, 'sector') "
	  "order by e.ts, e.name = 'block_rq_complete')) "
	  "where name = 'block_rq_issue' and next_name = 'block_rq_complete' "
	  "and dev is not null" },
	{ "counter",
	  "id Int64, ts Int64, track_id Int64, value Float64", "ts",
	  "select id, ts, track_id, value from counter" },
	{ "args",
	  "arg_set_id Int64, flat_key String, key String, "
	  "int_value Nullable(Int64), string_value Nullable(String), "
	  "real_value Nullable(Float64), value_type String", "arg_set_id",
	  "select arg_set_id, flat_key, key, int_value, string_value, "
	  "real_value, value_type from args where arg_set_id in ("
	  "select arg_set_id from slice union "
	  "select dimension_arg_set_id from track union "
	  "select arg_set_id from counter union "
	  "select arg_set_id from thread union "
	  "select arg_set_id from process)" },
	{ "traces",
	  "host String, kernel String, machine String, os String, "
	  "trace_type String, start_ts Int64, end_ts Int64, "
	  "size_bytes Int64", "host",
	  "select ?1, "
	  "coalesce((select str_value from metadata "
	  "where name = 'system_release'), ''), "
	  "coalesce((select str_value from metadata "
	  "where name = 'system_machine'), ''), "
	  "coalesce((select str_value from metadata "
	  "where name = 'system_name'), ''), "
	  "coalesce((select str_value from metadata "
	  "where name = 'trace_type'), ''), "
	  "(select start_ts from trace_bounds), "
	  "(select end_ts from trace_bounds), "
	  "coalesce((select int_value from metadata "
	  "where name = 'trace_size_bytes'), 0)" },
};
#define NTABLES	(sizeof(ch_tables) / sizeof(ch_tables[0]))

/* A statement built with printf's format, run; its answer in *out. */
static int
ch_execf(struct ch_conn *c, char **out, char **err, const char *fmt, ...)
{
	va_list ap;
	char *sql;
	int rc;

	va_start(ap, fmt);
	rc = vasprintf(&sql, fmt, ap);
	va_end(ap);
	if (rc == -1)
		return ch_fail(err, "out of memory");
	rc = ch_exec(c, sql, out, err);
	free(sql);
	return rc;
}

/* Whether name followed by suffix is one of the lines of list. */
static int
ch_listed(const char *list, const char *name, const char *suffix)
{
	size_t n = strlen(name), m = strlen(suffix);
	const char *p = list;

	while (p != NULL && *p != '\0') {
		if (strncmp(p, name, n) == 0 &&
		    strncmp(p + n, suffix, m) == 0 &&
		    (p[n + m] == '\n' || p[n + m] == '\0'))
			return 1;
		if ((p = strchr(p, '\n')) != NULL)
			p++;
	}
	return 0;
}

int
ch_export_schema(struct ch_conn *c, const struct ch_export_opts *o,
    char **err)
{
	const char *db = o->database ? o->database : "default";
	const char *local = o->cluster ? "_local" : "";
	const struct ch_table *t;
	char *have = NULL;
	int rc = -1;

	/* One question for what exists: each CREATE, even one that finds
	 * its table, costs the server tens of ms. */
	if (ch_execf(c, &have, err, "SELECT name FROM system.tables WHERE "
	    "database = currentDatabase()") == -1)
		return -1;
	for (t = ch_tables; t < ch_tables + NTABLES; t++) {
		if (!ch_listed(have, t->name, local) && ch_execf(c, NULL, err,
		    "CREATE TABLE IF NOT EXISTS %s%s (trace_id String, %s) "
		    "ENGINE = MergeTree() ORDER BY (trace_id, %s)", t->name,
		    local, t->columns, t->order_by) == -1)
			goto out;
		if (o->cluster != NULL && !ch_listed(have, t->name, "") &&
		    ch_execf(c, NULL, err, "CREATE TABLE IF NOT EXISTS %s AS "
		    "%s_local ENGINE = Distributed(%s, %s, %s_local, "
		    "cityHash64(trace_id))", t->name, t->name, o->cluster, db,
		    t->name) == -1)
			goto out;
	}
	rc = 0;
out:
	free(have);
	return rc;
}

/* Writes s as one TabSeparated field: \\, \t, \n, \r and \0 escaped. */
static int
ch_field(struct ch_conn *c, const char *s, size_t n, char **err)
{
	size_t i, run = 0;
	char esc[2] = { '\\', 0 };

	for (i = 0; i < n; i++) {
		switch (s[i]) {
		case '\\': esc[1] = '\\'; break;
		case '\t': esc[1] = 't'; break;
		case '\n': esc[1] = 'n'; break;
		case '\r': esc[1] = 'r'; break;
		case '\0': esc[1] = '0'; break;
		default: continue;
		}
		if (ch_insert_write(c, s + run, i - run, err) == -1 ||
		    ch_insert_write(c, esc, 2, err) == -1)
			return -1;
		run = i + 1;
	}
	return ch_insert_write(c, s + run, n - run, err);
}

/* One row of st after the trace id's field. */
static int
ch_row(struct ch_conn *c, sqlite3_stmt *st, char **err)
{
	int i, n = sqlite3_column_count(st), len;
	char num[64];

	for (i = 0; i < n; i++) {
		if (ch_insert_write(c, "\t", 1, err) == -1)
			return -1;
		switch (sqlite3_column_type(st, i)) {
		case SQLITE_NULL:
			if (ch_insert_write(c, "\\N", 2, err) == -1)
				return -1;
			continue;
		case SQLITE_INTEGER:
			len = snprintf(num, sizeof(num), "%lld",
			    (long long)sqlite3_column_int64(st, i));
			break;
		case SQLITE_FLOAT:
			len = snprintf(num, sizeof(num), "%.17g",
			    sqlite3_column_double(st, i));
			break;
		default:
			if (ch_field(c, (const char *)sqlite3_column_text(st,
			    i), (size_t)sqlite3_column_bytes(st, i), err) == -1)
				return -1;
			continue;
		}
		if (ch_insert_write(c, num, (size_t)len, err) == -1)
			return -1;
	}
	return ch_insert_write(c, "\n", 1, err);
}

/* Streams table t's rows; adds their number to *rows. */
static int
ch_table_write(struct ch_conn *c, sqlite3 *db, const struct ch_table *t,
    const char *id, const struct ch_export_opts *o, long long *rows,
    char **err)
{
	sqlite3_stmt *st = NULL;
	char *sql = NULL;
	int rc = -1, step;

	if (sqlite3_prepare_v2(db, t->select, -1, &st, NULL) != SQLITE_OK ||
	    (sqlite3_bind_parameter_count(st) > 0 && sqlite3_bind_text(st, 1,
	    o->host, -1, SQLITE_STATIC) != SQLITE_OK)) {
		ch_fail(err, "%s: %s", t->name, sqlite3_errmsg(db));
		goto out;
	}
	if (asprintf(&sql, "INSERT INTO %s FORMAT TabSeparated",
	    t->name) == -1) {
		sql = NULL;
		ch_fail(err, "out of memory");
		goto out;
	}
	/* Through a cluster, return once the rows are on their shard. */
	if (ch_insert_begin(c, sql, o->cluster ?
	    "&insert_distributed_sync=1" : "", err) == -1)
		goto out;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		if (ch_field(c, id, strlen(id), err) == -1 ||
		    ch_row(c, st, err) == -1)
			goto out;
		(*rows)++;
	}
	if (step != SQLITE_DONE) {
		ch_fail(err, "%s: %s", t->name, sqlite3_errmsg(db));
		goto out;
	}
	rc = ch_insert_end(c, err);
out:
	if (rc == -1 && *err != NULL) {
		char *e = *err;

		ch_fail(err, "table %s: %s", t->name, e);
		free(e);
	}
	sqlite3_finalize(st);
	free(sql);
	return rc;
}

/* The trace's id: its trace_uuid, which every import sets. */
static char *
ch_trace_id(sqlite3 *db)
{
	sqlite3_stmt *st;
	char *id = NULL;
	const unsigned char *s;

	if (sqlite3_prepare_v2(db, "select str_value from metadata where "
	    "name = 'trace_uuid'", -1, &st, NULL) != SQLITE_OK)
		return NULL;
	if (sqlite3_step(st) == SQLITE_ROW &&
	    (s = sqlite3_column_text(st, 0)) != NULL &&
	    strspn((const char *)s, "0123456789abcdef-") == strlen(
	    (const char *)s) && *s != '\0')
		id = strdup((const char *)s);
	sqlite3_finalize(st);
	return id;
}

/* How many rows of table have trace id; -1 on error. */
static long long
ch_count(struct ch_conn *c, const char *table, const char *id, char **err)
{
	char *ans = NULL;
	long long n;

	if (ch_execf(c, &ans, err, "SELECT count() FROM %s WHERE "
	    "trace_id = '%s'", table, id) == -1)
		return -1;
	n = strtoll(ans, NULL, 10);
	free(ans);
	return n;
}

int
ch_export_trace(struct ch_conn *c, sqlite3 *db,
    const struct ch_export_opts *o, FILE *out, char **err)
{
	const struct ch_table *t;
	long long rows = 0, n;
	char *id;
	int rc = -1;

	*err = NULL;
	/* The uuid is only hex and dashes: safe inside a quoted literal. */
	if ((id = ch_trace_id(db)) == NULL)
		return ch_fail(err, "the trace has no usable trace_uuid");
	if (ch_export_schema(c, o, err) == -1 ||
	    (n = ch_count(c, "traces", id, err)) == -1)
		goto out;
	if (n > 0) {
		fprintf(out, "skipped %s (already loaded)\n", id);
		rc = 0;
		goto out;
	}
	if ((n = ch_count(c, "metadata", id, err)) == -1)
		goto out;
	if (n > 0) {
		ch_fail(err, "trace %s was partly loaded before: purge its "
		    "rows (tools/fleet purge %s) and load it again", id, id);
		goto out;
	}
	for (t = ch_tables; t < ch_tables + NTABLES; t++)
		if (ch_table_write(c, db, t, id, o, &rows, err) == -1)
			goto out;
	fprintf(out, "loaded %s %lld rows\n", id, rows);
	rc = 0;
out:
	free(id);
	return rc;
}
