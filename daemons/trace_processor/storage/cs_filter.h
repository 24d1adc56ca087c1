/*
 * Tests of one column's cells that the virtual table (cs_vtab.c) makes
 * itself while it scans, so that SQLite need not read the cell again
 * and check the constraint row by row (it is then omitted):
 * comparisons of integer columns, = and != of text columns (BINARY),
 * LIKE and GLOB of text columns (each distinct text matched once).
 *
 * A filter gives what SQLite's own test would: values of another type
 * are compared as SQLite compares them with the column's affinity, and
 * a NULL cell matches nothing.
 */
#ifndef FARO_CS_FILTER_H
#define FARO_CS_FILTER_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

struct cs_table;

enum cs_fop { CS_F_EQ, CS_F_NE, CS_F_LT, CS_F_LE, CS_F_GT, CS_F_GE,
	CS_F_LIKE, CS_F_GLOB };

struct cs_filter {
	size_t		 col;
	int		 op;		/* enum cs_fop */
	int		 none;		/* no row can match */
	int		 text;		/* cells are pool ids */
	/* integers: within [min, max] and not ne (when has_ne);
	 * texts (=, !=): the pool id of the value */
	int64_t		 min, max, ne;
	int		 has_ne;
	/* LIKE, GLOB: the pattern and, by pool id, 1 matched, 2 not */
	char		*pat;
	unsigned char	*memo;
	size_t		 nmemo;
};

/*
 * The filter a constraint (SQLITE_INDEX_CONSTRAINT_*) on column col can
 * be, with rhs its value if constant (else NULL) and coll its collation:
 * an enum cs_fop, or -1 when the table leaves it to SQLite.
 */
int	cs_filter_op(const struct cs_table *, size_t col, int sqlite_op,
	    sqlite3_value *rhs, const char *coll);
/* Whether col takes filters of any value: 'i' (integers), 's' (texts),
 * or 0. */
int	cs_filter_kind(const struct cs_table *, size_t col);
/* Sets f to test col with op against v; a pattern kept from before
 * keeps what it learnt. -1 when out of memory. */
int	cs_filter_set(struct cs_filter *, const struct cs_table *,
	    size_t col, int op, sqlite3_value *v);
int	cs_filter_match(struct cs_filter *, const struct cs_table *,
	    uint32_t r);
void	cs_filter_clear(struct cs_filter *);

#endif
