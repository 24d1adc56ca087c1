-- trace: systrace_text_header.systrace
-- atrace's text: what comes before "TRACE:" and a first "cpus=" line are
-- not the trace; a line's task names its thread ("<...>" does not); the
-- time is read as upstream reads it (seconds as a double, truncated); a
-- line that is no event is counted.
SELECT ts, dur, name FROM slice ORDER BY ts;
SELECT utid, tid, name FROM thread ORDER BY utid;
SELECT name, value FROM stats WHERE severity IN ('error', 'data_loss') AND value > 0;
