-- trace: te_seed_custom_tracks.textproto
-- Each slice with its track and the track's ancestry, up to the root.
SELECT s.ts, s.dur, s.name, t.name AS track, t.type, p.name AS parent,
  g.name AS grandparent
FROM slice s
JOIN track t ON s.track_id = t.id
LEFT JOIN track p ON t.parent_id = p.id
LEFT JOIN track g ON p.parent_id = g.id
ORDER BY s.ts;
