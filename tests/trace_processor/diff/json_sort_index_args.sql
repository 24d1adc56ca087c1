-- trace: json_sort_index_args.json
-- Process and thread args are stored once the trace is read, processes'
-- first, in the order upstream's map of them holds them; slices' equal
-- args share a set.
SELECT a.id, a.arg_set_id, a.key, a.display_value,
  (SELECT pid FROM process p WHERE p.arg_set_id = a.arg_set_id) AS pid,
  (SELECT tid FROM thread t WHERE t.arg_set_id = a.arg_set_id) AS tid,
  (SELECT COUNT(*) FROM slice s WHERE s.arg_set_id = a.arg_set_id) AS slices
FROM args a ORDER BY a.id;
