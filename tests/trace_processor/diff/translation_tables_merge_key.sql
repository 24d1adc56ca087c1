-- trace: translation_tables.textproto
-- A process track named by the translation table is merged by that name:
-- its merge key is the translated one.
SELECT t.id, t.name, a.key, a.display_value
FROM track t JOIN args a ON a.arg_set_id = t.dimension_arg_set_id
WHERE a.key = 'merge_key_value'
ORDER BY t.id;
