-- trace: te_track_args.textproto
-- Descriptor tracks' source args and how viz.summary orders them.
SELECT t.id, t.name, t.type, a.key, a.display_value
FROM track t LEFT JOIN args a ON a.arg_set_id = t.source_arg_set_id
ORDER BY t.id, a.id;
