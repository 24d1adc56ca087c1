-- trace: ftrace_funcgraph.textproto
SELECT r.ts, r.name, t.tid,
  EXTRACT_ARG(r.arg_set_id, 'func') AS func,
  EXTRACT_ARG(r.arg_set_id, 'depth') AS depth,
  (SELECT value FROM stats WHERE name = 'misplaced_end_event') AS misplaced
FROM raw r JOIN thread t USING (utid)
WHERE t.tid = 100
ORDER BY r.ts;
