-- trace: json_overlap_spill.json
-- Complete events that overlap one on their thread: each logged (an
-- import log with the event's name and phase and what it overlaps) and
-- put on the thread's first overlapping-slice track where it nests, as
-- upstream's track compressor; an unnamed one is "[No name]".
SELECT id, ts, severity, name, arg_set_id FROM _trace_import_logs;
SELECT arg_set_id, key, int_value, string_value FROM args ORDER BY id;
SELECT id, ts, dur, track_id, name, depth, arg_set_id FROM slice ORDER BY id;
SELECT id, name, type, dimension_arg_set_id, track_group_id FROM track ORDER BY id;
