-- trace: ftrace_misc.textproto
SELECT c.ts, c.value, t.name, t.type,
  COALESCE(cc.cpu, pc.upid) AS scope
FROM counter c JOIN counter_track t ON c.track_id = t.id
LEFT JOIN cpu_counter_track cc ON cc.id = t.id
LEFT JOIN process_counter_track pc ON pc.id = t.id
ORDER BY c.ts;
