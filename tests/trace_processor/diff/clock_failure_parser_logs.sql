-- trace: te_legacy.textproto
-- A monotonic time converted while parsing, with no snapshot relating
-- the clock: logged with no offset, its target the file's own clock.
SELECT l.id, l.ts, l.byte_offset, l.severity, l.name, a.key, a.int_value
FROM _trace_import_logs l LEFT JOIN args a USING (arg_set_id)
ORDER BY l.id, a.id;
