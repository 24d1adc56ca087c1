-- trace: ftrace_blocked.textproto
-- A switch between two tasks never seen makes the next task's thread
-- before the prev's, as upstream's, so utids follow upstream's.
SELECT utid, tid, name FROM thread ORDER BY utid;
SELECT id, ts, name, cpu, utid FROM ftrace_event ORDER BY id;
