-- slices.hierarchy: a slice with its ancestors or descendants, and
-- reparenting a slice tree onto the slices that have a value.

-- The slice itself, then its ancestors.
CREATE PERFETTO FUNCTION _slice_ancestor_and_self(slice_id JOINID(slice.id))
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
SELECT id, ts, dur, track_id, category, name, depth, parent_id, arg_set_id,
  thread_ts, thread_dur
FROM slice WHERE id = $slice_id
UNION ALL
SELECT id, ts, dur, track_id, category, name, depth, parent_id, arg_set_id,
  thread_ts, thread_dur
FROM ancestor_slice($slice_id);

-- The slice itself, then its descendants.
CREATE PERFETTO FUNCTION _slice_descendant_and_self(slice_id JOINID(slice.id))
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
SELECT id, ts, dur, track_id, category, name, depth, parent_id, arg_set_id,
  thread_ts, thread_dur
FROM slice WHERE id = $slice_id
UNION ALL
SELECT id, ts, dur, track_id, category, name, depth, parent_id, arg_set_id,
  thread_ts, thread_dur
FROM descendant_slice($slice_id);

-- The slices of slice_table whose column_name is not NULL, each hung
-- under its nearest such ancestor. Columns: id, parent_id, depth,
-- column_name.
CREATE PERFETTO MACRO _slice_remove_nulls_and_reparent(
  slice_table TableOrSubQuery,
  column_name ColumnName
)
RETURNS TableOrSubQuery AS
(
  WITH
    _srn AS (SELECT * FROM $slice_table WHERE $column_name IS NOT NULL)
  SELECT id, parent_id, depth, $column_name
  FROM _srn
  WHERE depth = 0
  UNION ALL
  SELECT
    c.id,
    anc.id AS parent_id,
    max(iif(kept.$column_name IS NULL, 0, anc.depth)) AS depth,
    c.$column_name
  FROM _srn AS c, ancestor_slice(c.id) AS anc
  LEFT JOIN _srn AS kept ON kept.id = anc.id
  GROUP BY c.id
);
