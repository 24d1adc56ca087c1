-- trace: ftrace_drivers.textproto
SELECT s.ts, s.dur, t.name AS track, t.type, s.name,
  EXTRACT_ARG(t.dimension_arg_set_id, 'ufs_tag') AS tag,
  EXTRACT_ARG(s.arg_set_id, 'file_path') AS path,
  EXTRACT_ARG(s.arg_set_id, 'bytes_read_end') AS read_end
FROM slice s JOIN track t ON s.track_id = t.id
ORDER BY s.ts, s.id;
SELECT c.ts, t.name, t.type, c.value,
  EXTRACT_ARG(c.arg_set_id, 'inode') AS inode
FROM counter c JOIN counter_track t ON c.track_id = t.id
ORDER BY c.ts, c.id;
SELECT name, value FROM stats WHERE name = 'systrace_parse_failure';
