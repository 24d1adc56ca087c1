-- trace: te_args.textproto
SELECT name, EXTRACT_ARG(arg_set_id, 'debug.s') AS s,
  EXTRACT_ARG(arg_set_id, 'debug.dict.k2[1]') AS k2_1,
  EXTRACT_ARG(arg_set_id, 'source.line_number') AS line
FROM slice ORDER BY id;
