-- trace: entity_state_residency.textproto
SELECT t.name, t.type, c.ts, c.value,
  EXTRACT_ARG(t.dimension_arg_set_id, 'entity_name') AS entity,
  EXTRACT_ARG(t.dimension_arg_set_id, 'state_name') AS state
FROM counter_track t LEFT JOIN counter c ON c.track_id = t.id
ORDER BY t.id, c.ts;
SELECT name, value FROM stats
WHERE name IN ('energy_descriptor_invalid', 'entity_state_residency_invalid',
  'entity_state_residency_lookup_failed')
ORDER BY name;
