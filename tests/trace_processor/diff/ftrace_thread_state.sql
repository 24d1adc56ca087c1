-- trace: ftrace_sched.textproto
SELECT ts.ts, ts.dur, ts.cpu, t.tid, ts.state, w.tid AS waker_tid
FROM thread_state ts JOIN thread t USING (utid)
LEFT JOIN thread w ON w.utid = ts.waker_utid
ORDER BY t.tid, ts.ts;
