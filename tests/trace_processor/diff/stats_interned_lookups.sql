-- trace: ftrace_ksyms.textproto
-- Each failed lookup of interned data counts, as upstream counts it: here
-- kernel symbols the trace never interned.
SELECT name, value FROM stats WHERE name IN
  ('interned_data_tokenizer_errors', 'track_event_parser_errors')
ORDER BY name
