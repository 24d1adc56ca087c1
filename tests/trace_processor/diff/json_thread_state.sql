-- trace: json_thread_state.json
SELECT ts, dur, cpu, utid, state, io_wait, blocked_function FROM thread_state
ORDER BY ts;
SELECT ts, dur, cpu, utid FROM sched_slice ORDER BY ts;
SELECT name, value FROM stats WHERE name = 'json_parser_failure';
