-- trace: te_legacy.textproto
-- A thread's time and instruction count tracks are made before the
-- event's own track, as upstream makes them (their ids tell); a built-in
-- counter's descriptor names its type among its source args.
SELECT 'track' AS what, t.id, t.name, t.type, NULL AS v
FROM track t
UNION ALL
SELECT 'counter', c.id, NULL, c.track_id, c.value FROM counter c
UNION ALL
SELECT 'source', t.id, a.key, a.display_value, NULL
FROM track t JOIN args a ON a.arg_set_id = t.source_arg_set_id
ORDER BY 1, 2, 3;
