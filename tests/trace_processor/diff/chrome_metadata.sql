-- trace: chrome_metadata.textproto
-- Each ChromeMetadataPacket is an instance with its letter (cr-a-, cr-b-),
-- the field trials two to a line; the background tracing
-- metadata is kept whole in base64. Each ChromeTrigger is an instant on
-- the Trace Triggers track (named "chrome_trigger" without a name), ends
-- the flow it names and adds a cr-triggered_rule_name_hash row.
SELECT name, key_type, int_value, str_value FROM metadata
WHERE name GLOB 'cr-*' ORDER BY name, int_value;
SELECT s.ts, s.name, t.name AS track,
  (SELECT group_concat(key || '=' || display_value) FROM args a
    WHERE a.arg_set_id = s.arg_set_id) AS args
FROM slice s JOIN track t ON s.track_id = t.id ORDER BY s.ts;
SELECT so.name AS from_slice, si.name AS to_slice, f.trace_id FROM flow f
JOIN slice so ON f.slice_out = so.id JOIN slice si ON f.slice_in = si.id;
