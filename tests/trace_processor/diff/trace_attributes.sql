-- trace: trace_attributes.textproto
-- Trace attributes of the config and of a TraceAttributes packet, in file
-- order; the config's uuid when no TraceUuid packet names the trace; the
-- incremental build and SDK level (Android 11: 30) of the fingerprint;
-- each slow-starting data source as "producer data_source".
SELECT name, key_type, int_value, str_value FROM metadata
WHERE name GLOB 'trace_attribute.*' OR name GLOB 'android_*'
  OR name IN ('trace_uuid', 'unique_session_name', 'slow_start_data_source')
ORDER BY name, str_value;
