-- trace: system_disk_psi.textproto
SELECT c.ts, t.name, t.unit, c.value
FROM counter c JOIN counter_track t ON c.track_id = t.id
ORDER BY c.ts, t.name;
