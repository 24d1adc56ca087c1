-- trace: multi_machine.textproto
-- Each machine's BOOTTIME is tied to trace time at its first time of a
-- named clock, a snapshot of its own (ids in upstream's order); a time
-- no clock converts is logged at the end, after what parsing logged.
SELECT 'snapshot' AS what, id, ts, clock_id, clock_name, clock_value,
  snapshot_id, machine_id
FROM clock_snapshot
UNION ALL
SELECT 'log', id, ts, byte_offset, name, NULL, arg_set_id, NULL
FROM _trace_import_logs
ORDER BY 1, 2;
