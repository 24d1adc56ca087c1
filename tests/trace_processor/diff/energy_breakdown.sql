-- trace: energy_breakdown.textproto
SELECT t.name, t.name IS NULL AS no_name, t.type, c.ts, c.value,
  EXTRACT_ARG(t.dimension_arg_set_id, 'energy_consumer_id') AS consumer,
  EXTRACT_ARG(t.dimension_arg_set_id, 'uid') AS uid,
  EXTRACT_ARG(t.source_arg_set_id, 'consumer_type') AS consumer_type,
  EXTRACT_ARG(t.source_arg_set_id, 'ordinal') AS ordinal
FROM counter_track t LEFT JOIN counter c ON c.track_id = t.id
ORDER BY t.id, c.ts;
SELECT name, value FROM stats
WHERE name IN ('energy_descriptor_invalid',
  'energy_breakdown_missing_values', 'energy_uid_breakdown_missing_values')
ORDER BY name;
