/* Registers the trace_processor SQL operators on a connection. */
#include "config.h"

#include <stdlib.h>

#include <sqlite3.h>

#include "ops_graph.h"
#include "ops_int.h"
#include "tp_ops.h"

/* The hooks of each connection that has some. */
static struct ops_hooks_entry {
	sqlite3				*db;
	struct tp_ops_hooks		 hooks;
	struct ops_hooks_entry		*next;
} *hooks_list;

const struct tp_ops_hooks *
ops_hooks_of(sqlite3 *db)
{
	struct ops_hooks_entry *e;

	for (e = hooks_list; e != NULL; e = e->next)
		if (e->db == db)
			return &e->hooks;
	return NULL;
}

void
tp_ops_forget(sqlite3 *db)
{
	struct ops_hooks_entry **p, *e;

	for (p = &hooks_list; (e = *p) != NULL; p = &e->next)
		if (e->db == db) {
			*p = e->next;
			free(e);
			return;
		}
}

int
tp_ops_register(sqlite3 *db, const struct tp_ops_hooks *hooks, char **errmsg)
{
	struct ops_hooks_entry *e;
	char	*err = NULL;

	tp_ops_forget(db);
	if (hooks != NULL) {
		if ((e = calloc(1, sizeof(*e))) == NULL) {
			if (errmsg != NULL)
				*errmsg = sqlite3_mprintf("out of memory");
			return -1;
		}
		e->db = db;
		e->hooks = *hooks;
		e->next = hooks_list;
		hooks_list = e;
	}
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
