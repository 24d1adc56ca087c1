-- slices.cpu_time: how much of each thread slice its thread spent on a
-- CPU, in time and in CPU cycles.

INCLUDE PERFETTO MODULE linux.cpu.utilization.slice;
INCLUDE PERFETTO MODULE slices.with_context;

-- The thread's scheduled periods, indexed so that each slice finds the
-- ones it overlaps by a range on (utid, ts).
CREATE PERFETTO TABLE _slice_cpu_time_sched AS
SELECT utid, ts, dur FROM sched WHERE dur > 0 AND utid > 0;

CREATE PERFETTO INDEX _slice_cpu_time_sched_utid_ts
ON _slice_cpu_time_sched(utid, ts);

-- The CPU time of every thread slice that ran at all: the overlaps of
-- the slice with its thread's scheduled periods, summed.
CREATE PERFETTO TABLE thread_slice_cpu_time(
  -- The slice.
  id JOINID(slice.id),
  -- Its name.
  name STRING,
  -- Its thread.
  utid JOINID(thread.id),
  -- The thread's name.
  thread_name STRING,
  -- The thread's process.
  upid JOINID(process.id),
  -- The process's name.
  process_name STRING,
  -- Nanoseconds on a CPU within the slice.
  cpu_time LONG
) AS
SELECT
  s.id,
  s.name,
  s.utid,
  s.thread_name,
  s.upid,
  s.process_name,
  SUM(MIN(s.ts + s.dur, c.ts + c.dur) - MAX(s.ts, c.ts)) AS cpu_time
FROM thread_slice AS s
JOIN _slice_cpu_time_sched AS c
  ON c.utid = s.utid
  AND c.ts < s.ts + s.dur
  AND c.ts >= s.ts - (SELECT IFNULL(MAX(dur), 0) FROM _slice_cpu_time_sched)
  AND c.ts + c.dur > s.ts
WHERE s.utid > 0 AND s.dur > 0
GROUP BY s.id
ORDER BY s.id;

-- The CPU cycles of each thread slice (from the CPUs' frequencies).
CREATE PERFETTO VIEW thread_slice_cpu_cycles(
  -- The slice.
  id JOINID(slice.id),
  -- Its name.
  name STRING,
  -- Its thread.
  utid JOINID(thread.id),
  -- The thread's name.
  thread_name STRING,
  -- The thread's process.
  upid JOINID(process.id),
  -- The process's name.
  process_name STRING,
  -- Cycles spent, in thousandths.
  millicycles LONG,
  -- Cycles spent, in millions.
  megacycles LONG
) AS
SELECT id, name, utid, thread_name, upid, process_name, millicycles,
  megacycles
FROM cpu_cycles_per_thread_slice;
