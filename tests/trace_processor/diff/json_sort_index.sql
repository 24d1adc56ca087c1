-- trace: json_sort_index.json
SELECT p.pid, t.tid,
  extract_arg(p.arg_set_id, 'process_sort_index_hint') AS process_hint,
  extract_arg(t.arg_set_id, 'thread_sort_index_hint') AS thread_hint
FROM thread t JOIN process p USING (upid)
ORDER BY p.pid, t.tid;
SELECT name, value FROM stats WHERE name = 'json_parser_failure';
