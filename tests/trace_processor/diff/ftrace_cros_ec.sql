-- trace: ftrace_cros_ec.textproto
SELECT t.name, t.type, EXTRACT_ARG(t.dimension_arg_set_id, 'ec_sensor_num')
  AS sensor, c.ts, c.value, EXTRACT_ARG(c.arg_set_id, 'ec_num') AS ec_num,
  EXTRACT_ARG(c.arg_set_id, 'ec_delta') AS ec_delta,
  EXTRACT_ARG(c.arg_set_id, 'sample_ts') AS sample_ts
FROM counter c JOIN counter_track t ON c.track_id = t.id ORDER BY c.ts;
