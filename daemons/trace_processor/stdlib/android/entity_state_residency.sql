-- android.entity_state_residency: power entity state residency, as upstream's module of that name.
--
-- faro records Linux traces: no Android data source feeds this module. It
-- exists with upstream's names and columns so that clients including it
-- (the Perfetto UI's plugins) get no rows rather than an error.

CREATE PERFETTO TABLE android_entity_state_residency(
  id LONG,
  ts TIMESTAMP,
  dur DURATION,
  entity_name STRING,
  state_name STRING,
  raw_name STRING,
  state_time_since_boot DURATION,
  state_time_since_boot_at_end DURATION,
  state_time_ratio DOUBLE,
  track_id JOINID(track.id)
)
AS
SELECT
  NULL AS id,
  NULL AS ts,
  NULL AS dur,
  NULL AS entity_name,
  NULL AS state_name,
  NULL AS raw_name,
  NULL AS state_time_since_boot,
  NULL AS state_time_since_boot_at_end,
  NULL AS state_time_ratio,
  NULL AS track_id
WHERE 0;
