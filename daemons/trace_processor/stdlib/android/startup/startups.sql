-- android.startup.startups: app startups, as upstream's module of that name.
--
-- faro records Linux traces: no Android data source feeds this module. It
-- exists with upstream's names and columns so that clients including it
-- (the Perfetto UI's plugins) get no rows rather than an error.

CREATE PERFETTO TABLE android_startups(
  startup_id LONG,
  ts TIMESTAMP,
  ts_end TIMESTAMP,
  dur DURATION,
  package STRING,
  startup_type STRING
)
AS
SELECT
  NULL AS startup_id,
  NULL AS ts,
  NULL AS ts_end,
  NULL AS dur,
  NULL AS package,
  NULL AS startup_type
WHERE 0;
