-- trace: ftrace_ksyms.textproto
SELECT r.ts, r.name, r.cpu, a.key, a.value_type, a.int_value, a.string_value,
  EXTRACT_ARG(r.arg_set_id, 'work') AS work
FROM raw r JOIN args a ON a.arg_set_id = r.arg_set_id AND a.key IN ('function', 'caller')
ORDER BY r.ts;
