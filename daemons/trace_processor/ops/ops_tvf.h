/*
 * Table-valued functions returning rows of an engine table picked by a
 * computation on one integer argument (see ops_tvf.c).
 */
#ifndef FARO_TP_OPS_TVF_H
#define FARO_TP_OPS_TVF_H

#include <stdint.h>

#include <sqlite3.h>

#include "ops_int.h"

struct ops_tvf_col {
	const char	*name;
	const char	*type;
};

struct ops_tvf_def {
	const char	*name;		/* SQL name of the function */
	const char	*source;	/* table the rows come from */
	const char	*arg;		/* name of the hidden argument column */
	/* Output columns; NULL for all of source's columns, in its order. */
	const struct ops_tvf_col *cols;
	/* Appends the ids of the rows to return; 0, or -1 with *err set. */
	int		(*run)(struct ops_walk *, int64_t, struct ops_ids *,
			    char **);
};

int	ops_tvf_register(sqlite3 *, const struct ops_tvf_def *, char **);

#endif
