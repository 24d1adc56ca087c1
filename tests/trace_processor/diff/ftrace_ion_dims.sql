-- trace: ftrace_drivers.textproto
-- ion_stat's tracks: a heap_name dimension (NULL: the event does not say)
-- before the thread's, as upstream orders them.
SELECT t.id, t.name, t.type, a.id AS arg_id, a.key, a.display_value
FROM track t JOIN args a ON a.arg_set_id = t.dimension_arg_set_id
WHERE t.type GLOB 'ion*'
ORDER BY t.id, a.id;
