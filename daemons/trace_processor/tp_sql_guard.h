/*
 * The SQL guard: what SQL may do in an engine's database.
 *
 * Installed on a database right after it opens (before the engine
 * registers its own functions and modules): connection flags that turn
 * off SQLite's dangerous extras, and an authorizer that allows of
 * SQLite's own functions, pragmas and virtual-table modules only those
 * reviewed in tp_sql_guard.c, and no attached database. What is refused
 * fails to prepare with SQLite's "not authorized" error; the database
 * stays usable.
 */
#ifndef FARO_TP_SQL_GUARD_H
#define FARO_TP_SQL_GUARD_H

#include <sqlite3.h>

struct tp_sql_guard;

/* NULL (and *cause) on failure: the database must not be used then. */
struct tp_sql_guard *tp_sql_guard_install(sqlite3 *, const char **cause);
/* After the database is closed. */
void		 tp_sql_guard_free(struct tp_sql_guard *);

#endif
