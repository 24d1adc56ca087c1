-- trace: gpu_frequency.textproto
SELECT id, ugpu, gpu FROM gpu ORDER BY id;
SELECT t.name, t.type, t.unit, EXTRACT_ARG(t.dimension_arg_set_id, 'ugpu')
  AS ugpu, EXTRACT_ARG(t.dimension_arg_set_id, 'gpu') AS gpu, c.ts, c.value
FROM counter c JOIN counter_track t ON c.track_id = t.id ORDER BY c.ts;
