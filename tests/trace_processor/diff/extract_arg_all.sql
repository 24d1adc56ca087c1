-- trace: te_args.textproto
-- EXTRACT_ARG gives each arg's own value, for every type, wherever the
-- key is alone in its set; and NULL for a key or set that is not there.
SELECT a.value_type, count(*) AS args,
  sum(EXTRACT_ARG(a.arg_set_id, a.key) IS
      coalesce(a.int_value, a.string_value, a.real_value)) AS same
FROM args a
WHERE (SELECT count(*) FROM args b
       WHERE b.arg_set_id = a.arg_set_id AND b.key = a.key) = 1
GROUP BY a.value_type ORDER BY a.value_type;
SELECT EXTRACT_ARG(0, 'no.such.key') AS missing_key,
  EXTRACT_ARG(1000000, 'debug.x') AS missing_set;
