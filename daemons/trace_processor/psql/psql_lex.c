/*
 * The SQL scanner PerfettoSQL needs: where a statement ends, where each
 * token ends (strings, quoted names and comments are single tokens, so a
 * ';' or '$x' inside them is never seen), and a cursor that reads the few
 * words of a PerfettoSQL statement's head.
 */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "psql_int.h"

int
psql_ident_char(int c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '$' ||
	    (unsigned char)c >= 0x80;
}

/* Past the closing quote q (doubled quotes escape it), or end. */
static const char *
quoted_end(const char *p, const char *end, char q)
{
	for (p++; p < end; p++)
		if (*p == q) {
			if (p + 1 < end && p[1] == q && q != ']')
				p++;
			else
				return p + 1;
		}
	return end;
}

const char *
psql_skip_blank(const char *p, const char *end)
{
	while (p < end) {
		if (isspace((unsigned char)*p))
			p++;
		else if (p + 1 < end && p[0] == '-' && p[1] == '-') {
			while (p < end && *p != '\n')
				p++;
		} else if (p + 1 < end && p[0] == '/' && p[1] == '*') {
			for (p += 2; p < end; p++)
				if (p + 1 < end && p[0] == '*' && p[1] == '/') {
					p += 2;
					break;
				}
		} else
			break;
	}
	return p < end ? p : end;
}

const char *
psql_token_end(const char *p, const char *end)
{
	if (p >= end)
		return end;
	if (p + 1 < end && ((p[0] == '-' && p[1] == '-') ||
	    (p[0] == '/' && p[1] == '*')))
		return psql_skip_blank(p, end) > p ? psql_skip_blank(p, end) :
		    p + 1;
	switch (*p) {
	case '\'':
	case '"':
	case '`':
		return quoted_end(p, end, *p);
	case '[':
		return quoted_end(p, end, ']');
	}
	if (psql_ident_char(*p)) {
		while (p < end && psql_ident_char(*p))
			p++;
		return p;
	}
	return p + 1;
}

/*
 * The ';' that ends the statement at p, or end: one at bracket depth
 * zero, except inside a trigger's BEGIN ... END, which sqlite3_complete()
 * recognises.
 */
const char *
psql_stmt_end(const char *p, const char *end)
{
	const char *s = p;
	int depth = 0;
	char *text;

	for (p = psql_skip_blank(p, end); p < end;
	    p = psql_skip_blank(psql_token_end(p, end), end)) {
		if (*p == '(')
			depth++;
		else if (*p == ')' && depth > 0)
			depth--;
		else if (*p == ';' && depth == 0) {
			if ((text = psql_strndup(s, (size_t)(p + 1 - s))) ==
			    NULL || sqlite3_complete(text)) {
				free(text);
				return p;
			}
			free(text);
		}
	}
	return end;
}

char *
psql_strndup(const char *s, size_t n)
{
	char *d = malloc(n + 1);

	if (d != NULL) {
		memcpy(d, s, n);
		d[n] = '\0';
	}
	return d;
}

/* s..end without the blanks and comments around it, malloc'd. */
char *
psql_trim(const char *s, const char *end)
{
	s = psql_skip_blank(s, end);
	while (end > s && isspace((unsigned char)end[-1]))
		end--;
	return psql_strndup(s, (size_t)(end - s));
}

int
psql_accept(struct psql_cur *c, const char *word)
{
	const char *p = psql_skip_blank(c->p, c->end);
	size_t n = strlen(word);

	if ((size_t)(c->end - p) < n || strncasecmp(p, word, n) != 0 ||
	    (p + n < c->end && psql_ident_char(p[n])))
		return 0;
	c->p = p + n;
	return 1;
}

int
psql_accept_char(struct psql_cur *c, char ch)
{
	const char *p = psql_skip_blank(c->p, c->end);

	if (p >= c->end || *p != ch)
		return 0;
	c->p = p + 1;
	return 1;
}

/* A plain or quoted identifier, unquoted and malloc'd; NULL if none. */
char *
psql_name(struct psql_cur *c)
{
	const char *p = psql_skip_blank(c->p, c->end), *e;

	if (p >= c->end)
		return NULL;
	if (*p == '"' || *p == '`' || *p == '[') {
		e = psql_token_end(p, c->end);
		c->p = e;
		return e - p >= 2 ? psql_strndup(p + 1, (size_t)(e - p - 2)) :
		    NULL;
	}
	if (!psql_ident_char(*p) || *p == '$' ||
	    isdigit((unsigned char)*p))
		return NULL;
	e = psql_token_end(p, c->end);
	c->p = e;
	return psql_strndup(p, (size_t)(e - p));
}

/* a.b.c, a.b.* or *, malloc'd; NULL if none. */
char *
psql_module_name(struct psql_cur *c)
{
	const char *p = psql_skip_blank(c->p, c->end), *e = p;

	while (e < c->end && (psql_ident_char(*e) || *e == '.' || *e == '*'))
		e++;
	if (e == p)
		return NULL;
	c->p = e;
	return psql_strndup(p, (size_t)(e - p));
}

/* A type: a word, maybe with a parenthesised part (JOINID(slice.id)). */
char *
psql_type_parse(struct psql_cur *c)
{
	const char *p = psql_skip_blank(c->p, c->end), *e = p;
	char *t;
	size_t i;

	while (e < c->end && psql_ident_char(*e))
		e++;
	if (e == p)
		return NULL;
	if (e < c->end && *e == '(') {
		while (e < c->end && *e != ')')
			e++;
		if (e == c->end)
			return NULL;
		e++;
	}
	c->p = e;
	if ((t = psql_strndup(p, (size_t)(e - p))) != NULL)
		for (i = 0; t[i] != '\0' && t[i] != '('; i++)
			t[i] = (char)toupper((unsigned char)t[i]);
	return t;
}

void
psql_args_free(struct psql_args *a)
{
	size_t i;

	for (i = 0; i < a->n; i++) {
		free(a->v[i].name);
		free(a->v[i].type);
	}
	free(a->v);
	a->v = NULL;
	a->n = 0;
}

/* "(name TYPE, ...)": the list may be empty. */
int
psql_args_parse(struct psql_cur *c, struct psql_args *a, char **err)
{
	struct psql_arg *v;

	memset(a, 0, sizeof(*a));
	if (!psql_accept_char(c, '(')) {
		*err = psql_fmt("expected '('");
		return -1;
	}
	if (psql_accept_char(c, ')'))
		return 0;
	do {
		if ((v = realloc(a->v, (a->n + 1) * sizeof(*v))) == NULL)
			goto nomem;
		a->v = v;
		v[a->n].name = psql_name(c);
		v[a->n].type = v[a->n].name ? psql_type_parse(c) : NULL;
		a->n++;
		if (v[a->n - 1].type == NULL) {
			*err = psql_fmt("expected 'name TYPE' in the argument"
			    " list");
			psql_args_free(a);
			return -1;
		}
	} while (psql_accept_char(c, ','));
	if (!psql_accept_char(c, ')')) {
		*err = psql_fmt("expected ')' after the argument list");
		psql_args_free(a);
		return -1;
	}
	return 0;
nomem:
	psql_args_free(a);
	*err = psql_fmt("out of memory");
	return -1;
}
