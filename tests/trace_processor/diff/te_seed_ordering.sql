-- trace: te_seed_ordering.textproto
SELECT s.ts, s.dur, s.name, t.name AS track, p.name AS parent,
  (SELECT value FROM stats WHERE name = 'track_event_parser_errors') AS errors
FROM slice s JOIN track t ON s.track_id = t.id
LEFT JOIN track p ON p.id = t.parent_id
ORDER BY s.ts;
