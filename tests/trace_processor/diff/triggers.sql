-- trace: triggers.textproto
-- Each trigger is an instant on the "Trace Triggers" track; trace_trigger
-- is the first clone-snapshot trigger (else the first trigger), and its
-- time is a stat, as upstream keeps them.
SELECT s.ts, s.dur, s.name, t.name AS track, t.type,
  (SELECT group_concat(key || '=' || display_value) FROM args a
    WHERE a.arg_set_id = s.arg_set_id) AS args
FROM slice s JOIN track t ON s.track_id = t.id ORDER BY s.ts;
SELECT name, str_value FROM metadata WHERE name = 'trace_trigger';
SELECT name, value FROM stats WHERE name = 'traced_clone_trigger_timestamp_ns';
