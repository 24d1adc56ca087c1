-- android.memory.dmabuf: dmabuf allocations, as upstream's module of that name.
--
-- faro records Linux traces: no Android data source feeds this module. It
-- exists with upstream's names and columns so that clients including it
-- (the Perfetto UI's plugins) get no rows rather than an error.

CREATE PERFETTO TABLE android_dmabuf_allocs(
  ts TIMESTAMP,
  buf_size LONG,
  inode LONG,
  utid JOINID(thread.id),
  tid LONG,
  thread_name STRING,
  upid JOINID(process.id),
  pid LONG,
  process_name STRING
)
AS
SELECT
  NULL AS ts,
  NULL AS buf_size,
  NULL AS inode,
  NULL AS utid,
  NULL AS tid,
  NULL AS thread_name,
  NULL AS upid,
  NULL AS pid,
  NULL AS process_name
WHERE 0;

CREATE PERFETTO TABLE android_memory_cumulative_dmabuf(
  upid JOINID(process.id),
  process_name STRING,
  utid JOINID(thread.id),
  thread_name STRING,
  ts TIMESTAMP,
  value LONG
)
AS
SELECT
  NULL AS upid,
  NULL AS process_name,
  NULL AS utid,
  NULL AS thread_name,
  NULL AS ts,
  NULL AS value
WHERE 0;
