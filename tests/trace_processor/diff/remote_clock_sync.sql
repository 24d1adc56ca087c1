-- trace: remote_clock_sync.textproto
SELECT t.name, t.machine_id, c.ts, c.value
FROM counter c JOIN counter_track t ON t.id = c.track_id
ORDER BY t.machine_id, c.ts;
