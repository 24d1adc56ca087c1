-- trace: system.textproto
SELECT c.ts, t.name, t.type, c.value,
  EXTRACT_ARG(t.dimension_arg_set_id, 'cpu') AS cpu,
  coalesce(EXTRACT_ARG(t.dimension_arg_set_id, 'cpustat_key'),
    EXTRACT_ARG(t.dimension_arg_set_id, 'meminfo_key'),
    EXTRACT_ARG(t.dimension_arg_set_id, 'vmstat_key'),
    EXTRACT_ARG(t.dimension_arg_set_id, 'thermal_zone'),
    EXTRACT_ARG(t.dimension_arg_set_id, 'state')) AS key, t.unit
FROM counter c JOIN counter_track t ON c.track_id = t.id
ORDER BY c.ts, t.name;
