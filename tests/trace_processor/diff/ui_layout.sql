-- trace: te_seed_process.textproto
-- Laying several slice tracks out as one: experimental_slice_layout over
-- two tracks, and the internal_layout window function (lowest depth free
-- at an interval's start; an instant holds none, dur -1 holds for ever).
SELECT s.id, s.track_id, s.ts, s.dur, s.depth, l.layout_depth
FROM experimental_slice_layout((SELECT group_concat(id) FROM (
  SELECT DISTINCT track_id AS id FROM slice ORDER BY track_id LIMIT 2))) AS l
JOIN slice AS s USING (id)
ORDER BY s.id;
SELECT column1 AS ts, column2 AS dur,
  internal_layout(column1, column2) OVER (ORDER BY column1
    ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS depth
FROM (VALUES (0, 10), (2, 3), (4, 0), (5, 10), (10, -1), (12, 1), (20, 1))
ORDER BY ts;
