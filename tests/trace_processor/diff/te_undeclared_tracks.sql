-- trace: te_undeclared_tracks.textproto
-- Undeclared and unnamed tracks: merged by name, with upstream's
-- dimensions.
SELECT 'slice' AS what, s.id, s.ts, s.name, s.track_id AS a, NULL AS b
FROM slice s
UNION ALL
SELECT 'track', t.id, NULL, t.name, t.type, t.track_group_id FROM track t
UNION ALL
SELECT 'dim', t.id, NULL, a.key, a.display_value, NULL
FROM track t JOIN args a ON a.arg_set_id = t.dimension_arg_set_id
ORDER BY 1, 2, 4;
