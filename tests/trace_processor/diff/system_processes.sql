-- trace: system.textproto
SELECT p.upid, p.pid, p.name, p.cmdline, p.uid, pp.pid AS ppid
FROM process p LEFT JOIN process pp ON pp.upid = p.parent_upid
ORDER BY p.upid;
