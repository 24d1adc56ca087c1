-- intervals.intersect: intersections of tables of intervals (id, ts, dur).
-- Two intervals intersect where both cover some time: [s, e) and [s', e')
-- give [max(s, s'), min(e, e')) when that is not empty; an interval of
-- duration 0 at t counts as covering t, so it intersects the intervals
-- that contain t (start included, end excluded) and other points at t.
-- Rows with a negative duration (still open) take no part.

-- Pieces the list macros below apply to each listed name.
CREATE PERFETTO MACRO _ii_input(name ColumnName, t TableOrSubquery)
RETURNS _ProjectionFragment AS
$name AS (SELECT * FROM $t WHERE dur >= 0);

CREATE PERFETTO MACRO _ii_select_a(col ColumnName)
RETURNS _ProjectionFragment AS
a.$col AS $col;

CREATE PERFETTO MACRO _ii_same(col ColumnName)
RETURNS _ProjectionFragment AS
$col;

CREATE PERFETTO MACRO _ii_equal(col ColumnName)
RETURNS Expr AS
a.$col = b.$col;

-- The intersections of the intervals of two tables, each with columns
-- id, ts, dur and the partition columns: pairs intersect only when their
-- partition columns are equal. Columns: ts, dur, id_0 (first table's
-- id), id_1 (second table's id), then the partition columns.
-- Example: _interval_intersect!((slices, states), (utid)).
CREATE PERFETTO MACRO _interval_intersect(
  tabs _TableNameList,
  agg_columns ColumnNameList
)
RETURNS TableOrSubquery AS
(
  WITH __intrinsic_token_apply!(_ii_input, (_ii_in0, _ii_in1), $tabs)
  SELECT
    max(a.ts, b.ts) AS ts,
    min(a.ts + a.dur, b.ts + b.dur) - max(a.ts, b.ts) AS dur,
    a.id AS id_0,
    b.id AS id_1
    __intrinsic_token_apply_prefix!(_ii_select_a, $agg_columns)
  FROM _ii_in0 AS a
  JOIN _ii_in1 AS b
    ON b.ts <= a.ts + a.dur AND a.ts <= b.ts + b.dur
    __intrinsic_token_apply_and_prefix!(_ii_equal, $agg_columns)
  WHERE (a.dur = 0 OR a.ts + a.dur > max(a.ts, b.ts))
    AND (b.dur = 0 OR b.ts + b.dur > max(a.ts, b.ts))
);

-- The parts of t's intervals (id, ts, dur) within [ts, ts + dur).
-- Columns: id, ts, dur.
CREATE PERFETTO MACRO _interval_intersect_single(
  ts Expr,
  dur Expr,
  t TableOrSubquery
)
RETURNS TableOrSubquery AS
(
  SELECT id_0 AS id, ts, dur
  FROM _interval_intersect!(
    ($t, (SELECT 0 AS id, $ts AS ts, $dur AS dur)), ())
);

-- t's columns id_col, ts_col, dur_col named id, ts, dur, with the
-- partition columns.
CREATE PERFETTO MACRO _interval_rename_cols(
  tab TableOrSubquery,
  agg_columns ColumnNameList,
  id_col ColumnName,
  ts_col ColumnName,
  dur_col ColumnName
)
RETURNS TableOrSubquery AS
(
  SELECT $id_col AS id, $ts_col AS ts, $dur_col AS dur
    __intrinsic_token_apply_prefix!(_ii_same, $agg_columns)
  FROM $tab
);

-- _interval_intersect! of two tables whose id, ts and dur columns have
-- other names.
CREATE PERFETTO MACRO _interval_intersect_with_col_names(
  tab1 TableOrSubquery,
  id_col1 ColumnName,
  ts_col1 ColumnName,
  dur_col1 ColumnName,
  tab2 TableOrSubquery,
  id_col2 ColumnName,
  ts_col2 ColumnName,
  dur_col2 ColumnName,
  agg_columns ColumnNameList
)
RETURNS TableOrSubquery AS
_interval_intersect!(
  (
    _interval_rename_cols!($tab1, $agg_columns, $id_col1, $ts_col1, $dur_col1),
    _interval_rename_cols!($tab2, $agg_columns, $id_col2, $ts_col2, $dur_col2)
  ),
  $agg_columns
);

-- Cuts the time the intervals (id, ts, dur) span at every start and end,
-- numbering the pieces from 1 (group_id). For each piece, a row per
-- interval covering it (interval_ends_at_ts 0), and a row per interval
-- ending where the piece starts (interval_ends_at_ts 1; the last piece
-- has duration 0). Columns: ts, dur, group_id, id, interval_ends_at_ts.
CREATE PERFETTO MACRO interval_self_intersect(intervals TableOrSubquery)
RETURNS TableOrSubquery AS
(
  WITH
    _isi_in AS (SELECT id, ts, dur FROM $intervals),
    _isi_points AS (
      SELECT ts FROM _isi_in
      UNION
      SELECT ts + dur AS ts FROM _isi_in
    ),
    _isi_pieces AS (
      SELECT
        row_number() OVER (ORDER BY ts) AS id,
        ts,
        ifnull(lead(ts) OVER (ORDER BY ts) - ts, 0) AS dur
      FROM _isi_points
    )
  SELECT p.ts, p.dur, p.id AS group_id, i.id, FALSE AS interval_ends_at_ts
  FROM _isi_pieces AS p
  JOIN _isi_in AS i ON i.ts <= p.ts AND p.ts + p.dur <= i.ts + i.dur
  WHERE p.dur > 0
  UNION ALL
  SELECT p.ts, p.dur, p.id AS group_id, e.id, TRUE AS interval_ends_at_ts
  FROM (SELECT DISTINCT id, ts + dur AS ts FROM _isi_in) AS e
  JOIN _isi_pieces AS p ON p.ts = e.ts
);
