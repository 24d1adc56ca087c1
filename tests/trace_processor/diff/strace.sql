-- trace: strace.strace
SELECT s.ts, s.dur, s.category, s.name, t.tid,
  EXTRACT_ARG(s.arg_set_id, 'args') AS args,
  EXTRACT_ARG(s.arg_set_id, 'ret') AS ret
FROM slice s JOIN thread_track tt ON s.track_id = tt.id
JOIN thread t USING (utid)
ORDER BY s.ts;
SELECT name, value FROM stats WHERE name GLOB 'strace_*' ORDER BY name;
SELECT name, str_value, int_value FROM metadata
WHERE name IN ('trace_type', 'trace_time_clock_id') ORDER BY name;
