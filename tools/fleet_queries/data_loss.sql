-- Data loss per host: every data_loss stat the import counted, summed
-- over its indices (buffers, CPUs). Hosts with none are not listed.
SELECT host, name, sum(value) AS lost
FROM stats
ANY INNER JOIN (SELECT trace_id, host FROM traces) USING trace_id
WHERE severity = 'data_loss' AND value > 0
GROUP BY host, name
ORDER BY host, name
