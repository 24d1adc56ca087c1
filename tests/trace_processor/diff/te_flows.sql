-- trace: te_flows.textproto
SELECT so.name AS out_name, so.ts AS out_ts, si.name AS in_name,
  si.ts AS in_ts, f.trace_id
FROM flow f JOIN slice so ON f.slice_out = so.id
JOIN slice si ON f.slice_in = si.id
ORDER BY f.id;
