/*
 * Table functions computed in C from their arguments: the arguments are
 * hidden columns after the output columns, run() gets them and fills all
 * the result rows (integers) at once; the shell (ops_rowfn.c) does the
 * rest of SQLite's virtual table protocol. The graph operators and
 * experimental_slice_layout are such functions. (ops_tvf.c serves the
 * ones that pick rows of an engine table instead.)
 */
#ifndef FARO_TP_OPS_ROWFN_H
#define FARO_TP_OPS_ROWFN_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

/* A NULL cell of a result row. */
#define OPS_ROWFN_NULL		INT64_MIN
/* Most values one result (or one packed BLOB) may hold. */
#define OPS_ROWFN_MAX_VALUES	((size_t)1 << 26)

/* Rows of ncols integers, row-major. */
struct ops_grows {
	int64_t		*v;
	size_t		 n;		/* rows */
	size_t		 ncols;
	size_t		 cap;		/* values */
};
/* Appends one row (ncols values); 0, or -1 with *err set. */
int	ops_grows_add(struct ops_grows *, const int64_t *, char **);
void	ops_grows_free(struct ops_grows *);

struct ops_rowfn {
	const char	*name;
	const char *const *cols;	/* output column names, NULL-ended */
	const char *const *args;	/* argument names, NULL-ended (<= 8) */
	int		(*run)(sqlite3 *, sqlite3_value **, struct ops_grows *,
			    char **);
};
int	ops_rowfn_register(sqlite3 *, const struct ops_rowfn *, char **);

#endif
