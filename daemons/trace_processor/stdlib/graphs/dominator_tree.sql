-- graphs.dominator_tree: immediate dominators in a flow graph.

-- The dominator tree of the flow graph graph_table (columns
-- source_node_id, dest_node_id) entered at root_node_id: node d dominates
-- node n when every path from the root to n goes through d, and n's
-- immediate dominator is the closest such d. Nodes the root cannot reach
-- are left out (to cover a forest, add a node with edges to every root).
-- Columns: node_id, dominator_node_id (NULL for the root).
CREATE PERFETTO MACRO graph_dominator_tree(
  graph_table TableOrSubquery,
  root_node_id Expr
)
RETURNS TableOrSubquery AS
(
  SELECT node_id, dominator_node_id
  FROM __intrinsic_graph_dominator_tree(
    (SELECT __intrinsic_int_rows(e.source_node_id, e.dest_node_id)
     FROM $graph_table AS e),
    $root_node_id
  )
);
