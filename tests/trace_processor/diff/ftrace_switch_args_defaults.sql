-- trace: ftrace_switch_args_defaults.textproto
-- A switch's raw args are its seven fields, sent or not.
SELECT e.id, e.ts, e.name, a.id AS arg_id, a.key, a.int_value,
  a.string_value, a.value_type, a.display_value
FROM ftrace_event e JOIN args a USING (arg_set_id)
ORDER BY e.id, a.id;
