-- intervals.overlap: how many intervals overlap over time, merging
-- overlapping intervals, and flattening nested intervals.

INCLUDE PERFETTO MODULE intervals.intersect;

-- Bare columns of a parenthesised column list: (a, b) -> a, b.
CREATE PERFETTO MACRO _intervals_unparen(cols ColumnNameList)
RETURNS _ProjectionFragment AS
__intrinsic_token_apply!(_ii_same, $cols);

-- The number of intervals (ts_column, dur_column) of segments open from
-- each ts until the next row's ts. Columns: ts, value. Open intervals
-- (dur -1) never close.
CREATE PERFETTO MACRO intervals_overlap_count(
  segments TableOrSubquery,
  ts_column ColumnName,
  dur_column ColumnName
)
RETURNS TableOrSubquery AS
(
  WITH
    _ioc_steps AS (
      SELECT $ts_column AS ts, 1 AS step FROM $segments
      UNION ALL
      SELECT $ts_column + $dur_column AS ts, -1 AS step FROM $segments
      WHERE $dur_column != -1
    ),
    _ioc_net AS (SELECT ts, sum(step) AS step FROM _ioc_steps GROUP BY ts)
  SELECT ts, sum(step) OVER (ORDER BY ts ROWS UNBOUNDED PRECEDING) AS value
  FROM _ioc_net
  ORDER BY ts
);

-- intervals_overlap_count! counted separately for each value of
-- group_column. Columns: ts, value, group_name.
CREATE PERFETTO MACRO intervals_overlap_count_by_group(
  segments TableOrSubquery,
  ts_column ColumnName,
  dur_column ColumnName,
  group_column ColumnName
)
RETURNS TableOrSubquery AS
(
  WITH
    _ioc_steps AS (
      SELECT $ts_column AS ts, 1 AS step, $group_column AS group_name
      FROM $segments
      UNION ALL
      SELECT $ts_column + $dur_column AS ts, -1 AS step,
        $group_column AS group_name
      FROM $segments
      WHERE $dur_column != -1
    ),
    _ioc_net AS (
      SELECT ts, sum(step) AS step, group_name
      FROM _ioc_steps
      GROUP BY ts, group_name
    )
  SELECT
    ts,
    sum(step) OVER (PARTITION BY group_name ORDER BY ts
      ROWS UNBOUNDED PRECEDING) AS value,
    group_name
  FROM _ioc_net
  ORDER BY ts
);

-- 1 when some two closed intervals (ts, dur) of the table overlap, else 0.
CREATE PERFETTO MACRO _intervals_overlap_in_table(intervals TableOrSubquery)
RETURNS Expr AS
(
  SELECT EXISTS(
    SELECT 1
    FROM (
      SELECT ts + dur AS end_ts, lead(ts) OVER (ORDER BY ts) AS next_ts
      FROM $intervals
      WHERE dur != -1
    )
    WHERE end_ts > next_ts
  ) AS has_overlaps
);

-- Roots (id, ts, dur) and their descendants (root_id, id, parent_id, ts,
-- dur) in the one shape _intervals_flatten! reads: a row per descendant
-- with its root's root_id, root_ts, root_dur, and a row with NULL id,
-- parent_id, ts, dur for each root without descendants. Intervals
-- without duration are left out.
CREATE PERFETTO MACRO _intervals_merge_root_and_children(
  roots_table TableOrSubquery,
  children_table TableOrSubquery
)
RETURNS TableOrSubquery AS
(
  WITH
    _imr_roots AS (
      SELECT id AS root_id, ts AS root_ts, dur AS root_dur
      FROM ($roots_table)
      WHERE dur > 0
    ),
    _imr_children AS (SELECT * FROM ($children_table) WHERE dur > 0)
  SELECT r.root_id, r.root_ts, r.root_dur, c.id, c.parent_id, c.ts, c.dur
  FROM _imr_children AS c
  JOIN _imr_roots AS r ON r.root_id = c.root_id
  UNION ALL
  SELECT r.root_id, r.root_ts, r.root_dur, NULL AS id, NULL AS parent_id,
    NULL AS ts, NULL AS dur
  FROM _imr_roots AS r
  WHERE r.root_id NOT IN (
    SELECT parent_id FROM _imr_children WHERE parent_id IS NOT NULL)
);

-- As _intervals_merge_root_and_children!, with each child's root found by
-- intersecting it with the roots (within equal key), the child cut to
-- its root. Columns: ts, dur, id, parent_id, root_id, root_ts, root_dur,
-- key.
CREATE PERFETTO MACRO _intervals_merge_root_and_children_by_intersection(
  roots_table TableOrSubquery,
  children_table TableOrSubquery,
  key ColumnName
)
RETURNS TableOrSubquery AS
(
  WITH
    _imi_roots AS (SELECT * FROM $roots_table WHERE dur > 0),
    _imi_children AS (SELECT * FROM $children_table WHERE dur > 0)
  SELECT
    ii.ts,
    ii.dur,
    c.id,
    ifnull(c.parent_id, ii.id_1) AS parent_id,
    r.id AS root_id,
    r.ts AS root_ts,
    r.dur AS root_dur,
    ii.$key
  FROM _interval_intersect!((_imi_children, _imi_roots), ($key)) AS ii
  JOIN _imi_children AS c ON c.id = ii.id_0
  JOIN _imi_roots AS r ON r.id = ii.id_1
);

-- Cuts each root's time into pieces, each given to the deepest interval
-- open in it: the root's own time where no descendant is open, else the
-- innermost descendant. Descendants must lie within their ancestors.
-- Reads _intervals_merge_root_and_children!'s shape. Columns: root_id,
-- id, ts, dur.
CREATE PERFETTO MACRO _intervals_flatten(
  children_with_roots_table TableOrSubquery
)
RETURNS TableOrSubquery AS
(
  WITH
    _if_in AS (
      SELECT * FROM ($children_with_roots_table)
      WHERE root_dur > 0 AND (dur IS NULL OR dur > 0)
    ),
    -- At a child's start the child takes over; at its end, its parent
    -- (the root when it has none). At one instant, a start wins over an
    -- end; among starts the latest child, among ends the earliest.
    _if_events AS (
      SELECT root_id, ts, id, 1 AS is_start, id AS rank
      FROM _if_in WHERE id IS NOT NULL
      UNION ALL
      SELECT root_id, ts + dur AS ts, ifnull(parent_id, root_id) AS id,
        0 AS is_start, -id AS rank
      FROM _if_in WHERE id IS NOT NULL
    ),
    _if_points AS (
      SELECT root_id, ts, id
      FROM (
        SELECT root_id, ts, id, row_number() OVER (
          PARTITION BY root_id, ts ORDER BY is_start DESC, rank DESC) AS rn
        FROM _if_events
      )
      WHERE rn = 1
    ),
    _if_middle AS (
      SELECT * FROM (
        SELECT root_id, id, ts,
          lead(ts) OVER (PARTITION BY root_id ORDER BY ts) - ts AS dur
        FROM _if_points
      )
      WHERE dur > 0
    ),
    _if_roots AS (
      SELECT root_id, min(root_ts) AS root_ts, min(root_dur) AS root_dur,
        max(id IS NULL) AS childless
      FROM _if_in
      GROUP BY root_id
    ),
    _if_span AS (
      SELECT root_id, min(ts) AS first_ts, max(ts + dur) AS last_end
      FROM _if_middle
      GROUP BY root_id
    )
  SELECT root_id, id, ts, dur FROM _if_middle
  UNION ALL
  SELECT r.root_id, r.root_id AS id, r.root_ts AS ts, s.first_ts - r.root_ts AS dur
  FROM _if_roots AS r JOIN _if_span AS s USING (root_id)
  WHERE s.first_ts > r.root_ts
  UNION ALL
  SELECT r.root_id, r.root_id AS id, s.last_end AS ts,
    r.root_ts + r.root_dur - s.last_end AS dur
  FROM _if_roots AS r JOIN _if_span AS s USING (root_id)
  WHERE r.root_ts + r.root_dur > s.last_end
  UNION ALL
  SELECT root_id, root_id AS id, root_ts AS ts, root_dur AS dur
  FROM _if_roots
  WHERE childless
);

-- The smallest set of disjoint intervals covering the intervals (ts, dur)
-- of the table, joining intervals that overlap or whose gap is at most
-- epsilon. Columns: ts, dur.
CREATE PERFETTO MACRO interval_merge_overlapping(
  intervals TableOrSubquery,
  epsilon Expr
)
RETURNS TableOrSubquery AS
(
  WITH
    _imo_count AS (
      SELECT ts, value, lag(value, 1, 0) OVER (ORDER BY ts) AS prev_value
      FROM intervals_overlap_count!($intervals, ts, (dur + $epsilon))
    ),
    _imo_edges AS (
      SELECT ts - iif(value = 0, $epsilon, 0) AS ts, value
      FROM _imo_count
      WHERE prev_value = 0 OR value = 0
    ),
    _imo_paired AS (
      SELECT ts, value, lag(ts) OVER (ORDER BY ts) AS start_ts
      FROM _imo_edges
    )
  SELECT start_ts AS ts, ts - start_ts AS dur
  FROM _imo_paired
  WHERE value = 0
);

-- interval_merge_overlapping! (without epsilon) done separately within
-- each value of the partition columns. Columns: ts, dur, the partition
-- columns.
CREATE PERFETTO MACRO interval_merge_overlapping_partitioned(
  intervals TableOrSubquery,
  partition_columns ColumnNameList
)
RETURNS TableOrSubquery AS
(
  WITH
    _imp_reach AS (
      SELECT ts, dur, _intervals_unparen!($partition_columns),
        max(ts + dur) OVER (
          PARTITION BY _intervals_unparen!($partition_columns) ORDER BY ts
          ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS reach
      FROM $intervals
      WHERE dur >= 0
    ),
    _imp_grouped AS (
      SELECT *,
        sum(iif(reach IS NULL OR ts > reach, 1, 0)) OVER (
          PARTITION BY _intervals_unparen!($partition_columns) ORDER BY ts)
          AS grp
      FROM _imp_reach
    )
  SELECT min(ts) AS ts, max(ts + dur) - min(ts) AS dur,
    _intervals_unparen!($partition_columns)
  FROM _imp_grouped
  GROUP BY _intervals_unparen!($partition_columns), grp
);
