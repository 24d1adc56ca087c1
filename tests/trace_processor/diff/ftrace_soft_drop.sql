-- trace: ftrace_soft_drop.textproto
SELECT ts, name, cpu FROM ftrace_event ORDER BY ts, cpu;
SELECT s.ts, s.dur, s.name FROM slice s ORDER BY s.ts;
SELECT s.ts, s.dur, s.cpu, t.tid FROM sched s JOIN thread t USING (utid)
ORDER BY s.ts;
SELECT name, int_value FROM metadata
WHERE name = 'ftrace_latest_data_start_ns';
