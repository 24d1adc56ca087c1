-- linux.cpu.idle_stats: time spent in each idle state, per CPU.

INCLUDE PERFETTO MODULE linux.cpu.idle;

-- Per CPU and idle state (the kernel's state + 1, so C-state numbers
-- start at 1): how often it was entered, total and mean time in it, and
-- its share of the CPU's time covered by idle counters, in percent.
CREATE PERFETTO TABLE cpu_idle_stats(
  cpu LONG,
  state LONG,
  count LONG,
  dur DURATION,
  avg_dur DURATION,
  idle_percent DOUBLE
)
AS
WITH
  per_state AS (
    SELECT
      cpu,
      idle + 1 AS state,
      COUNT(idle) AS count,
      SUM(dur) AS dur,
      SUM(dur) / COUNT(idle) AS avg_dur
    FROM cpu_idle_counters
    WHERE idle >= 0
    GROUP BY cpu, idle
  ),
  per_cpu AS (
    SELECT cpu, SUM(dur) AS dur
    FROM cpu_idle_counters
    GROUP BY cpu
  )
SELECT s.cpu, s.state, s.count, s.dur, s.avg_dur,
  s.dur * 100.0 / c.dur AS idle_percent
FROM per_state AS s
JOIN per_cpu AS c USING (cpu);
