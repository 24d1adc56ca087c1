-- trace: ftrace_ksyms.textproto
SELECT s.ts, s.dur, s.category, s.name, s.depth, tr.type, t.tid,
  EXTRACT_ARG(s.arg_set_id, 'cpu') AS cpu
FROM slice s JOIN thread_track tr ON s.track_id = tr.id
JOIN thread t USING (utid)
ORDER BY s.ts;
