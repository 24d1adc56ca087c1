-- linux.cpu.utilization.process: CPU utilization and cycles of processes.

INCLUDE PERFETTO MODULE linux.cpu.utilization.general;
INCLUDE PERFETTO MODULE linux.cpu.utilization.thread_cpu;
INCLUDE PERFETTO MODULE time.conversion;

-- Utilization of the threads of process $upid (idle thread left out) in
-- each period of length $interval, as cpu_thread_utilization_per_period.
CREATE PERFETTO FUNCTION cpu_process_utilization_per_period(
  interval LONG,
  upid JOINID(process.id)
)
RETURNS TABLE(
  ts TIMESTAMP,
  utilization DOUBLE,
  unnormalized_utilization DOUBLE
)
AS
WITH
  runs AS (
    SELECT s.ts, s.ts + s.dur AS ts_end, s.utid
    FROM sched AS s
    JOIN thread AS t USING (utid)
    JOIN process AS p USING (upid)
    WHERE p.upid = $upid AND t.tid != 0
  )
SELECT * FROM _cpu_avg_utilization_per_period!($interval, runs);

-- cpu_process_utilization_per_period with one-second periods.
CREATE PERFETTO FUNCTION cpu_process_utilization_per_second(
  upid JOINID(process.id)
)
RETURNS TABLE(
  ts TIMESTAMP,
  utilization DOUBLE,
  unnormalized_utilization DOUBLE
)
AS
SELECT * FROM cpu_process_utilization_per_period(time_from_s(1), $upid);

-- cpu_cycles_per_thread_per_cpu summed over the threads and CPUs of each
-- process.
CREATE PERFETTO TABLE cpu_cycles_per_process(
  upid JOINID(process.id),
  millicycles LONG,
  megacycles LONG,
  runtime DURATION,
  min_freq LONG,
  max_freq LONG,
  avg_freq LONG
)
AS
SELECT
  t.upid,
  SUM(c.millicycles) AS millicycles,
  CAST(SUM(c.millicycles) / 1e9 AS INT) AS megacycles,
  SUM(c.runtime) AS runtime,
  MIN(c.min_freq) AS min_freq,
  MAX(c.max_freq) AS max_freq,
  CAST(SUM(c.millicycles) / (SUM(c.runtime) / 1000) AS INT) AS avg_freq
FROM cpu_cycles_per_thread_per_cpu AS c
JOIN thread AS t USING (utid)
WHERE t.upid IS NOT NULL
GROUP BY t.upid;

-- As cpu_cycles_per_process for what ran in [$ts, $ts + $dur), with the
-- awake running time (see cpu_cycles_per_thread_in_interval).
CREATE PERFETTO FUNCTION cpu_cycles_per_process_in_interval(
  ts TIMESTAMP,
  dur LONG
)
RETURNS TABLE(
  upid JOINID(process.id),
  millicycles LONG,
  megacycles LONG,
  runtime DURATION,
  awake_runtime DURATION,
  min_freq LONG,
  max_freq LONG,
  avg_freq LONG
)
AS
WITH
  spans AS (
    SELECT f.id, f.ts, f.dur, f.freq, t.upid
    FROM _cpu_freq_per_thread AS f
    JOIN thread AS t USING (utid)
  )
SELECT
  s.upid,
  CAST(SUM(k.dur * s.freq / 1000) AS INT) AS millicycles,
  CAST(SUM(k.dur * s.freq / 1000) / 1e9 AS INT) AS megacycles,
  SUM(k.dur) AS runtime,
  SUM(to_monotonic(k.ts + k.dur) - to_monotonic(k.ts))
    AS awake_runtime,
  MIN(s.freq) AS min_freq,
  MAX(s.freq) AS max_freq,
  CAST(SUM(k.dur * s.freq / 1000)
    / (SUM(IIF(s.freq IS NOT NULL, k.dur, NULL)) / 1000) AS INT) AS avg_freq
FROM _cpu_util_clip!($ts, $dur, spans) AS k
JOIN spans AS s USING (id)
GROUP BY s.upid;

-- Awake running time of each process in [$ts, $ts + $dur) and its share
-- of the interval's awake time in percent (see
-- cpu_thread_utilization_in_interval); rounded to 6 places.
CREATE PERFETTO FUNCTION cpu_process_utilization_in_interval(
  ts TIMESTAMP,
  dur LONG
)
RETURNS TABLE(
  upid JOINID(process.id),
  process_name STRING,
  awake_dur LONG,
  awake_utilization DOUBLE,
  awake_unnormalized_utilization DOUBLE
)
AS
SELECT
  p.upid,
  p.name AS process_name,
  SUM(c.awake_runtime) AS awake_dur,
  ROUND(SUM(c.awake_runtime) * 100.0
    / (to_monotonic($ts + $dur) - to_monotonic($ts))
    / (SELECT MAX(cpu) + 1 FROM cpu), 6) AS awake_utilization,
  ROUND(SUM(c.awake_runtime) * 100.0
    / (to_monotonic($ts + $dur) - to_monotonic($ts)), 6)
    AS awake_unnormalized_utilization
FROM cpu_cycles_per_process_in_interval($ts, $dur) AS c
JOIN process AS p USING (upid)
GROUP BY p.upid;
