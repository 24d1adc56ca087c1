-- trace: ftrace_wakeup_irq.textproto
-- (the idle task has no running row)
-- Each runnable state's waker: its running state (waker_id) and whether
-- the wakeup came from interrupt context (irq_context).
SELECT s.id, s.ts, s.utid, s.state, s.waker_utid, s.waker_id,
  s.irq_context, w.state AS waker_state
FROM thread_state s LEFT JOIN thread_state w ON w.id = s.waker_id
ORDER BY s.id;
