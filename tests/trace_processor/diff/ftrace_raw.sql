-- trace: ftrace_sched.textproto
SELECT r.ts, r.name, r.cpu, t.tid,
  EXTRACT_ARG(r.arg_set_id, 'prev_comm') AS prev_comm,
  EXTRACT_ARG(r.arg_set_id, 'next_pid') AS next_pid,
  EXTRACT_ARG(r.arg_set_id, 'pid') AS pid
FROM raw r JOIN thread t USING (utid)
ORDER BY r.ts;
