/*
 * trace_processor SQL operators: functions and operator tables that
 * Perfetto's SQL users expect, registered on a plain SQLite connection.
 *
 *   functions      EXTRACT_ARG(arg_set_id, key), HASH(...), STR_SPLIT(s, d, n),
 *                  REVERSE(s), UNHEX(s), REGEXP(p, s) (so "s REGEXP p"
 *                  works), REGEXP_EXTRACT(s, p), VALUE_AT_MAX_TS(ts, v)
 *   operators      CREATE VIRTUAL TABLE x USING SPAN_JOIN(t1 [PARTITIONED c],
 *                  t2 [PARTITIONED c]), and SPAN_LEFT_JOIN, SPAN_OUTER_JOIN
 *   table-valued   ancestor_slice(id), descendant_slice(id),
 *                  ancestor_slice_by_stack(stack_id),
 *                  descendant_slice_by_stack(stack_id),
 *                  directly_connected_flow(slice_id), following_flow(slice_id),
 *                  preceding_flow(slice_id)
 *
 * Everything here reads the engine's tables through SQL only, so it does
 * not depend on how the engine stores them:
 *
 *   slice(id, ts, dur, track_id, category, name, depth, parent_id,
 *         arg_set_id, stack_id, parent_stack_id, ...)
 *   flow(id, slice_out, slice_in, [trace_id,] arg_set_id, ...)
 *   args(arg_set_id, flat_key, key, int_value, string_value, real_value,
 *        value_type)
 *
 * The slice table functions return every column the engine's slice table has
 * (read from its schema when first used); the flow ones return id, slice_out,
 * slice_in, trace_id (NULL when the flow table has none) and arg_set_id.
 *
 * Indexes the engine should create for these to stay fast on large traces
 * (each query below is what an operator runs, once per step):
 *
 *   slice.id, flow.id       INTEGER PRIMARY KEY (lookups by id)
 *   args(arg_set_id, key)   EXTRACT_ARG
 *   slice(track_id, depth, ts)   descendant_slice and following_flow
 *   slice(stack_id)         the _by_stack forms
 *   flow(slice_out), flow(slice_in)   the flow operators
 *
 * SPAN_JOIN reads its two inputs ordered by (partition, ts); an index on
 * those columns of the inputs avoids a sort per query.
 */
#ifndef FARO_TP_OPS_H
#define FARO_TP_OPS_H

#include <sqlite3.h>

/*
 * What an engine may offer in place of SQL for the lookups operators make
 * once per row or per step, when it can answer them straight from its
 * storage. NULL members (or no hooks): the SQL above.
 */
struct tp_ops_hooks {
	void	*ctx;
	/* EXTRACT_ARG: sets *out to the value of key in arg set `set`
	 * (left NULL when there is none). */
	void	(*extract_arg)(void *ctx, int64_t set, const char *key,
		    size_t keylen, sqlite3_context *out);
	/* Slice id's parent (TP_OPS_NONE for a root) and depth: 1, or 0
	 * when there is no such slice. */
	int	(*slice_parent)(void *ctx, int64_t id, int64_t *parent,
		    int64_t *depth);
	/* The table functions' rows: a handle on column col of table
	 * (-1: the engine has none, SQL then); whether row id is there;
	 * the value of a cell of it into *out. */
	int	(*col_handle)(void *ctx, const char *table, const char *col);
	int	(*row_exists)(void *ctx, int handle, int64_t id);
	void	(*cell)(void *ctx, int handle, int64_t id,
		    sqlite3_context *out);
};
#define TP_OPS_NONE	INT64_MIN

/*
 * Registers every function and operator on db, with the engine's hooks
 * (may be NULL; kept until tp_ops_forget). Returns 0, or -1 with *errmsg
 * set to a message allocated with sqlite3_malloc (free it with
 * sqlite3_free). Calling it again on a connection registers them afresh.
 */
int	tp_ops_register(sqlite3 *db, const struct tp_ops_hooks *hooks,
	    char **errmsg);
/* Before db closes: its hooks are forgotten. */
void	tp_ops_forget(sqlite3 *db);

#endif
