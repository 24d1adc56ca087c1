-- trace: te_seed_thread.textproto
SELECT s.id, s.ts, s.dur, s.name, s.depth, s.parent_id, t.tid,
  t.name AS thread_name, t.is_main_thread, p.pid, p.name AS process_name,
  tt.type
FROM slice s
JOIN thread_track tt ON s.track_id = tt.id
JOIN thread t USING (utid)
JOIN process p USING (upid)
ORDER BY s.id;
