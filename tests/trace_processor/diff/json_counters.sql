-- trace: json_events.json
SELECT c.ts, c.value, t.name, p.pid
FROM counter c JOIN process_counter_track t ON c.track_id = t.id
JOIN process p USING (upid) ORDER BY c.ts, t.name;
