-- trace: te_names_counters.textproto
-- A legacy event's thread time and instruction count are counters of its
-- thread, typed as upstream types them (thread_time, thread_instructions).
SELECT name, type FROM counter_track WHERE name GLOB 'thread_*' ORDER BY name;
