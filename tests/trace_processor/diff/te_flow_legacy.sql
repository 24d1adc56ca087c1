-- trace: te_flow_legacy.textproto
SELECT so.name AS out_name, si.name AS in_name, f.trace_id,
  EXTRACT_ARG(f.arg_set_id, 'name') AS flow_name,
  EXTRACT_ARG(f.arg_set_id, 'cat') AS flow_cat,
  (SELECT value FROM stats WHERE name = 'flow_without_direction') AS no_dir
FROM flow f JOIN slice so ON f.slice_out = so.id
JOIN slice si ON f.slice_in = si.id
ORDER BY f.id;
