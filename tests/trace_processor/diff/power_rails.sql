-- trace: power_rails.textproto
SELECT t.name, t.type, c.ts, c.value,
  EXTRACT_ARG(c.arg_set_id, 'packet_ts') AS packet_ts,
  EXTRACT_ARG(t.dimension_arg_set_id, 'name') AS rail,
  EXTRACT_ARG(t.dimension_arg_set_id, 'session_uuid') AS session,
  EXTRACT_ARG(t.source_arg_set_id, 'raw_name') AS raw_name,
  EXTRACT_ARG(t.source_arg_set_id, 'subsystem_name') AS subsys,
  EXTRACT_ARG(t.source_arg_set_id, 'subsystem_name') IS NULL AS no_subsys
FROM counter_track t LEFT JOIN counter c ON c.track_id = t.id
ORDER BY t.id, c.ts;
SELECT name, value FROM stats
WHERE name IN ('power_rail_empty_packet', 'power_rail_unknown_index',
  'trace_sorter_negative_timestamp_dropped')
ORDER BY name;
