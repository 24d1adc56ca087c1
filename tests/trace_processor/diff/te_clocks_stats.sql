-- trace: te_clocks.textproto
SELECT name, value FROM stats WHERE name = 'clock_sync_failure';
