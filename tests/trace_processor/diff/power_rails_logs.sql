-- trace: power_rails.textproto
-- A power_rails packet without energy data is logged at its time.
SELECT id, ts, byte_offset, severity, name, arg_set_id FROM _trace_import_logs;
