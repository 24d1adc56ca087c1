-- trace_metadata: what the trace says about itself (the metadata table)
-- and its extent, as upstream reports it.
DROP VIEW IF EXISTS trace_metadata_output;
CREATE VIEW trace_metadata_output AS
SELECT TraceMetadata(
  'trace_duration_ns', (SELECT IFNULL(end_ts - start_ts, 0) FROM trace_bounds),
  'trace_uuid', (SELECT str_value FROM metadata WHERE name = 'trace_uuid' LIMIT 1),
  'unique_session_name', (
    SELECT str_value FROM metadata WHERE name = 'unique_session_name' LIMIT 1),
  'trace_size_bytes', (
    SELECT int_value FROM metadata WHERE name = 'trace_size_bytes' LIMIT 1),
  'trace_trigger', (
    SELECT RepeatedField(slice.name)
    FROM track JOIN slice ON track.id = slice.track_id
    WHERE track.name = 'Trace Triggers'),
  'trace_causal_trigger', (
    SELECT str_value FROM metadata WHERE name = 'trace_trigger' LIMIT 1),
  'trace_config_pbtxt', (
    SELECT str_value FROM metadata WHERE name = 'trace_config_pbtxt' LIMIT 1),
  'sched_duration_ns', (SELECT IFNULL(MAX(ts) - MIN(ts), 0) FROM sched),
  'tracing_started_ns', (
    SELECT int_value FROM metadata WHERE name = 'tracing_started_ns' LIMIT 1),
  'data_loss_count', (
    SELECT COUNT() FROM stats WHERE severity = 'data_loss' AND value > 0),
  'error_count', (
    SELECT COUNT() FROM stats WHERE severity = 'error' AND value > 0)
);
