-- trace: empty_trace.textproto
-- An empty file is no trace: only the session's stats have rows.
SELECT id, name, key, severity, source, machine_id FROM stats
ORDER BY id
