-- trace: json_events.json
SELECT s.id, s.ts, s.dur, s.category, s.name, s.depth, s.parent_id,
  s.thread_ts, s.thread_dur, t.type
FROM slice s JOIN track t ON s.track_id = t.id ORDER BY s.id;
