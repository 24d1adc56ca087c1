-- trace: legacy_async_event.textproto
-- TrackEvent's legacy async phases (S T F, b n e) on upstream's tracks:
-- keyed by id and scope, named by the id's first slice, with the id, the
-- sequence's thread and the phase as args. An event without an id is
-- counted, not placed.
SELECT s.ts, s.dur, s.depth, s.name, s.track_id, t.name AS track, t.type,
  (SELECT group_concat(key || '=' || display_value) FROM args a
    WHERE a.arg_set_id = s.arg_set_id) AS args
FROM slice s JOIN track t ON s.track_id = t.id ORDER BY s.ts, s.id;
SELECT t.id, t.name, t.type,
  (SELECT group_concat(key || '=' || display_value) FROM args a
    WHERE a.arg_set_id = t.dimension_arg_set_id) AS dims,
  (SELECT group_concat(key || '=' || display_value) FROM args a
    WHERE a.arg_set_id = t.source_arg_set_id) AS source
FROM track t ORDER BY t.id;
SELECT name, value FROM stats WHERE severity IN ('error', 'data_loss') AND value > 0;
