-- slices.self_dur: the time of each slice not spent in its children.

CREATE PERFETTO TABLE _slice_children_dur AS
SELECT parent_id AS id, sum(dur) AS child_dur_sum
FROM slice
WHERE parent_id IS NOT NULL
GROUP BY parent_id
ORDER BY parent_id;

-- Every slice's duration less the durations of its direct children.
CREATE PERFETTO TABLE slice_self_dur(
  id ID(slice.id),
  self_dur DURATION
) AS
SELECT s.id, s.dur - ifnull(c.child_dur_sum, 0) AS self_dur
FROM slice AS s
LEFT JOIN _slice_children_dur AS c ON c.id = s.id;
