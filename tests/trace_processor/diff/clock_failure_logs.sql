-- trace: te_clocks.textproto
-- A packet's time in a clock nothing relates to trace time: logged as
-- upstream logs it, at the byte offset of the packet's payload, with the
-- clocks and the time, then the packet's loss.
SELECT l.id, l.ts, l.byte_offset, l.severity, l.name, a.key, a.int_value
FROM _trace_import_logs l LEFT JOIN args a USING (arg_set_id)
ORDER BY l.id, a.id;
