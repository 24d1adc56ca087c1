-- wattson.windows: Wattson estimation windows, as upstream's module of that name.
--
-- faro has no Wattson power model: the module exists with upstream's
-- names and columns so that clients including it (the Perfetto UI's
-- plugins) get no rows rather than an error.

CREATE PERFETTO TABLE wattson_window_markers(
  ts TIMESTAMP,
  dur DURATION,
  period_id LONG
)
AS
SELECT
  NULL AS ts,
  NULL AS dur,
  NULL AS period_id
WHERE 0;
