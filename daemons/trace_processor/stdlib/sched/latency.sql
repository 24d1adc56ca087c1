-- sched.latency: how long each running period of a thread waited as
-- runnable first.

INCLUDE PERFETTO MODULE sched.runnable;

-- Running thread states with the sched slice that is the same period.
CREATE PERFETTO VIEW _sched_with_thread_state_join AS
SELECT ts.id AS thread_state_id, s.id AS sched_id
FROM sched AS s
JOIN thread_state AS ts
  ON ts.utid = s.utid AND ts.ts = s.ts AND ts.dur = s.dur;

-- For each running period: the runnable state right before it and its
-- duration, the scheduling latency.
CREATE PERFETTO TABLE sched_latency_for_running_interval(
  thread_state_id JOINID(thread_state.id),
  sched_id JOINID(sched.id),
  utid JOINID(thread.id),
  runnable_latency_id JOINID(thread_state.id),
  latency_dur LONG
) AS
SELECT
  r.id AS thread_state_id,
  j.sched_id,
  prev.utid,
  r.prev_runnable_id AS runnable_latency_id,
  prev.dur AS latency_dur
FROM sched_previous_runnable_on_thread AS r
JOIN thread_state AS prev ON prev.id = r.prev_runnable_id
JOIN _sched_with_thread_state_join AS j ON j.thread_state_id = r.id;
