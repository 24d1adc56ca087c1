-- trace: ftrace_virtio_video.textproto
SELECT s.ts, s.dur, s.name, t.name AS track,
  EXTRACT_ARG(t.dimension_arg_set_id, 'track_compressor_idx') AS idx,
  (SELECT group_concat(key || '=' || coalesce(int_value, string_value), ',')
   FROM args a WHERE a.arg_set_id = s.arg_set_id) AS args
FROM slice s JOIN track t ON s.track_id = t.id ORDER BY s.ts;
