-- viz.summary.slices: per-track slice statistics the UI uses to decide
-- which slice tracks to show and how tall to draw them.

CREATE PERFETTO TABLE _slice_track_summary AS
SELECT
  s.track_id AS id,
  count(*) AS cnt,
  min(s.dur) AS min_dur,
  max(s.dur) AS max_dur,
  max(s.depth) AS max_depth
FROM slice AS s
GROUP BY s.track_id;
