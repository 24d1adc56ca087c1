-- viz.summary.processes: which processes have anything to show (their
-- threads' activity, process-scoped slices, heap data, counters) and how
-- much, for the UI's track list.

INCLUDE PERFETTO MODULE viz.summary.slices;
INCLUDE PERFETTO MODULE viz.summary.threads;

CREATE PERFETTO TABLE _process_track_summary AS
SELECT pt.upid, sum(sts.cnt) AS slice_count
FROM process_track AS pt
JOIN _slice_track_summary AS sts ON sts.id = pt.id
GROUP BY pt.upid;

-- Heap profiles and heap graphs are not imported here: both tables keep
-- their shape, empty.
CREATE PERFETTO TABLE _heap_profile_allocation_summary AS
SELECT NULL AS upid, NULL AS allocation_count
WHERE 0;

CREATE PERFETTO TABLE _heap_profile_graph_summary AS
SELECT NULL AS upid, NULL AS graph_object_count
WHERE 0;

-- The thread summary rolled up to the threads' processes.
CREATE PERFETTO TABLE _thread_process_grouped_summary AS
SELECT
  t.upid,
  max(tis.max_running_dur) AS max_running_dur,
  sum(tis.sum_running_dur) AS sum_running_dur,
  sum(tis.running_count) AS running_count,
  sum(tis.slice_count) AS slice_count,
  sum(tis.stack_sample_count) AS stack_sample_count
FROM _thread_available_info_summary AS tis
JOIN thread AS t ON t.utid = tis.utid
WHERE t.upid IS NOT NULL
GROUP BY t.upid;

CREATE PERFETTO TABLE _process_available_info_summary AS
WITH
  per_process AS (
    SELECT
      p.upid,
      g.upid AS grouped_upid,
      g.max_running_dur,
      g.sum_running_dur,
      g.running_count,
      g.slice_count AS thread_slice_count,
      g.stack_sample_count,
      pts.slice_count AS process_slice_count,
      ha.allocation_count,
      hg.graph_object_count
    FROM process AS p
    LEFT JOIN _thread_process_grouped_summary AS g ON g.upid = p.upid
    LEFT JOIN _process_track_summary AS pts ON pts.upid = p.upid
    LEFT JOIN _heap_profile_allocation_summary AS ha ON ha.upid = p.upid
    LEFT JOIN _heap_profile_graph_summary AS hg ON hg.upid = p.upid
  )
SELECT
  upid,
  ifnull(max_running_dur, 0) AS max_running_dur,
  ifnull(sum_running_dur, 0) AS sum_running_dur,
  ifnull(running_count, 0) AS running_count,
  ifnull(thread_slice_count, 0) AS thread_slice_count,
  ifnull(stack_sample_count, 0) AS stack_sample_count,
  ifnull(process_slice_count, 0) AS process_slice_count,
  ifnull(allocation_count, 0) AS allocation_count,
  ifnull(graph_object_count, 0) AS graph_object_count
FROM per_process
WHERE grouped_upid IS NOT NULL
  OR process_slice_count IS NOT NULL
  OR allocation_count IS NOT NULL
  OR graph_object_count IS NOT NULL
  OR upid IN (SELECT upid FROM process_counter_track);
