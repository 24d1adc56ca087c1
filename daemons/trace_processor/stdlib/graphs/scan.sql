-- graphs.scan: computing values over a graph from start nodes outwards.
-- The scans run in C (__intrinsic_graph_scan): the edges are packed by
-- __intrinsic_int_rows, the start rows by __intrinsic_value_rows and the
-- step query is passed as text, "$table" in it standing for the rows
-- reaching the nodes being computed. Quotes inside the step query are not
-- supported (it travels as a string literal). At most 7 scan columns.

-- Pieces applied to each scan column by the macros below.
CREATE PERFETTO MACRO _graph_scan_init_col(col ColumnName)
RETURNS _ProjectionFragment AS
i.$col;

CREATE PERFETTO MACRO _graph_scan_out_col(generic ColumnName, col ColumnName)
RETURNS _ProjectionFragment AS
r.$generic AS $col;

-- The common body: aggregating is 0 or 1.
CREATE PERFETTO MACRO _graph_scan_impl(
  graph_table TableOrSubquery,
  init_table TableOrSubquery,
  scan_columns ColumnNameList,
  step_query TableOrSubquery,
  aggregating Expr
)
RETURNS TableOrSubquery AS
(
  SELECT
    r.c0 AS id,
    __intrinsic_token_apply!(
      _graph_scan_out_col, (c1, c2, c3, c4, c5, c6, c7), $scan_columns)
  FROM __intrinsic_graph_scan(
    (SELECT __intrinsic_int_rows(e.source_node_id, e.dest_node_id)
     FROM $graph_table AS e),
    (SELECT __intrinsic_value_rows(
       i.id __intrinsic_token_apply_prefix!(_graph_scan_init_col,
         $scan_columns))
     FROM $init_table AS i),
    __intrinsic_stringify!($step_query),
    __intrinsic_stringify!($scan_columns),
    $aggregating
  ) AS r
);

-- A scan over graph_table (source_node_id, dest_node_id) from the rows of
-- init_table (id and the scan_columns): each row is copied along every
-- edge leaving its node, and step_query turns the rows that reached some
-- nodes (read from $table: id and the scan_columns) into new rows (id and
-- the scan_columns), which go on in turn. A node gets a row per path to
-- it. Columns: id and the scan_columns; the start rows are included.
CREATE PERFETTO MACRO _graph_scan(
  graph_table TableOrSubquery,
  init_table TableOrSubquery,
  scan_columns ColumnNameList,
  step_query TableOrSubquery
)
RETURNS TableOrSubquery AS
_graph_scan_impl!($graph_table, $init_table, $scan_columns, $step_query, 0);

-- As _graph_scan, but each node is computed once, when every node that
-- leads to it is done: agg_query gets all the rows reaching a node
-- together (and should GROUP BY id). The graph must have no loop.
CREATE PERFETTO MACRO _graph_aggregating_scan(
  graph_table TableOrSubquery,
  init_table TableOrSubquery,
  agg_columns ColumnNameList,
  agg_query TableOrSubquery
)
RETURNS TableOrSubquery AS
_graph_scan_impl!($graph_table, $init_table, $agg_columns, $agg_query, 1);
