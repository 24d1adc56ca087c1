-- trace: ftrace_fork_parent_later.textproto
-- A thread made (CLONE_THREAD) by one whose process is not known yet
-- makes no process: both join the process found later, as upstream's.
SELECT upid, pid, name, parent_upid, cmdline FROM process ORDER BY upid;
SELECT utid, tid, name, upid FROM thread ORDER BY utid;
