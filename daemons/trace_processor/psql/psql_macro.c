/*
 * PerfettoSQL macros: CREATE PERFETTO MACRO stores the body as text;
 * name!(a, b) anywhere in a later statement is replaced, before SQLite
 * sees it, by the body with each $arg token replaced by the text given
 * for it. Arguments are split at the commas outside brackets; the result
 * is expanded again, so macros may use macros (to PSQL_DEPTH_MAX).
 * A few __intrinsic_ token macros (below) work on parenthesised lists.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "psql_int.h"

static int	expand(struct psql *, const char *, const char *, sqlite3_str *,
		    int, char **);

/* Text is built in SQLite's growable strings (sqlite3_str). */
static void
buf_add(sqlite3_str *b, const char *s, size_t n)
{
	sqlite3_str_append(b, s, (int)n);
}

/* Expands what b holds into out, then frees b. */
static int
expand_built(struct psql *ps, sqlite3_str *b, sqlite3_str *out, int depth,
    char **err)
{
	int n = sqlite3_str_length(b), rc;
	char *t;

	if (sqlite3_str_errcode(b) != SQLITE_OK) {
		sqlite3_free(sqlite3_str_finish(b));
		*err = psql_fmt("out of memory");
		return -1;
	}
	t = sqlite3_str_finish(b);
	rc = t != NULL ? expand(ps, t, t + n, out, depth + 1, err) : 0;
	sqlite3_free(t);
	return rc;
}

static struct psql_macro *
macro_find(struct psql *ps, const char *name, size_t n)
{
	struct psql_macro *m;

	for (m = ps->macros; m != NULL; m = m->next)
		if (strlen(m->name) == n && strncasecmp(m->name, name, n) == 0)
			return m;
	return NULL;
}

static void
macro_free(struct psql_macro *m)
{
	free(m->name);
	free(m->body);
	psql_args_free(&m->args);
	free(m);
}

int
psql_macro_drop(struct psql *ps, const char *name)
{
	struct psql_macro **pp, *m;

	for (pp = &ps->macros; (m = *pp) != NULL; pp = &m->next)
		if (strcasecmp(m->name, name) == 0) {
			*pp = m->next;
			macro_free(m);
			return 0;
		}
	return -1;
}

/* After CREATE [OR REPLACE] PERFETTO MACRO: name(args) RETURNS KIND AS body */
int
psql_macro_define(struct psql *ps, struct psql_cur *c, int replace,
    char **err)
{
	struct psql_macro *m;
	char *kind;

	if ((m = calloc(1, sizeof(*m))) == NULL ||
	    (m->name = psql_name(c)) == NULL) {
		*err = psql_fmt("CREATE PERFETTO MACRO: expected a name");
		goto fail;
	}
	if (psql_args_parse(c, &m->args, err) == -1)
		goto fail;
	if (!psql_accept(c, "RETURNS") || (kind = psql_name(c)) == NULL) {
		*err = psql_fmt("%s: expected RETURNS and a type", m->name);
		goto fail;
	}
	free(kind);
	if (!psql_accept(c, "AS")) {
		*err = psql_fmt("%s: expected AS and the macro's body",
		    m->name);
		goto fail;
	}
	if ((m->body = psql_trim(c->p, c->end)) == NULL) {
		*err = psql_fmt("out of memory");
		goto fail;
	}
	if (macro_find(ps, m->name, strlen(m->name)) != NULL) {
		if (!replace) {
			*err = psql_fmt("CREATE PERFETTO MACRO: %s already"
			    " exists", m->name);
			goto fail;
		}
		psql_macro_drop(ps, m->name);
	}
	m->next = ps->macros;
	ps->macros = m;
	return 0;
fail:
	if (m != NULL)
		macro_free(m);
	return -1;
}

static int	expand(struct psql *, const char *, const char *, sqlite3_str *,
		    int, char **);

/* Appends m's body with its arguments in place of $name tokens. */
static int
substitute(struct psql *ps, struct psql_macro *m, const char **av,
    const char **ae, sqlite3_str *out, int depth, char **err)
{
	sqlite3_str *b = sqlite3_str_new(NULL);
	const char *p = m->body, *end = p + strlen(p), *t, *e;
	size_t i;

	for (t = p; t < end; t = e) {
		e = psql_token_end(t, end);
		if (*t == '$')
			for (i = 0; i < m->args.n; i++)
				if ((size_t)(e - t - 1) ==
				    strlen(m->args.v[i].name) &&
				    strncmp(t + 1, m->args.v[i].name,
				    (size_t)(e - t - 1)) == 0)
					break;
		if (*t == '$' && i < m->args.n)
			buf_add(b, av[i], (size_t)(ae[i] - av[i]));
		else
			buf_add(b, t, (size_t)(e - t));
	}
	return expand_built(ps, b, out, depth, err);
}

/*
 * Splits the arguments of an invocation, p just after its '(', at the
 * commas outside brackets, trimmed. The ')' that ends them, or NULL.
 */
static const char *
args_split(const char *name, const char *p, const char *end,
    const char **av, const char **ae, size_t *np, char **err)
{
	const char *start = p;
	size_t n = 0;
	int d = 0;

	for (; p < end; p = psql_token_end(p, end)) {
		if (*p == '(')
			d++;
		else if (*p == ')' && d > 0)
			d--;
		else if ((*p == ',' && d == 0) || *p == ')') {
			if (n == PSQL_MACRO_ARGS_MAX) {
				*err = psql_fmt("%s: too many arguments",
				    name);
				return NULL;
			}
			av[n] = psql_skip_blank(start, p);
			ae[n] = p;
			while (ae[n] > av[n] && (ae[n][-1] == ' ' ||
			    ae[n][-1] == '\n' || ae[n][-1] == '\t' ||
			    ae[n][-1] == '\r'))
				ae[n]--;
			n++;
			start = p + 1;
			if (*p == ')')
				break;
		}
	}
	if (p >= end) {
		*err = psql_fmt("%s: unterminated macro invocation", name);
		return NULL;
	}
	if (n == 1 && av[0] == ae[0])
		n = 0;			/* m!() */
	*np = n;
	return p;
}

/* An invocation at t (name), p after '(': arguments, then the body. */
static const char *
invoke(struct psql *ps, struct psql_macro *m, const char *p,
    const char *end, sqlite3_str *out, int depth, char **err)
{
	const char *av[PSQL_MACRO_ARGS_MAX], *ae[PSQL_MACRO_ARGS_MAX];
	size_t n;

	if ((p = args_split(m->name, p, end, av, ae, &n, err)) == NULL)
		return NULL;
	if (n != m->args.n) {
		*err = psql_fmt("%s: expected %zu arguments, got %zu",
		    m->name, m->args.n, n);
		return NULL;
	}
	if (substitute(ps, m, av, ae, out, depth, err) == -1)
		return NULL;
	return p + 1;
}

/*
 * The token intrinsics upstream's modules build list-shaped macros from:
 *   __intrinsic_stringify!(x)                   'x'
 *   __intrinsic_token_apply!(m, (a, b), (c, d)) m!(a, c), m!(b, d)
 *   __intrinsic_token_apply_prefix!(...)        , m!(a, c), m!(b, d)
 *   __intrinsic_token_apply_and_prefix!(...)    AND m!(a, c) AND m!(b, d)
 * The lists are zipped up to the shortest.
 */
static const char *
intrinsic(struct psql *ps, const char *name, size_t len, const char *p,
    const char *end, sqlite3_str *out, int depth, char **err)
{
	const char *av[PSQL_MACRO_ARGS_MAX], *ae[PSQL_MACRO_ARGS_MAX];
	const char *lv[8][PSQL_MACRO_ARGS_MAX], *le[8][PSQL_MACRO_ARGS_MAX];
	const char *sep;
	sqlite3_str *b;
	size_t n, i, j, k, items = (size_t)-1, nl[8];
	char what[64];

	snprintf(what, sizeof(what), "%.*s", (int)len, name);
	if ((p = args_split(what, p, end, av, ae, &n, err)) == NULL)
		return NULL;
	if (strcmp(what, "__intrinsic_stringify") == 0) {
		buf_add(out, "'", 1);
		for (i = 0; i < n; i++) {
			if (i > 0)
				buf_add(out, ", ", 2);
			/* As written: upstream does not double quotes. */
			buf_add(out, av[i], (size_t)(ae[i] - av[i]));
		}
		buf_add(out, "'", 1);
		return p + 1;
	}
	if (strcmp(what, "__intrinsic_token_apply") == 0)
		sep = ", ";
	else if (strcmp(what, "__intrinsic_token_apply_prefix") == 0)
		sep = ", ";
	else if (strcmp(what, "__intrinsic_token_apply_and_prefix") == 0)
		sep = " AND ";
	else {
		*err = psql_fmt("unknown macro %s", what);
		return NULL;
	}
	if (n < 2 || n > 9) {
		*err = psql_fmt("%s: expected a macro and 1 to 8 lists", what);
		return NULL;
	}
	for (i = 1; i < n; i++) {
		if (ae[i] - av[i] < 2 || *av[i] != '(' || ae[i][-1] != ')') {
			*err = psql_fmt("%s: argument %zu is not a"
			    " parenthesised list", what, i + 1);
			return NULL;
		}
		if (args_split(what, av[i] + 1, ae[i], lv[i - 1], le[i - 1],
		    &nl[i - 1], err) == NULL)
			return NULL;
		if (nl[i - 1] < items)
			items = nl[i - 1];
	}
	b = sqlite3_str_new(NULL);
	for (k = 0; k < items; k++) {
		if (k > 0 || strcmp(what, "__intrinsic_token_apply") != 0)
			buf_add(b, sep, strlen(sep));
		buf_add(b, av[0], (size_t)(ae[0] - av[0]));
		buf_add(b, "!(", 2);
		for (j = 0; j + 1 < n; j++) {
			if (j > 0)
				buf_add(b, ", ", 2);
			buf_add(b, lv[j][k], (size_t)(le[j][k] - lv[j][k]));
		}
		buf_add(b, ")", 1);
	}
	return expand_built(ps, b, out, depth, err) == -1 ? NULL : p + 1;
}

static int
expand(struct psql *ps, const char *p, const char *end, sqlite3_str *out,
    int depth, char **err)
{
	struct psql_macro *m;
	const char *t, *e, *q;

	if (depth > PSQL_DEPTH_MAX) {
		*err = psql_fmt("macros nest more than %d deep",
		    PSQL_DEPTH_MAX);
		return -1;
	}
	for (t = p; t < end; t = e) {
		e = psql_token_end(t, end);
		if (psql_ident_char(*t) && *t != '$' && e < end && *e == '!' &&
		    (q = psql_skip_blank(e + 1, end)) < end && *q == '(') {
			buf_add(out, " ", 1);
			if ((size_t)(e - t) > 12 &&
			    strncmp(t, "__intrinsic_", 12) == 0) {
				if ((e = intrinsic(ps, t, (size_t)(e - t),
				    q + 1, end, out, depth, err)) == NULL)
					return -1;
				buf_add(out, " ", 1);
				continue;
			}
			if ((m = macro_find(ps, t, (size_t)(e - t))) == NULL) {
				*err = psql_fmt("unknown macro %.*s",
				    (int)(e - t), t);
				return -1;
			}
			if ((e = invoke(ps, m, q + 1, end, out, depth,
			    err)) == NULL)
				return -1;
			buf_add(out, " ", 1);
			continue;
		}
		buf_add(out, t, (size_t)(e - t));
	}
	if (sqlite3_str_errcode(out) != SQLITE_OK) {
		*err = psql_fmt("out of memory");
		return -1;
	}
	return 0;
}

char *
psql_macro_expand(struct psql *ps, const char *p, const char *end,
    char **err)
{
	sqlite3_str *out = sqlite3_str_new(NULL);
	char *s, *r;
	int n;

	if (expand(ps, p, end, out, 0, err) == -1) {
		sqlite3_free(sqlite3_str_finish(out));
		return NULL;
	}
	n = sqlite3_str_length(out);
	s = sqlite3_str_finish(out);
	/* Callers free() it. */
	if ((r = psql_strndup(s != NULL ? s : "", s != NULL ? (size_t)n : 0)) ==
	    NULL)
		*err = psql_fmt("out of memory");
	sqlite3_free(s);
	return r;
}
