-- trace: clock_chain.textproto
SELECT name, ts FROM slice ORDER BY ts;
SELECT name, value FROM stats
WHERE name IN ('clock_sync_failure_unknown_source_clock',
  'invalid_clock_snapshots') ORDER BY name;
