/*
 * Windowing for a trace that has no end (trace_processor --live): the
 * rows whose time is over before a horizon leave the tables, so that the
 * engine's memory follows the window rather than the session's length.
 *
 * Rows get their ids in timestamp order (the sorter releases records in
 * that order and each row takes the next id when it is made), so the rows
 * that may go are found by a binary search on id and deleted by an id
 * range, each checked against its time: a row out of order is kept, never
 * deleted early. What remains keeps its ids, parent_id and depth: a slice
 * encloses its children, so a slice that ended before the horizon has no
 * child that ended after it (ill-nested input aside, see overhang_over).
 *
 * Rows share arg sets (equal sets are stored once): a set goes only when
 * no row left refers to it, and sets made afterwards are not matched to
 * those stored before.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tp_int.h"

struct evict_table {
	const char	*name;
	const char	*over;	/* the row's time is over before ?2 */
};

static const struct evict_table tables[] = {
	{ "__intrinsic_slice", "dur >= 0 AND ts + dur < ?2" },
	{ "sched_slice", "dur >= 0 AND ts + dur < ?2" },
	{ "thread_state", "dur >= 0 AND ts + dur < ?2" },
	{ "counter", "ts < ?2" },
	{ "ftrace_event", "ts < ?2" },
};

/*
 * Ill-nested input (a slice that ended after its parent, counted as
 * tp->overhang) breaks the rule above: a slice that is over stays while
 * a descendant of it stays.
 */
static const char overhang_over[] =
	"dur >= 0 AND ts + dur < ?2 AND id NOT IN ("
	" WITH RECURSIVE keep(id) AS ("
	"  SELECT parent_id FROM slice WHERE parent_id IS NOT NULL AND"
	"  NOT (dur >= 0 AND ts + dur < ?2)"
	"  UNION SELECT s.parent_id FROM slice s JOIN keep k ON s.id = k.id"
	"  WHERE s.parent_id IS NOT NULL)"
	" SELECT id FROM keep)";

/*
 * Deletes the arg sets listed in __evict_sets that no row left refers to,
 * in any table's column of arg set ids.
 */
static int
evict_args(struct tp *tp)
{
	static const char cols_sql[] = "SELECT m.name, c.name FROM"
	    " sqlite_master m, pragma_table_info(m.name) c WHERE"
	    " m.type = 'table' AND m.name != '__args' AND c.name LIKE"
	    " '%arg_set_id'";
	sqlite3_stmt *st;
	char sql[512];
	int rc = 0;

	if (sqlite3_prepare_v2(tp->db, cols_sql, -1, &st, NULL) != SQLITE_OK)
		return tp_seterr(tp, "%s: %s", __func__,
		    sqlite3_errmsg(tp->db));
	while (rc == 0 && sqlite3_step(st) == SQLITE_ROW) {
		snprintf(sql, sizeof(sql), "DELETE FROM temp.__evict_sets"
		    " WHERE id IN (SELECT \"%s\" FROM \"%s\")",
		    (const char *)sqlite3_column_text(st, 1),
		    (const char *)sqlite3_column_text(st, 0));
		if (sqlite3_exec(tp->db, sql, NULL, NULL, NULL) != SQLITE_OK)
			rc = tp_seterr(tp, "%s: %s", __func__,
			    sqlite3_errmsg(tp->db));
	}
	sqlite3_finalize(st);
	if (rc == 0 && sqlite3_exec(tp->db, "DELETE FROM __args WHERE"
	    " arg_set_id IN (SELECT id FROM temp.__evict_sets);"
	    " DELETE FROM temp.__evict_sets", NULL, NULL, NULL) != SQLITE_OK)
		rc = tp_seterr(tp, "%s: %s", __func__,
		    sqlite3_errmsg(tp->db));
	tp_argsets_forget(tp);
	return rc;
}

static int
evict_exec(struct tp *tp, const char *sql, int64_t bound, int64_t ts)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(tp->db, sql, -1, &st, NULL) != SQLITE_OK)
		return tp_seterr(tp, "%s: %s", __func__,
		    sqlite3_errmsg(tp->db));
	sqlite3_bind_int64(st, 1, bound);
	sqlite3_bind_int64(st, 2, ts);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return tp_seterr(tp, "%s: %s", __func__,
		    sqlite3_errmsg(tp->db));
	return 0;
}

/*
 * The first id from which every row starts at ts or later, found in
 * log2(rows) lookups: rows below it may be over, rows above cannot be.
 */
static int64_t
evict_bound(struct tp *tp, const char *table, int64_t ts)
{
	sqlite3_stmt *st;
	char sql[128];
	int64_t lo = 0, hi = INT64_MAX, mid;

	/* Past the largest id there is no row. */
	snprintf(sql, sizeof(sql), "SELECT MAX(id) FROM %s", table);
	if (sqlite3_prepare_v2(tp->db, sql, -1, &st, NULL) != SQLITE_OK)
		return INT64_MAX;	/* no bound: every row is checked */
	if (sqlite3_step(st) == SQLITE_ROW &&
	    sqlite3_column_type(st, 0) == SQLITE_INTEGER)
		hi = sqlite3_column_int64(st, 0) + 1;
	else
		hi = 0;
	sqlite3_finalize(st);
	snprintf(sql, sizeof(sql), "SELECT ts FROM %s WHERE id >= ?"
	    " ORDER BY id LIMIT 1", table);
	if (sqlite3_prepare_v2(tp->db, sql, -1, &st, NULL) != SQLITE_OK)
		return INT64_MAX;
	/* Rows from hi on start at ts or later (or there are none). */
	while (lo < hi) {
		int after;

		mid = lo + (hi - lo) / 2;
		sqlite3_bind_int64(st, 1, mid);
		after = sqlite3_step(st) != SQLITE_ROW ||
		    sqlite3_column_int64(st, 0) >= ts;
		sqlite3_reset(st);
		if (after)
			hi = mid;
		else
			lo = mid + 1;
	}
	sqlite3_finalize(st);
	return hi;
}

/*
 * A flow still waiting for its next step must not start from a slice
 * that is gone: it is forgotten, and the flow's next step starts it
 * afresh, as for a flow whose start was never read.
 */
static void
evict_flows(struct tp *tp, int64_t bound)
{
	sqlite3_stmt *st;
	uint64_t *gone, key, val;
	size_t i, it, n = 0;

	if (tp->flows.count == 0 || (gone = calloc(tp->flows.count,
	    sizeof(*gone))) == NULL)
		return;
	if (sqlite3_prepare_v2(tp->db, "SELECT 1 FROM slice WHERE id = ?",
	    -1, &st, NULL) != SQLITE_OK) {
		free(gone);
		return;
	}
	for (it = 0; n < tp->flows.count &&
	    tp_hash_next(&tp->flows, &it, &key, &val);) {
		if ((int64_t)val >= bound)
			continue;
		sqlite3_bind_int64(st, 1, (int64_t)val);
		if (sqlite3_step(st) != SQLITE_ROW)
			gone[n++] = key;
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	for (i = 0; i < n; i++)
		(void)tp_hash_del(&tp->flows, gone[i]);
	free(gone);
}

int
tp_evict_before(struct tp *tp, int64_t ts)
{
	char sql[1024];
	size_t i;
	int rc = 0;

	if (ts <= tp->evicted_before)
		return 0;
	if (tp_txn_begin(tp) == -1)
		return -1;
	/* Queued rows may be among those that go. */
	if (tp_rows_flush(tp) == -1)
		rc = -1;
	tp_tables_deletable(tp, 1);
	if (rc == 0 && sqlite3_exec(tp->db, "CREATE TEMP TABLE IF NOT EXISTS"
	    " __evict_sets(id INTEGER PRIMARY KEY)", NULL, NULL, NULL) !=
	    SQLITE_OK)
		rc = tp_seterr(tp, "%s: %s", __func__, sqlite3_errmsg(tp->db));
	for (i = 0; i < sizeof(tables) / sizeof(tables[0]) && rc == 0; i++) {
		struct evict_table tt = tables[i], *t = &tt;
		int64_t bound = evict_bound(tp, t->name, ts);

		if (tp->overhang && strcmp(t->name, "__intrinsic_slice") == 0)
			t->over = overhang_over;

		/* Their arg sets may go, once the rows have. */
		if (strcmp(t->name, "sched_slice") != 0 &&
		    strcmp(t->name, "thread_state") != 0) {
			snprintf(sql, sizeof(sql), "INSERT OR IGNORE INTO"
			    " temp.__evict_sets SELECT arg_set_id FROM %s"
			    " WHERE id < ?1 AND %s AND arg_set_id IS NOT"
			    " NULL", t->name, t->over);
			rc = evict_exec(tp, sql, bound, ts);
		}
		/* A flow with an end gone goes too. */
		if (rc == 0 && strcmp(t->name, "__intrinsic_slice") == 0) {
			snprintf(sql, sizeof(sql), "DELETE FROM flow WHERE"
			    " slice_out IN (SELECT id FROM slice WHERE"
			    " id < ?1 AND %s)", t->over);
			rc = evict_exec(tp, sql, bound, ts);
			snprintf(sql, sizeof(sql), "DELETE FROM flow WHERE"
			    " slice_in IN (SELECT id FROM slice WHERE"
			    " id < ?1 AND %s)", t->over);
			if (rc == 0)
				rc = evict_exec(tp, sql, bound, ts);
		}
		snprintf(sql, sizeof(sql), "DELETE FROM %s WHERE id < ?1"
		    " AND %s", t->name, t->over);
		if (rc == 0)
			rc = evict_exec(tp, sql, bound, ts);
		if (rc == 0 && strcmp(t->name, "__intrinsic_slice") == 0)
			evict_flows(tp, bound);
	}
	if (rc == 0)
		rc = evict_args(tp);
	tp_tables_deletable(tp, 0);
	if (rc == 0) {
		tp->evicted_before = ts;
		/* The trace now starts at the horizon. */
		if (tp->ts_min < ts && tp->ts_min <= tp->ts_max)
			tp->ts_min = ts < tp->ts_max ? ts : tp->ts_max;
		if (tp->bound_lo < ts && tp->bound_lo <= tp->bound_hi)
			tp->bound_lo = ts < tp->bound_hi ? ts : tp->bound_hi;
		snprintf(sql, sizeof(sql), "UPDATE __trace_bounds SET"
		    " start_ts = %lld WHERE start_ts < %lld",
		    (long long)tp->bound_lo, (long long)tp->bound_lo);
		if (sqlite3_exec(tp->db, sql, NULL, NULL, NULL) != SQLITE_OK)
			rc = tp_seterr(tp, "%s: %s", __func__,
			    sqlite3_errmsg(tp->db));
	}
	if (tp_txn_commit(tp) == -1)
		rc = -1;
	return rc;
}
