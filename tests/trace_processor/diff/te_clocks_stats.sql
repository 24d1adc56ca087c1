-- trace: te_clocks.textproto
SELECT name, severity, value FROM stats WHERE name GLOB 'clock_sync*'
AND value != 0 ORDER BY name;
