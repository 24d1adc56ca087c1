-- trace: process_reparent.textproto
SELECT p.pid, pp.pid AS parent_pid FROM process p
LEFT JOIN process pp ON pp.upid = p.parent_upid ORDER BY p.upid;
SELECT id, ts, severity, name, arg_set_id FROM _trace_import_logs;
SELECT name, value FROM stats WHERE name = 'process_tracker_parent_pid_changed';
