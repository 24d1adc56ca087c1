-- graphs.search: the nodes of a directed graph reachable from start nodes.
-- The graph is a table of edges (source_node_id, dest_node_id); node ids
-- are integers, and an edge with a NULL end is ignored. The searches run
-- in C (__intrinsic_graph_*), fed the edges packed by __intrinsic_int_rows.

-- The nodes reachable from start_nodes (column node_id) along the edges of
-- graph_table, found depth first. Columns: node_id, parent_node_id (the
-- node it was first reached from; NULL for a start node). A start node
-- the graph does not contain is returned on its own.
CREATE PERFETTO MACRO graph_reachable_dfs(
  graph_table TableOrSubquery,
  start_nodes TableOrSubquery
)
RETURNS TableOrSubquery AS
(
  SELECT node_id, parent_node_id
  FROM __intrinsic_graph_dfs(
    (SELECT __intrinsic_int_rows(e.source_node_id, e.dest_node_id)
     FROM $graph_table AS e),
    (SELECT __intrinsic_int_rows(s.node_id) FROM $start_nodes AS s)
  )
);

-- As graph_reachable_dfs, found breadth first: each node's parent is one
-- of the nodes closest to the start nodes that leads to it.
CREATE PERFETTO MACRO graph_reachable_bfs(
  graph_table TableOrSubquery,
  start_nodes TableOrSubquery
)
RETURNS TableOrSubquery AS
(
  SELECT node_id, parent_node_id
  FROM __intrinsic_graph_bfs(
    (SELECT __intrinsic_int_rows(e.source_node_id, e.dest_node_id)
     FROM $graph_table AS e),
    (SELECT __intrinsic_int_rows(s.node_id) FROM $start_nodes AS s)
  )
);

-- For each node of graph_table (node_id, node_parent_id, sort_key), the
-- node after it among the children of the same parent in sort_key order.
-- Columns: node_id, next_node_id (NULL for the last child).
CREATE PERFETTO MACRO graph_next_sibling(graph_table TableOrSubquery)
RETURNS TableOrSubquery AS
(
  SELECT
    node_id,
    lead(node_id) OVER (PARTITION BY node_parent_id ORDER BY sort_key)
      AS next_node_id
  FROM $graph_table
);

-- A depth-first search from each root of root_table (root_node_id,
-- root_target_weight) on its own, over the weighted edges of graph_table
-- (source_node_id, dest_node_id, edge_weight), that stops once the summed
-- weight of the edges it took passes the root's target. When
-- is_target_weight_floor is true the node that passed the target is kept,
-- otherwise dropped. Weights are non-negative integers. Columns:
-- root_node_id, node_id, parent_node_id (NULL for the root).
CREATE PERFETTO MACRO graph_reachable_weight_bounded_dfs(
  graph_table TableOrSubquery,
  root_table TableOrSubquery,
  is_target_weight_floor Expr
)
RETURNS TableOrSubquery AS
(
  SELECT root_node_id, node_id, parent_node_id
  FROM __intrinsic_graph_dfs_bounded(
    (SELECT __intrinsic_int_rows(e.source_node_id, e.dest_node_id,
       e.edge_weight)
     FROM $graph_table AS e),
    (SELECT __intrinsic_int_rows(r.root_node_id, r.root_target_weight)
     FROM $root_table AS r),
    $is_target_weight_floor
  )
);
