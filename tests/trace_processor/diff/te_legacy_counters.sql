-- trace: te_legacy.textproto
SELECT c.ts, c.value, t.name, t.type, t.unit
FROM counter c JOIN counter_track t ON c.track_id = t.id
ORDER BY t.id, c.ts;
