-- trace: ftrace_v4l2.textproto
SELECT s.id, s.ts, s.dur, s.category, s.name, t.utid
FROM slice s JOIN thread_track t ON s.track_id = t.id ORDER BY s.ts;
SELECT slice_out, slice_in FROM flow;
SELECT s.id, a.key, a.int_value, a.string_value, a.value_type
FROM slice s JOIN args a ON a.arg_set_id = s.arg_set_id
WHERE a.key IN ('minor', 'index', 'type', 'bytesused', 'flags', 'field',
  'timecode_type', 'timecode_flags', 'timecode_frames', 'sequence')
ORDER BY s.id, a.id;
