-- trace: process_stats_mem_desc.textproto
SELECT p.pid, t.name, t.type,
  extract_arg(t.source_arg_set_id, 'description') AS description
FROM counter_track t JOIN process p
  ON p.upid = extract_arg(t.dimension_arg_set_id, 'upid')
ORDER BY p.pid, t.name;
SELECT id, name, description FROM counter_track ORDER BY id;
