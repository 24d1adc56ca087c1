-- linux.cpu.idle_time_in_state: the share of time CPUs spent in each idle
-- state, from the cumulative residency counters (track type
-- cpu_idle_state, dimensions cpu and state), as upstream's module of that
-- name. Between two samples of a counter the residency gained over the
-- time elapsed (in us) is the state's percentage; what no idle state took
-- is reported as the active state C0.

INCLUDE PERFETTO MODULE time.conversion;

CREATE PERFETTO TABLE linux_per_cpu_idle_time_in_state_counters(
  ts TIMESTAMP,
  machine_id JOINID(machine.id),
  state STRING,
  cpu LONG,
  idle_percentage DOUBLE,
  total_residency DOUBLE,
  time_slice LONG
)
AS
WITH
  samples AS (
    SELECT
      c.ts,
      c.track_id,
      t.machine_id,
      extract_arg(t.dimension_arg_set_id, 'state') AS state,
      extract_arg(t.dimension_arg_set_id, 'cpu') AS cpu,
      c.value - lag(c.value) OVER w AS total_residency,
      time_to_us(c.ts - lag(c.ts) OVER w) AS time_slice
    FROM counter AS c
    JOIN track AS t ON c.track_id = t.id
    WHERE t.type = 'cpu_idle_state'
    WINDOW w AS (PARTITION BY c.track_id ORDER BY c.ts)
  ),
  deltas AS (SELECT * FROM samples WHERE time_slice IS NOT NULL)
SELECT
  ts, machine_id, state, cpu,
  min(100, total_residency / time_slice * 100) AS idle_percentage,
  total_residency,
  time_slice
FROM deltas
UNION ALL
SELECT
  ts, machine_id, 'C0' AS state, cpu,
  max(0, (time_slice - sum(total_residency)) / time_slice * 100)
    AS idle_percentage,
  max(0, time_slice - sum(total_residency)) AS total_residency,
  time_slice
FROM deltas
GROUP BY ts, cpu, machine_id;

-- The same over all CPUs of a machine: residency and time summed over
-- the CPUs sampled at that time.
CREATE PERFETTO TABLE linux_cpu_idle_time_in_state_counters(
  ts TIMESTAMP,
  machine_id JOINID(machine.id),
  state STRING,
  idle_percentage DOUBLE,
  total_residency DOUBLE,
  time_slice LONG
)
AS
SELECT
  ts,
  machine_id,
  state,
  min(100, sum(total_residency) / sum(time_slice) * 100) AS idle_percentage,
  sum(total_residency) AS total_residency,
  sum(time_slice) AS time_slice
FROM linux_per_cpu_idle_time_in_state_counters
GROUP BY ts, state, machine_id;
