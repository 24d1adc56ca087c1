-- trace: ftrace_kernel_slices.textproto
SELECT s.ts, s.dur, t.name AS track, t.type, s.category, s.name, s.depth,
  EXTRACT_ARG(t.dimension_arg_set_id, 'block_device') AS dev,
  EXTRACT_ARG(t.dimension_arg_set_id, 'track_compressor_idx') AS idx,
  EXTRACT_ARG(s.arg_set_id, 'sector') AS sector,
  EXTRACT_ARG(s.arg_set_id, 'len') AS len,
  EXTRACT_ARG(s.arg_set_id, 'ret') AS ret,
  EXTRACT_ARG(s.arg_set_id, 'event_type') AS event_type,
  EXTRACT_ARG(s.arg_set_id, 'cma_nr_migrated') AS migrated,
  EXTRACT_ARG(s.arg_set_id, 'cma_req_pages') AS pages
FROM slice s JOIN track t ON s.track_id = t.id
ORDER BY s.ts, s.id;
