-- trace: json_events.json
SELECT s.name, a.flat_key, a.key, a.int_value, a.string_value, a.real_value,
  a.value_type
FROM slice s JOIN args a USING (arg_set_id) ORDER BY a.id;
