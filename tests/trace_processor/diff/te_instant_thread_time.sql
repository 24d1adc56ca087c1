-- trace: te_instant_thread_time.textproto
-- An instant with a thread time lasts 0 thread time (not unknown); one
-- without has none, as upstream records them.
SELECT ts, dur, name, thread_ts, thread_dur FROM slice ORDER BY ts;
