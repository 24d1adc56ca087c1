/*
 * The engine's database as a SQLite file (trace_processor export sqlite,
 * -e): SQLite's own tables and views as they are, and each columnar table
 * (served as a virtual table no other SQLite could read) written out as an
 * ordinary table of its rows, under its name, with every column.
 */
#include <stdlib.h>
#include <string.h>

#include "tp_int.h"
#include "cs_table.h"

static int
export_exec(sqlite3 *db, const char *sql, char **err)
{
	char *msg = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &msg) == SQLITE_OK)
		return 0;
	*err = strdup(msg != NULL ? msg : sqlite3_errmsg(db));
	sqlite3_free(msg);
	return -1;
}

/* Table t's rows into a table of its name in out. */
static int
export_table(sqlite3 *out, const struct cs_table *t, char **err)
{
	size_t c, n = cs_table_ncols(t);
	sqlite3_str *create = sqlite3_str_new(out), *ins = sqlite3_str_new(out);
	char *csql, *isql;
	sqlite3_stmt *st = NULL;
	uint32_t r;
	int rc = -1;

	sqlite3_str_appendf(create, "CREATE TABLE \"%w\"(", cs_table_name(t));
	sqlite3_str_appendf(ins, "INSERT INTO \"%w\" VALUES(",
	    cs_table_name(t));
	for (c = 0; c < n; c++) {
		enum cs_type type = cs_col_type(t, c);

		sqlite3_str_appendf(create, "%s\"%w\" %s", c ? ", " : "",
		    cs_table_col(t, c)->name, type == CS_STR ? "TEXT" :
		    type == CS_F64 ? "REAL" : "INTEGER");
		sqlite3_str_appendf(ins, "%s?", c ? ", " : "");
	}
	sqlite3_str_appendall(create, ")");
	sqlite3_str_appendall(ins, ")");
	csql = sqlite3_str_finish(create);
	isql = sqlite3_str_finish(ins);
	if (csql == NULL || isql == NULL) {
		*err = strdup("out of memory");
		goto done;
	}
	if (export_exec(out, csql, err) == -1)
		goto done;
	if (sqlite3_prepare_v2(out, isql, -1, &st, NULL) != SQLITE_OK) {
		*err = strdup(sqlite3_errmsg(out));
		goto done;
	}
	for (r = 0; r < cs_table_rows(t); r++) {
		if (!cs_row_present(t, r))
			continue;
		for (c = 0; c < n; c++) {
			const char *s;
			size_t len;
			int64_t i;
			double d;

			switch (cs_get(t, c, r, &i, &d, &s, &len)) {
			case CS_I64:
				sqlite3_bind_int64(st, (int)c + 1, i);
				break;
			case CS_F64:
				sqlite3_bind_double(st, (int)c + 1, d);
				break;
			case CS_STR:
				sqlite3_bind_text(st, (int)c + 1, s, (int)len,
				    SQLITE_STATIC);
				break;
			default:
				sqlite3_bind_null(st, (int)c + 1);
				break;
			}
		}
		if (sqlite3_step(st) != SQLITE_DONE) {
			*err = strdup(sqlite3_errmsg(out));
			goto done;
		}
		sqlite3_reset(st);
	}
	rc = 0;
done:
	sqlite3_finalize(st);
	sqlite3_free(csql);
	sqlite3_free(isql);
	return rc;
}

unsigned char *
tp_export_image(struct tp *tp, int64_t *len, char **err)
{
	sqlite3_int64 n;
	unsigned char *img, *res = NULL;
	sqlite3 *out = NULL;
	size_t i;

	*err = NULL;
	if ((img = sqlite3_serialize(tp->db, "main", &n, 0)) == NULL) {
		*err = strdup(sqlite3_errmsg(tp->db));
		return NULL;
	}
	if (sqlite3_open(":memory:", &out) != SQLITE_OK ||
	    sqlite3_deserialize(out, "main", img, n, n,
	    SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_RESIZEABLE) !=
	    SQLITE_OK) {
		*err = strdup("out of memory");
		goto done;
	}
	/* The virtual tables' entries go; their rows come as tables. */
	if (export_exec(out, "PRAGMA writable_schema=ON;"
	    " DELETE FROM sqlite_schema WHERE type = 'table' AND"
	    " sql LIKE 'CREATE VIRTUAL TABLE % USING __cs%';"
	    " PRAGMA writable_schema=RESET; BEGIN", err) == -1)
		goto done;
	for (i = 0; i < TB_COUNT; i++)
		if (export_table(out, tp->tab[i], err) == -1)
			goto done;
	if (export_exec(out, "COMMIT", err) == -1)
		goto done;
	if ((res = sqlite3_serialize(out, "main", &n, 0)) == NULL)
		*err = strdup("out of memory");
	*len = n;
done:
	sqlite3_close(out);
	if (res == NULL && *err == NULL)
		*err = strdup("out of memory");
	return res;
}
