-- sched.thread_level_parallelism: how many threads were runnable, in
-- uninterruptible sleep, or running on a CPU, over time.

INCLUDE PERFETTO MODULE intervals.overlap;

-- Number of runnable (R) threads from ts until the next row's ts.
CREATE PERFETTO TABLE sched_runnable_thread_count(
  ts TIMESTAMP,
  runnable_thread_count LONG
) AS
SELECT ts, value AS runnable_thread_count
FROM intervals_overlap_count!(
  (SELECT ts, dur FROM thread_state WHERE state = 'R'), ts, dur)
ORDER BY ts;

-- Number of threads in uninterruptible sleep (D) from ts until the next
-- row's ts.
CREATE PERFETTO TABLE sched_uninterruptible_sleep_thread_count(
  ts TIMESTAMP,
  uninterruptible_sleep_thread_count LONG
) AS
SELECT ts, value AS uninterruptible_sleep_thread_count
FROM intervals_overlap_count!(
  (SELECT ts, dur FROM thread_state WHERE state = 'D'), ts, dur)
ORDER BY ts;

-- Number of CPUs running a task other than the idle task, from ts until
-- the next row's ts.
CREATE PERFETTO TABLE sched_active_cpu_count(
  ts TIMESTAMP,
  active_cpu_count LONG
) AS
SELECT ts, value AS active_cpu_count
FROM intervals_overlap_count!(
  (SELECT ts, dur FROM sched
   WHERE utid NOT IN (SELECT utid FROM thread WHERE tid = 0)),
  ts, dur)
ORDER BY ts;
