-- trace: stdlib_stacks.json
-- The critical path macros of sched.thread_executing_span on a wakeup
-- graph given inline: thread 3's span 4 was woken by span 3 of thread 2,
-- which slept after span 2 (woken by thread 1's span 1) and was then
-- woken from an interrupt.
INCLUDE PERFETTO MODULE sched.thread_executing_span;
CREATE PERFETTO TABLE wg AS
SELECT column1 AS id, column2 AS utid, column3 AS ts, column4 AS dur,
  column5 AS idle_dur, column6 AS waker_id, column7 AS prev_id
FROM (VALUES
  (1, 1, 0, 10, NULL, NULL, NULL),
  (2, 2, 5, 20, 5, 1, NULL),
  (3, 2, 40, 10, 15, NULL, 2),
  (4, 3, 50, 10, 48, 3, NULL),
  (5, 3, 70, 5, 10, 1, 4),
  (6, 1, 12, 30, 2, NULL, 1));
SELECT * FROM _critical_path_with_depth_by_roots!(
  (SELECT id AS root_node_id FROM wg), wg)
ORDER BY root_id, ts, depth;
SELECT * FROM _critical_path_by_roots!(
  (SELECT id AS root_node_id FROM wg), wg)
ORDER BY root_id, ts;
SELECT * FROM _intervals_to_roots!(
  (SELECT 3 AS utid, 55 AS ts, 20 AS dur), wg)
ORDER BY root_node_id;
SELECT * FROM _critical_path_by_intervals!(
  (SELECT 3 AS utid, 20 AS ts, 60 AS dur), wg)
ORDER BY ts, id;
