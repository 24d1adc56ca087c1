/*
 * ancestor_slice(id), descendant_slice(id) and their _by_stack(stack_id)
 * forms. Each returns rows of the slice table with all its columns.
 *
 *   ancestor_slice(id)     the slices found by following parent_id from id
 *                          up to depth 0, root first; id itself excluded
 *   descendant_slice(id)   the slices nested under id on its track, in id
 *                          order; id itself excluded
 *   *_by_stack(stack_id)   the same for every slice with that stack_id,
 *                          merged and sorted by id (a slice shared by two
 *                          matches appears twice, as each match yields it)
 *
 * An unknown id is an error ("no row with id N"); an unknown stack_id just
 * matches nothing, and a NULL argument returns no rows.
 */
#include "config.h"

#include <stdint.h>

#include <sqlite3.h>

#include "ops_int.h"
#include "ops_tvf.h"

typedef int (*slice_walk_fn)(struct ops_walk *, int64_t, struct ops_ids *,
    char **);

static int
slice_one(struct ops_walk *w, int64_t id, struct ops_ids *out, char **err,
    slice_walk_fn fn)
{
	int	 rc;

	if ((rc = fn(w, id, out, err)) == -1)
		return -1;
	if (rc == 0) {
		ops_seterr(err, "no row with id %lld", (long long)id);
		return -1;
	}
	return 0;
}

static int
slice_by_stack(struct ops_walk *w, int64_t stack_id, struct ops_ids *out,
    char **err, slice_walk_fn fn)
{
	struct ops_ids	 match = { 0 };
	sqlite3_stmt	*st;
	size_t		 i;
	int		 rc;

	if ((st = ops_stmt_get(w->db, &w->q[OPS_Q_SLICE_STACK], err)) == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, stack_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if (ops_ids_push(&match, sqlite3_column_int64(st, 0)) == -1) {
			rc = SQLITE_NOMEM;
			break;
		}
	if (rc != SQLITE_DONE)
		ops_seterr(err, "%s", rc == SQLITE_NOMEM ? "out of memory" :
		    sqlite3_errmsg(w->db));
	ops_stmt_put(&w->q[OPS_Q_SLICE_STACK], st);
	if (rc != SQLITE_DONE) {
		ops_ids_free(&match);
		return -1;
	}
	for (i = 0; i < match.n; i++)
		if (fn(w, match.v[i], out, err) == -1) {
			ops_ids_free(&match);
			return -1;
		}
	ops_ids_free(&match);
	ops_ids_sort(out);
	return 0;
}

static int
run_ancestor(struct ops_walk *w, int64_t id, struct ops_ids *out, char **err)
{
	return slice_one(w, id, out, err, ops_slice_ancestors);
}

static int
run_descendant(struct ops_walk *w, int64_t id, struct ops_ids *out,
    char **err)
{
	return slice_one(w, id, out, err, ops_slice_descendants);
}

static int
run_ancestor_by_stack(struct ops_walk *w, int64_t stack_id,
    struct ops_ids *out, char **err)
{
	return slice_by_stack(w, stack_id, out, err, ops_slice_ancestors);
}

static int
run_descendant_by_stack(struct ops_walk *w, int64_t stack_id,
    struct ops_ids *out, char **err)
{
	return slice_by_stack(w, stack_id, out, err, ops_slice_descendants);
}

/* Upstream's columns of these functions: slice's, but its aliases. */
static const struct ops_tvf_col slice_cols[] = {
	{ "id", "BIGINT" },
	{ "ts", "BIGINT" },
	{ "dur", "BIGINT" },
	{ "track_id", "BIGINT" },
	{ "category", "TEXT" },
	{ "name", "TEXT" },
	{ "depth", "BIGINT" },
	{ "parent_id", "BIGINT" },
	{ "arg_set_id", "BIGINT" },
	{ "thread_ts", "BIGINT" },
	{ "thread_dur", "BIGINT" },
	{ "thread_instruction_count", "BIGINT" },
	{ "thread_instruction_delta", "BIGINT" },
	{ NULL, NULL },
};

static const struct ops_tvf_def slice_fns[] = {
	{ "ancestor_slice", "slice", "start_id", slice_cols, run_ancestor },
	{ "descendant_slice", "slice", "start_id", slice_cols,
	    run_descendant },
	{ "ancestor_slice_by_stack", "slice", "start_stack_id", slice_cols,
	    run_ancestor_by_stack },
	{ "descendant_slice_by_stack", "slice", "start_stack_id", slice_cols,
	    run_descendant_by_stack },
};

int
ops_slice_fns_register(sqlite3 *db, char **err)
{
	size_t	 i;

	for (i = 0; i < sizeof(slice_fns) / sizeof(slice_fns[0]); i++)
		if (ops_tvf_register(db, &slice_fns[i], err) == -1)
			return -1;
	return 0;
}
