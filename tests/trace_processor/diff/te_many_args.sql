-- trace: te_many_args.textproto
-- More arg fields than an event keeps at once (32): read again per pass,
-- in upstream's order all the same.
SELECT arg_set_id, flat_key, key, int_value, string_value, value_type
FROM args ORDER BY id;
