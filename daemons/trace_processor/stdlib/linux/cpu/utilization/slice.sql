-- linux.cpu.utilization.slice: CPU cycles spent in each thread slice.

INCLUDE PERFETTO MODULE linux.cpu.utilization.general;

-- Slices of thread tracks with their thread and process (what
-- slices.with_context's thread_slice gives).
CREATE PERFETTO VIEW _cpu_util_thread_slice AS
SELECT s.id, s.ts, s.dur, s.name, t.utid, t.name AS thread_name, t.upid,
  p.name AS process_name
FROM slice AS s
JOIN thread_track AS tt ON tt.id = s.track_id
JOIN thread AS t ON t.utid = tt.utid
LEFT JOIN process AS p ON p.upid = t.upid;

-- Cycles run by each slice's thread during the slice: NULL when the
-- frequency is unknown for any part of the time the thread ran in it.
CREATE PERFETTO TABLE cpu_cycles_per_thread_slice(
  id JOINID(slice.id),
  name STRING,
  utid JOINID(thread.id),
  thread_name STRING,
  upid JOINID(process.id),
  process_name STRING,
  millicycles LONG,
  megacycles LONG
)
AS
WITH
  per_slice AS (
    SELECT
      ii.id_0 AS slice_id,
      SUM(ii.dur) AS dur,
      CAST(SUM(ii.dur * f.freq / 1000) AS INT) AS millicycles,
      CAST(SUM(ii.dur * f.freq / 1000) / 1e9 AS INT) AS megacycles
    FROM _cpu_util_intersect_by_utid!(
      (SELECT * FROM _cpu_util_thread_slice WHERE dur > 0 AND utid > 0),
      _cpu_freq_per_thread) AS ii
    JOIN _cpu_freq_per_thread AS f ON f.id = ii.id_1
    WHERE f.freq IS NOT NULL
    GROUP BY ii.id_0
  )
SELECT s.id, s.name, s.utid, s.thread_name, s.upid, s.process_name,
  c.millicycles, c.megacycles
FROM _cpu_util_thread_slice AS s
LEFT JOIN per_slice AS c ON c.slice_id = s.id AND c.dur = s.dur;

-- As cpu_cycles_per_thread_slice for the parts of slices inside
-- [$ts, $ts + $dur); only slices that reach into it.
CREATE PERFETTO FUNCTION cpu_cycles_per_thread_slice_in_interval(
  ts TIMESTAMP,
  dur DURATION
)
RETURNS TABLE(
  id JOINID(slice.id),
  name STRING,
  utid JOINID(thread.id),
  thread_name STRING,
  upid JOINID(process.id),
  process_name STRING,
  millicycles LONG,
  megacycles LONG
)
AS
WITH
  cut AS (
    SELECT k.id, k.ts, k.dur, s.name, s.utid, s.thread_name, s.upid,
      s.process_name
    FROM _cpu_util_clip!($ts, $dur,
      (SELECT * FROM _cpu_util_thread_slice WHERE dur > 0 AND utid > 0)) AS k
    JOIN _cpu_util_thread_slice AS s USING (id)
  ),
  per_slice AS (
    SELECT
      ii.id_0 AS slice_id,
      SUM(ii.dur) AS dur,
      CAST(SUM(ii.dur * f.freq / 1000) AS INT) AS millicycles,
      CAST(SUM(ii.dur * f.freq / 1000) / 1e9 AS INT) AS megacycles
    FROM _cpu_util_intersect_by_utid!(cut, _cpu_freq_per_thread) AS ii
    JOIN _cpu_freq_per_thread AS f ON f.id = ii.id_1
    WHERE f.freq IS NOT NULL
    GROUP BY ii.id_0
  )
SELECT s.id, s.name, s.utid, s.thread_name, s.upid, s.process_name,
  c.millicycles, c.megacycles
FROM cut AS s
LEFT JOIN per_slice AS c ON c.slice_id = s.id AND c.dur = s.dur;
