-- linux.memory.process: RSS and swap of each process over time.

INCLUDE PERFETTO MODULE linux.memory.general;

CREATE PERFETTO VIEW _anon_rss AS
SELECT ts, dur, upid, value AS anon_rss_val
FROM _all_counters_per_process
WHERE name = 'mem.rss.anon';

CREATE PERFETTO VIEW _file_rss AS
SELECT ts, dur, upid, value AS file_rss_val
FROM _all_counters_per_process
WHERE name = 'mem.rss.file';

CREATE PERFETTO VIEW _shmem_rss AS
SELECT ts, dur, upid, value AS shmem_rss_val
FROM _all_counters_per_process
WHERE name = 'mem.rss.shmem';

CREATE PERFETTO VIEW _swap AS
SELECT ts, dur, upid, value AS swap_val
FROM _all_counters_per_process
WHERE name = 'mem.swap';

-- The four counters of a process merged into one timeline: each span has
-- the values current in it (NULL before a counter's first sample).
CREATE VIRTUAL TABLE _anon_swap_sj USING SPAN_OUTER_JOIN(
  _anon_rss PARTITIONED upid,
  _swap PARTITIONED upid);

CREATE VIRTUAL TABLE _anon_swap_file_sj USING SPAN_OUTER_JOIN(
  _anon_swap_sj PARTITIONED upid,
  _file_rss PARTITIONED upid);

CREATE VIRTUAL TABLE _rss_swap_sj USING SPAN_OUTER_JOIN(
  _anon_swap_file_sj PARTITIONED upid,
  _shmem_rss PARTITIONED upid);

CREATE PERFETTO TABLE _memory_rss_and_swap_per_process_table AS
SELECT
  ts,
  dur,
  upid,
  CAST(anon_rss_val AS INT) AS anon_rss,
  CAST(file_rss_val AS INT) AS file_rss,
  CAST(shmem_rss_val AS INT) AS shmem_rss,
  CAST(swap_val AS INT) AS swap
FROM _rss_swap_sj;

-- Memory of each process over time. rss is anon + file + shmem,
-- anon_rss_and_swap is anon + swap, rss_and_swap all four; a missing
-- shmem or swap sample counts as 0 (many processes never have one), a
-- missing anon or file sample makes the sum NULL.
CREATE PERFETTO VIEW memory_rss_and_swap_per_process(
  ts TIMESTAMP,
  dur DURATION,
  upid JOINID(process.id),
  pid LONG,
  process_name STRING,
  anon_rss LONG,
  file_rss LONG,
  shmem_rss LONG,
  rss LONG,
  swap LONG,
  anon_rss_and_swap LONG,
  rss_and_swap LONG
)
AS
SELECT
  m.ts,
  m.dur,
  m.upid,
  p.pid,
  p.name AS process_name,
  m.anon_rss,
  m.file_rss,
  m.shmem_rss,
  m.anon_rss + m.file_rss + IFNULL(m.shmem_rss, 0) AS rss,
  m.swap,
  m.anon_rss + IFNULL(m.swap, 0) AS anon_rss_and_swap,
  m.anon_rss + m.file_rss + IFNULL(m.shmem_rss, 0) + IFNULL(m.swap, 0)
    AS rss_and_swap
FROM _memory_rss_and_swap_per_process_table AS m
JOIN process AS p USING (upid);
