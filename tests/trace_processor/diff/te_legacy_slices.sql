-- trace: te_legacy.textproto
SELECT s.ts, s.dur, s.name, s.thread_ts, s.thread_dur, t.type, t.name AS track,
  th.tid, th.name AS thread
FROM slice s JOIN track t ON s.track_id = t.id
LEFT JOIN thread_track tt ON tt.id = t.id
LEFT JOIN thread th ON th.utid = tt.utid
ORDER BY s.ts;
