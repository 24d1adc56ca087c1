-- Busiest processes by CPU time (from sched_switch)
SELECT p.pid, IFNULL(p.name, t.name) AS process,
       printf('%.1f', SUM(s.dur) / 1e6) AS cpu_ms,
       COUNT(DISTINCT s.utid) AS threads
FROM sched s
JOIN thread t USING (utid)
LEFT JOIN process p USING (upid)
WHERE t.tid != 0
GROUP BY IFNULL(p.upid, -t.utid)
ORDER BY SUM(s.dur) DESC
LIMIT 8;
