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

#include <sqlite3.h>

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

#endif
