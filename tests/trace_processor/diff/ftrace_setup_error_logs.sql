-- trace: service_stats.textproto
-- Each ftrace setup error of a sequence's first start is an import log
-- with its message, in upstream's order: failed events, unknown events,
-- then the atrace error.
SELECT l.id, l.ts, l.severity, l.name, a.key, a.string_value
FROM _trace_import_logs l LEFT JOIN args a USING (arg_set_id)
WHERE l.name = 'ftrace_setup_errors' ORDER BY l.id, a.id;
