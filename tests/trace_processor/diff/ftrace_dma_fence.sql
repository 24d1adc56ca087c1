-- trace: ftrace_dma_fence.textproto
SELECT s.ts, s.dur, s.name, t.name AS track, t.type,
  (SELECT group_concat(key || '=' || coalesce(int_value, string_value), ',')
   FROM args a WHERE a.arg_set_id = s.arg_set_id) AS args
FROM slice s JOIN track t ON s.track_id = t.id
ORDER BY s.ts, s.id;
SELECT t.name, EXTRACT_ARG(t.dimension_arg_set_id, 'name') AS timeline,
  EXTRACT_ARG(t.dimension_arg_set_id, 'context') AS context
FROM track t WHERE t.type = 'drm_fence' ORDER BY t.id;
