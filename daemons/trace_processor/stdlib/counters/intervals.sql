-- counters.intervals: counter samples turned into intervals during which a
-- track holds one value.

-- Intervals of each counter track of $counter_table (columns id, ts,
-- track_id, value), each sample lasting until the next kept sample of its
-- track, the last one until the end of the trace. In a run of equal
-- values only the first two samples and the last one are kept: the rest
-- add nothing, and keeping the run's last sample lets deltas drop back.
-- The last one is not kept when the run ends the track or starts at 0.
-- Rows: id, ts, dur, track_id, value, next_value (of the next kept
-- sample), delta_value (from the previous kept sample).
CREATE PERFETTO MACRO counter_leading_intervals(
  counter_table TableOrSubquery
)
RETURNS TableOrSubquery
AS (
  WITH
    _cli_src AS (
      SELECT id, ts, track_id, CAST(IFNULL(value, 0) AS REAL) AS value
      FROM $counter_table
    ),
    _cli_breaks AS (
      SELECT id, ts, track_id, value,
        IIF(LAG(value) OVER (PARTITION BY track_id ORDER BY ts, id) = value,
          0, 1) AS new_run
      FROM _cli_src
    ),
    _cli_runs AS (
      SELECT id, ts, track_id, value,
        SUM(new_run) OVER (PARTITION BY track_id ORDER BY ts, id
          ROWS UNBOUNDED PRECEDING) AS run
      FROM _cli_breaks
    ),
    _cli_pos AS (
      SELECT id, ts, track_id, value, run,
        ROW_NUMBER() OVER (PARTITION BY track_id, run ORDER BY ts, id) AS pos,
        COUNT(*) OVER (PARTITION BY track_id, run) AS run_len,
        MAX(run) OVER (PARTITION BY track_id) AS last_run
      FROM _cli_runs
    ),
    _cli_kept AS (
      SELECT id, ts, track_id, value
      FROM _cli_pos
      WHERE pos <= 2 OR (pos = run_len AND run < last_run AND ts != 0)
    )
  SELECT
    id,
    ts,
    IFNULL(LEAD(ts) OVER _cli_w, (SELECT end_ts FROM trace_bounds)) - ts
      AS dur,
    track_id,
    value,
    LEAD(value) OVER _cli_w AS next_value,
    value - LAG(value) OVER _cli_w AS delta_value
  FROM _cli_kept
  WINDOW _cli_w AS (PARTITION BY track_id ORDER BY ts, id)
);
