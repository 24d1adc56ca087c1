-- trace: ftrace_wakeup_raw.textproto
SELECT t.tid, s.ts, s.dur, s.state, s.waker_utid
FROM thread_state s JOIN thread t USING (utid)
ORDER BY t.tid, s.ts;
SELECT name, count(*) AS n FROM ftrace_event GROUP BY name ORDER BY name;
