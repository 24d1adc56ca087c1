-- trace: process_runtime.textproto
SELECT c.ts, t.name, t.type, c.value, p.pid,
  EXTRACT_ARG(tr.dimension_arg_set_id, 'proc_stat_runtime_key') AS key
FROM counter c JOIN process_counter_track t ON c.track_id = t.id
JOIN track tr ON tr.id = t.id
JOIN process p USING (upid)
ORDER BY c.ts, t.name;
