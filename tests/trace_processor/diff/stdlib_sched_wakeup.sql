-- trace: ftrace_sched.textproto
-- The tables of sched.thread_executing_span that need no waker data
-- (thread_state.waker_id is not filled by this engine yet).
INCLUDE PERFETTO MODULE sched.thread_executing_span;
SELECT * FROM _sleep_state ORDER BY id;
SELECT * FROM _thread_end_ts ORDER BY utid;
SELECT * FROM _is_fuchsia;
