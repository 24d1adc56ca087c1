-- trace: systrace.txt
SELECT r.ts, r.name, r.cpu, a.key, a.int_value, a.string_value
FROM ftrace_event r LEFT JOIN args a USING (arg_set_id)
WHERE r.name IN ('irq_handler_entry', 'cpu_frequency', 'print')
ORDER BY r.id, a.id;
