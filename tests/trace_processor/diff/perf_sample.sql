-- trace: perf_sample.textproto
SELECT p.ts, t.tid, p.cpu, p.cpu_mode, p.callsite_id, p.unwind_error,
  p.perf_session_id
FROM perf_sample p JOIN thread t USING(utid) ORDER BY p.ts;
SELECT * FROM perf_session;
SELECT t.name, t.perf_session_id, t.cpu, t.is_timebase, c.ts, c.value
FROM counter c JOIN perf_counter_track t ON c.track_id = t.id
ORDER BY c.ts, t.id;
SELECT c.id, c.depth, c.parent_id, f.name, f.rel_pc, f.type, m.name AS map,
  m.build_id, m.start, m.end
FROM stack_profile_callsite c JOIN stack_profile_frame f ON c.frame_id = f.id
JOIN stack_profile_mapping m ON f.mapping = m.id ORDER BY c.id;
SELECT name, idx, value FROM stats
WHERE name IN ('perf_samples_skipped', 'perf_cpu_lost_records');
