-- trace: ftrace_funcgraph.textproto
SELECT s.ts, s.dur, s.category, s.name, s.depth, p.name AS parent,
  tr.name AS track, tr.type, th.tid, ct.cpu
FROM slice s JOIN track tr ON s.track_id = tr.id
LEFT JOIN slice p ON p.id = s.parent_id
LEFT JOIN thread_track tt ON tt.id = tr.id
LEFT JOIN thread th USING (utid)
LEFT JOIN cpu_track ct ON ct.id = tr.id
ORDER BY s.ts, s.id;
