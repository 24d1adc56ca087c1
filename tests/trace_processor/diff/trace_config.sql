-- trace: trace_config.textproto
-- TracePacket.trace_config in the metadata table, as upstream prints it.
SELECT name, str_value FROM metadata
WHERE name IN ('trace_config_pbtxt', 'unique_session_name') ORDER BY id;
