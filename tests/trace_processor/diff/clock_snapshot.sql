-- trace: clock_snapshot.textproto
-- The clock_snapshot table and the functions that read it, at a
-- snapshot, between two (REALTIME stepped back: the later value caps),
-- before the first and after the last.
SELECT * FROM clock_snapshot ORDER BY id;
SELECT ts, to_realtime(ts) AS rt, to_monotonic(ts) AS mono,
  abs_time_str(ts) AS abs, to_timecode(ts) AS tc
FROM (SELECT column1 AS ts FROM (VALUES (50), (100), (150), (250), (400)))
ORDER BY ts;
SELECT to_realtime(NULL) AS n, to_timecode(3723004005006) AS tc;
