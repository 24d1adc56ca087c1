-- trace: te_many_args.textproto
-- A source_location_iid never interned: the lookup and the arg it fails
-- each count.
SELECT name, value FROM stats WHERE name IN
  ('interned_data_tokenizer_errors', 'track_event_parser_errors')
ORDER BY name
