-- trace: clock_first_use.textproto
-- An atrace counter's track is of its process and name; each value has
-- the thread that wrote it as its arg, as upstream's.
SELECT t.name, t.type, a.key, a.int_value, a.string_value
FROM counter_track t JOIN args a ON a.arg_set_id = t.dimension_arg_set_id
ORDER BY t.id, a.id;
SELECT c.ts, c.value, a.key, a.int_value, a.value_type
FROM counter c JOIN args a USING (arg_set_id) ORDER BY c.id, a.id;
