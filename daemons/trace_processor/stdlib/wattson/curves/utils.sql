-- wattson.curves.utils: Wattson power curves, as upstream's module of that name.
--
-- faro has no Wattson power model: the module exists with upstream's
-- names and columns so that clients including it (the Perfetto UI's
-- plugins) get no rows rather than an error.

CREATE PERFETTO TABLE _gpu_filtered_curves(
  freq_khz LONG,
  idle LONG,
  curve_value DOUBLE
)
AS
SELECT
  NULL AS freq_khz,
  NULL AS idle,
  NULL AS curve_value
WHERE 0;
