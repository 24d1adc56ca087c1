-- trace: te_streaming_profile_times.textproto
SELECT name, ts FROM slice ORDER BY ts;
SELECT name, value FROM stats
WHERE name IN ('streaming_profile_invalid_timestamp',
  'track_event_invalid_timestamp') ORDER BY name;
