-- trace: ftrace_compact.textproto
SELECT s.ts, s.dur, s.cpu, t.tid, t.name, s.end_state, s.priority
FROM sched s JOIN thread t USING (utid) ORDER BY s.ts;
