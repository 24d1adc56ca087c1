-- linux.cpu.utilization.thread: CPU utilization and cycles of threads.

INCLUDE PERFETTO MODULE linux.cpu.utilization.general;
INCLUDE PERFETTO MODULE linux.cpu.utilization.thread_cpu;
INCLUDE PERFETTO MODULE time.conversion;

-- Utilization of thread $utid in each period of length $interval (see
-- _cpu_avg_utilization_per_period; slices count in the period they
-- start in, so the first and last periods may come out low).
CREATE PERFETTO FUNCTION cpu_thread_utilization_per_period(
  interval LONG,
  utid JOINID(thread.id)
)
RETURNS TABLE(
  ts TIMESTAMP,
  utilization DOUBLE,
  unnormalized_utilization DOUBLE
)
AS
WITH
  runs AS (
    SELECT ts, ts + dur AS ts_end, utid FROM sched WHERE utid = $utid
  )
SELECT * FROM _cpu_avg_utilization_per_period!($interval, runs);

-- cpu_thread_utilization_per_period with one-second periods.
CREATE PERFETTO FUNCTION cpu_thread_utilization_per_second(
  utid JOINID(thread.id)
)
RETURNS TABLE(
  ts TIMESTAMP,
  utilization DOUBLE,
  unnormalized_utilization DOUBLE
)
AS
SELECT * FROM cpu_thread_utilization_per_period(time_from_s(1), $utid);

-- cpu_cycles_per_thread_per_cpu summed over the CPUs of each thread.
CREATE PERFETTO TABLE cpu_cycles_per_thread(
  utid JOINID(thread.id),
  millicycles LONG,
  megacycles LONG,
  runtime DURATION,
  min_freq LONG,
  max_freq LONG,
  avg_freq LONG
)
AS
SELECT
  utid,
  SUM(millicycles) AS millicycles,
  CAST(SUM(millicycles) / 1e9 AS INT) AS megacycles,
  SUM(runtime) AS runtime,
  MIN(min_freq) AS min_freq,
  MAX(max_freq) AS max_freq,
  CAST(SUM(millicycles) / (SUM(runtime) / 1000) AS INT) AS avg_freq
FROM cpu_cycles_per_thread_per_cpu
GROUP BY utid;

-- As cpu_cycles_per_thread for what ran in [$ts, $ts + $dur), with the
-- running time on the monotonic clock (awake_runtime: time the CPUs were
-- suspended left out).
CREATE PERFETTO FUNCTION cpu_cycles_per_thread_in_interval(
  ts TIMESTAMP,
  dur LONG
)
RETURNS TABLE(
  utid JOINID(thread.id),
  millicycles LONG,
  megacycles LONG,
  runtime DURATION,
  awake_runtime DURATION,
  min_freq LONG,
  max_freq LONG,
  avg_freq LONG
)
AS
SELECT
  f.utid,
  CAST(SUM(k.dur * f.freq / 1000) AS INT) AS millicycles,
  CAST(SUM(k.dur * f.freq / 1000) / 1e9 AS INT) AS megacycles,
  SUM(k.dur) AS runtime,
  SUM(to_monotonic(k.ts + k.dur) - to_monotonic(k.ts)) AS awake_runtime,
  MIN(f.freq) AS min_freq,
  MAX(f.freq) AS max_freq,
  CAST(SUM(k.dur * f.freq / 1000)
    / (SUM(IIF(f.freq IS NOT NULL, k.dur, NULL)) / 1000) AS INT) AS avg_freq
FROM _cpu_util_clip!($ts, $dur, _cpu_freq_per_thread) AS k
JOIN _cpu_freq_per_thread AS f USING (id)
GROUP BY f.utid;

-- Awake running time of each thread in [$ts, $ts + $dur), and that in
-- percent of the interval's awake time, over all CPUs (awake_utilization)
-- and unnormalized (up to 100 times the CPU count); rounded to 6 places.
CREATE PERFETTO FUNCTION cpu_thread_utilization_in_interval(
  ts TIMESTAMP,
  dur LONG
)
RETURNS TABLE(
  upid JOINID(process.id),
  utid JOINID(thread.id),
  thread_name STRING,
  awake_dur LONG,
  awake_utilization DOUBLE,
  awake_unnormalized_utilization DOUBLE
)
AS
SELECT
  t.upid,
  t.utid,
  t.name AS thread_name,
  SUM(c.awake_runtime) AS awake_dur,
  ROUND(SUM(c.awake_runtime) * 100.0
    / (to_monotonic($ts + $dur) - to_monotonic($ts))
    / (SELECT MAX(cpu) + 1 FROM cpu), 6) AS awake_utilization,
  ROUND(SUM(c.awake_runtime) * 100.0
    / (to_monotonic($ts + $dur) - to_monotonic($ts)), 6)
    AS awake_unnormalized_utilization
FROM cpu_cycles_per_thread_in_interval($ts, $dur) AS c
JOIN thread AS t USING (utid)
GROUP BY t.utid;
