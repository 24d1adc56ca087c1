-- Memory (RSS) of the largest processes over the trace
SELECT p.pid, p.name AS process,
       printf('%.1f', MIN(c.value) / 1048576.0) AS min_mb,
       printf('%.1f', AVG(c.value) / 1048576.0) AS avg_mb,
       printf('%.1f', MAX(c.value) / 1048576.0) AS peak_mb,
       COUNT(*) AS samples
FROM counter c
JOIN process_counter_track pct ON c.track_id = pct.id
JOIN process p USING (upid)
WHERE pct.name = 'mem.rss'
GROUP BY p.upid
ORDER BY MAX(c.value) DESC
LIMIT 8;
