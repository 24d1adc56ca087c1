-- trace: ftrace_virtio_gpu.textproto
SELECT s.ts, s.dur, s.name, t.name AS track,
  EXTRACT_ARG(t.dimension_arg_set_id, 'track_compressor_idx') AS idx
FROM slice s JOIN track t ON s.track_id = t.id ORDER BY s.ts;
SELECT t.name, t.type, EXTRACT_ARG(t.dimension_arg_set_id, 'virtgpu_name')
  AS queue, c.ts, c.value
FROM counter c JOIN counter_track t ON c.track_id = t.id
ORDER BY t.id, c.ts;
