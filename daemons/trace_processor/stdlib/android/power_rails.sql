-- android.power_rails: power rails, as upstream's module of that name.
--
-- faro records Linux traces: no Android data source feeds this module. It
-- exists with upstream's names and columns so that clients including it
-- (the Perfetto UI's plugins) get no rows rather than an error.

CREATE PERFETTO TABLE android_power_rails_counters(
  id LONG,
  ts TIMESTAMP,
  dur DURATION,
  power_rail_name STRING,
  raw_power_rail_name STRING,
  energy_since_boot DOUBLE,
  energy_since_boot_at_end DOUBLE,
  average_power DOUBLE,
  energy_delta DOUBLE,
  track_id JOINID(track.id),
  value DOUBLE
)
AS
SELECT
  NULL AS id,
  NULL AS ts,
  NULL AS dur,
  NULL AS power_rail_name,
  NULL AS raw_power_rail_name,
  NULL AS energy_since_boot,
  NULL AS energy_since_boot_at_end,
  NULL AS average_power,
  NULL AS energy_delta,
  NULL AS track_id,
  NULL AS value
WHERE 0;

CREATE PERFETTO TABLE android_power_rails_metadata(
  power_rail_name STRING,
  raw_power_rail_name STRING,
  friendly_name STRING,
  track_id JOINID(track.id),
  subsystem_name STRING,
  machine_id JOINID(machine.id)
)
AS
SELECT
  NULL AS power_rail_name,
  NULL AS raw_power_rail_name,
  NULL AS friendly_name,
  NULL AS track_id,
  NULL AS subsystem_name,
  NULL AS machine_id
WHERE 0;
