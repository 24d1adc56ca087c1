-- trace: cpu_features.textproto
-- A CpuInfo with features this version does not know is logged, as
-- upstream logs it (no time, no args).
SELECT id, ts, byte_offset, severity, name, arg_set_id FROM _trace_import_logs;
