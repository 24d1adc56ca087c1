-- trace: json_systrace.json
-- Text ftrace embedded in a JSON trace lands in the ftrace tables.
SELECT s.ts, s.cpu, t.tid, t.name FROM sched s JOIN thread t USING (utid);
