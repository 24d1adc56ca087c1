-- trace: ftrace_task_states.textproto
INCLUDE PERFETTO MODULE intervals.overlap;
INCLUDE PERFETTO MODULE intervals.create_intervals;
CREATE PERFETTO TABLE a AS
SELECT 1 AS id, 0 AS ts, 10 AS dur, 1 AS p
UNION ALL SELECT 2, 5, 10, 1
UNION ALL SELECT 3, 20, 0, 1
UNION ALL SELECT 4, 30, 5, 2;
CREATE PERFETTO TABLE b AS
SELECT 10 AS id, 10 AS ts, 10 AS dur, 1 AS p
UNION ALL SELECT 11, 0, 100, 1
UNION ALL SELECT 12, 20, 0, 1
UNION ALL SELECT 13, 30, 5, 1
UNION ALL SELECT 14, 32, 1, 2;
SELECT * FROM _interval_intersect!((a, b), ()) ORDER BY ts, id_0, id_1;
SELECT * FROM _interval_intersect!((a, b), (p)) ORDER BY ts, id_0, id_1;
SELECT * FROM _interval_intersect_single!(5, 10, a) ORDER BY id;
SELECT * FROM interval_self_intersect!(a) ORDER BY ts, group_id, id, interval_ends_at_ts;
SELECT * FROM intervals_overlap_count!(a, ts, dur);
SELECT * FROM intervals_overlap_count_by_group!(b, ts, dur, p) ORDER BY ts, group_name;
SELECT * FROM interval_merge_overlapping!(a, 0) ORDER BY ts;
SELECT * FROM interval_merge_overlapping!(a, 10) ORDER BY ts;
SELECT * FROM interval_merge_overlapping_partitioned!(b, (p)) ORDER BY ts, p;
SELECT * FROM _interval_create!(
  (SELECT 1 AS ts UNION ALL SELECT 2 UNION ALL SELECT 5 UNION ALL SELECT 5
   UNION ALL SELECT 9),
  (SELECT 3 AS ts UNION ALL SELECT 4 UNION ALL SELECT 6 UNION ALL SELECT 2));
SELECT _intervals_overlap_in_table!(a) AS a_overlaps,
  _intervals_overlap_in_table!((SELECT * FROM a WHERE id != 2)) AS other;
