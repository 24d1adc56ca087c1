-- trace: clock_primary_monotonic.textproto
SELECT name, ts FROM slice ORDER BY ts;
SELECT ts, clock_id, clock_value FROM clock_snapshot ORDER BY clock_id;
SELECT int_value FROM metadata WHERE name = 'trace_time_clock_id';
