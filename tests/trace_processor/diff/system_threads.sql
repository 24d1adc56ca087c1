-- trace: system.textproto
SELECT t.tid, t.name, p.pid, t.is_main_thread
FROM thread t LEFT JOIN process p USING (upid) ORDER BY t.utid;
