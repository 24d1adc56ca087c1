-- trace: sorter_ties.textproto
-- Records of one timestamp on several cpus are parsed in upstream's order,
-- which the ids of the rows they make show.
SELECT s.id, s.ts, s.cpu, t.tid FROM sched s JOIN thread t USING (utid)
ORDER BY s.id;
SELECT ts, t.tid, state FROM thread_state JOIN thread t USING (utid)
ORDER BY thread_state.id;
