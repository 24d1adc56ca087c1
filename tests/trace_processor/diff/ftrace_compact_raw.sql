-- trace: ftrace_compact.textproto
SELECT r.ts, r.name, EXTRACT_ARG(r.arg_set_id, 'prev_pid') AS prev_pid,
  EXTRACT_ARG(r.arg_set_id, 'prev_comm') AS prev_comm,
  EXTRACT_ARG(r.arg_set_id, 'next_comm') AS next_comm,
  EXTRACT_ARG(r.arg_set_id, 'pid') AS woken
FROM raw r ORDER BY r.ts, r.id;
