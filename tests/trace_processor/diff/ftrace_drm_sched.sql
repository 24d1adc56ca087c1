-- trace: ftrace_drm_sched.textproto
SELECT s.id, s.ts, s.dur, s.name, t.name AS track, t.type,
  (SELECT group_concat(key || '=' || coalesce(int_value, string_value), ',')
   FROM args a WHERE a.arg_set_id = s.arg_set_id) AS args
FROM slice s JOIN track t ON s.track_id = t.id
ORDER BY s.ts;
SELECT slice_out, slice_in FROM flow ORDER BY slice_out;
SELECT t.name, a.key, a.int_value, a.string_value
FROM track t JOIN args a ON a.arg_set_id = t.dimension_arg_set_id
WHERE t.type IN ('drm_sched_ring', 'drm_vblank') ORDER BY t.id, a.id;
