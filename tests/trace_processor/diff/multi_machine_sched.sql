-- trace: multi_machine_sched.textproto
-- Each machine's scheduling is its own: threads, idle tasks and cpus.
SELECT 'sched' AS what, s.id, s.ts, s.dur, s.cpu, s.ucpu, t.tid, t.name,
  t.machine_id, s.end_state AS state
FROM sched s JOIN thread t USING (utid)
UNION ALL
SELECT 'thread_state', s.id, s.ts, s.dur, s.cpu, s.ucpu, t.tid, t.name,
  t.machine_id, s.state
FROM thread_state s JOIN thread t USING (utid)
UNION ALL
SELECT 'thread', utid, NULL, NULL, NULL, NULL, tid, name, machine_id,
  upid
FROM thread
ORDER BY 1, 2;
