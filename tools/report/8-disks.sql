-- Disk I/O by device (diskstats counters, MB over the trace)
SELECT SUBSTR(name, 11, INSTR(SUBSTR(name, 11), ']') - 1) AS device,
       REPLACE(SUBSTR(name, INSTR(name, '].') + 2), '_', ' ') AS what,
       printf('%.2f', MAX(c.value) - MIN(c.value)) AS delta
FROM counter_track ct JOIN counter c ON c.track_id = ct.id
WHERE ct.name LIKE 'diskstat.[%'
GROUP BY ct.id
HAVING MAX(c.value) > MIN(c.value)
ORDER BY device, what;
