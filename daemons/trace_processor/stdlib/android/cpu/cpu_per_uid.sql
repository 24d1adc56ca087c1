-- android.cpu.cpu_per_uid: CPU time per Android uid, as upstream's module of that name.
--
-- faro records Linux traces: no Android data source feeds this module. It
-- exists with upstream's names and columns so that clients including it
-- (the Perfetto UI's plugins) get no rows rather than an error.

CREATE PERFETTO TABLE android_cpu_per_uid_track(
  id LONG,
  uid LONG,
  cluster LONG,
  total_cpu_millis LONG,
  package_name STRING
)
AS
SELECT
  NULL AS id,
  NULL AS uid,
  NULL AS cluster,
  NULL AS total_cpu_millis,
  NULL AS package_name
WHERE 0;

CREATE PERFETTO TABLE android_cpu_per_uid_counter(
  id LONG,
  ts TIMESTAMP,
  dur DURATION,
  track_id JOINID(track.id),
  cpu_ratio DOUBLE
)
AS
SELECT
  NULL AS id,
  NULL AS ts,
  NULL AS dur,
  NULL AS track_id,
  NULL AS cpu_ratio
WHERE 0;
