-- trace: te_merged_tracks.textproto
SELECT s.name, t.name AS track, t.type, p.name AS process,
  EXTRACT_ARG(t.dimension_arg_set_id, 'merge_key_value') AS merge_key,
  EXTRACT_ARG(t.dimension_arg_set_id, 'track_compressor_idx') AS idx
FROM slice s JOIN track t ON s.track_id = t.id
LEFT JOIN process_track pt ON pt.id = t.id
LEFT JOIN process p ON p.upid = pt.upid
ORDER BY s.ts;
