-- trace: te_streaming_profile_times.textproto
-- A streaming profile packet's time is converted as upstream converts it
-- (MONOTONIC, logged when it cannot be), and one out of range is logged
-- at its packet's byte offset, as a legacy event's out-of-range time.
SELECT l.id, l.byte_offset, l.name, a.key, a.display_value
FROM _trace_import_logs l LEFT JOIN args a USING (arg_set_id)
ORDER BY l.id, a.id;
