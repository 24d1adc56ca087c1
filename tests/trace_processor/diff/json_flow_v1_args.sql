-- trace: json_flow_v1_args.json
-- A v1 flow started twice keeps its first start (the second is counted as
-- a duplicate); rows carry the flow's number and its name and category.
SELECT so.name AS out_name, si.name AS in_name, f.trace_id,
  EXTRACT_ARG(f.arg_set_id, 'name') AS flow_name,
  EXTRACT_ARG(f.arg_set_id, 'cat') AS flow_cat,
  (SELECT value FROM stats WHERE name = 'flow_duplicate_id') AS dup,
  (SELECT value FROM stats WHERE name = 'flow_end_without_start') AS orphan
FROM flow f JOIN slice so ON f.slice_out = so.id
JOIN slice si ON f.slice_in = si.id
ORDER BY f.id;
