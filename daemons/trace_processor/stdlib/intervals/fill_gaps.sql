-- intervals.fill_gaps: make intervals cover the whole trace.

INCLUDE PERFETTO MODULE intervals.overlap;

CREATE PERFETTO MACRO _ifg_null(col ColumnName)
RETURNS Expr AS
NULL;

-- Adds, for each value of group_cols, intervals with NULL data_cols over
-- the times data has none of that group: from the trace's start to its
-- first interval, between its intervals and after its last to the
-- trace's end. The intervals of a group must not overlap. With no data
-- at all, one row covers the trace. Columns: ts, dur, group_cols,
-- data_cols; pass (NULL) as group_cols for no grouping.
CREATE PERFETTO MACRO _intervals_fill_gaps(
  group_cols ColumnNameList,
  data_cols ColumnNameList,
  data TableOrSubquery
)
RETURNS TableOrSubquery AS
(
  WITH
    _ifg_bounds AS (SELECT start_ts, end_ts FROM trace_bounds),
    _ifg_data AS (
      SELECT ts, dur, _intervals_unparen!($group_cols),
        _intervals_unparen!($data_cols)
      FROM $data
    ),
    _ifg_groups AS (
      SELECT _intervals_unparen!($group_cols), min(ts) AS first_ts,
        max(ts + dur) AS last_end
      FROM _ifg_data
      GROUP BY _intervals_unparen!($group_cols)
    ),
    _ifg_all AS (
      SELECT ts, dur, _intervals_unparen!($group_cols),
        _intervals_unparen!($data_cols)
      FROM _ifg_data
      UNION ALL
      SELECT bnd.start_ts, grp.first_ts - bnd.start_ts,
        _intervals_unparen!($group_cols),
        __intrinsic_token_apply!(_ifg_null, $data_cols)
      FROM _ifg_groups AS grp, _ifg_bounds AS bnd
      UNION ALL
      SELECT grp.last_end, bnd.end_ts - grp.last_end,
        _intervals_unparen!($group_cols),
        __intrinsic_token_apply!(_ifg_null, $data_cols)
      FROM _ifg_groups AS grp, _ifg_bounds AS bnd
      UNION ALL
      SELECT bnd.start_ts, bnd.end_ts - bnd.start_ts,
        _intervals_unparen!($group_cols),
        __intrinsic_token_apply!(_ifg_null, $data_cols)
      FROM _ifg_groups AS grp, _ifg_bounds AS bnd
      WHERE grp.first_ts IS NULL AND grp.last_end IS NULL
      UNION ALL
      SELECT bnd.start_ts, bnd.end_ts - bnd.start_ts,
        __intrinsic_token_apply!(_ifg_null, $group_cols),
        __intrinsic_token_apply!(_ifg_null, $data_cols)
      FROM _ifg_bounds AS bnd
      WHERE NOT EXISTS (SELECT 1 FROM _ifg_data)
      UNION ALL
      SELECT ts + dur,
        lead(ts) OVER (PARTITION BY _intervals_unparen!($group_cols)
          ORDER BY ts) - (ts + dur),
        _intervals_unparen!($group_cols),
        __intrinsic_token_apply!(_ifg_null, $data_cols)
      FROM _ifg_data
    )
  SELECT * FROM _ifg_all
  WHERE ifnull(dur, 0) > 0
  ORDER BY ts
);
