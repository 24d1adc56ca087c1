-- trace: etw_file_io.textproto
-- Operations never ended get their args at the end of the trace, newest
-- first, as upstream's map of them gives them: their arg set ids tell.
SELECT s.id, s.ts, s.name, s.arg_set_id, a.key, a.display_value
FROM slice s JOIN args a USING (arg_set_id)
WHERE s.ts IN (150, 160)
ORDER BY s.id, a.id;
