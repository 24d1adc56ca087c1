/*
 * Graph operators: how a graph travels from SQL into C and back.
 *
 * SQL cannot hand a table to a function, so the graph macros pack their
 * inputs with the aggregate __intrinsic_int_rows(a, b, ...) into a BLOB of
 * integer rows, and pass those BLOBs to a table function that runs one
 * algorithm (ops_graph_search.c, ops_graph_dom.c, ops_graph_part.c,
 * ops_critical_path.c) and returns integer rows; ops_graph_scan.c has its
 * own table functions, as scans carry values of any type. Node ids are any
 * int64; NULL travels as OPS_GRAPH_NULL, which is why that one value is
 * refused as input.
 */
#ifndef FARO_TP_OPS_GRAPH_H
#define FARO_TP_OPS_GRAPH_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "ops_rowfn.h"

#define OPS_GRAPH_NULL		OPS_ROWFN_NULL
#define OPS_GRAPH_MAX_VALUES	OPS_ROWFN_MAX_VALUES

/*
 * Reads a BLOB made by __intrinsic_int_rows with ncols columns into *out
 * (a copy, freed with ops_grows_free). NULL or empty is no rows.
 * 0, or -1 with *err set.
 */
int	ops_grows_decode(sqlite3_value *, size_t ncols, struct ops_grows *,
	    char **);

/*
 * A directed graph with dense node numbers: node i is ids[i] (sorted);
 * its out-edges are adj[off[i] .. off[i + 1]) in input order, with the
 * matching weights in w when the graph has them.
 */
struct ops_graph {
	int64_t		*ids;
	size_t		 n;
	size_t		*off;
	uint32_t	*adj;
	int64_t		*w;
	size_t		 m;
};
/*
 * Builds the graph from rows (src, dst[, weight]) of e; rows with a NULL
 * end are not edges. Nodes are the ends of the edges plus the extra ids
 * given. 0, or -1 with *err set.
 */
int	ops_graph_build(struct ops_graph *, const struct ops_grows *e,
	    int weighted, const int64_t *extra, size_t nextra, char **);
void	ops_graph_free(struct ops_graph *);
/* Dense number of id, or -1 when it is not a node. */
int64_t	ops_graph_find(const struct ops_graph *, int64_t id);

/* Registration of each file. */
int	ops_graph_agg_register(sqlite3 *, char **);
int	ops_graph_search_register(sqlite3 *, char **);
int	ops_graph_dom_register(sqlite3 *, char **);
int	ops_graph_part_register(sqlite3 *, char **);
int	ops_graph_scan_register(sqlite3 *, char **);
int	ops_critical_path_register(sqlite3 *, char **);

#endif
