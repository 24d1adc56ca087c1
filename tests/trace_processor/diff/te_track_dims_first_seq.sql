-- trace: te_track_dims_first_seq.textproto
SELECT t.name, t.type,
  (SELECT group_concat(key || '=' || value_type || ':' ||
     coalesce(int_value, string_value), ' ')
   FROM (SELECT * FROM args WHERE arg_set_id = t.dimension_arg_set_id
     ORDER BY key)) AS dims,
  (SELECT group_concat(key || '=' || value_type || ':' ||
     coalesce(int_value, string_value), ' ')
   FROM (SELECT * FROM args WHERE arg_set_id = t.source_arg_set_id
     ORDER BY key)) AS source
FROM track t
WHERE t.type GLOB '*track_event'
ORDER BY t.type, t.name;
