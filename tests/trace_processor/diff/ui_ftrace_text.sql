-- trace: ftrace_sched.textproto
-- Raw ftrace events as the UI's ftrace panel shows them (to_ftrace: the
-- kernel's text line), and the small built-ins the UI's queries use.
SELECT id, name, to_ftrace(id) AS line FROM ftrace_event ORDER BY id;
SELECT string_agg(name, ',') AS names, cast_int!('42') AS i,
  cast_double!(3) AS d, cast_string!(7) AS s
FROM (SELECT name FROM thread WHERE name IS NOT NULL ORDER BY utid);
