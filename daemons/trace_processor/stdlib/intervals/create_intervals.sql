-- intervals.create_intervals: intervals from separate tables of start and
-- end timestamps.

-- Pairs each start ts (a row of starts_table) with the first end ts of
-- ends_table strictly after it; starts with no later end are dropped.
-- Ends are not used up: several starts may close at the same end.
-- Columns: ts, dur.
CREATE PERFETTO MACRO _interval_create(
  starts_table TableOrSubquery,
  ends_table TableOrSubquery
)
RETURNS TableOrSubquery AS
(
  WITH
    _ic_marks AS (
      SELECT ts, 0 AS is_end FROM $starts_table
      UNION ALL
      SELECT ts, 1 AS is_end FROM $ends_table
    ),
    -- Ends sort before starts at the same ts, so that the ends after a
    -- start are the ones strictly later.
    _ic_next AS (
      SELECT ts, is_end,
        min(iif(is_end, ts, NULL)) OVER (ORDER BY ts, is_end DESC
          ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING) AS end_ts
      FROM _ic_marks
    )
  SELECT ts, end_ts - ts AS dur
  FROM _ic_next
  WHERE NOT is_end AND end_ts IS NOT NULL
  ORDER BY ts
);
