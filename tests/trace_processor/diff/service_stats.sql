-- trace: service_stats.textproto
SELECT name, idx, severity, source, value FROM stats
WHERE value != 0 AND name NOT GLOB '*_duration_ns' ORDER BY name, idx;
