-- graphs.hierarchy: walks over trees given as (id, parent_id) rows.

INCLUDE PERFETTO MODULE graphs.search;

-- The ids of the start_nodes (column id) of tree (columns id, parent_id)
-- and of all their ancestors, each once. Column: id.
CREATE PERFETTO MACRO _tree_reachable_ancestors_or_self(
  tree TableOrSubquery,
  start_nodes TableOrSubquery
)
RETURNS TableOrSubquery AS
(
  SELECT node_id AS id
  FROM graph_reachable_dfs!(
    (SELECT id AS source_node_id, parent_id AS dest_node_id FROM $tree),
    (SELECT id AS node_id FROM $start_nodes)
  )
);
