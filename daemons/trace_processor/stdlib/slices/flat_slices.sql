-- slices.flat_slices: thread slices without nesting: at each moment only
-- the deepest open slice of a stack, so that the pieces of a thread's
-- timeline never overlap. Times with no slice open have no row.

INCLUDE PERFETTO MODULE slices.with_context;
INCLUDE PERFETTO MODULE intervals.overlap;

-- Columns: slice_id (the deepest open slice), ts and dur of the piece,
-- that slice's depth and name, root_id (its stack's depth-0 slice),
-- track_id, and thread and process (utid, tid, thread_name, upid, pid,
-- process_name).
CREATE PERFETTO TABLE _slice_flattened AS
WITH
  roots AS (SELECT * FROM slice WHERE parent_id IS NULL),
  descendants AS (
    SELECT top.id AS root_id, s.*
    FROM slice AS s, ancestor_slice(s.id) AS top
    WHERE s.parent_id IS NOT NULL AND top.depth = 0
  ),
  pieces AS (
    SELECT root_id, id, ts, dur
    FROM _intervals_flatten!(_intervals_merge_root_and_children!(roots,
      descendants))
  )
SELECT
  p.id AS slice_id,
  p.ts,
  p.dur,
  ts.depth,
  ts.name,
  p.root_id,
  ts.track_id,
  ts.utid,
  ts.tid,
  ts.thread_name,
  ts.upid,
  ts.pid,
  ts.process_name
FROM pieces AS p
JOIN thread_slice AS ts ON ts.id = p.id;

CREATE PERFETTO INDEX _slice_flattened_id_idx ON _slice_flattened(slice_id);
CREATE PERFETTO INDEX _slice_flattened_ts_idx ON _slice_flattened(ts);
