-- trace: json_events.json
-- Events upstream rejects, logged as it logs them: the tokenizer's with
-- the event's text and the byte after it, the parser's with the event's
-- name and phase; and what the logs' arg sets do to the others' ids.
SELECT l.id, l.ts, l.byte_offset, l.severity, l.name, a.key, a.string_value
FROM _trace_import_logs l LEFT JOIN args a USING (arg_set_id)
ORDER BY l.id, a.id;
SELECT id, type, dimension_arg_set_id, source_arg_set_id FROM track
ORDER BY id;
