-- trace: ftrace_states_lost.textproto
SELECT ts.ts, ts.dur, t.tid, ts.state, ts.cpu, w.tid AS waker
FROM thread_state ts JOIN thread t USING (utid)
LEFT JOIN thread w ON w.utid = ts.waker_utid
ORDER BY t.tid, ts.ts;
