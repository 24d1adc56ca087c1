-- trace: generic_kernel.textproto
SELECT ts, dur, cpu, utid, end_state, priority FROM sched ORDER BY ts, cpu;
SELECT ts, dur, cpu, utid, state FROM thread_state ORDER BY utid, ts, id;
SELECT utid, tid, name, start_ts, end_ts, upid, is_main_thread, is_idle
FROM thread ORDER BY utid;
SELECT upid, pid, name, parent_upid, cmdline FROM process ORDER BY upid;
SELECT c.ts, t.name, t.type, c.value FROM counter c
JOIN cpu_counter_track t ON c.track_id = t.id;
SELECT name, value FROM stats
WHERE name IN ('generic_task_state_invalid_order', 'task_state_invalid')
ORDER BY name;
