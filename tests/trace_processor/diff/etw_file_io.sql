-- trace: etw_file_io.textproto
-- ETW file I/O operations as slices on their threads' etw_fileio tracks,
-- from a start to the end of its irp, with both events' fields as args.
SELECT s.ts, s.dur, s.name, t.tid, tt.type,
  (SELECT count(*) FROM slice o WHERE o.track_id = s.track_id) AS on_track
FROM slice s JOIN thread_track tt ON s.track_id = tt.id
JOIN thread t USING (utid) ORDER BY s.ts, s.id;
SELECT s.ts, a.key, a.value_type, a.display_value
FROM slice s JOIN args a USING (arg_set_id) ORDER BY s.ts, s.id, a.id;
