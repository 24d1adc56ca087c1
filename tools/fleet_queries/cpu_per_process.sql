-- CPU time per process name across the fleet (kernel threads by their
-- own name), with the number of hosts it ran on. The idle task (tid 0)
-- is left out.
SELECT ifNull(process_name, name) AS process, uniqExact(trace_id) AS hosts,
    round(sum(dur) / 1e9, 6) AS cpu_s
FROM sched
ANY INNER JOIN (SELECT trace_id, utid, tid, name, process_name FROM thread)
    USING (trace_id, utid)
WHERE tid != 0 AND dur > 0
GROUP BY process
ORDER BY cpu_s DESC, process
LIMIT 20
