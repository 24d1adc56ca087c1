-- trace: ftrace_task_states.textproto
SELECT s.ts, s.dur, t.tid, s.end_state,
  (SELECT group_concat(ts.state, ',') FROM thread_state ts
   WHERE ts.utid = s.utid AND ts.ts = s.ts + s.dur) AS next_state
FROM sched s JOIN thread t USING (utid)
ORDER BY s.ts;
