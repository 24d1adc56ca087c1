-- trace: te_log_message.textproto
-- A TrackEvent's log message becomes args of its slice (only for an event
-- of a thread); Chrome's active processes too, and make processes; an
-- event with no track nor thread goes to the default track.
SELECT s.ts, s.name, a.key, a.display_value
FROM slice s LEFT JOIN args a USING (arg_set_id)
ORDER BY s.ts, a.id;
SELECT upid, pid FROM process ORDER BY upid;
SELECT t.name, t.type FROM slice s JOIN track t ON s.track_id = t.id
WHERE s.name = 'active';
SELECT name, value FROM stats WHERE name = 'track_event_parser_errors';
