-- trace: atrace_async_unnestable.textproto
SELECT s.ts, s.dur, s.name, t.type,
  (SELECT COUNT(*) FROM slice x WHERE x.track_id < s.track_id
   AND x.name = s.name) > 0 AS later_track
FROM slice s JOIN track t ON s.track_id = t.id ORDER BY s.ts;
