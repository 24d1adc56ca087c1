-- trace: ftrace_fork_parent_later.textproto
SELECT p.pid, p.name, pp.pid AS parent_pid
FROM process p LEFT JOIN process pp ON pp.upid = p.parent_upid
ORDER BY p.pid;
