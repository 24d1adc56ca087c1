-- trace: remote_clock_sync.textproto
-- The sync's tie is a snapshot of BOOTTIME on both machines at the host's
-- reading (after one id per round's client clocks); the host's empty
-- ClockSnapshot still names the trace clock; the remote machine has an
-- idle task of its own.
SELECT 'snapshot' AS what, id, ts, clock_id AS a, clock_value AS b,
  snapshot_id AS c, machine_id AS d
FROM clock_snapshot
UNION ALL
SELECT 'metadata', id, NULL, name, int_value, NULL, NULL FROM metadata
WHERE name = 'trace_time_clock_id'
UNION ALL
SELECT 'thread', utid, NULL, tid, name, upid, machine_id FROM thread
UNION ALL
SELECT 'stat', NULL, NULL, name, value, NULL, NULL FROM stats
WHERE name = 'invalid_clock_snapshots'
ORDER BY 1, 2;
