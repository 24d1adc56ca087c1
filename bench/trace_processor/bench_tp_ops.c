/*
 * bench_tp_ops: cost of the trace_processor SQL operators on synthetic
 * tables shaped like the engine's, each next to a plain-SQL reference that
 * computes the same result in the same run.
 *
 *   extract_arg     EXTRACT_ARG(arg_set_id, key) per row, vs the correlated
 *                   subquery it stands for
 *   span_join       rows out of SPAN_JOIN on two partitioned inputs, vs a
 *                   plain SQL range join producing the same intersections
 *   ancestor_slice  one correlated call per slice, vs a recursive CTE
 *   descendant      descendant_slice count per root slice
 *   *_flow          per slice: a flow from each even stack's leaf to the
 *                   next stack's root
 *
 * Each figure is the best of three runs.
 *
 * Usage: bench_tp_ops [scale]   (default 1: 1M args rows, 1M span rows)
 *
 * Measure in a build without sanitizers (configure CFLAGS=-O2):
 * make bench/trace_processor/bench_tp_ops (or make bench).
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sqlite3.h>

#include "daemons/trace_processor/ops/tp_ops.h"

static double
now(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void
exec(sqlite3 *db, const char *sql)
{
	char	*err = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK) {
		fprintf(stderr, "bench_tp_ops: %s\n%s\n", err, sql);
		exit(1);
	}
}

/*
 * Runs a one-row query; returns seconds (the best of RUNS, as the machine
 * is shared) and the first column as text.
 */
#define RUNS	3
static double
timed_once(sqlite3 *db, const char *sql, char *out, size_t outlen)
{
	sqlite3_stmt	*st;
	double		 t0;
	int		 rc;

	t0 = now();
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
		fprintf(stderr, "bench_tp_ops: %s\n%s\n", sqlite3_errmsg(db),
		    sql);
		exit(1);
	}
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		fprintf(stderr, "bench_tp_ops: %s\n", sqlite3_errmsg(db));
		exit(1);
	}
	snprintf(out, outlen, "%s", sqlite3_column_text(st, 0) ?
	    (const char *)sqlite3_column_text(st, 0) : "NULL");
	sqlite3_finalize(st);
	return now() - t0;
}

static double
timed(sqlite3 *db, const char *sql, char *out, size_t outlen)
{
	double	 best = 0, t;
	int	 i;

	for (i = 0; i < RUNS; i++) {
		t = timed_once(db, sql, out, outlen);
		if (i == 0 || t < best)
			best = t;
	}
	return best;
}

static void
compare(sqlite3 *db, const char *what, double n, const char *ours,
    const char *ref)
{
	char	 a[64], b[64];
	double	 ta, tb;

	ta = timed(db, ours, a, sizeof(a));
	tb = timed(db, ref, b, sizeof(b));
	printf("%-16s %10.0f rows  ours %8.1f ns/row  ref %8.1f ns/row"
	    "  ratio %.2f  %s\n", what, n, ta * 1e9 / n, tb * 1e9 / n,
	    ta / tb, strcmp(a, b) == 0 ? "same result" : "RESULTS DIFFER");
	if (strcmp(a, b) != 0)
		printf("  ours %s, ref %s\n", a, b);
}

static void
single(sqlite3 *db, const char *what, double n, const char *sql)
{
	char	 a[64];
	double	 ta;

	ta = timed(db, sql, a, sizeof(a));
	printf("%-16s %10.0f calls ours %8.1f ns/call (%s)\n", what, n,
	    ta * 1e9 / n, a);
}

int
main(int argc, char **argv)
{
	sqlite3	*db;
	char	*err = NULL, *sql;
	int	 scale = argc > 1 ? atoi(argv[1]) : 1;
	int	 nset = 250000 * scale, nspan = 125000 * scale;
	int	 nslice = 100000 * scale;

	if (scale < 1)
		scale = 1;
	if (sqlite3_open(":memory:", &db) != SQLITE_OK ||
	    tp_ops_register(db, NULL, &err) != 0) {
		fprintf(stderr, "bench_tp_ops: %s\n", err ? err : "open");
		return 1;
	}

	/* args: 4 keys per set; the engine indexes (arg_set_id, key). */
	sql = sqlite3_mprintf(
	    "CREATE TABLE args(id INTEGER PRIMARY KEY, arg_set_id BIGINT,"
	    " flat_key TEXT, key TEXT, int_value BIGINT, string_value TEXT,"
	    " real_value DOUBLE, value_type TEXT);"
	    "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n"
	    " WHERE i < %d) INSERT INTO args(arg_set_id, flat_key, key,"
	    " int_value, value_type) SELECT i / 4, 'k' || (i %% 4),"
	    " 'k' || (i %% 4), i, 'int' FROM n;"
	    "CREATE INDEX args_key ON args(arg_set_id, key);"
	    "CREATE TABLE rows(arg_set_id BIGINT);"
	    "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n"
	    " WHERE i < %d) INSERT INTO rows SELECT i FROM n;",
	    nset * 4 - 1, nset - 1);
	exec(db, sql);
	sqlite3_free(sql);
	compare(db, "extract_arg", nset,
	    "SELECT SUM(EXTRACT_ARG(arg_set_id, 'k2')) FROM rows",
	    "SELECT SUM((SELECT int_value FROM args a WHERE"
	    " a.arg_set_id = r.arg_set_id AND a.key = 'k2')) FROM rows r");

	/* Two partitioned span tables, 8 partitions, offset boundaries. */
	sql = sqlite3_mprintf(
	    "CREATE TABLE a(ts BIGINT, dur BIGINT, cpu BIGINT, x BIGINT);"
	    "CREATE TABLE b(ts BIGINT, dur BIGINT, cpu BIGINT, y BIGINT);"
	    "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n"
	    " WHERE i < %d) INSERT INTO a SELECT (i / 8) * 100, 100, i %% 8, i"
	    " FROM n;"
	    "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n"
	    " WHERE i < %d) INSERT INTO b SELECT (i / 8) * 100 + 30, 100,"
	    " i %% 8, i FROM n;"
	    "CREATE INDEX a_cpu ON a(cpu, ts); CREATE INDEX b_cpu ON b(cpu, ts);"
	    "CREATE VIRTUAL TABLE j USING span_join(a PARTITIONED cpu,"
	    " b PARTITIONED cpu);", nspan * 8 - 1, nspan * 8 - 1);
	exec(db, sql);
	sqlite3_free(sql);
	compare(db, "span_join", 2.0 * nspan * 8,
	    "SELECT SUM(dur + x + y) FROM j",
	    "SELECT SUM(MIN(a.ts + a.dur, b.ts + b.dur) - MAX(a.ts, b.ts)"
	    " + a.x + b.y) FROM a JOIN b ON a.cpu = b.cpu"
	    " AND b.ts < a.ts + a.dur AND b.ts >= a.ts - 100"
	    " AND a.ts < b.ts + b.dur");

	/* Slices: stacks of depth 8 on 100 tracks, one flow per slice. */
	sql = sqlite3_mprintf(
	    "CREATE TABLE slice(id INTEGER PRIMARY KEY, ts BIGINT, dur BIGINT,"
	    " track_id BIGINT, category TEXT, name TEXT, depth BIGINT,"
	    " parent_id BIGINT, arg_set_id BIGINT, stack_id BIGINT,"
	    " parent_stack_id BIGINT);"
	    "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n"
	    " WHERE i < %d) INSERT INTO slice SELECT i, (i / 8) * 100 + i %% 8,"
	    " 100 - 2 * (i %% 8), (i / 8) %% 100, 'c', 's' || (i %% 8), i %% 8,"
	    " CASE WHEN i %% 8 = 0 THEN NULL ELSE i - 1 END, NULL, i %% 8, 0"
	    " FROM n;"
	    "CREATE INDEX slice_track ON slice(track_id, ts);"
	    "CREATE INDEX slice_stack ON slice(stack_id);"
	    "CREATE TABLE flow(id INTEGER PRIMARY KEY, slice_out BIGINT,"
	    " slice_in BIGINT, arg_set_id BIGINT);"
	    "INSERT INTO flow(slice_out, slice_in) SELECT id, id + 1 FROM slice"
	    " WHERE depth = 7 AND (id / 8) %% 2 = 0 AND id + 1 < %d;"
	    "CREATE INDEX flow_out ON flow(slice_out);"
	    "CREATE INDEX flow_in ON flow(slice_in);", nslice - 1, nslice);
	exec(db, sql);
	sqlite3_free(sql);
	compare(db, "ancestor_slice", nslice,
	    "SELECT SUM(a.id) FROM slice s JOIN ancestor_slice(s.id) a",
	    "WITH RECURSIVE up(start, id) AS (SELECT id, parent_id FROM slice"
	    " WHERE parent_id IS NOT NULL UNION ALL SELECT up.start,"
	    " s.parent_id FROM up JOIN slice s ON s.id = up.id WHERE"
	    " s.parent_id IS NOT NULL) SELECT SUM(id) FROM up");
	single(db, "descendant", nslice / 8,
	    "SELECT SUM(d.id) FROM slice s JOIN descendant_slice(s.id) d"
	    " WHERE s.depth = 0");
	single(db, "following_flow", 2000,
	    "SELECT COUNT(*) FROM (SELECT id FROM slice WHERE depth = 7"
	    " LIMIT 2000) s JOIN following_flow(s.id) f");
	single(db, "preceding_flow", 2000,
	    "SELECT COUNT(*) FROM (SELECT id FROM slice WHERE depth = 0"
	    " LIMIT 2000) s JOIN preceding_flow(s.id) f");
	sqlite3_close(db);
	return 0;
}
