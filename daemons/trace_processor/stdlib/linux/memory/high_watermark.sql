-- linux.memory.high_watermark: the highest RSS of each process so far.

INCLUDE PERFETTO MODULE counters.intervals;
INCLUDE PERFETTO MODULE linux.memory.process;

-- The running maximum of anon + file + shmem RSS of each process (missing
-- parts count as 0), as intervals of constant value; upid stands in for
-- the track in counter_leading_intervals.
CREATE PERFETTO TABLE _memory_rss_high_watermark_per_process_table AS
WITH
  rss AS (
    SELECT ts, upid,
      IFNULL(anon_rss, 0) + IFNULL(file_rss, 0) + IFNULL(shmem_rss, 0) AS rss
    FROM _memory_rss_and_swap_per_process_table
  ),
  peak AS (
    SELECT 0 AS id, ts, upid AS track_id,
      MAX(rss) OVER (PARTITION BY upid ORDER BY ts) AS value
    FROM rss
  )
SELECT ts, dur, track_id AS upid, CAST(value AS INT) AS rss_high_watermark
FROM counter_leading_intervals!(peak);

-- For each process and time, the highest RSS seen until then.
CREATE PERFETTO VIEW memory_rss_high_watermark_per_process(
  ts TIMESTAMP,
  dur DURATION,
  upid JOINID(process.id),
  pid LONG,
  process_name STRING,
  rss_high_watermark LONG
)
AS
SELECT h.ts, h.dur, h.upid, p.pid, p.name AS process_name,
  h.rss_high_watermark
FROM _memory_rss_high_watermark_per_process_table AS h
JOIN process AS p USING (upid);
