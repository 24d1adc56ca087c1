-- trace: ftrace_sched.textproto
-- Each statement with columns prints its result, an empty one its header,
-- a blank line between them; statements without columns print nothing.
SELECT count(*) AS slices FROM sched;
CREATE TABLE _names AS SELECT DISTINCT name FROM thread WHERE name IS NOT NULL;
SELECT name FROM _names WHERE name = 'nobody';
SELECT name FROM _names ORDER BY name;
