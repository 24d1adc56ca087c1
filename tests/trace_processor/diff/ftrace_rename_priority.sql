-- trace: ftrace_rename_priority.textproto
SELECT t.utid, t.tid, t.name AS thread, p.pid, p.name AS process
FROM thread t LEFT JOIN process p USING (upid)
WHERE t.tid IN (20, 21, 30, 31, 40)
ORDER BY t.utid;
