-- trace: battery_counters.textproto
SELECT t.name, t.type, c.ts, c.value,
  EXTRACT_ARG(t.dimension_arg_set_id, 'battery_name') AS battery,
  EXTRACT_ARG(t.dimension_arg_set_id, 'counter_name') AS counter
FROM counter_track t LEFT JOIN counter c ON c.track_id = t.id
ORDER BY t.id, c.ts;
