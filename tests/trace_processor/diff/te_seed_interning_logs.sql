-- trace: te_seed_interning.textproto
-- Packets and interned data skipped for a lost state are logged at their
-- byte offsets, with their sequence.
SELECT l.id, l.byte_offset, l.severity, l.name, a.key, a.display_value
FROM _trace_import_logs l LEFT JOIN args a USING (arg_set_id)
ORDER BY l.id;
