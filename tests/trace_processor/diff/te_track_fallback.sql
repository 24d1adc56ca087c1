-- trace: te_track_fallback.textproto
SELECT s.ts, s.name, t.name AS track, t.type, th.tid,
  EXTRACT_ARG(s.arg_set_id, 'legacy_event.passthrough_utid') AS passthrough
FROM slice s JOIN track t ON s.track_id = t.id
LEFT JOIN thread_track tt ON tt.id = t.id
LEFT JOIN thread th USING (utid)
ORDER BY s.ts;
