-- wattson.tpu.freq_idle: Wattson TPU frequency, as upstream's module of that name.
--
-- faro has no Wattson power model: the module exists with upstream's
-- names and columns so that clients including it (the Perfetto UI's
-- plugins) get no rows rather than an error.

CREATE PERFETTO TABLE _tpu_freq(
  ts TIMESTAMP,
  dur DURATION,
  freq LONG,
  cluster LONG
)
AS
SELECT
  NULL AS ts,
  NULL AS dur,
  NULL AS freq,
  NULL AS cluster
WHERE 0;
