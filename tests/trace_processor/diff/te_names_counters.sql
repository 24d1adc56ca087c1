-- trace: te_names_counters.textproto
SELECT t.name, t.type, s.ts, s.name AS slice
FROM slice s JOIN track t ON s.track_id = t.id
ORDER BY s.ts;
SELECT t.name, c.ts, c.value
FROM counter c JOIN track t ON c.track_id = t.id
ORDER BY t.name, c.ts;
