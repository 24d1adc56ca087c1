-- trace: ftrace_binder.textproto
SELECT s.id, s.ts, s.dur, t.tid, s.category, s.name, s.depth
FROM slice s JOIN thread_track tt ON s.track_id = tt.id
JOIN thread t USING (utid)
ORDER BY s.id;
SELECT slice_out, slice_in FROM flow ORDER BY slice_out, slice_in;
SELECT s.id, a.key, a.display_value
FROM slice s JOIN args a USING (arg_set_id)
ORDER BY s.id, a.key;
