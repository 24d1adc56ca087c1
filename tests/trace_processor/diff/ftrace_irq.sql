-- trace: ftrace_irq.textproto
SELECT s.ts, s.dur, t.name AS track, s.category, s.name, s.depth,
  EXTRACT_ARG(s.arg_set_id, 'ret') AS ret,
  EXTRACT_ARG(s.arg_set_id, 'vec') AS vec
FROM slice s JOIN track t ON s.track_id = t.id
ORDER BY t.name, s.ts;
