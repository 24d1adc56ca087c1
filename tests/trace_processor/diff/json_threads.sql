-- trace: json_events.json
SELECT t.tid, t.name, p.pid, p.name AS process
FROM thread t LEFT JOIN process p USING (upid) ORDER BY t.utid;
