-- trace: ftrace_binder_args.textproto
SELECT s.id, s.ts, s.dur, t.tid, s.name, s.depth
FROM slice s JOIN thread_track tt ON s.track_id = tt.id
JOIN thread t USING (utid)
ORDER BY s.id;
SELECT s.id, a.key, a.display_value
FROM slice s JOIN args a USING (arg_set_id)
ORDER BY s.id, a.id;
