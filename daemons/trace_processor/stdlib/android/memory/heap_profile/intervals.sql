-- android.memory.heap_profile.intervals: heapprofd dumps over their intervals, as upstream's module of that name.
--
-- faro records Linux traces: no Android data source feeds this module. It
-- exists with upstream's names and columns so that clients including it
-- (the Perfetto UI's plugins) get no rows rather than an error.

CREATE PERFETTO TABLE _android_heap_profile_intervals(
  id LONG,
  upid JOINID(process.id),
  heap_name STRING,
  ts TIMESTAMP,
  dur DURATION,
  retained LONG,
  allocated LONG,
  delta LONG
)
AS
SELECT
  NULL AS id,
  NULL AS upid,
  NULL AS heap_name,
  NULL AS ts,
  NULL AS dur,
  NULL AS retained,
  NULL AS allocated,
  NULL AS delta
WHERE 0;
