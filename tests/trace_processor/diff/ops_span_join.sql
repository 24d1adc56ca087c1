-- trace: ftrace_sched.textproto
-- The operator tables on imported data: scheduling slices joined with
-- their thread's states (span join partitioned by utid).
CREATE VIEW sp_sched AS SELECT ts, dur, utid, cpu FROM sched WHERE dur > 0;
CREATE VIEW sp_state AS SELECT ts, dur, utid, state FROM thread_state
  WHERE dur > 0;
CREATE VIRTUAL TABLE sj USING SPAN_JOIN(sp_sched PARTITIONED utid,
  sp_state PARTITIONED utid);
SELECT ts, dur, utid, cpu, state FROM sj ORDER BY utid, ts;
