-- android.screenshots: screenshots, as upstream's module of that name.
--
-- faro records Linux traces: no Android data source feeds this module. It
-- exists with upstream's names and columns so that clients including it
-- (the Perfetto UI's plugins) get no rows rather than an error.

CREATE PERFETTO TABLE android_screenshots(
  id LONG,
  ts TIMESTAMP,
  dur DURATION,
  name STRING
)
AS
SELECT
  NULL AS id,
  NULL AS ts,
  NULL AS dur,
  NULL AS name
WHERE 0;
