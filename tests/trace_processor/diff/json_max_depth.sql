-- trace: json_max_depth.json
-- 515 nested slices: past depth 512 each is dropped with an import log
-- naming its parent and itself, and counted as slice_max_depth_exceeded.
SELECT id, ts, severity, name, arg_set_id FROM _trace_import_logs;
SELECT arg_set_id, key, string_value FROM args
WHERE arg_set_id IN (SELECT arg_set_id FROM _trace_import_logs) ORDER BY id;
SELECT count(*), max(depth), sum(dur) FROM slice;
SELECT name, value FROM stats WHERE name = 'slice_max_depth_exceeded';
