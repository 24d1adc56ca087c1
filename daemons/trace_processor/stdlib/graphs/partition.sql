-- graphs.partition: splitting a tree by a grouping key.

-- Splits the forest tree_table (columns id, parent_id, group_key) into
-- one forest per group: each node keeps its group_key and takes as parent
-- its nearest ancestor with the same group_key (NULL if there is none), so
-- the ancestor and descendant relations within a group are those of the
-- original tree. Ids must be unique and parent links must end at a root.
-- Columns: id, parent_id, group_key; in id order.
CREATE PERFETTO MACRO tree_structural_partition_by_group(
  tree_table TableOrSubquery
)
RETURNS TableOrSubquery AS
(
  SELECT id, parent_id, group_key
  FROM __intrinsic_tree_partition(
    (SELECT __intrinsic_int_rows(t.id, t.parent_id, t.group_key)
     FROM $tree_table AS t)
  )
);
