-- trace: json_string_ids.json
SELECT s.ts, s.name, p.name AS process, t.name AS thread
FROM slice s JOIN thread_track tt ON s.track_id = tt.id
JOIN thread t USING (utid) LEFT JOIN process p USING (upid)
ORDER BY s.ts;
