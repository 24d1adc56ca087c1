-- trace: ftrace_misc.textproto
SELECT t.utid, t.tid, t.name, t.start_ts, p.pid, p.start_ts AS proc_start,
  pp.pid AS parent_pid, t.is_main_thread, p.name AS proc_name
FROM thread t LEFT JOIN process p USING (upid)
LEFT JOIN process pp ON pp.upid = p.parent_upid
ORDER BY t.utid;
