-- viz.summary.threads: which threads have anything to show (scheduling,
-- slices, samples, counters) and how much, for the UI's track list.

INCLUDE PERFETTO MODULE viz.summary.slices;

-- Running time per thread; the idle task (tid 0) is not a thread to show.
CREATE PERFETTO TABLE _sched_summary AS
SELECT
  s.utid,
  max(s.dur) AS max_running_dur,
  sum(s.dur) AS sum_running_dur,
  count(*) AS running_count
FROM sched AS s
WHERE s.dur != -1
  AND s.utid NOT IN (SELECT utid FROM thread WHERE tid = 0)
GROUP BY s.utid;

CREATE PERFETTO TABLE _thread_track_summary AS
SELECT tt.utid, sum(sts.cnt) AS slice_count
FROM thread_track AS tt
JOIN _slice_track_summary AS sts ON sts.id = tt.id
GROUP BY tt.utid;

-- Stack samples are not imported here: the table keeps its shape, empty.
CREATE PERFETTO TABLE _stack_sample_summary AS
SELECT NULL AS utid, NULL AS sample_count
WHERE 0;

CREATE PERFETTO TABLE _thread_available_info_summary AS
WITH
  per_thread AS (
    SELECT
      t.utid,
      ss.max_running_dur,
      ss.sum_running_dur,
      ss.running_count,
      tts.slice_count,
      sss.sample_count AS stack_sample_count
    FROM thread AS t
    LEFT JOIN _sched_summary AS ss ON ss.utid = t.utid
    LEFT JOIN _thread_track_summary AS tts ON tts.utid = t.utid
    LEFT JOIN _stack_sample_summary AS sss ON sss.utid = t.utid
  )
SELECT
  utid,
  ifnull(max_running_dur, 0) AS max_running_dur,
  ifnull(sum_running_dur, 0) AS sum_running_dur,
  ifnull(running_count, 0) AS running_count,
  ifnull(slice_count, 0) AS slice_count,
  ifnull(stack_sample_count, 0) AS stack_sample_count
FROM per_thread
WHERE running_count IS NOT NULL
  OR slice_count IS NOT NULL
  OR stack_sample_count IS NOT NULL
  OR utid IN (SELECT utid FROM thread_counter_track);
