-- trace: clock_deferred_packets.textproto
-- A packet of a clock named only later is kept; one never named is
-- dropped at the end, logged.
SELECT 'slice' AS what, ts, name AS detail, NULL AS arg FROM slice
UNION ALL
SELECT 'log', byte_offset, l.name, a.key || '=' || a.display_value
FROM _trace_import_logs l LEFT JOIN args a USING (arg_set_id)
UNION ALL
SELECT 'snapshot', ts, clock_id || ':' || clock_value, snapshot_id
FROM clock_snapshot
ORDER BY 1, 2, 3, 4;
