-- trace: stdlib_stacks.json
-- The graphs.* macros over the slice tree and the flow graph.
INCLUDE PERFETTO MODULE graphs.search;
INCLUDE PERFETTO MODULE graphs.hierarchy;
INCLUDE PERFETTO MODULE graphs.partition;
INCLUDE PERFETTO MODULE graphs.dominator_tree;
-- Slices reachable down the tree and along flows from the first A.
CREATE PERFETTO VIEW edges AS
SELECT parent_id AS source_node_id, id AS dest_node_id FROM slice
WHERE parent_id IS NOT NULL
UNION ALL
SELECT slice_out, slice_in FROM flow;
SELECT node_id, parent_node_id FROM graph_reachable_dfs!(edges,
  (SELECT 0 AS node_id)) ORDER BY node_id;
SELECT node_id, parent_node_id FROM graph_reachable_bfs!(edges,
  (SELECT 0 AS node_id)) ORDER BY node_id;
SELECT * FROM graph_reachable_weight_bounded_dfs!(
  (SELECT source_node_id, dest_node_id, 1 AS edge_weight FROM edges),
  (SELECT 0 AS root_node_id, 3 AS root_target_weight
   UNION ALL SELECT 6, 1),
  0) ORDER BY root_node_id, node_id;
SELECT * FROM graph_next_sibling!(
  (SELECT id AS node_id, parent_id AS node_parent_id, ts AS sort_key
   FROM slice)) ORDER BY node_id;
SELECT id FROM _tree_reachable_ancestors_or_self!(slice,
  (SELECT id FROM slice WHERE name = 'C')) ORDER BY id;
-- A node 100 enters both threads' roots; dominators of the whole.
SELECT * FROM graph_dominator_tree!(
  (SELECT * FROM edges
   UNION ALL SELECT 100, id FROM slice WHERE parent_id IS NULL),
  100) ORDER BY node_id;
-- Partition of the main thread's tree (one root), B and D apart.
SELECT * FROM tree_structural_partition_by_group!(
  (SELECT id, parent_id, name = 'B' OR name = 'D' AS group_key FROM slice
   WHERE track_id = (SELECT track_id FROM slice WHERE id = 0)))
ORDER BY id;
-- Scans: depth and root of each slice down the tree; the longest chain
-- of tree and flow edges to each slice from the roots.
INCLUDE PERFETTO MODULE graphs.scan;
SELECT * FROM _graph_scan!(
  (SELECT parent_id AS source_node_id, id AS dest_node_id FROM slice
   WHERE parent_id IS NOT NULL),
  (SELECT id, 0 AS d, id AS root FROM slice WHERE parent_id IS NULL),
  (d, root),
  (SELECT id, d + 1 AS d, root FROM $table)
) ORDER BY id;
SELECT * FROM _graph_aggregating_scan!(
  edges,
  (SELECT id, 0 AS longest FROM slice WHERE parent_id IS NULL),
  (longest),
  (SELECT id, max(longest) + 1 AS longest FROM $table GROUP BY id)
) ORDER BY id;
