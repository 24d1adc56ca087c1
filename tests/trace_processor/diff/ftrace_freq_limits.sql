-- trace: ftrace_freq_limits.systrace
SELECT c.ts, t.name, t.type, c.value
FROM counter c JOIN counter_track t ON c.track_id = t.id
ORDER BY c.ts, c.id;
