-- android.aflags: aconfig flags, as upstream's module of that name.
--
-- faro records Linux traces: no Android data source feeds this module. It
-- exists with upstream's names and columns so that clients including it
-- (the Perfetto UI's plugins) get no rows rather than an error.

CREATE PERFETTO VIEW android_aflags(
  ts TIMESTAMP,
  package STRING,
  name STRING,
  flag_namespace STRING,
  container STRING,
  value STRING,
  staged_value STRING,
  permission STRING,
  value_picked_from STRING,
  storage_backend STRING,
  type STRING
)
AS
SELECT
  NULL AS ts,
  NULL AS package,
  NULL AS name,
  NULL AS flag_namespace,
  NULL AS container,
  NULL AS value,
  NULL AS staged_value,
  NULL AS permission,
  NULL AS value_picked_from,
  NULL AS storage_backend,
  NULL AS type
WHERE 0;
