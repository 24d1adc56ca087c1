-- slices.flow: following flow events from slice to slice.

INCLUDE PERFETTO MODULE graphs.search;

-- Every slice reachable by following flows (slice_out to slice_in) from
-- the slices of source_table (column id) that have a flow leaving them.
-- Each such flow starts a search of its own from its slice_out, so a
-- slice with n flows leaving it yields its rows n times. Columns:
-- root_node_id (the slice searched from), node_id (a slice reached),
-- parent_node_id (the slice node_id was first reached from; NULL for the
-- root itself).
CREATE PERFETTO MACRO _slice_following_flow(source_table TableOrSubquery)
RETURNS TableOrSubquery AS
(
  SELECT root_node_id, node_id, parent_node_id
  FROM graph_reachable_weight_bounded_dfs!(
    (
      SELECT slice_out AS source_node_id, slice_in AS dest_node_id,
        0 AS edge_weight
      FROM flow
    ),
    (
      -- Edges weigh nothing: a target of 0 never stops a search.
      SELECT f.slice_out AS root_node_id, 0 AS root_target_weight
      FROM flow AS f
      JOIN (SELECT id FROM $source_table) AS src ON src.id = f.slice_out
      ORDER BY f.id
    ),
    0
  )
);
