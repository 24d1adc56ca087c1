/*
 * Running SQL the way upstream's summary runs it (ExecuteQuery): every
 * statement, PerfettoSQL included; the last one's rows are the result.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "psql/psql.h"
#include "sum_int.h"

int
sum_exec(sqlite3 *db, const char *sql, sqlite3_stmt **out, char **err)
{
	struct psql *ps;
	struct psql_iter it;
	sqlite3_stmt *st, *last = NULL;
	int rc, seen = 0;

	*out = NULL;
	if ((ps = psql_of(db)) == NULL) {
		*err = strdup("out of memory");
		return -1;
	}
	psql_iter_init(&it, "stdin", sql, strlen(sql));
	while ((rc = psql_next(ps, &it, &st, err)) == 1) {
		seen = 1;
		if (last != NULL) {
			/* Not the last statement: run it to its end. */
			while ((rc = sqlite3_step(last)) == SQLITE_ROW)
				;
			sqlite3_finalize(last);
			last = NULL;
			if (rc != SQLITE_DONE) {
				*err = psql_step_error(ps, sqlite3_errmsg(db));
				sqlite3_finalize(st);
				return -1;
			}
		}
		last = st;
	}
	if (rc == -1) {
		sqlite3_finalize(last);
		return -1;
	}
	if (!seen) {
		*err = strdup("No valid SQL to run");
		return -1;
	}
	*out = last;
	return 0;
}
