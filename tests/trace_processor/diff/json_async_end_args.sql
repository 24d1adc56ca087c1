-- trace: json_async_end_args.json
-- An async end's args join its slice's: a key it gives again takes the
-- end's value, in the place the begin gave it.
SELECT s.name, s.dur, a.key, a.display_value
FROM slice s LEFT JOIN args a USING (arg_set_id)
ORDER BY s.id, a.id;
