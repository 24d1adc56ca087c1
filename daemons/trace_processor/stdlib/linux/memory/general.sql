-- linux.memory.general: process memory counters as intervals.

-- Samples of every process counter track, each lasting until the next
-- sample of its track, the last one until the process ended (or the trace
-- did) plus 1 ns.
CREATE PERFETTO VIEW _all_counters_per_process AS
SELECT
  c.ts,
  LEAD(c.ts, 1, (
    SELECT IFNULL(p.end_ts, (SELECT end_ts FROM trace_bounds))
    FROM process AS p
    WHERE p.upid = t.upid
  ) + 1) OVER (PARTITION BY c.track_id ORDER BY c.ts) - c.ts AS dur,
  t.upid,
  c.value,
  c.track_id,
  t.name
FROM counter AS c
JOIN process_counter_track AS t ON t.id = c.track_id
WHERE t.upid IS NOT NULL;
