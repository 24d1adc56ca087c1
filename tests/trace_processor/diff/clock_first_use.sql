-- trace: clock_first_use.textproto
SELECT name, value FROM stats WHERE name GLOB 'clock_sync*' AND value > 0;
SELECT pid, start_ts FROM process WHERE pid = 10;
