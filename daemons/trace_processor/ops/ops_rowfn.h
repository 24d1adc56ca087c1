/*
 * Table functions computed in C from their arguments: the arguments are
 * hidden columns after the output columns, and one call computes all the
 * result rows; the shell (ops_rowfn.c) does the rest of SQLite's virtual
 * table protocol. A function returns either integer rows (run) or rows of
 * any values kept in an object of its own (run_values, read by cell(),
 * dropped by drop(); no drop: the rows are borrowed). The graph
 * operators, the graph scan and experimental_slice_layout are such
 * functions. (ops_tvf.c serves the ones that pick rows of an engine table
 * instead.)
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
	int		 runs_sql;	/* not innocuous: it runs SQL it is given */
	int		(*run)(sqlite3 *, sqlite3_value **, struct ops_grows *,
			    char **);
	int		(*run_values)(void *aux, sqlite3 *, sqlite3_value **,
			    void **res, size_t *nrows, char **);
	void		(*cell)(const void *res, size_t row, size_t col,
			    sqlite3_context *);
	void		(*drop)(void *res);
};
/* aux goes to run_values; aux_free (may be NULL) frees it with the db. */
int	ops_rowfn_register(sqlite3 *, const struct ops_rowfn *, void *aux,
	    void (*aux_free)(void *), char **);

#endif
