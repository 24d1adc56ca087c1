-- trace: android_sysprop.textproto
SELECT t.name, t.type, c.ts, c.value,
  EXTRACT_ARG(t.dimension_arg_set_id, 'counter_key') AS counter_key,
  EXTRACT_ARG(t.dimension_arg_set_id, 'sysprop_name') AS sysprop,
  EXTRACT_ARG(t.dimension_arg_set_id, 'upid') AS upid
FROM counter_track t LEFT JOIN counter c ON c.track_id = t.id
ORDER BY t.id, c.ts;
SELECT s.ts, s.dur, s.name, t.name AS track, t.type
FROM slice s JOIN track t ON s.track_id = t.id ORDER BY s.ts;
SELECT name, int_value FROM metadata
WHERE name = 'android_profile_boot_classpath';
SELECT COUNT(*) AS processes FROM process WHERE pid = 321;
