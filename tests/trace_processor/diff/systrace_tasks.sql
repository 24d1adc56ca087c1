-- trace: systrace_tasks.txt
-- Text ftrace as upstream reads it: sched_blocked_reason keeps the caller
-- as printed, "D|K" is "DK", and task_newtask/task_rename only reach
-- ftrace_event (upstream's text importer makes no threads of them).
SELECT t.tid, t.name, p.pid, p.name AS process,
  (SELECT group_concat(ts.state || ':' || coalesce(ts.io_wait, 'n') || ':' ||
     coalesce(ts.blocked_function, 'n'), ',') FROM thread_state ts
   WHERE ts.utid = t.utid) AS states
FROM thread t LEFT JOIN process p USING (upid)
ORDER BY t.utid;
