-- Busiest threads by CPU time
SELECT t.tid, t.name AS thread, p.name AS process,
       printf('%.1f', SUM(s.dur) / 1e6) AS cpu_ms,
       COUNT(*) AS slices
FROM sched s
JOIN thread t USING (utid)
LEFT JOIN process p USING (upid)
WHERE t.tid != 0
GROUP BY s.utid
ORDER BY SUM(s.dur) DESC
LIMIT 8;
