-- Disk I/O by process (block requests issued, from ftrace)
SELECT IFNULL(p.name, t.name) AS process, p.pid,
       COUNT(*) AS requests,
       printf('%.2f', SUM(EXTRACT_ARG(e.arg_set_id, 'nr_sector')) * 512 / 1048576.0) AS mb,
       GROUP_CONCAT(DISTINCT EXTRACT_ARG(e.arg_set_id, 'rwbs')) AS kinds
FROM ftrace_event e
LEFT JOIN thread t USING (utid)
LEFT JOIN process p USING (upid)
WHERE e.name = 'block_rq_issue'
GROUP BY IFNULL(p.upid, -t.utid)
ORDER BY SUM(EXTRACT_ARG(e.arg_set_id, 'nr_sector')) DESC
LIMIT 8;
