-- trace: json_array.json
-- A text format's trace time clock, as upstream names it (JSON's: the
-- file's own, 11).
SELECT name, int_value, machine_id, trace_id FROM metadata
WHERE name = 'trace_time_clock_id';
