-- trace: te_names_counters.textproto
-- A thread's slices keep its legacy instruction count at their start and
-- the count to their end (an instant: 0), as upstream.
SELECT id, ts, dur, name, thread_instruction_count, thread_instruction_delta
FROM slice ORDER BY id;
