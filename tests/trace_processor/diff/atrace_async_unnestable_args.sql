-- trace: atrace_async_unnestable.textproto
-- An atrace async slice's args, as upstream's: its cookie from its begin,
-- and at its end how many begins its track has seen and when the last.
SELECT s.id, s.ts, s.dur, s.track_id, a.key, a.int_value
FROM slice s JOIN args a USING (arg_set_id) ORDER BY s.id, a.id;
