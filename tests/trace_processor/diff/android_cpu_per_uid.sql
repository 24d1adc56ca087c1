-- trace: android_cpu_per_uid.textproto
SELECT t.name, t.type, ct.unit,
  EXTRACT_ARG(t.dimension_arg_set_id, 'uid') AS uid,
  EXTRACT_ARG(t.dimension_arg_set_id, 'type') AS who,
  EXTRACT_ARG(t.dimension_arg_set_id, 'cluster') AS cluster,
  c.ts, c.value
FROM counter c JOIN counter_track ct ON c.track_id = ct.id
JOIN track t ON t.id = ct.id
ORDER BY t.name, c.ts;
