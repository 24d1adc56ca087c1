-- trace: empty_trace.textproto
-- An empty file is no trace: not even the idle task's rows.
SELECT (SELECT count(*) FROM thread) AS threads,
  (SELECT count(*) FROM process) AS processes;
