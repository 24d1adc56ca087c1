/*
 * PerfettoSQL statement by statement: see psql.h. Each statement is cut
 * at its ';', its macro invocations expanded, and then either run here
 * (INCLUDE, CREATE/DROP PERFETTO ...) or prepared for the caller.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "psql_int.h"

/*
 * The state of each database. An engine has one database and a process
 * a handful of engines, so a list is enough; engines are used from one
 * thread.
 */
static struct psql *states;

struct psql *
psql_of(sqlite3 *db)
{
	struct psql *ps;
	char *err = NULL;

	for (ps = states; ps != NULL; ps = ps->next)
		if (ps->db == db)
			return ps;
	if ((ps = calloc(1, sizeof(*ps))) == NULL)
		return NULL;
	ps->db = db;
	if (psql_stdlib_add(ps, &err) == -1 || psql_legacy_register(ps) == -1) {
		free(err);
		psql_modules_free(ps);
		free(ps);
		return NULL;
	}
	ps->next = states;
	states = ps;
	return ps;
}

/*
 * Back to a new connection's state, as upstream's RestoreInitialTables
 * makes one (the caller drops the tables): no function or macro that SQL
 * defined, no module included but the prelude. Packages stay registered.
 */
int
psql_reset(sqlite3 *db, char **err)
{
	struct psql *ps;

	*err = NULL;
	for (ps = states; ps != NULL; ps = ps->next)
		if (ps->db == db)
			break;
	if (ps == NULL)
		return 0;
	psql_fns_drop(ps);
	while (ps->macros != NULL)
		psql_macro_drop(ps, ps->macros->name);
	psql_modules_forget(ps);
	return psql_include(ps, "prelude.prelude", err);
}

void
psql_forget(sqlite3 *db)
{
	struct psql **pp, *ps;

	for (pp = &states; (ps = *pp) != NULL; pp = &ps->next)
		if (ps->db == db) {
			*pp = ps->next;
			psql_modules_free(ps);
			psql_fns_free(ps);
			free(ps->last_frame);
			while (ps->macros != NULL)
				psql_macro_drop(ps, ps->macros->name);
			free(ps);
			return;
		}
}

void
psql_iter_init(struct psql_iter *it, const char *file, const char *sql,
    size_t len)
{
	it->file = file;
	it->base = sql;
	it->p = sql;
	it->end = sql + len;
}

/* Runs a PerfettoSQL statement; 0: it was one, 1: plain SQL, -1: error. */
static int
run_perfetto(struct psql *ps, const char *sql, char **err)
{
	struct psql_cur c = { sql, sql + strlen(sql) };
	char *name;
	int replace, rc;

	if (psql_accept(&c, "INCLUDE")) {
		if (!psql_accept(&c, "PERFETTO") || !psql_accept(&c, "MODULE")
		    || (name = psql_module_name(&c)) == NULL ||
		    psql_skip_blank(c.p, c.end) != c.end) {
			*err = psql_fmt("INCLUDE: expected INCLUDE PERFETTO"
			    " MODULE name");
			return -1;
		}
		rc = psql_include(ps, name, err);
		free(name);
		return rc;
	}
	if (psql_accept(&c, "DROP")) {
		if (!psql_accept(&c, "PERFETTO"))
			return 1;
		return psql_drop(ps, &c, err);
	}
	if (!psql_accept(&c, "CREATE"))
		return 1;
	replace = psql_accept(&c, "OR");
	if (replace && !psql_accept(&c, "REPLACE"))
		return 1;
	if (!psql_accept(&c, "PERFETTO"))
		return 1;
	if (psql_accept(&c, "FUNCTION"))
		return psql_fn_define(ps, &c, replace, err);
	if (psql_accept(&c, "MACRO"))
		return psql_macro_define(ps, &c, replace, err);
	return psql_create(ps, &c, replace, err);
}

static int
is_macro_def(const char *s, const char *e)
{
	struct psql_cur c = { s, e };

	return psql_accept(&c, "CREATE") && (!psql_accept(&c, "OR") ||
	    psql_accept(&c, "REPLACE")) && psql_accept(&c, "PERFETTO") &&
	    psql_accept(&c, "MACRO");
}

int
psql_next(struct psql *ps, struct psql_iter *it, sqlite3_stmt **st,
    char **err)
{
	const char *s, *e, *tail, *at;
	char *x, *msg = NULL;
	int rc, off;

	*st = NULL;
	for (;;) {
		s = psql_skip_blank(it->p, it->end);
		if (s < it->end && *s == ';')
			it->p = s + 1;
		else
			break;
	}
	if (s >= it->end) {
		it->p = it->end;
		return 0;
	}
	e = psql_stmt_end(s, it->end);
	it->p = e < it->end ? e + 1 : e;
	free(ps->last_frame);
	ps->last_frame = psql_traceback(it->file, it->base, s, s, e, "");
	at = s;
	/* A macro's body is kept as written: it expands where used. */
	x = is_macro_def(s, e) ? psql_strndup(s, (size_t)(e - s)) :
	    psql_macro_expand(ps, s, e, &msg);
	if (x == NULL) {
		if (msg == NULL)
			msg = strdup("out of memory");
		goto fail;
	}
	if ((rc = run_perfetto(ps, x, &msg)) <= 0) {
		free(x);
		if (rc == 0)
			return 1;
		goto fail;
	}
	if (sqlite3_prepare_v2(ps->db, x, -1, st, &tail) != SQLITE_OK) {
		off = sqlite3_error_offset(ps->db);
		/* Offsets point into the original only when nothing expanded. */
		if (off >= 0 && off < e - s && strncmp(x, s, (size_t)(e - s))
		    == 0)
			at = s + off;
		msg = strdup(sqlite3_errmsg(ps->db));
		free(x);
		goto fail;
	}
	free(x);
	return 1;
fail:
	*err = psql_traceback(it->file, it->base, at, s, e, msg);
	free(msg);
	return -1;
}

char *
psql_step_error(struct psql *ps, const char *msg)
{
	if (ps->last_frame == NULL)
		return strdup(msg);
	return psql_fmt("%s%s", ps->last_frame, msg);
}

int
psql_run(struct psql *ps, const char *file, const char *sql, char **err)
{
	struct psql_iter it;
	sqlite3_stmt *st;
	int rc;

	if (ps->depth >= PSQL_DEPTH_MAX) {
		*err = psql_fmt("%s: modules nest too deep", file);
		return -1;
	}
	ps->depth++;
	psql_iter_init(&it, file, sql, strlen(sql));
	while ((rc = psql_next(ps, &it, &st, err)) == 1) {
		if (st == NULL)
			continue;
		while ((rc = sqlite3_step(st)) == SQLITE_ROW)
			;
		if (rc != SQLITE_DONE) {
			*err = psql_step_error(ps, sqlite3_errmsg(ps->db));
			sqlite3_finalize(st);
			rc = -1;
			break;
		}
		sqlite3_finalize(st);
	}
	ps->depth--;
	return rc;
}

int
psql_exec(sqlite3 *db, const char *sql, char **err)
{
	struct psql *ps = psql_of(db);

	if (ps == NULL) {
		*err = strdup("out of memory");
		return -1;
	}
	return psql_run(ps, "stdin", sql, err);
}
