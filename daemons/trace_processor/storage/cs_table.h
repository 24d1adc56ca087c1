/*
 * Columnar tables: the engine's bulk tables (slices, counters, args,
 * scheduling, ftrace events, flows) held in memory as typed column
 * arrays and served to SQLite by cs_vtab.c.
 *
 * - Rows have dense ids: row r is the table's id r, column 0 (CS_ID).
 * - Columns are cut in blocks of CS_BLOCK rows, allocated on the first
 *   non-NULL write: a column that is never set costs nothing, and
 *   growing never copies what is stored.
 * - NULL is a value of the column's own type (INT32_MIN, INT64_MIN
 *   (TP_NULL), any NaN, string id 0): no per-cell flag.
 * - An integer block holds 32-bit offsets from a base while its values
 *   fit (times close together, ids, small counts): half the memory of
 *   64-bit cells. It widens itself the first time a value does not fit.
 *   (CS_I32 and CS_I64 differ only in what they say of the column.)
 * - A row is present or absent: absent while it is only reserved (a row
 *   written later, beyond the end) or once deleted (eviction). Scans skip
 *   absent rows.
 * - What speeds up lookups is computed on demand and kept until the
 *   table changes: whether a column is sorted (then equality and ranges
 *   are binary searches) and an index of rows by value (other equality).
 */
#ifndef FARO_CS_TABLE_H
#define FARO_CS_TABLE_H

#include <stddef.h>
#include <stdint.h>

#define CS_BLOCK_SHIFT	12
#define CS_BLOCK	(1u << CS_BLOCK_SHIFT)

#define CS_NULL_I64	INT64_MIN

enum cs_type {
	CS_ID,		/* the row's id: stored nowhere */
	CS_I32,		/* integers, most of them small (ids) */
	CS_I64,
	CS_F64,
	CS_STR,		/* a cs_pool id */
	CS_ALIAS,	/* another column under a second name */
	CS_REF,		/* a cell of the reference table (cs_table_set_ref)
			 * at the row another column names */
	CS_VARIANT,	/* one of an int, a string or a real held in an
			 * I64 column, shown when the row's kind is this
			 * column's (one cell for three exclusive columns) */
};

/* The kinds of value a CS_VARIANT column shows. */
enum cs_kind { CS_KIND_INT, CS_KIND_STR, CS_KIND_REAL };

struct cs_coldef {
	const char	*name;
	enum cs_type	 type;
	int		 alias;		/* CS_ALIAS: the column it shows;
					 * CS_REF: the column of the row */
	int		 ref_col;	/* CS_REF: the reference's column;
					 * CS_VARIANT: its enum cs_kind */
	int		 kind_col;	/* CS_VARIANT: the column holding
					 * the row's enum cs_kind */
};

/* Every row of a column, NULLs first, then by (value, row): texts in
 * SQLite's BINARY order, so that the index serves ORDER BY as well. */
struct cs_index {
	unsigned	 refs;
	uint64_t	 version;	/* the table's when built */
	size_t		 n, nnull;
	uint32_t	 rows[];
};

struct cs_pool;
struct cs_table;

struct cs_table	*cs_table_new(const char *name, const struct cs_coldef *,
		    size_t ncols, struct cs_pool *);
void		 cs_table_free(struct cs_table *);
const char	*cs_table_name(const struct cs_table *);
size_t		 cs_table_ncols(const struct cs_table *);
const struct cs_coldef *cs_table_col(const struct cs_table *, size_t col);
/* What a column holds, aliases and references resolved. */
enum cs_type	 cs_col_type(const struct cs_table *, size_t col);
/* The table CS_REF columns read (sharing the pool). */
void		 cs_table_set_ref(struct cs_table *, struct cs_table *ref);
/* Scans of the table priced by its rows (cs_vtab.c): a small table
 * joins start from, one row per track, thread or process. */
void		 cs_table_set_sized(struct cs_table *);
int		 cs_table_sized(const struct cs_table *);
struct cs_pool	*cs_table_pool(const struct cs_table *);
/* Ids given so far (present or absent rows). */
size_t		 cs_table_rows(const struct cs_table *);
/* Whether a write failed for want of memory since the table was made. */
int		 cs_table_failed(const struct cs_table *);
size_t		 cs_table_bytes(const struct cs_table *);

/*
 * Row r, present from now on, its cells NULL if new; the rows between
 * the end and r are reserved (absent). Rewriting a row keeps the cells
 * not set again. -1 when out of memory.
 */
int		 cs_row_put(struct cs_table *, uint32_t r);
int		 cs_row_present(const struct cs_table *, uint32_t r);
/* The end of the run of present rows from r (r when r is absent): at
 * least r + 1, at most the end of r's block. */
uint32_t	 cs_present_until(const struct cs_table *, uint32_t r);
/* Absent from now on; its memory goes with cs_table_compact(). */
void		 cs_row_delete(struct cs_table *, uint32_t r);
/* Frees the blocks whose rows are all deleted. */
void		 cs_table_compact(struct cs_table *);

void		 cs_set_int(struct cs_table *, size_t col, uint32_t r,
		    int64_t v);		/* CS_NULL_I64: NULL */
void		 cs_set_real(struct cs_table *, size_t col, uint32_t r,
		    double v);		/* NaN: NULL */
void		 cs_set_str(struct cs_table *, size_t col, uint32_t r,
		    const char *s, size_t len);	/* s NULL: NULL */
/* The I64 cell of a CS_VARIANT column set to a value of kind k. */
void		 cs_set_variant(struct cs_table *, size_t col, uint32_t r,
		    enum cs_kind k, int64_t i, const char *s, size_t len,
		    double d);

/* What a cell holds: its type as an enum cs_type, or -1 for NULL. */
int		 cs_get(const struct cs_table *, size_t col, uint32_t r,
		    int64_t *i, double *d, const char **s, size_t *len);
int64_t		 cs_get_int(const struct cs_table *, size_t col, uint32_t r);
/* A cell as an index compares it: an integer, a string's pool id (any
 * column, references followed); CS_NULL_I64 for NULL. */
int64_t		 cs_get_key(const struct cs_table *, size_t col, uint32_t r);

/* The column an alias shows (itself when none). */
size_t		 cs_col_base(const struct cs_table *, size_t col);
/* Whether the rows' values rise (never fall) with id, with no NULL but
 * in rows never written (or freed): integer columns only. */
int		 cs_col_sorted(struct cs_table *, size_t col);
/* The rows [*lo, *hi) whose values of a sorted column are within
 * [min, max], looked for within [*lo, *hi). */
void		 cs_col_range(const struct cs_table *, size_t col, int64_t min,
		    int64_t max, uint32_t *lo, uint32_t *hi);
/* The index of an integer or string column, with a reference the caller
 * drops with cs_index_unref(); NULL when out of memory. */
struct cs_index	*cs_col_index(struct cs_table *, size_t col);
void		 cs_index_unref(struct cs_index *);
/* The slice [*lo, *hi) of the index's rows whose value is v (integer
 * columns) or s (text columns: len bytes). */
void		 cs_index_find(const struct cs_table *, size_t col,
		    const struct cs_index *, int64_t v, const char *s,
		    size_t len, size_t *lo, size_t *hi);
/* Narrows a slice [*lo, *hi) of an index's rows (in id order) to those
 * whose values of sorted column col are within [min, max]. */
void		 cs_index_narrow(const struct cs_table *, size_t col,
		    const struct cs_index *, int64_t min, int64_t max,
		    size_t *lo, size_t *hi);

#endif
