-- trace: json_async_nesting.json
-- Legacy async slices of one cookie nest on the track named after its
-- first slice; cookies share a name's tracks when they do not overlap;
-- pid and tid 0 are a task of their own in JSON. Only tracks events go on.
SELECT s.ts, s.dur, s.depth, s.name, s.track_id, s.parent_id, t.name AS track,
  t.type,
  (SELECT group_concat(key || '=' || display_value) FROM args a
    WHERE a.arg_set_id = t.dimension_arg_set_id) AS dims,
  (SELECT group_concat(key || '=' || display_value) FROM args a
    WHERE a.arg_set_id = t.source_arg_set_id) AS source
FROM slice s JOIN track t ON s.track_id = t.id ORDER BY s.id;
SELECT utid, tid, upid FROM thread ORDER BY utid;
SELECT upid, pid FROM process ORDER BY upid;
