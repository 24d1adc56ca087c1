-- trace: ftrace_sched.textproto
-- The UI's mipmap operators over literal rows (the trace is not read).
-- Slices: per depth and per 10 ns bucket the longest slice and how many
-- began there; one begun before the window and still running counts in
-- the first bucket.
CREATE VIRTUAL TABLE ui_slices USING __intrinsic_slice_mipmap((
  SELECT column1 AS id, column2 AS ts, column3 AS dur, column4 AS depth
  FROM (VALUES (1, 0, 12, 0), (2, 12, 3, 0), (3, 14, 4, 0), (4, 15, 1, 1),
    (5, 31, 2, 0), (6, 38, 30, 0), (7, 40, 2, 1), (8, 45, 0, 0))
));
SELECT ts, id, count, dur, depth FROM ui_slices(10, 50, 10)
ORDER BY depth, ts;
SELECT ts, id, count, dur, depth FROM ui_slices(0, 100, 100)
ORDER BY depth, ts;
-- Counters: min, max and the last value of each bucket; the value in
-- force at the window's start counts in the first bucket.
CREATE VIRTUAL TABLE ui_counter USING __intrinsic_counter_mipmap((
  SELECT column1 AS ts, column2 AS value
  FROM (VALUES (0, 5.0), (8, 1.0), (12, 7.5), (15, -2.0), (19, 3.0),
    (35, 4.0))
));
SELECT min_value, max_value, last_ts, last_value
FROM ui_counter(10, 40, 10) ORDER BY last_ts;
