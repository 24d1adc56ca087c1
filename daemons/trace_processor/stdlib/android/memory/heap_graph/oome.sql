-- android.memory.heap_graph.oome: Java out-of-memory heap dumps, as upstream's module of that name.
--
-- faro records Linux traces: no Android data source feeds this module. It
-- exists with upstream's names and columns so that clients including it
-- (the Perfetto UI's plugins) get no rows rather than an error.

CREATE PERFETTO TABLE android_heap_graph_java_oome_details(
  upid JOINID(process.id),
  graph_sample_ts TIMESTAMP,
  heap_size LONG
)
AS
SELECT
  NULL AS upid,
  NULL AS graph_sample_ts,
  NULL AS heap_size
WHERE 0;
