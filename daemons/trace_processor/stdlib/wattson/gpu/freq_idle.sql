-- wattson.gpu.freq_idle: Wattson GPU states, as upstream's module of that name.
--
-- faro has no Wattson power model: the module exists with upstream's
-- names and columns so that clients including it (the Perfetto UI's
-- plugins) get no rows rather than an error.

CREATE PERFETTO TABLE _gpu_power_state(
  ts TIMESTAMP,
  dur DURATION,
  power_state LONG
)
AS
SELECT
  NULL AS ts,
  NULL AS dur,
  NULL AS power_state
WHERE 0;
