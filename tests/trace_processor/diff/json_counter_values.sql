-- trace: json_counter_values.json
-- Counter args: numbers and strings that are all a number count; any
-- other value, and a counter without args, is a parser failure, as
-- upstream counts them. A pid given as a string of digits names its
-- process (its id is the string's own, not the digits).
SELECT t.name, c.ts, c.value FROM counter c JOIN counter_track t ON c.track_id = t.id ORDER BY t.name, c.ts;
SELECT name, value FROM stats WHERE severity IN ('error', 'data_loss') AND value > 0;
SELECT p.name, p.pid = 1000 AS pid_is_digits FROM process p WHERE p.upid > 0 ORDER BY p.upid;
