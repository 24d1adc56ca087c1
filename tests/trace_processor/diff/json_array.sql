-- trace: json_array.json
-- A bare array without its closing bracket (as Chrome leaves it).
SELECT ts, dur, name, arg_set_id FROM slice ORDER BY ts;
