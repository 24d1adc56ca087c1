-- sched.time_in_state: how a thread's (or a CPU's) time divides among
-- scheduling states, over the trace or within an interval.

INCLUDE PERFETTO MODULE intervals.intersect;

-- Per thread and state: the time spent in it, and its share of the
-- thread's total time in percent (rounded down).
CREATE PERFETTO TABLE sched_time_in_state_for_thread(
  utid JOINID(thread.id),
  total_runtime LONG,
  state STRING,
  time_in_state LONG,
  percentage_in_state LONG
) AS
WITH
  per_state AS (
    SELECT utid, state, sum(dur) AS time_in_state
    FROM thread_state
    GROUP BY utid, state
  ),
  per_thread AS (
    SELECT utid, sum(dur) AS total
    FROM thread_state
    GROUP BY utid
  )
SELECT
  s.utid,
  t.total AS total_runtime,
  s.state,
  s.time_in_state,
  s.time_in_state * 100 / t.total AS percentage_in_state
FROM per_state AS s
JOIN per_thread AS t ON t.utid = s.utid;

CREATE PERFETTO MACRO _sched_state_share(state Expr)
RETURNS Expr AS
max(iif(state = $state, percentage_in_state, NULL));

-- Per thread: the share of its time, in percent, in each main state and
-- in all the others together.
CREATE PERFETTO TABLE sched_percentage_of_time_in_state(
  utid JOINID(thread.id),
  running LONG,
  runnable LONG,
  runnable_preempted LONG,
  sleeping LONG,
  uninterruptible_sleep LONG,
  other LONG
) AS
SELECT
  utid,
  _sched_state_share!('Running') AS running,
  _sched_state_share!('R') AS runnable,
  _sched_state_share!('R+') AS runnable_preempted,
  _sched_state_share!('S') AS sleeping,
  _sched_state_share!('D') AS uninterruptible_sleep,
  sum(iif(state IN ('T', 't', 'X', 'Z', 'x', 'I', 'K', 'W', 'P', 'N'),
    time_in_state, NULL)) * 100 / total_runtime AS other
FROM sched_time_in_state_for_thread
GROUP BY utid;

-- Time a thread spent in each (state, io_wait, blocked_function) within
-- [ts, ts + dur), longest first.
CREATE PERFETTO FUNCTION sched_time_in_state_for_thread_in_interval(
  ts TIMESTAMP,
  dur DURATION,
  utid JOINID(thread.id)
)
RETURNS TABLE(
  state STRING,
  io_wait BOOL,
  blocked_function LONG,
  dur DURATION
) AS
SELECT t.state, t.io_wait, t.blocked_function, sum(ii.dur) AS dur
FROM _interval_intersect_single!($ts, $dur,
  (SELECT id, ts, dur FROM thread_state WHERE utid = $utid AND dur > 0)) AS ii
JOIN thread_state AS t ON t.id = ii.id
GROUP BY t.state, t.io_wait, t.blocked_function
ORDER BY dur DESC;

-- As above, also split by CPU.
CREATE PERFETTO FUNCTION sched_time_in_state_and_cpu_for_thread_in_interval(
  ts TIMESTAMP,
  dur DURATION,
  utid JOINID(thread.id)
)
RETURNS TABLE(
  state STRING,
  io_wait BOOL,
  cpu LONG,
  blocked_function LONG,
  dur DURATION
) AS
SELECT t.state, t.io_wait, t.cpu, t.blocked_function, sum(ii.dur) AS dur
FROM _interval_intersect_single!($ts, $dur,
  (SELECT id, ts, dur FROM thread_state WHERE utid = $utid AND dur > 0)) AS ii
JOIN thread_state AS t ON t.id = ii.id
GROUP BY t.state, t.io_wait, t.cpu, t.blocked_function
ORDER BY dur DESC;

-- Time a CPU's sched slices spent within [ts, ts + dur), by the state
-- each slice ended in.
CREATE PERFETTO FUNCTION sched_time_in_state_for_cpu_in_interval(
  cpu LONG,
  ts TIMESTAMP,
  dur LONG
)
RETURNS TABLE(
  end_state STRING,
  dur LONG
) AS
SELECT s.end_state, sum(ii.dur) AS dur
FROM _interval_intersect_single!($ts, $dur,
  (SELECT id, ts, dur FROM sched WHERE cpu = $cpu AND dur != -1)) AS ii
JOIN sched AS s ON s.id = ii.id
GROUP BY s.end_state;
