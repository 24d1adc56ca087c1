-- sched.with_context: scheduling slices with their thread's and process's
-- names.

INCLUDE PERFETTO MODULE std.thread.with_context;

-- Every sched slice (a Running period on a CPU) with thread and process.
CREATE PERFETTO VIEW sched_with_thread_process(
  id ID(sched.id),
  ts TIMESTAMP,
  dur DURATION,
  utid JOINID(thread.id),
  thread_name STRING,
  upid JOINID(process.id),
  process_name STRING,
  cpu LONG,
  end_state STRING,
  priority LONG
) AS
SELECT
  s.id,
  s.ts,
  s.dur,
  s.utid,
  twp.upid,
  twp.thread_name,
  twp.process_name,
  s.cpu,
  s.end_state,
  s.priority
FROM _thread_with_process AS twp
JOIN sched AS s ON s.utid = twp.utid;
