-- trace: te_track_dims_first_seq.textproto
SELECT t.name, c.ts, c.value,
  (SELECT group_concat(key || '=' || value_type || ':' ||
     coalesce(int_value, string_value), ' ')
   FROM (SELECT * FROM args WHERE arg_set_id = c.arg_set_id
     ORDER BY key)) AS args,
  (SELECT tid FROM thread WHERE utid = extract_arg(c.arg_set_id,
     'legacy_event.passthrough_utid')) AS passthrough_tid
FROM counter c JOIN track t ON t.id = c.track_id
ORDER BY t.name, c.ts;
