-- trace: te_seed_counters.textproto
SELECT c.ts, c.value, t.name, t.type, p.pid, p.name AS process
FROM counter c
JOIN process_counter_track t ON c.track_id = t.id
JOIN process p USING (upid)
ORDER BY c.ts;
