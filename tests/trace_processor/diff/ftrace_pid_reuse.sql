-- trace: ftrace_pid_reuse.textproto
SELECT t.utid, t.tid, t.name, t.start_ts, t.end_ts, p.upid, p.pid,
  p.start_ts AS proc_start, p.end_ts AS proc_end,
  (SELECT GROUP_CONCAT(s.name) FROM slice s JOIN thread_track tt
    ON s.track_id = tt.id WHERE tt.utid = t.utid) AS slices
FROM thread t JOIN process p USING (upid)
WHERE t.tid = 700 ORDER BY t.utid;
