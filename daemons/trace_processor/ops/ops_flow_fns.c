/*
 * DIRECTLY_CONNECTED_FLOW(slice_id), FOLLOWING_FLOW(slice_id) and
 * PRECEDING_FLOW(slice_id): the flow rows reachable from a slice.
 *
 * A breadth-first search over slices, starting at the given one:
 *
 *   directly_connected   follows flows both ways, but a slice reached
 *                        through a flow only keeps going the same way, so
 *                        the result is the chains that end or start at
 *                        the slice, not whatever else touches them
 *   following            follows outgoing flows, and from every slice it
 *                        reaches (the start included) also its descendants
 *   preceding            follows incoming flows, and from every slice it
 *                        reaches also its ancestors
 *
 * Each slice is visited once. A flow is reported when it is crossed, in the
 * order the search crosses it; flows of one slice in flow id order. Rows
 * carry the flow's own id.
 */
#include "config.h"

#include <stdint.h>

#include <sqlite3.h>

#include "ops_int.h"
#include "ops_tvf.h"

enum { FLOW_IN = 1, FLOW_OUT = 2 };
enum { REL_NONE = 0, REL_ANCESTORS = 1, REL_DESCENDANTS = 2 };
/* How a slice was reached, which limits where the search goes from it. */
enum { VIA_START, VIA_IN_FLOW, VIA_OUT_FLOW, VIA_RELATIVE };

struct bfs {
	struct ops_walk	*w;
	struct ops_idset known;
	struct ops_ids	 queue;		/* slice ids */
	struct ops_ids	 how;		/* VIA_* for each queued slice */
	struct ops_ids	 rel;		/* scratch for relatives */
	struct ops_ids	*flows;		/* result */
	char		**err;
};

static int
bfs_enqueue(struct bfs *b, int64_t slice, int how)
{
	int	 rc;

	if ((rc = ops_idset_add(&b->known, slice)) == 0)
		return 0;
	if (rc == -1 || ops_ids_push(&b->queue, slice) == -1 ||
	    ops_ids_push(&b->how, how) == -1) {
		ops_seterr(b->err, "out of memory");
		return -1;
	}
	return 0;
}

static int
bfs_relatives(struct bfs *b, int64_t slice, int rel)
{
	size_t	 i;
	int	 pass;

	for (pass = REL_ANCESTORS; pass <= REL_DESCENDANTS; pass <<= 1) {
		if (!(rel & pass))
			continue;
		ops_ids_clear(&b->rel);
		if ((pass == REL_ANCESTORS ?
		    ops_slice_ancestors(b->w, slice, &b->rel, b->err) :
		    ops_slice_descendants(b->w, slice, &b->rel, b->err)) == -1)
			return -1;
		for (i = 0; i < b->rel.n; i++)
			if (bfs_enqueue(b, b->rel.v[i], VIA_RELATIVE) == -1)
				return -1;
	}
	return 0;
}

static int
bfs_cross(struct bfs *b, int64_t slice, int dir)
{
	struct ops_stmt	*q = &b->w->q[dir == FLOW_OUT ? OPS_Q_FLOW_OUT :
			    OPS_Q_FLOW_IN];
	sqlite3_stmt	*st;
	int		 rc;

	if ((st = ops_stmt_get(b->w->db, q, b->err)) == NULL)
		return -1;
	sqlite3_bind_int64(st, 1, slice);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (ops_ids_push(b->flows, sqlite3_column_int64(st, 0)) == -1) {
			ops_seterr(b->err, "out of memory");
			break;
		}
		/* A flow with a missing end leads nowhere. */
		if (sqlite3_column_type(st, 1) == SQLITE_NULL)
			continue;
		if (bfs_enqueue(b, sqlite3_column_int64(st, 1),
		    dir == FLOW_OUT ? VIA_OUT_FLOW : VIA_IN_FLOW) == -1)
			break;
	}
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		ops_seterr(b->err, "%s", sqlite3_errmsg(b->w->db));
	ops_stmt_put(q, st);
	return rc == SQLITE_DONE ? 0 : -1;
}

static int
flow_search(struct ops_walk *w, int64_t start, struct ops_ids *out,
    char **err, int dirs, int rel)
{
	struct bfs	 b = { .w = w, .flows = out, .err = err };
	size_t		 head;
	int64_t		 slice;
	int		 how, rc = -1;

	switch (ops_slice_exists(w, start, err)) {
	case -1:
		return -1;
	case 0:
		ops_seterr(err, "invalid slice id %lld", (long long)start);
		return -1;
	}
	if (bfs_enqueue(&b, start, VIA_START) == -1)
		goto done;
	for (head = 0; head < b.queue.n; head++) {
		slice = b.queue.v[head];
		how = (int)b.how.v[head];
		/* Relatives of a relative were already queued with it. */
		if (how != VIA_RELATIVE && rel != REL_NONE &&
		    bfs_relatives(&b, slice, rel) == -1)
			goto done;
		/* Never walk back along the flow that led here. */
		if ((dirs & FLOW_IN) && how != VIA_OUT_FLOW &&
		    bfs_cross(&b, slice, FLOW_IN) == -1)
			goto done;
		if ((dirs & FLOW_OUT) && how != VIA_IN_FLOW &&
		    bfs_cross(&b, slice, FLOW_OUT) == -1)
			goto done;
	}
	rc = 0;
done:
	ops_idset_free(&b.known);
	ops_ids_free(&b.queue);
	ops_ids_free(&b.how);
	ops_ids_free(&b.rel);
	return rc;
}

static int
run_directly_connected(struct ops_walk *w, int64_t id, struct ops_ids *out,
    char **err)
{
	return flow_search(w, id, out, err, FLOW_IN | FLOW_OUT, REL_NONE);
}

static int
run_following(struct ops_walk *w, int64_t id, struct ops_ids *out, char **err)
{
	return flow_search(w, id, out, err, FLOW_OUT, REL_DESCENDANTS);
}

static int
run_preceding(struct ops_walk *w, int64_t id, struct ops_ids *out, char **err)
{
	return flow_search(w, id, out, err, FLOW_IN, REL_ANCESTORS);
}

/* The flow table's columns, trace_id reading NULL where the engine lacks it. */
static const struct ops_tvf_col flow_cols[] = {
	{ "id", "BIGINT" },
	{ "slice_out", "BIGINT" },
	{ "slice_in", "BIGINT" },
	{ "trace_id", "BIGINT" },
	{ "arg_set_id", "BIGINT" },
	{ NULL, NULL },
};

static const struct ops_tvf_def flow_fns[] = {
	{ "directly_connected_flow", "flow", "start_id", flow_cols,
	    run_directly_connected },
	{ "following_flow", "flow", "start_id", flow_cols, run_following },
	{ "preceding_flow", "flow", "start_id", flow_cols, run_preceding },
};

int
ops_flow_fns_register(sqlite3 *db, char **err)
{
	size_t	 i;

	for (i = 0; i < sizeof(flow_fns) / sizeof(flow_fns[0]); i++)
		if (ops_tvf_register(db, &flow_fns[i], err) == -1)
			return -1;
	return 0;
}
