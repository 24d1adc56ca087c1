-- trace: linux_cpu.textproto
-- to_ftrace of a thread with a '-' in its name: it reads '_', the
-- kernel's way to keep "<comm>-<tid>" parseable; the tgid is its
-- process'. (Events whose text upstream formats by hand, irq and softirq,
-- are left out: ours prints their fields as they are.)
SELECT ts, to_ftrace(id) AS line FROM ftrace_event
WHERE utid IN (SELECT utid FROM thread WHERE name GLOB '*-*')
  AND name IN ('sched_switch', 'cpu_frequency')
ORDER BY ts, line;
