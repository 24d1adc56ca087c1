-- trace: ftrace_misc.textproto
SELECT r.name, a.key, a.int_value, a.string_value, a.value_type
FROM ftrace_event r JOIN args a USING (arg_set_id)
WHERE r.name IN ('my_tracepoint', 'cpu_frequency', 'task_newtask')
ORDER BY r.id, a.id;
