-- trace: json_systrace.json
-- In a JSON trace's systrace, tid 0 is a task like any other (JSON keeps
-- no idle task): named by its switch, with the state it is left in.
SELECT 'thread' AS what, utid AS id, tid, name, NULL AS ts, NULL AS state
FROM thread
UNION ALL
SELECT 'thread_state', s.id, t.tid, t.name, s.ts, s.state
FROM thread_state s JOIN thread t USING (utid)
ORDER BY 1, 2;
