-- trace: stats_parse_duration.textproto
-- The time spent parsing is a stat of the whole session: no machine, no
-- trace. Its value varies from run to run, only its sign is shown.
SELECT name, severity, source, value > 0 AS timed, machine_id, trace_id
FROM stats WHERE name = 'parse_trace_duration_ns';
