-- trace: json_async_nesting.json
-- Legacy async tracks' dimensions and source args as upstream's: a scope
-- (NULL without one) before the name, and the source's scope.
SELECT t.id, t.type, a.key, a.int_value, a.string_value
FROM track t JOIN args a ON a.arg_set_id = t.dimension_arg_set_id
ORDER BY t.id, a.id;
SELECT t.id, a.key, a.int_value, a.string_value
FROM track t JOIN args a ON a.arg_set_id = t.source_arg_set_id
ORDER BY t.id, a.id;
