-- trace: ftrace_task_states.textproto
INCLUDE PERFETTO MODULE sched.with_context;
INCLUDE PERFETTO MODULE sched.latency;
INCLUDE PERFETTO MODULE sched.states;
INCLUDE PERFETTO MODULE sched.thread_level_parallelism;
INCLUDE PERFETTO MODULE sched.time_in_state;
SELECT ts, dur, thread_name, process_name, cpu, end_state, priority
FROM sched_with_thread_process ORDER BY ts, cpu;
SELECT r.id, r.prev_runnable_id, r.prev_wakeup_runnable_id, l.latency_dur
FROM sched_previous_runnable_on_thread AS r
LEFT JOIN sched_latency_for_running_interval AS l ON l.thread_state_id = r.id
ORDER BY r.id;
SELECT DISTINCT state, sched_state_to_human_readable_string(state) AS name,
  sched_state_io_to_human_readable_string(state, 1) AS io
FROM thread_state ORDER BY state;
SELECT * FROM sched_runnable_thread_count ORDER BY ts;
SELECT * FROM sched_active_cpu_count ORDER BY ts;
SELECT * FROM sched_time_in_state_for_thread ORDER BY utid, state;
SELECT * FROM sched_percentage_of_time_in_state ORDER BY utid;
