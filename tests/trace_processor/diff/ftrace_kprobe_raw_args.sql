-- trace: ftrace_kernel_slices.textproto
-- An event's enum field is among its raw args as an int, as upstream
-- stores it (a kprobe's type).
SELECT e.id, e.ts, e.name, a.key, a.value_type, a.display_value
FROM ftrace_event e JOIN args a USING (arg_set_id)
WHERE e.name = 'kprobe_event'
ORDER BY e.id, a.id;
