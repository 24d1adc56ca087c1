-- linux.cpu.utilization.thread_cpu: CPU cycles of each thread on each CPU
-- (from sched_switch and cpu_frequency).

INCLUDE PERFETTO MODULE linux.cpu.utilization.general;

-- Per thread and CPU: cycles (running time times frequency; millicycles
-- and megacycles), running time, and the lowest, highest and mean
-- frequency in kHz.
CREATE PERFETTO TABLE cpu_cycles_per_thread_per_cpu(
  utid JOINID(thread.id),
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
  f.utid,
  f.ucpu,
  c.cpu,
  CAST(SUM(f.dur * f.freq / 1000) AS INT) AS millicycles,
  CAST(SUM(f.dur * f.freq / 1000) / 1e9 AS INT) AS megacycles,
  SUM(f.dur) AS runtime,
  MIN(f.freq) AS min_freq,
  MAX(f.freq) AS max_freq,
  CAST(SUM(f.dur * f.freq / 1000) / (SUM(f.dur) / 1000) AS INT) AS avg_freq
FROM _cpu_freq_per_thread AS f
JOIN cpu AS c USING (ucpu)
GROUP BY f.utid, f.ucpu;

-- As cpu_cycles_per_thread_per_cpu, counting only what ran in
-- [$ts, $ts + $dur).
CREATE PERFETTO FUNCTION cpu_cycles_per_thread_per_cpu_in_interval(
  ts TIMESTAMP,
  dur LONG
)
RETURNS TABLE(
  utid JOINID(thread.id),
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
  f.utid,
  f.ucpu,
  c.cpu,
  CAST(SUM(k.dur * f.freq / 1000) AS INT) AS millicycles,
  CAST(SUM(k.dur * f.freq / 1000) / 1e9 AS INT) AS megacycles,
  SUM(k.dur) AS runtime,
  MIN(f.freq) AS min_freq,
  MAX(f.freq) AS max_freq,
  CAST(SUM(k.dur * f.freq / 1000)
    / (SUM(IIF(f.freq IS NOT NULL, k.dur, NULL)) / 1000) AS INT) AS avg_freq
FROM _cpu_util_clip!($ts, $dur, _cpu_freq_per_thread) AS k
JOIN _cpu_freq_per_thread AS f USING (id)
JOIN cpu AS c USING (ucpu)
GROUP BY f.utid, f.ucpu;
