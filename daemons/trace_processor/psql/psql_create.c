/*
 * CREATE [OR REPLACE] PERFETTO TABLE | VIEW | INDEX and DROP PERFETTO ...
 *
 * A PERFETTO TABLE is the SELECT's result stored as an SQLite table (in
 * the SELECT's row order, which queries without ORDER BY then keep); a
 * VIEW is an SQLite view; an INDEX an SQLite index. The optional schema
 * names the columns the SELECT must give, as upstream checks it.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "psql_int.h"

static int
exec(struct psql *ps, char *sql, char **err)
{
	int rc;

	if (sql == NULL) {
		*err = psql_fmt("out of memory");
		return -1;
	}
	rc = sqlite3_exec(ps->db, sql, NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		*err = strdup(sqlite3_errmsg(ps->db));
	sqlite3_free(sql);
	return rc == SQLITE_OK ? 0 : -1;
}

/* "table", "view", "index" or NULL: what name is in the schema. */
static const char *
object_kind(struct psql *ps, const char *name)
{
	static const char *const kinds[] = { "table", "view", "index" };
	sqlite3_stmt *st;
	const char *kind = NULL;
	size_t i;

	if (sqlite3_prepare_v2(ps->db, "SELECT type FROM sqlite_schema"
	    " WHERE name = ?1 COLLATE NOCASE", -1, &st, NULL) != SQLITE_OK)
		return NULL;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		for (i = 0; i < 3; i++)
			if (strcmp((const char *)sqlite3_column_text(st, 0),
			    kinds[i]) == 0)
				kind = kinds[i];
	sqlite3_finalize(st);
	return kind;
}

static int
has_name(const struct psql_args *a, const char *name)
{
	size_t i;

	for (i = 0; i < a->n; i++)
		if (strcasecmp(a->v[i].name, name) == 0)
			return 1;
	return 0;
}

/*
 * Does select give the columns of schema? what names the statement in
 * errors. ordered: by position (function results), else as sets.
 */
int
psql_columns_check(struct psql *ps, const char *what, const char *select,
    const struct psql_args *schema, int ordered, char **err)
{
	sqlite3_stmt *st;
	char *missing = NULL, *extra = NULL, *t;
	const char *n;
	int i, nc, rc = 0;

	if (sqlite3_prepare_v2(ps->db, select, -1, &st, NULL) != SQLITE_OK) {
		*err = strdup(sqlite3_errmsg(ps->db));
		return -1;
	}
	if (st == NULL) {
		*err = psql_fmt("%s: the body is empty", what);
		return -1;
	}
	nc = sqlite3_column_count(st);
	if (ordered) {
		for (i = 0; i < nc && (size_t)i < schema->n; i++)
			if (strcasecmp(sqlite3_column_name(st, i),
			    schema->v[i].name) != 0) {
				*err = psql_fmt("%s: column %s at index %d does"
				    " not match return value name %s.", what,
				    sqlite3_column_name(st, i), i,
				    schema->v[i].name);
				rc = -1;
				break;
			}
		if (rc == 0 && (size_t)nc != schema->n) {
			*err = psql_fmt("%s: %d columns returned, %zu"
			    " declared", what, nc, schema->n);
			rc = -1;
		}
		sqlite3_finalize(st);
		return rc;
	}
	for (i = 0; i < (int)schema->n; i++) {
		int found = 0, j;

		for (j = 0; j < nc; j++)
			found |= strcasecmp(sqlite3_column_name(st, j),
			    schema->v[i].name) == 0;
		if (!found) {
			t = psql_fmt("%s%s%s", missing ? missing : "",
			    missing ? ", " : "", schema->v[i].name);
			free(missing);
			missing = t;
		}
	}
	for (i = 0; i < nc; i++) {
		n = sqlite3_column_name(st, i);
		if (!has_name(schema, n)) {
			t = psql_fmt("%s%s%s", extra ? extra : "",
			    extra ? ", " : "", n);
			free(extra);
			extra = t;
		}
	}
	sqlite3_finalize(st);
	if (missing != NULL || extra != NULL) {
		*err = psql_fmt("%s: %s%s%s%s%s", what,
		    missing ? "the following columns are declared in the"
		    " schema, but do not exist: " : "", missing ? missing : "",
		    missing && extra ? "; and " : "",
		    extra ? "the following columns exist, but are not"
		    " declared: " : "", extra ? extra : "");
		rc = -1;
	}
	free(missing);
	free(extra);
	return rc;
}

/* Drops the table or view called name, whichever it is. */
static int
drop_relation(struct psql *ps, const char *name, char **err)
{
	const char *kind = object_kind(ps, name);

	if (kind == NULL || strcmp(kind, "index") == 0)
		return 0;
	return exec(ps, sqlite3_mprintf("DROP %s \"%w\"", kind, name), err);
}

static int
create_index(struct psql *ps, struct psql_cur *c, int replace, char **err)
{
	char *name, *rest;
	int rc = -1;

	if ((name = psql_name(c)) == NULL || !psql_accept(c, "ON")) {
		*err = psql_fmt("CREATE PERFETTO INDEX: expected name ON"
		    " table(columns)");
		free(name);
		return -1;
	}
	if ((rest = psql_trim(c->p, c->end)) == NULL)
		*err = psql_fmt("out of memory");
	else if (replace && exec(ps, sqlite3_mprintf("DROP INDEX IF EXISTS"
	    " \"%w\"", name), err) == -1)
		;
	else
		rc = exec(ps, sqlite3_mprintf("CREATE INDEX \"%w\" ON %s",
		    name, rest), err);
	free(rest);
	free(name);
	return rc;
}

/* After CREATE [OR REPLACE] PERFETTO: TABLE, VIEW or INDEX. */
int
psql_create(struct psql *ps, struct psql_cur *c, int replace, char **err)
{
	struct psql_args schema = { NULL, 0 };
	const char *what, *p;
	char *name = NULL, *select = NULL;
	int view, rc = -1;

	if (psql_accept(c, "INDEX"))
		return create_index(ps, c, replace, err);
	if (psql_accept(c, "TABLE"))
		view = 0;
	else if (psql_accept(c, "VIEW"))
		view = 1;
	else {
		*err = psql_fmt("CREATE PERFETTO: expected TABLE, VIEW, INDEX,"
		    " FUNCTION or MACRO");
		return -1;
	}
	what = view ? "CREATE PERFETTO VIEW" : "CREATE PERFETTO TABLE";
	if ((name = psql_name(c)) == NULL) {
		*err = psql_fmt("%s: expected a name", what);
		return -1;
	}
	p = psql_skip_blank(c->p, c->end);
	if (p < c->end && *p == '(' && psql_args_parse(c, &schema, err) == -1)
		goto out;
	if (!psql_accept(c, "AS")) {
		*err = psql_fmt("%s: expected AS and a SELECT", what);
		goto out;
	}
	if ((select = psql_trim(c->p, c->end)) == NULL) {
		*err = psql_fmt("out of memory");
		goto out;
	}
	if (schema.n > 0 && psql_columns_check(ps, what, select, &schema, 0,
	    err) == -1)
		goto out;
	if (object_kind(ps, name) != NULL) {
		if (!replace) {
			*err = psql_fmt("%s %s already exists",
			    object_kind(ps, name), name);
			goto out;
		}
		if (drop_relation(ps, name, err) == -1)
			goto out;
	}
	rc = exec(ps, sqlite3_mprintf("CREATE %s \"%w\" AS %s",
	    view ? "VIEW" : "TABLE", name, select), err);
out:
	psql_args_free(&schema);
	free(select);
	free(name);
	return rc;
}

/* After DROP PERFETTO: TABLE|VIEW|INDEX|FUNCTION|MACRO name [ON t]. */
int
psql_drop(struct psql *ps, struct psql_cur *c, char **err)
{
	static const char *const kinds[] = { "TABLE", "VIEW", "INDEX" };
	char *name;
	size_t i;
	int rc;

	if (psql_accept(c, "FUNCTION")) {
		if ((name = psql_name(c)) == NULL) {
			*err = psql_fmt("DROP PERFETTO FUNCTION: expected a"
			    " name");
			return -1;
		}
		rc = psql_fn_drop(ps, name, err);
		free(name);
		return rc;
	}
	if (psql_accept(c, "MACRO")) {
		if ((name = psql_name(c)) == NULL)
			rc = -1;
		else if ((rc = psql_macro_drop(ps, name)) == -1)
			*err = psql_fmt("DROP PERFETTO MACRO: no macro %s",
			    name);
		free(name);
		if (rc == -1 && *err == NULL)
			*err = psql_fmt("DROP PERFETTO MACRO: expected a name");
		return rc;
	}
	for (i = 0; i < 3; i++)
		if (psql_accept(c, kinds[i]))
			break;
	if (i == 3 || (name = psql_name(c)) == NULL) {
		*err = psql_fmt("DROP PERFETTO: expected TABLE, VIEW, INDEX,"
		    " FUNCTION or MACRO and a name");
		return -1;
	}
	rc = exec(ps, sqlite3_mprintf("DROP %s \"%w\"", kinds[i], name),
	    err);
	free(name);
	return rc;
}
