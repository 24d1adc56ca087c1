-- viz.summary.track_event: the track event tracks, grouped and put in the
-- order their descriptors ask their parent to show them in
-- (child_ordering: lexicographic, explicit by rank, chronological).

INCLUDE PERFETTO MODULE viz.track_event_callstacks;

-- Every track event track with how its parent orders its children.
CREATE PERFETTO TABLE _track_event_tracks_unordered AS
WITH
  te AS (
    SELECT
      id,
      name,
      parent_id,
      extract_arg(source_arg_set_id, 'child_ordering') AS child_ordering,
      extract_arg(source_arg_set_id, 'sibling_order_rank') AS sibling_rank,
      extract_arg(source_arg_set_id, 'description') AS description
    FROM track
    WHERE type GLOB '*_track_event'
  )
SELECT
  c.id,
  c.name,
  c.parent_id,
  p.child_ordering AS parent_ordering,
  ifnull(c.sibling_rank, 0) AS rank,
  c.description
FROM te AS c
LEFT JOIN te AS p ON p.id = c.parent_id;

-- First event of each track event track, over counters and slices.
CREATE PERFETTO TABLE _min_ts_per_track AS
SELECT c.track_id AS id, min(c.ts) AS min_ts
FROM counter AS c
JOIN _track_event_tracks_unordered AS t ON t.id = c.track_id
GROUP BY c.track_id
UNION ALL
SELECT s.track_id AS id, min(s.ts) AS min_ts
FROM slice AS s
JOIN _track_event_tracks_unordered AS t ON t.id = s.track_id
GROUP BY s.track_id;

CREATE PERFETTO TABLE _track_event_has_children AS
SELECT DISTINCT parent_id AS id
FROM track
WHERE type GLOB '*_track_event' AND parent_id IS NOT NULL;

CREATE PERFETTO TABLE _track_event_tracks_ordered_groups AS
WITH
  positioned AS (
    SELECT
      t.id,
      CASE
        WHEN t.parent_ordering = 'explicit' THEN row_number() OVER (
          PARTITION BY t.parent_id, t.parent_ordering ORDER BY t.rank)
        WHEN t.parent_ordering = 'chronological' THEN row_number() OVER (
          PARTITION BY t.parent_id, t.parent_ordering ORDER BY m.min_ts)
        ELSE row_number() OVER (
          PARTITION BY t.parent_id, t.parent_ordering ORDER BY t.name)
      END AS order_id
    FROM _track_event_tracks_unordered AS t
    LEFT JOIN _min_ts_per_track AS m ON m.id = t.id
    WHERE t.parent_ordering IS NULL
      OR t.parent_ordering IN ('lexicographic', 'explicit', 'chronological')
  )
SELECT
  extract_arg(tr.dimension_arg_set_id, 'upid') AS upid,
  extract_arg(tr.dimension_arg_set_id, 'utid') AS utid,
  tr.parent_id,
  tr.type GLOB '*counter*' AS is_counter,
  tr.type GLOB '*state*' AS is_state,
  tr.name,
  min(extract_arg(tr.source_arg_set_id, 'description')) AS description,
  min(ct.unit) AS unit,
  min(extract_arg(tr.source_arg_set_id, 'builtin_counter_type'))
    AS builtin_counter_type,
  min(extract_arg(tr.source_arg_set_id, 'y_axis_share_key'))
    AS y_axis_share_key,
  max(m.id IS NOT NULL) AS has_data,
  max(hc.id IS NOT NULL) AS has_children,
  max(cs.track_id IS NOT NULL) AS has_callstacks,
  min(pos.id) AS min_track_id,
  group_concat(pos.id) AS track_ids,
  min(pos.order_id) AS order_id
FROM positioned AS pos
JOIN track AS tr ON tr.id = pos.id
LEFT JOIN counter_track AS ct ON ct.id = pos.id
LEFT JOIN _track_event_has_children AS hc ON hc.id = pos.id
LEFT JOIN _min_ts_per_track AS m ON m.id = pos.id
LEFT JOIN _track_event_tracks_with_callstacks AS cs ON cs.track_id = pos.id
GROUP BY tr.track_group_id, ifnull(tr.track_group_id, tr.id)
ORDER BY tr.parent_id, pos.order_id;
