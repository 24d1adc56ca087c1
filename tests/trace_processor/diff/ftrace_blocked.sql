-- trace: ftrace_blocked.textproto
SELECT ts.ts, ts.dur, t.tid, ts.state, ts.io_wait, ts.blocked_function
FROM thread_state ts JOIN thread t USING (utid)
ORDER BY t.tid, ts.ts;
