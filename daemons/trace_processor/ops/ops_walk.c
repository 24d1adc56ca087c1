/*
 * Slice hierarchy walks over the engine's slice table, shared by the slice
 * table functions and the flow operators.
 *
 * A slice's ancestors are found by following parent_id up to a slice of
 * depth 0. Its descendants are the slices on the same track, deeper than
 * it, starting within [ts, ts + dur] (to the end of time for an unfinished
 * slice, dur < 0). Slices strictly inside that range are nested under it by
 * construction (slices at one depth of a track never overlap); one starting
 * exactly at either end may belong to a neighbour (an instant at the end of
 * its parent is still its child), so those are confirmed by their
 * parent_id chain.
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include <sqlite3.h>

#include "ops_int.h"
#include "tp_ops.h"

/*
 * Longest parent chain followed before the data is declared looping; real
 * nesting stays far below (a stack of 64K open slices on one track).
 */
#define WALK_MAX_DEPTH	(1 << 16)

static const char *const walk_sql[OPS_Q_COUNT] = {
	[OPS_Q_SLICE_INFO] =
	    "SELECT ts, dur, track_id, depth FROM slice WHERE id = ?1",
	[OPS_Q_SLICE_PARENT] =
	    "SELECT parent_id, depth FROM slice WHERE id = ?1",
	[OPS_Q_SLICE_DESC] =
	    ("SELECT id, ts FROM slice WHERE track_id = ?1 AND depth > ?2"
	    " AND ts >= ?3 AND ts <= ?4 ORDER BY id"),
	[OPS_Q_SLICE_STACK] =
	    "SELECT id FROM __intrinsic_slice WHERE stack_id = ?1 ORDER BY id",
	[OPS_Q_FLOW_OUT] =
	    "SELECT id, slice_in FROM flow WHERE slice_out = ?1 ORDER BY id",
	[OPS_Q_FLOW_IN] =
	    "SELECT id, slice_out FROM flow WHERE slice_in = ?1 ORDER BY id",
};

void
ops_walk_init(struct ops_walk *w, sqlite3 *db)
{
	int	 i;

	memset(w, 0, sizeof(*w));
	w->db = db;
	w->hooks = ops_hooks_of(db);
	for (i = 0; i < OPS_Q_COUNT; i++)
		w->q[i].sql = walk_sql[i];
}

void
ops_walk_fini(struct ops_walk *w)
{
	int	 i;

	for (i = 0; i < OPS_Q_COUNT; i++)
		ops_stmt_fini(&w->q[i]);
}

/* Steps a statement; 1 row, 0 done, -1 error with *err set. */
static int
walk_step(struct ops_walk *w, sqlite3_stmt *st, char **err)
{
	int	 rc;

	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE)
		return 0;
	ops_seterr(err, "%s", sqlite3_errmsg(w->db));
	return -1;
}

int
ops_slice_exists(struct ops_walk *w, int64_t id, char **err)
{
	sqlite3_stmt	*st;
	int		 rc;

	if ((st = ops_stmt_get(w->db, &w->q[OPS_Q_SLICE_PARENT], err)) == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	rc = walk_step(w, st, err);
	ops_stmt_put(&w->q[OPS_Q_SLICE_PARENT], st);
	return rc;
}

/*
 * Looks up the parent of id: 1 with *parent set, 0 for a root or a
 * missing slice (*found tells which), -1 on error.
 */
static int
walk_parent(struct ops_walk *w, int64_t id, int64_t *parent, int64_t *depth,
    int *found, char **err)
{
	sqlite3_stmt	*st;
	int		 rc;

	if (w->hooks != NULL && w->hooks->slice_parent != NULL) {
		*found = w->hooks->slice_parent(w->hooks->ctx, id, parent,
		    depth);
		return *found && *parent != TP_OPS_NONE;
	}
	if ((st = ops_stmt_get(w->db, &w->q[OPS_Q_SLICE_PARENT], err)) == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, id);
	rc = walk_step(w, st, err);
	*found = rc == 1;
	if (rc == 1) {
		*depth = sqlite3_column_int64(st, 1);
		if (sqlite3_column_type(st, 0) == SQLITE_NULL)
			rc = 0;
		else
			*parent = sqlite3_column_int64(st, 0);
	}
	ops_stmt_put(&w->q[OPS_Q_SLICE_PARENT], st);
	return rc;
}

int
ops_slice_ancestors(struct ops_walk *w, int64_t id, struct ops_ids *out,
    char **err)
{
	size_t	 first = out->n, i, j;
	int64_t	 cur = id, parent, depth, t;
	int	 rc, found, exists = -1, steps = 0;

	while ((rc = walk_parent(w, cur, &parent, &depth, &found, err)) == 1) {
		if (exists == -1)
			exists = 1;
		if (++steps > WALK_MAX_DEPTH) {
			ops_seterr(err, "parent chain of slice %lld loops",
			    (long long)id);
			return -1;
		}
		if (ops_ids_push(out, parent) == -1) {
			ops_seterr(err, "out of memory");
			return -1;
		}
		cur = parent;
	}
	if (rc == -1)
		return -1;
	if (exists == -1)
		exists = found;
	/* Collected child to root; callers want root first. */
	for (i = first, j = out->n; j > 0 && i < j - 1; i++, j--) {
		t = out->v[i];
		out->v[i] = out->v[j - 1];
		out->v[j - 1] = t;
	}
	return exists;
}

/* Is anc on the parent chain of id, above id? 1 yes, 0 no, -1 error. */
static int
walk_is_ancestor(struct ops_walk *w, int64_t id, int64_t anc,
    int64_t anc_depth, char **err)
{
	int64_t	 cur = id, parent, depth;
	int	 rc, found, steps = 0;

	while ((rc = walk_parent(w, cur, &parent, &depth, &found, err)) == 1) {
		/* cur is above id: reaching anc's depth without anc ends it. */
		if (cur != id && depth <= anc_depth)
			return 0;
		if (parent == anc)
			return 1;
		if (++steps > WALK_MAX_DEPTH)
			return 0;
		cur = parent;
	}
	return rc;
}

int
ops_slice_descendants(struct ops_walk *w, int64_t id, struct ops_ids *out,
    char **err)
{
	sqlite3_stmt	*info, *st;
	int64_t		 ts, dur, end, track, depth, cid, cts;
	int		 rc, anc;

	if ((info = ops_stmt_get(w->db, &w->q[OPS_Q_SLICE_INFO], err)) == NULL)
		return -1;
	sqlite3_bind_int64(info, 1, id);
	rc = walk_step(w, info, err);
	if (rc == 1) {
		ts = sqlite3_column_int64(info, 0);
		dur = sqlite3_column_int64(info, 1);
		track = sqlite3_column_int64(info, 2);
		depth = sqlite3_column_int64(info, 3);
	}
	ops_stmt_put(&w->q[OPS_Q_SLICE_INFO], info);
	if (rc != 1)
		return rc;

	/* An unfinished slice (dur < 0) covers the rest of the trace. */
	if (dur < 0 || __builtin_add_overflow(ts, dur, &end))
		end = INT64_MAX;

	if ((st = ops_stmt_get(w->db, &w->q[OPS_Q_SLICE_DESC], err)) == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, track);
	sqlite3_bind_int64(st, 2, depth);
	sqlite3_bind_int64(st, 3, ts);
	sqlite3_bind_int64(st, 4, end);
	while ((rc = walk_step(w, st, err)) == 1) {
		cid = sqlite3_column_int64(st, 0);
		cts = sqlite3_column_int64(st, 1);
		if (cts == ts || cts == end) {
			anc = walk_is_ancestor(w, cid, id, depth, err);
			if (anc == -1) {
				rc = -1;
				break;
			}
			if (anc == 0)
				continue;
		}
		if (ops_ids_push(out, cid) == -1) {
			ops_seterr(err, "out of memory");
			rc = -1;
			break;
		}
	}
	ops_stmt_put(&w->q[OPS_Q_SLICE_DESC], st);
	return rc == -1 ? -1 : 1;
}
