-- linux.cpu.utilization.general: building blocks for CPU utilization:
-- fixed-size periods of the trace and scheduling slices with the CPU
-- frequency they ran at.

INCLUDE PERFETTO MODULE linux.cpu.frequency;

-- Start of the period of length $size that holds $ts.
CREATE PERFETTO FUNCTION _partition_start(ts TIMESTAMP, size LONG)
RETURNS LONG
AS
SELECT $ts - $ts % $size;

-- How many periods of length $size it takes to cover the trace.
CREATE PERFETTO FUNCTION _partition_count(size LONG)
RETURNS LONG
AS
SELECT (_partition_start((SELECT end_ts FROM trace_bounds), $size)
  - _partition_start((SELECT start_ts FROM trace_bounds), $size)) / $size + 1;

-- The periods of length $size from the one holding the trace's start to
-- the one holding its end; never more than sched has rows.
CREATE PERFETTO FUNCTION _partitions(size LONG)
RETURNS TABLE(ts TIMESTAMP, ts_end LONG)
AS
WITH RECURSIVE
  n(i) AS (
    SELECT 0
    WHERE MIN(_partition_count($size), (SELECT COUNT(*) FROM sched)) > 0
    UNION ALL
    SELECT i + 1 FROM n
    WHERE i + 1 < MIN(_partition_count($size), (SELECT COUNT(*) FROM sched))
  )
SELECT
  _partition_start((SELECT start_ts FROM trace_bounds), $size) + i * $size
    AS ts,
  _partition_start((SELECT start_ts FROM trace_bounds), $size) + (i + 1) * $size
    AS ts_end
FROM n;

-- Each interval of $intervals (ts, ts_end) in the period of $partitions
-- (ts, ts_end) where it starts, cut at the period's end.
CREATE PERFETTO MACRO _interval_partitions(
  partitions TableOrSubquery,
  intervals TableOrSubquery
)
RETURNS TableOrSubquery
AS (
  SELECT
    p.ts AS partition_ts,
    MIN(i.ts_end, p.ts_end) AS ts_end,
    MAX(i.ts, p.ts) AS ts
  FROM $intervals AS i
  JOIN $partitions AS p ON p.ts <= i.ts AND i.ts < p.ts_end
);

-- Utilization in each period of length $interval of the slices of
-- $sched_table (ts, ts_end): running time over the period's length
-- (unnormalized_utilization), and that over the number of CPUs
-- (utilization). Rows: ts, utilization, unnormalized_utilization.
CREATE PERFETTO MACRO _cpu_avg_utilization_per_period(
  interval Expr,
  sched_table TableOrSubquery
)
RETURNS TableOrSubquery
AS (
  SELECT
    partition_ts AS ts,
    SUM(ts_end - ts) / (CAST($interval AS REAL)
      * (SELECT MAX(cpu) + 1 FROM sched)) AS utilization,
    SUM(ts_end - ts) / CAST($interval AS REAL) AS unnormalized_utilization
  FROM _interval_partitions!(_partitions($interval), $sched_table)
  GROUP BY 1
);

CREATE PERFETTO VIEW _cpu_freq_for_metrics AS
SELECT id, ts, dur, cpu, ucpu, freq
FROM cpu_frequency_counters
WHERE freq IS NOT NULL;

-- Scheduling slices of real threads (not the idle one) that ended.
CREATE PERFETTO VIEW _sched_without_id AS
SELECT ts, dur, utid, ucpu
FROM sched
WHERE utid NOT IN (SELECT utid FROM thread WHERE tid = 0)
  AND dur != -1;

-- Scheduling slices cut where the CPU's frequency changed; freq is NULL
-- where it is unknown.
CREATE VIRTUAL TABLE _cpu_freq_per_thread_span_join USING SPAN_LEFT_JOIN(
  _sched_without_id PARTITIONED ucpu,
  _cpu_freq_for_metrics PARTITIONED ucpu);

CREATE PERFETTO TABLE _cpu_freq_per_thread_no_id AS
SELECT ROW_NUMBER() OVER () - 1 AS _auto_id, *
FROM _cpu_freq_per_thread_span_join;

-- Finds the spans of a thread around a time (slice intersections).
CREATE PERFETTO INDEX _cpu_freq_per_thread_utid_ts
ON _cpu_freq_per_thread_no_id(utid, ts);

-- id is the span's own; counter_id the frequency counter's.
CREATE PERFETTO VIEW _cpu_freq_per_thread AS
SELECT _auto_id AS id, ts, dur, ucpu, cpu, utid, freq, id AS counter_id
FROM _cpu_freq_per_thread_no_id;

-- The part of each interval of $t (id, ts, dur) inside [$ts, $ts + $dur):
-- rows id, ts, dur. Intervals overlap when they share time; an instant
-- (dur 0) overlaps an interval it falls in, or an instant at its time.
CREATE PERFETTO MACRO _cpu_util_clip(ts Expr, dur Expr, t TableOrSubquery)
RETURNS TableOrSubquery
AS (
  SELECT
    c.id,
    MAX(c.ts, $ts) AS ts,
    MIN(c.ts + c.dur, $ts + $dur) - MAX(c.ts, $ts) AS dur
  FROM $t AS c
  WHERE CASE
    WHEN c.dur = 0 AND $dur = 0 THEN c.ts = $ts
    WHEN $dur = 0 THEN c.ts <= $ts AND $ts < c.ts + c.dur
    WHEN c.dur = 0 THEN $ts <= c.ts AND c.ts < $ts + $dur
    ELSE c.ts < $ts + $dur AND $ts < c.ts + c.dur
  END
);

-- Pairs of intervals of $a and $b (id, ts, dur, utid) of the same thread
-- that overlap (as for _cpu_util_clip), with their common part: rows ts,
-- dur, id_0 (of $a), id_1 (of $b), utid.
CREATE PERFETTO MACRO _cpu_util_intersect_by_utid(
  a TableOrSubquery,
  b TableOrSubquery
)
RETURNS TableOrSubquery
AS (
  SELECT
    MAX(x.ts, y.ts) AS ts,
    MIN(x.ts + x.dur, y.ts + y.dur) - MAX(x.ts, y.ts) AS dur,
    x.id AS id_0,
    y.id AS id_1,
    x.utid
  FROM $a AS x
  JOIN $b AS y ON y.utid = x.utid
  -- No interval of $b starting before this can reach x: lets an index
  -- on (utid, ts) bound the search.
    AND y.ts BETWEEN x.ts - (SELECT MAX(dur) FROM $b) AND x.ts + x.dur
  WHERE CASE
    WHEN x.dur = 0 AND y.dur = 0 THEN x.ts = y.ts
    WHEN x.dur = 0 THEN y.ts <= x.ts AND x.ts < y.ts + y.dur
    WHEN y.dur = 0 THEN x.ts <= y.ts AND y.ts < x.ts + x.dur
    ELSE y.ts < x.ts + x.dur AND x.ts < y.ts + y.dur
  END
);

