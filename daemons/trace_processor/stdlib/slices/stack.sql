-- slices.stack: identifying a slice by the names on its stack.
-- Each slice of a stack is represented by the hash of "category|name";
-- a slice's stack_id hashes the text made of its own such hash followed
-- by those of its ancestors from the root down, joined by '|' (the order
-- upstream's values come from). Slices with the same names all the way
-- up thus share a stack_id wherever they are.

INCLUDE PERFETTO MODULE slices.hierarchy;

-- The hash representing one slice of a stack, as text.
CREATE PERFETTO MACRO _slice_frame_text(category Expr, name Expr)
RETURNS Expr AS
CAST(hash(coalesce($category, '') || '|' || coalesce($name, '')) AS TEXT);

-- Every slice with its stack_id and the stack_id of its parent (0 for a
-- slice at depth 0). Computed when read.
CREATE PERFETTO VIEW slice_with_stack_id(
  -- Slice id.
  id ID(slice.id),
  -- Start timestamp.
  ts TIMESTAMP,
  -- Duration.
  dur DURATION,
  -- Track of the slice.
  track_id JOINID(track.id),
  -- Category.
  category STRING,
  -- Name.
  name STRING,
  -- Depth on its track.
  depth LONG,
  -- Parent slice.
  parent_id JOINID(slice.id),
  -- Arguments.
  arg_set_id ARGSETID,
  -- Thread time at the start.
  thread_ts TIMESTAMP,
  -- Thread time spent.
  thread_dur LONG,
  -- Instruction count at the start.
  thread_instruction_count LONG,
  -- Instructions spent.
  thread_instruction_delta LONG,
  -- Hash of the names on the slice's stack.
  stack_id LONG,
  -- stack_id of the parent; 0 without one.
  parent_stack_id LONG
) AS
WITH RECURSIVE
  -- path: the frame texts from the root down to the slice, joined by '|'.
  _stack(id, path, stack_id, parent_stack_id) AS (
    SELECT
      id,
      _slice_frame_text!(category, name),
      hash(_slice_frame_text!(category, name)),
      0
    FROM slice
    WHERE parent_id IS NULL
    UNION ALL
    SELECT
      c.id,
      p.path || '|' || _slice_frame_text!(c.category, c.name),
      hash(_slice_frame_text!(c.category, c.name) || '|' || p.path),
      p.stack_id
    FROM _stack AS p
    JOIN slice AS c ON c.parent_id = p.id
  )
SELECT
  s.id,
  s.ts,
  s.dur,
  s.track_id,
  s.category,
  s.name,
  s.depth,
  s.parent_id,
  s.arg_set_id,
  s.thread_ts,
  s.thread_dur,
  s.thread_instruction_count,
  s.thread_instruction_delta,
  st.stack_id,
  st.parent_stack_id
FROM slice AS s
JOIN _stack AS st USING (id);

-- The slices with stack_id stack_hash and all their ancestors, each once,
-- by start time.
CREATE PERFETTO FUNCTION ancestor_slice_by_stack(stack_hash LONG)
RETURNS TABLE(
  id JOINID(slice.id),
  ts TIMESTAMP,
  dur DURATION,
  track_id JOINID(track.id),
  category STRING,
  name STRING,
  depth LONG,
  parent_id JOINID(slice.id),
  arg_set_id ARGSETID,
  thread_ts TIMESTAMP,
  thread_dur LONG
) AS
WITH RECURSIVE
  _up(id) AS (
    SELECT id FROM slice_with_stack_id WHERE stack_id = $stack_hash
    UNION
    SELECT s.parent_id
    FROM _up JOIN slice AS s USING (id)
    WHERE s.parent_id IS NOT NULL
  )
SELECT
  s.id, s.ts, s.dur, s.track_id, s.category, s.name, s.depth, s.parent_id,
  s.arg_set_id, s.thread_ts, s.thread_dur
FROM _up JOIN slice AS s USING (id)
ORDER BY s.ts;

-- The slices with stack_id stack_hash and all their descendants, each
-- once, by start time.
CREATE PERFETTO FUNCTION descendant_slice_by_stack(stack_hash LONG)
RETURNS TABLE(
  id JOINID(slice.id),
  ts TIMESTAMP,
  dur DURATION,
  track_id JOINID(track.id),
  category STRING,
  name STRING,
  depth LONG,
  parent_id JOINID(slice.id),
  arg_set_id ARGSETID,
  thread_ts TIMESTAMP,
  thread_dur LONG
) AS
WITH RECURSIVE
  _down(id) AS (
    SELECT id FROM slice_with_stack_id WHERE stack_id = $stack_hash
    UNION
    SELECT c.id FROM _down JOIN slice AS c ON c.parent_id = _down.id
  )
SELECT
  s.id, s.ts, s.dur, s.track_id, s.category, s.name, s.depth, s.parent_id,
  s.arg_set_id, s.thread_ts, s.thread_dur
FROM _down JOIN slice AS s USING (id)
ORDER BY s.ts;
