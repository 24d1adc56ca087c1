-- trace: cpu_features.textproto
SELECT c.cpu, c.processor, a.key, a.int_value
FROM cpu c LEFT JOIN args a USING (arg_set_id)
ORDER BY c.cpu, a.key;
SELECT name, value FROM stats WHERE name = 'cpu_info_unknown_cpu_features';
