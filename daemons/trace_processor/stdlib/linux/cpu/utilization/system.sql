-- linux.cpu.utilization.system: utilization and cycles of the whole
-- system, akin to /proc/stat.

INCLUDE PERFETTO MODULE linux.cpu.utilization.general;
INCLUDE PERFETTO MODULE linux.cpu.utilization.thread_cpu;
INCLUDE PERFETTO MODULE time.conversion;

-- Utilization of all CPUs (idle thread left out) in each period of
-- length $interval, as cpu_thread_utilization_per_period.
CREATE PERFETTO FUNCTION cpu_utilization_per_period(interval LONG)
RETURNS TABLE(
  ts TIMESTAMP,
  utilization DOUBLE,
  unnormalized_utilization DOUBLE
)
AS
SELECT *
FROM _cpu_avg_utilization_per_period!($interval, (
  SELECT ts, ts + dur AS ts_end, utid
  FROM sched
  WHERE utid NOT IN (SELECT utid FROM thread WHERE tid = 0)
));

-- cpu_utilization_per_period with one-second periods.
CREATE PERFETTO TABLE cpu_utilization_per_second(
  ts TIMESTAMP,
  utilization DOUBLE,
  unnormalized_utilization DOUBLE
)
AS
SELECT ts, utilization, unnormalized_utilization
FROM cpu_utilization_per_period(time_from_s(1));

-- cpu_cycles_per_thread_per_cpu summed over the whole trace: one row.
CREATE PERFETTO TABLE cpu_cycles(
  millicycles LONG,
  megacycles LONG,
  runtime DURATION,
  min_freq LONG,
  max_freq LONG,
  avg_freq LONG
)
AS
SELECT
  SUM(millicycles) AS millicycles,
  CAST(SUM(millicycles) / 1e9 AS INT) AS megacycles,
  SUM(runtime) AS runtime,
  MIN(min_freq) AS min_freq,
  MAX(max_freq) AS max_freq,
  CAST(SUM(millicycles) / (SUM(runtime) / 1000) AS INT) AS avg_freq
FROM cpu_cycles_per_thread_per_cpu;

-- As cpu_cycles for what ran in [$ts, $ts + $dur), with the awake running
-- time (see cpu_cycles_per_thread_in_interval): one row.
CREATE PERFETTO FUNCTION cpu_cycles_in_interval(ts TIMESTAMP, dur LONG)
RETURNS TABLE(
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
  CAST(SUM(k.dur * f.freq / 1000) AS INT) AS millicycles,
  CAST(SUM(k.dur * f.freq / 1000) / 1e9 AS INT) AS megacycles,
  SUM(k.dur) AS runtime,
  SUM(to_monotonic(k.ts + k.dur) - to_monotonic(k.ts))
    AS awake_runtime,
  MIN(f.freq) AS min_freq,
  MAX(f.freq) AS max_freq,
  CAST(SUM(k.dur * f.freq / 1000)
    / (SUM(IIF(f.freq IS NOT NULL, k.dur, NULL)) / 1000) AS INT) AS avg_freq
FROM _cpu_util_clip!($ts, $dur, _cpu_freq_per_thread) AS k
JOIN _cpu_freq_per_thread AS f USING (id);

-- Awake running time of all threads in [$ts, $ts + $dur) and its share of
-- the interval's awake time in percent, over all CPUs and unnormalized;
-- rounded to 2 places.
CREATE PERFETTO FUNCTION cpu_utilization_in_interval(ts TIMESTAMP, dur LONG)
RETURNS TABLE(
  awake_dur LONG,
  awake_utilization DOUBLE,
  awake_unnormalized_utilization DOUBLE
)
AS
SELECT
  awake_runtime AS awake_dur,
  ROUND(awake_runtime * 100.0
    / (to_monotonic($ts + $dur) - to_monotonic($ts))
    / (SELECT MAX(cpu) + 1 FROM cpu), 2) AS awake_utilization,
  ROUND(awake_runtime * 100.0
    / (to_monotonic($ts + $dur) - to_monotonic($ts)), 2)
    AS awake_unnormalized_utilization
FROM cpu_cycles_in_interval($ts, $dur);

-- cpu_cycles_per_thread_per_cpu summed over the threads of each CPU.
CREATE PERFETTO TABLE cpu_cycles_per_cpu(
  ucpu JOINID(cpu.id),
  cpu LONG,
  millicycles LONG,
  megacycles LONG,
  runtime DURATION,
  min_freq LONG,
  max_freq LONG,
  avg_freq LONG
)
AS
SELECT
  ucpu,
  cpu,
  SUM(millicycles) AS millicycles,
  CAST(SUM(millicycles) / 1e9 AS INT) AS megacycles,
  SUM(runtime) AS runtime,
  MIN(min_freq) AS min_freq,
  MAX(max_freq) AS max_freq,
  CAST(SUM(millicycles) / (SUM(runtime) / 1000) AS INT) AS avg_freq
FROM cpu_cycles_per_thread_per_cpu
GROUP BY ucpu, cpu;

-- As cpu_cycles_per_cpu for what ran in [$ts, $ts + $dur).
CREATE PERFETTO FUNCTION cpu_cycles_per_cpu_in_interval(
  ts TIMESTAMP,
  dur LONG
)
RETURNS TABLE(
  ucpu JOINID(cpu.id),
  cpu LONG,
  millicycles LONG,
  megacycles LONG,
  runtime DURATION,
  min_freq LONG,
  max_freq LONG,
  avg_freq LONG
)
AS
SELECT
  f.ucpu,
  f.cpu,
  CAST(SUM(k.dur * f.freq / 1000) AS INT) AS millicycles,
  CAST(SUM(k.dur * f.freq / 1000) / 1e9 AS INT) AS megacycles,
  SUM(k.dur) AS runtime,
  MIN(f.freq) AS min_freq,
  MAX(f.freq) AS max_freq,
  CAST(SUM(k.dur * f.freq / 1000)
    / (SUM(IIF(f.freq IS NOT NULL, k.dur, NULL)) / 1000) AS INT) AS avg_freq
FROM _cpu_util_clip!($ts, $dur, _cpu_freq_per_thread) AS k
JOIN _cpu_freq_per_thread AS f USING (id)
GROUP BY f.ucpu;
