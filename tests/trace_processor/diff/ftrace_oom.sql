-- trace: ftrace_oom.textproto
SELECT i.ts, i.name, t.tid, p.pid, p.name AS process
FROM instant i JOIN thread_track tt ON i.track_id = tt.id
JOIN thread t USING (utid) LEFT JOIN process p USING (upid)
ORDER BY i.ts;
