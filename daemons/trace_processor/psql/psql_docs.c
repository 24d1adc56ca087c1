/*
 * __intrinsic_stdlib_objects: what the modules (the stdlib and packages)
 * define, as upstream lists it for the UI's standard library browser.
 * One MODULE row per module, then one row per CREATE PERFETTO TABLE,
 * VIEW, FUNCTION (TABLE_FUNCTION when it returns a table) and MACRO, with
 * the comment above it as description; args and cols are JSON arrays of
 * {"name", "type", "description"}. Names starting with '_' are not
 * exposed.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "psql_int.h"

struct doc {
	const char	*kind;
	char		*name;
	char		*desc;
	char		*ret;
	struct psql_args args, cols;
};

static void
doc_free(struct doc *d)
{
	free(d->name);
	sqlite3_free(d->desc);
	free(d->ret);
	psql_args_free(&d->args);
	psql_args_free(&d->cols);
	memset(d, 0, sizeof(*d));
}

/* The "--" lines right above the statement at p, joined by spaces. */
static char *
doc_comment(const char *start, const char *p)
{
	sqlite3_str *s = sqlite3_str_new(NULL);
	const char *l, *e, *line = p;
	const char *first = NULL;

	/* Walk back over lines that are comments only. */
	while (line > start) {
		e = line - 1;	/* the '\n' ending the line above */
		for (l = e; l > start && l[-1] != '\n'; l--)
			;
		while (l < e && (*l == ' ' || *l == '\t'))
			l++;
		if (e - l < 2 || l[0] != '-' || l[1] != '-')
			break;
		first = l;
		line = l;
		while (line > start && line[-1] != '\n')
			line--;
	}
	for (l = first; l != NULL && l < p; l = e + 1) {
		if ((e = memchr(l, '\n', (size_t)(p - l))) == NULL)
			e = p;
		while (l < e && (*l == ' ' || *l == '\t'))
			l++;
		if (e - l >= 2 && l[0] == '-' && l[1] == '-') {
			l += 2;
			while (l < e && *l == ' ')
				l++;
			if (sqlite3_str_length(s) > 0 && l < e)
				sqlite3_str_appendchar(s, 1, ' ');
			sqlite3_str_append(s, l, (int)(e - l));
		}
		if (e == p)
			break;
	}
	return sqlite3_str_finish(s);
}

/* The head of one statement: 0 if it is a documented object. */
static int
doc_parse(struct psql_cur *c, struct doc *d)
{
	char *err = NULL;

	if (!psql_accept(c, "CREATE"))
		return -1;
	if (psql_accept(c, "OR") && !psql_accept(c, "REPLACE"))
		return -1;
	if (!psql_accept(c, "PERFETTO"))
		return -1;
	if (psql_accept(c, "TABLE"))
		d->kind = "TABLE";
	else if (psql_accept(c, "VIEW"))
		d->kind = "VIEW";
	else if (psql_accept(c, "FUNCTION"))
		d->kind = "FUNCTION";
	else if (psql_accept(c, "MACRO"))
		d->kind = "MACRO";
	else
		return -1;
	if ((d->name = psql_name(c)) == NULL)
		return -1;
	if (d->kind[0] == 'T' || d->kind[0] == 'V') {
		if (psql_skip_blank(c->p, c->end) < c->end &&
		    *psql_skip_blank(c->p, c->end) == '(' &&
		    psql_args_parse(c, &d->cols, &err) == -1) {
			free(err);
			return -1;
		}
		return 0;
	}
	if (psql_args_parse(c, &d->args, &err) == -1) {
		free(err);
		return -1;
	}
	if (!psql_accept(c, "RETURNS"))
		return -1;
	if (d->kind[0] == 'F' && psql_accept(c, "TABLE")) {
		d->kind = "TABLE_FUNCTION";
		if (psql_args_parse(c, &d->cols, &err) == -1) {
			free(err);
			return -1;
		}
		return 0;
	}
	d->ret = psql_type_parse(c);
	return 0;
}

/*
 * A macro's argument and return types as PerfettoSQL spells them (the
 * parser keeps them upper case).
 */
static const char *
macro_type(const char *t)
{
	static const char *const names[] = {
		"Expr", "TableOrSubquery", "ColumnName", "ColumnNameList",
		"_ProjectionFragment", "_TableNameList", "_SqlFragment",
	};
	size_t i;

	for (i = 0; t != NULL && i < sizeof(names) / sizeof(names[0]); i++)
		if (strcasecmp(t, names[i]) == 0)
			return names[i];
	return t;
}

static void
json_str(sqlite3_str *s, const char *v)
{
	sqlite3_str_appendchar(s, 1, '"');
	for (; v != NULL && *v != '\0'; v++) {
		if (*v == '"' || *v == '\\')
			sqlite3_str_appendf(s, "\\%c", *v);
		else if ((unsigned char)*v < 0x20)
			sqlite3_str_appendf(s, "\\u%04x", *v);
		else
			sqlite3_str_appendchar(s, 1, *v);
	}
	sqlite3_str_appendchar(s, 1, '"');
}

static char *
json_args(const struct psql_args *a, int macro)
{
	sqlite3_str *s = sqlite3_str_new(NULL);
	size_t i;

	sqlite3_str_appendchar(s, 1, '[');
	for (i = 0; i < a->n; i++) {
		sqlite3_str_appendall(s, i ? ",{\"name\":" : "{\"name\":");
		json_str(s, a->v[i].name);
		sqlite3_str_appendall(s, ",\"type\":");
		json_str(s, macro ? macro_type(a->v[i].type) : a->v[i].type);
		sqlite3_str_appendall(s, ",\"description\":\"\"}");
	}
	sqlite3_str_appendchar(s, 1, ']');
	return sqlite3_str_finish(s);
}

static int
doc_insert(sqlite3_stmt *st, const char *module, const struct doc *d)
{
	size_t plen = strcspn(module, ".");
	int macro = strcmp(d->kind, "MACRO") == 0;
	char *args = json_args(&d->args, macro);
	char *cols = json_args(&d->cols, 0);
	int rc;

	sqlite3_reset(st);
	sqlite3_bind_text(st, 1, module, (int)plen, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 2, module, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, d->name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, d->kind, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 5, d->name[0] != '_');
	sqlite3_bind_text(st, 6, d->desc ? d->desc : "", -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 7, macro ? macro_type(d->ret) : d->ret, -1,
	    SQLITE_STATIC);
	sqlite3_bind_text(st, 8, args ? args : "[]", -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 9, cols ? cols : "[]", -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(st);
	sqlite3_free(args);
	sqlite3_free(cols);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* The objects of one module. */
static int
docs_module(sqlite3_stmt *st, const struct psql_module *m)
{
	const char *p = m->sql, *end = m->sql + strlen(m->sql), *s, *e;
	struct psql_cur c;
	struct doc d;
	int rc = 0;

	memset(&d, 0, sizeof(d));
	d.kind = "MODULE";
	d.name = m->name;
	if (doc_insert(st, m->name, &d) == -1)
		return -1;
	memset(&d, 0, sizeof(d));
	while (rc == 0 && p < end) {
		s = psql_skip_blank(p, end);
		if (s >= end)
			break;
		e = psql_stmt_end(s, end);
		c.p = s;
		c.end = e;
		if (doc_parse(&c, &d) == 0) {
			d.desc = doc_comment(m->sql, s);
			rc = doc_insert(st, m->name, &d);
		}
		doc_free(&d);
		p = e < end ? e + 1 : end;
	}
	return rc;
}

int
psql_docs_fill(struct psql *ps, char **err)
{
	sqlite3_stmt *st;
	size_t i;
	int rc = 0;

	if (sqlite3_exec(ps->db, "DELETE FROM __intrinsic_stdlib_objects",
	    NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(ps->db, "INSERT INTO __intrinsic_stdlib_objects"
	    "(package, module, name, qualified_name, object_type, exposed,"
	    " short_description, summary, description, return_type,"
	    " return_description, args, cols) VALUES(?1, ?2, ?3,"
	    " iif(?4 = 'MODULE', ?2, ?2 || '.' || ?3), ?4, ?5, ?6, ?6, ?6,"
	    " coalesce(?7, ''), '', ?8, ?9)", -1, &st,
	    NULL) != SQLITE_OK) {
		*err = psql_fmt("%s", sqlite3_errmsg(ps->db));
		return -1;
	}
	for (i = 0; rc == 0 && i < ps->nmods; i++)
		rc = docs_module(st, &ps->mods[i]);
	if (rc == -1)
		*err = psql_fmt("%s", sqlite3_errmsg(ps->db));
	sqlite3_finalize(st);
	return rc;
}
