-- trace: atrace_device_state.systrace
SELECT t.name AS track, t.type, s.ts, s.dur, s.name, s.depth
FROM slice s JOIN track t ON s.track_id = t.id
WHERE t.name = 'DeviceStateChanged'
ORDER BY s.ts;
SELECT name, value FROM stats WHERE name = 'systrace_parse_failure';
