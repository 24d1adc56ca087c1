-- trace: te_log_message.textproto
-- A log message whose body was never interned: the lookup and the
-- message's parse each count.
SELECT name, value FROM stats WHERE name IN
  ('interned_data_tokenizer_errors', 'track_event_parser_errors')
ORDER BY name
