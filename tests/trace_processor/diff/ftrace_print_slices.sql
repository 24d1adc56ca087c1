-- trace: ftrace_misc.textproto
SELECT s.ts, s.dur, s.name, s.depth, tr.type, th.tid, p.pid
FROM slice s JOIN track tr ON s.track_id = tr.id
LEFT JOIN thread_track tt ON tt.id = tr.id
LEFT JOIN thread th ON th.utid = tt.utid
LEFT JOIN process_track pt ON pt.id = tr.id
LEFT JOIN process p ON p.upid = COALESCE(pt.upid, th.upid)
ORDER BY s.ts;
