-- trace: ftrace_kernel_slices.textproto
-- Whole rows as upstream's: a uuid made from the trace's bytes is no
-- trace's (trace_id NULL), each utsname key is a row even when not given,
-- a cpu's cluster is 0 until a CpuInfo says, and the first converted time
-- of a clock (no ClockSnapshot) bridges it to the file's clock at 0.
SELECT * FROM metadata ORDER BY id;
SELECT * FROM cpu ORDER BY id;
SELECT * FROM clock_snapshot ORDER BY id;
