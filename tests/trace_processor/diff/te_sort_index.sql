-- trace: te_sort_index.textproto
SELECT pid, name, extract_arg(arg_set_id, 'process_sort_index_hint') AS hint
FROM process ORDER BY upid;
SELECT tid, name, extract_arg(arg_set_id, 'thread_sort_index_hint') AS hint
FROM thread ORDER BY utid;
