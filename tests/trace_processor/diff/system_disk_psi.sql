-- trace: system_disk_psi.textproto
SELECT c.ts, t.name, t.unit, c.value,
  EXTRACT_ARG(t.dimension_arg_set_id, 'device_name') AS device,
  EXTRACT_ARG(t.dimension_arg_set_id, 'counter_name') AS counter,
  EXTRACT_ARG(t.dimension_arg_set_id, 'psi_resource') AS psi
FROM counter c JOIN counter_track t ON c.track_id = t.id
ORDER BY c.ts, t.name;
