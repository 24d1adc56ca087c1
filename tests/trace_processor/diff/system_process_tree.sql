-- trace: system_process_tree.textproto
SELECT t.utid, t.tid, t.name AS thread, p.upid, p.pid, p.name, p.start_ts,
  p.cmdline, EXTRACT_ARG(p.arg_set_id, 'is_kthread') AS is_kthread
FROM thread t LEFT JOIN process p USING (upid)
ORDER BY t.utid;
