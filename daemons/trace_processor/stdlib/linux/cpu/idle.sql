-- linux.cpu.idle: periods during which a CPU stays in one idle state.

INCLUDE PERFETTO MODULE counters.intervals;

-- One row per period of constant idle state of a CPU ('cpuidle' counter
-- tracks). The kernel reports leaving idle as state 4294967295 ((u32)-1):
-- it is -1 here, the active state; deeper states have larger numbers.
CREATE PERFETTO TABLE cpu_idle_counters(
  id LONG,
  track_id JOINID(track.id),
  ts TIMESTAMP,
  dur DURATION,
  idle LONG,
  cpu LONG
)
AS
SELECT
  iv.id,
  iv.track_id,
  iv.ts,
  iv.dur,
  CAST(IIF(iv.value = 4294967295, -1, iv.value) AS INT) AS idle,
  t.cpu
FROM counter_leading_intervals!((
  SELECT v.id, v.ts, v.track_id, v.value
  FROM counter AS v
  JOIN cpu_counter_track AS i ON i.id = v.track_id AND i.name = 'cpuidle'
)) AS iv
JOIN cpu_counter_track AS t ON t.id = iv.track_id;
