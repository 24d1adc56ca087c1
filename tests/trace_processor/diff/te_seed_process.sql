-- trace: te_seed_process.textproto
SELECT s.ts, s.dur, s.name, s.depth, pt.name AS track, pt.type, pt.parent_id,
  p.pid, p.name AS process
FROM slice s
JOIN process_track pt ON s.track_id = pt.id
JOIN process p USING (upid)
ORDER BY s.track_id, s.ts;
