-- sched.runnable: for each running period of a thread, the runnable
-- period that led to it.

-- For each Running thread state: the closest earlier runnable (R, R+)
-- state of the same thread, and the closest earlier one that a thread
-- woke (outside an interrupt).
CREATE PERFETTO TABLE sched_previous_runnable_on_thread(
  id JOINID(thread_state.id),
  prev_runnable_id JOINID(thread_state.id),
  prev_wakeup_runnable_id JOINID(thread_state.id)
) AS
WITH
  r_states AS (
    SELECT
      id,
      state,
      max(CASE WHEN state != 'Running' THEN id END) OVER per_thread
        AS prev_runnable_id,
      max(CASE WHEN waker_utid IS NOT NULL AND ifnull(irq_context, 0) != 1
        THEN id END) OVER per_thread AS prev_wakeup_runnable_id
    FROM thread_state
    WHERE state GLOB 'R*' AND dur != -1
    WINDOW per_thread AS (PARTITION BY utid ORDER BY id)
  )
SELECT id, prev_runnable_id, prev_wakeup_runnable_id
FROM r_states
WHERE state = 'Running'
ORDER BY id;
