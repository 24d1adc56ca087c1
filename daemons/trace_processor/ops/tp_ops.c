/* Registers the trace_processor SQL operators on a connection. */
#include "config.h"

#include <sqlite3.h>

#include "ops_graph.h"
#include "ops_int.h"
#include "tp_ops.h"

int
tp_ops_register(sqlite3 *db, char **errmsg)
{
	char	*err = NULL;

	if (ops_funcs_register(db, &err) == -1 ||
	    ops_span_join_register(db, &err) == -1 ||
	    ops_slice_fns_register(db, &err) == -1 ||
	    ops_flow_fns_register(db, &err) == -1 ||
	    ops_clock_fns_register(db, &err) == -1 ||
	    ops_mipmap_register(db, &err) == -1 ||
	    ops_slice_layout_register(db, &err) == -1 ||
	    ops_meta_fns_register(db, &err) == -1 ||
	    ops_window_fns_register(db, &err) == -1 ||
	    ops_args_json_register(db, &err) == -1 ||
	    ops_graph_agg_register(db, &err) == -1 ||
	    ops_graph_search_register(db, &err) == -1 ||
	    ops_graph_dom_register(db, &err) == -1 ||
	    ops_graph_part_register(db, &err) == -1 ||
	    ops_graph_scan_register(db, &err) == -1 ||
	    ops_critical_path_register(db, &err) == -1) {
		if (errmsg != NULL)
			*errmsg = err;
		else
			sqlite3_free(err);
		return -1;
	}
	return 0;
}
