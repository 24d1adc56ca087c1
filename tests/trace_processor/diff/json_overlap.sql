-- trace: json_overlap.json
SELECT s.ts, s.dur, s.name, s.depth, t.type, t.utid, s.track_id
FROM slice s JOIN thread_track t ON s.track_id = t.id
ORDER BY s.ts, s.name;
SELECT name, value FROM stats
WHERE name LIKE 'slice_%overlapping_complete_event';
