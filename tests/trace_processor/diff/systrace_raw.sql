-- trace: systrace.txt
-- As upstream's text importer, only sched_switch lands in ftrace_event,
-- with the binary event's fields (prev_state as a 4.4 kernel's bits).
SELECT r.ts, r.name, r.cpu, a.key, a.int_value, a.string_value
FROM ftrace_event r LEFT JOIN args a USING (arg_set_id)
ORDER BY r.id, a.id;
