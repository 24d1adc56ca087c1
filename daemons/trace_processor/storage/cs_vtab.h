/*
 * The columnar tables served to SQLite as virtual tables: SQLite stays
 * the SQL engine, the tables answer what they can answer fast (equality
 * on any integer or text column, ranges and ORDER BY on sorted columns,
 * ids) and leave the rest to SQLite, which re-checks every constraint.
 *
 *   CREATE VIRTUAL TABLE name USING __cs;
 *
 * serves the table of that name. The tables are read-only to SQL but for
 * DELETE while cs_db.deletable is set (the live mode's eviction).
 */
#ifndef FARO_CS_VTAB_H
#define FARO_CS_VTAB_H

#include <math.h>
#include <stdint.h>

#include <sqlite3.h>

#include "cs_pool.h"

struct cs_table;

struct cs_db {
	struct cs_table	**tables;
	size_t		  ntables;
	int		  deletable;
};

int	cs_vtab_register(sqlite3 *, struct cs_db *);
/* A cell of row r as the result of a function or a column. */
void	cs_result(sqlite3_context *, const struct cs_table *, size_t col,
	    uint32_t r);

/*
 * A stored column's cells of one block, for a reader that goes row by
 * row (xColumn): what cs_result gives of a row there, without finding
 * the block again. Holds rows [start, start + n) while the table's
 * version stays *ver; kind CS_VIEW_OTHER leaves the row to cs_result.
 */
enum cs_view_kind {
	CS_VIEW_OTHER, CS_VIEW_NULL, CS_VIEW_ID, CS_VIEW_I32, CS_VIEW_I64,
	CS_VIEW_F64, CS_VIEW_STR
};
struct cs_view {
	uint32_t		 start, n;
	int			 kind;
	int64_t			 base;		/* CS_VIEW_I32's */
	const void		*cells;
	const struct cs_pool	*pool;		/* CS_VIEW_STR's */
	uint64_t		 version;
	const uint64_t		*ver;
};
void	cs_view_get(const struct cs_table *, size_t col, uint32_t r,
	    struct cs_view *);
/* Row r's cell as SQLite's result, through the view that holds it; -1
 * (nothing done) for CS_VIEW_OTHER. */
static inline int
cs_view_result(sqlite3_context *ctx, const struct cs_view *v, uint32_t r)
{
	uint32_t off = r - v->start;
	const char *s;
	size_t len;
	int64_t i;
	int32_t n;
	double d;

	switch (v->kind) {
	case CS_VIEW_NULL:
		sqlite3_result_null(ctx);
		return 0;
	case CS_VIEW_ID:
		sqlite3_result_int64(ctx, r);
		return 0;
	case CS_VIEW_I32:
		if ((n = ((const int32_t *)v->cells)[off]) == INT32_MIN)
			sqlite3_result_null(ctx);
		else
			sqlite3_result_int64(ctx, v->base + n);
		return 0;
	case CS_VIEW_I64:
		if ((i = ((const int64_t *)v->cells)[off]) == INT64_MIN)
			sqlite3_result_null(ctx);
		else
			sqlite3_result_int64(ctx, i);
		return 0;
	case CS_VIEW_F64:
		if (isnan(d = ((const double *)v->cells)[off]))
			sqlite3_result_null(ctx);
		else
			sqlite3_result_double(ctx, d);
		return 0;
	case CS_VIEW_STR:
		/* Pool strings outlive every statement. */
		if ((s = cs_pool_get(v->pool, ((const uint32_t *)v->cells)[off],
		    &len)) != NULL)
			sqlite3_result_text(ctx, s, (int)len, SQLITE_STATIC);
		else
			sqlite3_result_null(ctx);
		return 0;
	default:
		return -1;
	}
}

/* The view of row r, made again if it holds it no more. */
static inline void
cs_view_at(const struct cs_table *t, size_t col, uint32_t r,
    struct cs_view *v)
{
	if (r - v->start >= v->n || v->ver == NULL || *v->ver != v->version)
		cs_view_get(t, col, r, v);
}

#endif
