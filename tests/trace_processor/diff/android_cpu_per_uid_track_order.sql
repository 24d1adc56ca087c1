-- trace: android_cpu_per_uid.textproto
-- Tracks are made in the order upstream's hash maps hold their keys (it
-- walks every key of each packet): their ids and the counters' tell.
SELECT 'track' AS what, t.id, t.name, NULL AS ts, NULL AS value
FROM track t
UNION ALL
SELECT 'counter', c.id, t.name, c.ts, c.value
FROM counter c JOIN track t ON c.track_id = t.id
ORDER BY 1, 2;
