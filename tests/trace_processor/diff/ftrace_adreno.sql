-- trace: ftrace_adreno.textproto
SELECT s.ts, s.dur, s.name, t.name AS track, t.type,
  EXTRACT_ARG(t.dimension_arg_set_id, 'context_id') AS ctx,
  EXTRACT_ARG(t.dimension_arg_set_id, 'track_compressor_idx') AS idx
FROM slice s JOIN track t ON s.track_id = t.id
ORDER BY s.ts;
SELECT ts, name, cpu FROM ftrace_event ORDER BY ts, id;
