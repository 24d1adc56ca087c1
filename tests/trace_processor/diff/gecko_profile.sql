-- trace: gecko_profile.json
SELECT utid, tid, name, upid FROM thread ORDER BY utid;
SELECT s.ts, t.tid, f.name AS frame, m.name AS mapping, c.depth
FROM cpu_profile_stack_sample s JOIN thread t USING(utid)
JOIN stack_profile_callsite c ON s.callsite_id = c.id
JOIN stack_profile_frame f ON c.frame_id = f.id
JOIN stack_profile_mapping m ON f.mapping = m.id ORDER BY s.ts, s.id;
SELECT s.ts, s.dur, s.category, s.name, tt.utid, t.type,
  EXTRACT_ARG(t.dimension_arg_set_id, 'firefox_marker_category') AS dim_cat,
  (SELECT group_concat(key || '=' || coalesce(int_value, string_value), ',')
   FROM args a WHERE a.arg_set_id = s.arg_set_id) AS args
FROM slice s JOIN thread_track tt ON s.track_id = tt.id
JOIN track t ON t.id = s.track_id ORDER BY s.ts;
SELECT name, str_value FROM metadata WHERE name = 'trace_type';
