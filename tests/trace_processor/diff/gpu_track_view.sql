-- trace: ftrace_drm_sched.textproto
-- Upstream's deprecated gpu_track: the tracks of GPU types (here DRM's
-- scheduler rings and fences), with their type as scope.
SELECT * FROM gpu_track ORDER BY id;
