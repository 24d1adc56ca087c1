/*
 * The minimal .proto reader: see mproto.h.
 */
#include "config.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mproto.h"

/* Bounds on what one file may declare (the input is untrusted). */
#define MP_MAX_DEPTH	32
#define MP_MAX_TOKEN	256

struct mp_lex {
	const char	*p;
	const char	*end;
	int		 line;
	const char	*fname;
	char		 tok[MP_MAX_TOKEN];
	int		 is_str;
	char		*err;
	size_t		 errlen;
	int		 failed;
};

static const struct {
	const char	*name;
	enum mp_type	 type;
} mp_scalars[] = {
	{ "double", MP_DOUBLE }, { "float", MP_FLOAT },
	{ "int64", MP_INT64 }, { "uint64", MP_UINT64 },
	{ "int32", MP_INT32 }, { "fixed64", MP_FIXED64 },
	{ "fixed32", MP_FIXED32 }, { "bool", MP_BOOL },
	{ "string", MP_STRING }, { "bytes", MP_BYTES },
	{ "uint32", MP_UINT32 }, { "sfixed32", MP_SFIXED32 },
	{ "sfixed64", MP_SFIXED64 }, { "sint32", MP_SINT32 },
	{ "sint64", MP_SINT64 },
};

static void
mp_fail(struct mp_lex *lx, const char *fmt, ...)
{
	va_list ap;
	char msg[200];

	if (lx->failed)
		return;
	lx->failed = 1;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(lx->err, lx->errlen, "%s:%d: %s", lx->fname, lx->line, msg);
}

/* Reads the next token into lx->tok; 0 at the end of input. */
static int
mp_next(struct mp_lex *lx)
{
	size_t n = 0;

	lx->is_str = 0;
	lx->tok[0] = '\0';
	if (lx->failed)
		return 0;
	for (;;) {
		while (lx->p < lx->end && isspace((unsigned char)*lx->p)) {
			if (*lx->p == '\n')
				lx->line++;
			lx->p++;
		}
		if (lx->p + 1 < lx->end && lx->p[0] == '/' && lx->p[1] == '/') {
			while (lx->p < lx->end && *lx->p != '\n')
				lx->p++;
			continue;
		}
		if (lx->p + 1 < lx->end && lx->p[0] == '/' && lx->p[1] == '*') {
			lx->p += 2;
			while (lx->p + 1 < lx->end &&
			    !(lx->p[0] == '*' && lx->p[1] == '/')) {
				if (*lx->p == '\n')
					lx->line++;
				lx->p++;
			}
			lx->p = lx->p + 2 <= lx->end ? lx->p + 2 : lx->end;
			continue;
		}
		break;
	}
	if (lx->p >= lx->end)
		return 0;
	if (*lx->p == '"' || *lx->p == '\'') {
		char q = *lx->p++;

		while (lx->p < lx->end && *lx->p != q) {
			if (*lx->p == '\\' && lx->p + 1 < lx->end)
				lx->p++;
			if (n + 1 < sizeof(lx->tok))
				lx->tok[n++] = *lx->p;
			lx->p++;
		}
		if (lx->p >= lx->end) {
			mp_fail(lx, "unterminated string");
			return 0;
		}
		lx->p++;
		lx->tok[n] = '\0';
		lx->is_str = 1;
		return 1;
	}
	if (isalnum((unsigned char)*lx->p) || *lx->p == '_' || *lx->p == '.' ||
	    *lx->p == '-' || *lx->p == '+') {
		while (lx->p < lx->end && (isalnum((unsigned char)*lx->p) ||
		    *lx->p == '_' || *lx->p == '.' || *lx->p == '-' ||
		    *lx->p == '+')) {
			if (n + 1 >= sizeof(lx->tok)) {
				mp_fail(lx, "token too long");
				return 0;
			}
			lx->tok[n++] = *lx->p++;
		}
		lx->tok[n] = '\0';
		return 1;
	}
	lx->tok[0] = *lx->p++;
	lx->tok[1] = '\0';
	return 1;
}

static int
mp_is(struct mp_lex *lx, const char *s)
{
	return !lx->is_str && strcmp(lx->tok, s) == 0;
}

static int
mp_expect(struct mp_lex *lx, const char *s)
{
	if (!mp_next(lx) || !mp_is(lx, s)) {
		mp_fail(lx, "expected '%s', got '%s'", s, lx->tok);
		return -1;
	}
	return 0;
}

/* Skips to the end of a statement (';'), or over a {...} block. */
static void
mp_skip_statement(struct mp_lex *lx)
{
	int depth = 0;

	while (mp_next(lx)) {
		if (mp_is(lx, "{") || mp_is(lx, "["))
			depth++;
		else if (mp_is(lx, "}") || mp_is(lx, "]")) {
			if (--depth <= 0 && mp_is(lx, "}"))
				return;
		} else if (mp_is(lx, ";") && depth == 0)
			return;
	}
}

static char *
mp_join(const char *scope, const char *name)
{
	size_t n = strlen(scope) + strlen(name) + 2;
	char *s = malloc(n);

	if (s == NULL)
		return NULL;
	if (*scope)
		snprintf(s, n, "%s.%s", scope, name);
	else
		snprintf(s, n, "%s", name);
	return s;
}

static int
mp_valid_ident(const char *s)
{
	if (!isalpha((unsigned char)*s) && *s != '_')
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return 0;
	return 1;
}

/* Parses "[label] type name = N [options];" after the first token. */
static int
mp_parse_field(struct mp_lex *lx, const char *scope, struct mp_field *f)
{
	size_t i;
	long num;
	char *endp;

	memset(f, 0, sizeof(*f));
	if (mp_is(lx, "repeated")) {
		f->repeated = 1;
		mp_next(lx);
	} else if (mp_is(lx, "optional") || mp_is(lx, "required"))
		mp_next(lx);
	if (mp_is(lx, "map") || mp_is(lx, "group")) {
		mp_fail(lx, "'%s' fields are not supported", lx->tok);
		return -1;
	}
	f->type = MP_UNRESOLVED;
	for (i = 0; i < sizeof(mp_scalars) / sizeof(mp_scalars[0]); i++)
		if (mp_is(lx, mp_scalars[i].name))
			f->type = mp_scalars[i].type;
	if (f->type == MP_UNRESOLVED)
		f->type_name = strdup(lx->tok);
	if (!mp_next(lx) || !mp_valid_ident(lx->tok)) {
		mp_fail(lx, "bad field name '%s'", lx->tok);
		return -1;
	}
	f->name = strdup(lx->tok);
	f->scope = strdup(scope);
	if (mp_expect(lx, "=") == -1 || !mp_next(lx))
		return -1;
	num = strtol(lx->tok, &endp, 0);
	if (*endp != '\0' || num < 1 || num > 536870911) {
		mp_fail(lx, "bad field number '%s'", lx->tok);
		return -1;
	}
	f->number = (uint32_t)num;
	if (!mp_next(lx))
		return -1;
	if (mp_is(lx, "[")) {
		while (mp_next(lx) && !mp_is(lx, "]"))
			;
		mp_next(lx);
	}
	if (!mp_is(lx, ";")) {
		mp_fail(lx, "expected ';' after field %s", f->name);
		return -1;
	}
	return 0;
}

static void
mp_field_free(struct mp_field *f)
{
	free(f->name);
	free(f->type_name);
	free(f->scope);
	free(f->ext_name);
}

static int
mp_msg_add_field(struct mp_lex *lx, struct mp_msg *m, struct mp_field *f)
{
	struct mp_field *nf;
	size_t i;

	for (i = 0; i < m->nfields; i++)
		if (m->fields[i].number == f->number ||
		    strcmp(m->fields[i].name, f->name) == 0) {
			mp_fail(lx, "field %s = %u clashes in %s", f->name,
			    f->number, m->full_name);
			mp_field_free(f);
			return -1;
		}
	if ((nf = reallocarray(m->fields, m->nfields + 1,
	    sizeof(*nf))) == NULL) {
		mp_field_free(f);
		return -1;
	}
	m->fields = nf;
	m->fields[m->nfields++] = *f;
	return 0;
}

static int	mp_parse_block(struct mp_lex *, struct mp_pool *, const char *,
		    const char *, struct mp_msg *, int);

static int
mp_parse_enum(struct mp_lex *lx, struct mp_pool *pool, const char *scope)
{
	struct mp_enum *e, **ne;
	struct mp_enum_value *nv;
	char name[MP_MAX_TOKEN];
	long num;
	char *endp;

	if (!mp_next(lx) || !mp_valid_ident(lx->tok)) {
		mp_fail(lx, "bad enum name");
		return -1;
	}
	snprintf(name, sizeof(name), "%s", lx->tok);
	if (mp_expect(lx, "{") == -1)
		return -1;
	if ((e = calloc(1, sizeof(*e))) == NULL ||
	    (ne = reallocarray(pool->enums, pool->nenums + 1,
	    sizeof(*ne))) == NULL) {
		free(e);
		return -1;
	}
	pool->enums = ne;
	pool->enums[pool->nenums++] = e;
	e->full_name = mp_join(scope, name);
	while (mp_next(lx) && !mp_is(lx, "}")) {
		if (mp_is(lx, "option") || mp_is(lx, "reserved")) {
			mp_skip_statement(lx);
			continue;
		}
		if (!mp_valid_ident(lx->tok)) {
			mp_fail(lx, "bad enum value '%s'", lx->tok);
			return -1;
		}
		if ((nv = reallocarray(e->values, e->nvalues + 1,
		    sizeof(*nv))) == NULL)
			return -1;
		e->values = nv;
		nv[e->nvalues].name = strdup(lx->tok);
		nv[e->nvalues].number = 0;
		e->nvalues++;
		if (mp_expect(lx, "=") == -1 || !mp_next(lx))
			return -1;
		num = strtol(lx->tok, &endp, 0);
		if (*endp != '\0') {
			mp_fail(lx, "bad enum number '%s'", lx->tok);
			return -1;
		}
		nv[e->nvalues - 1].number = (int32_t)num;
		if (!mp_next(lx))
			return -1;
		if (mp_is(lx, "[")) {
			while (mp_next(lx) && !mp_is(lx, "]"))
				;
			mp_next(lx);
		}
		if (!mp_is(lx, ";")) {
			mp_fail(lx, "expected ';' in enum");
			return -1;
		}
	}
	if (!mp_is(lx, "}")) {
		mp_fail(lx, "unterminated enum");
		return -1;
	}
	return 0;
}

static int
mp_parse_message(struct mp_lex *lx, struct mp_pool *pool, const char *scope,
    const char *pkg, int depth)
{
	struct mp_msg *m, **nm;
	char *full;
	int rc;

	if (!mp_next(lx) || !mp_valid_ident(lx->tok)) {
		mp_fail(lx, "bad message name");
		return -1;
	}
	if ((full = mp_join(scope, lx->tok)) == NULL)
		return -1;
	if (mp_find_msg(pool, full) != NULL) {
		mp_fail(lx, "message %s defined twice", full);
		free(full);
		return -1;
	}
	if ((m = calloc(1, sizeof(*m))) == NULL ||
	    (nm = reallocarray(pool->msgs, pool->nmsgs + 1,
	    sizeof(*nm))) == NULL) {
		free(m);
		free(full);
		return -1;
	}
	m->full_name = full;
	m->short_name = full + (*pkg && strncmp(full, pkg, strlen(pkg)) == 0 ?
	    strlen(pkg) + 1 : 0);
	pool->msgs = nm;
	pool->msgs[pool->nmsgs++] = m;
	if (mp_expect(lx, "{") == -1)
		return -1;
	rc = mp_parse_block(lx, pool, full, pkg, m, depth + 1);
	return rc;
}

static int
mp_parse_extend(struct mp_lex *lx, struct mp_pool *pool, const char *scope,
    const char *pkg)
{
	char target[MP_MAX_TOKEN];
	struct mp_ext *ne;
	struct mp_field f;

	if (!mp_next(lx)) {
		mp_fail(lx, "bad extend");
		return -1;
	}
	snprintf(target, sizeof(target), "%s", lx->tok);
	if (mp_expect(lx, "{") == -1)
		return -1;
	while (mp_next(lx) && !mp_is(lx, "}")) {
		if (mp_parse_field(lx, scope, &f) == -1) {
			mp_field_free(&f);
			return -1;
		}
		f.ext_name = mp_join(pkg, f.name);
		if ((ne = reallocarray(pool->exts, pool->nexts + 1,
		    sizeof(*ne))) == NULL) {
			mp_field_free(&f);
			return -1;
		}
		pool->exts = ne;
		ne[pool->nexts].target = strdup(target);
		ne[pool->nexts].scope = strdup(scope);
		ne[pool->nexts].f = f;
		pool->nexts++;
	}
	if (!mp_is(lx, "}")) {
		mp_fail(lx, "unterminated extend");
		return -1;
	}
	return 0;
}

/*
 * The body of a file (m == NULL) or of a message, up to its '}'.
 */
static int
mp_parse_block(struct mp_lex *lx, struct mp_pool *pool, const char *scope,
    const char *pkg, struct mp_msg *m, int depth)
{
	struct mp_field f;
	int in_oneof = 0;

	if (depth > MP_MAX_DEPTH) {
		mp_fail(lx, "nested too deep");
		return -1;
	}
	while (mp_next(lx)) {
		if (mp_is(lx, "}")) {
			if (in_oneof) {
				in_oneof = 0;
				continue;
			}
			if (m != NULL)
				return 0;
			mp_fail(lx, "unexpected '}'");
			return -1;
		}
		if (mp_is(lx, ";"))
			continue;
		if (mp_is(lx, "syntax") || mp_is(lx, "import") ||
		    mp_is(lx, "option") || mp_is(lx, "reserved") ||
		    mp_is(lx, "extensions") || mp_is(lx, "package")) {
			mp_skip_statement(lx);
			continue;
		}
		if (mp_is(lx, "service")) {
			mp_fail(lx, "services are not supported");
			return -1;
		}
		if (mp_is(lx, "message")) {
			if (mp_parse_message(lx, pool, scope, pkg, depth) == -1)
				return -1;
			continue;
		}
		if (mp_is(lx, "enum")) {
			if (mp_parse_enum(lx, pool, scope) == -1)
				return -1;
			continue;
		}
		if (mp_is(lx, "extend")) {
			if (mp_parse_extend(lx, pool, scope, pkg) == -1)
				return -1;
			continue;
		}
		if (mp_is(lx, "oneof") && m != NULL && !in_oneof) {
			mp_next(lx);
			if (mp_expect(lx, "{") == -1)
				return -1;
			in_oneof = 1;
			continue;
		}
		if (m == NULL) {
			mp_fail(lx, "unexpected '%s'", lx->tok);
			return -1;
		}
		if (mp_parse_field(lx, scope, &f) == -1) {
			mp_field_free(&f);
			return -1;
		}
		if (mp_msg_add_field(lx, m, &f) == -1)
			return -1;
	}
	if (m != NULL || in_oneof) {
		mp_fail(lx, "unexpected end of file");
		return -1;
	}
	return lx->failed ? -1 : 0;
}

void
mp_pool_init(struct mp_pool *pool)
{
	memset(pool, 0, sizeof(*pool));
}

void
mp_pool_free(struct mp_pool *pool)
{
	size_t i, j;

	for (i = 0; i < pool->nmsgs; i++) {
		for (j = 0; j < pool->msgs[i]->nfields; j++)
			mp_field_free(&pool->msgs[i]->fields[j]);
		free(pool->msgs[i]->fields);
		free(pool->msgs[i]->full_name);
		free(pool->msgs[i]);
	}
	free(pool->msgs);
	for (i = 0; i < pool->nenums; i++) {
		for (j = 0; j < pool->enums[i]->nvalues; j++)
			free(pool->enums[i]->values[j].name);
		free(pool->enums[i]->values);
		free(pool->enums[i]->full_name);
		free(pool->enums[i]);
	}
	free(pool->enums);
	for (i = 0; i < pool->nexts; i++) {
		free(pool->exts[i].target);
		free(pool->exts[i].scope);
		mp_field_free(&pool->exts[i].f);
	}
	free(pool->exts);
	mp_pool_init(pool);
}

int
mp_parse_untrusted(struct mp_pool *pool, const char *text, size_t len,
    const char *fname, char *err, size_t errlen)
{
	struct mp_lex lx;
	char pkg[MP_MAX_TOKEN] = "";
	const char *p;

	memset(&lx, 0, sizeof(lx));
	lx.fname = fname;
	lx.err = err;
	lx.errlen = errlen;
	/* The package is needed before anything is named: find it first. */
	lx.p = text;
	lx.end = text + len;
	lx.line = 1;
	while (mp_next(&lx)) {
		if (mp_is(&lx, "package")) {
			if (mp_next(&lx))
				snprintf(pkg, sizeof(pkg), "%s", lx.tok);
			break;
		}
		if (mp_is(&lx, "message") || mp_is(&lx, "enum") ||
		    mp_is(&lx, "extend"))
			break;
	}
	if (lx.failed)
		return -1;
	(void)p;
	lx.p = text;
	lx.line = 1;
	return mp_parse_block(&lx, pool, pkg, pkg, NULL, 0);
}

struct mp_msg *
mp_find_msg(const struct mp_pool *pool, const char *full_name)
{
	size_t i;

	if (*full_name == '.')
		full_name++;
	for (i = 0; i < pool->nmsgs; i++)
		if (strcmp(pool->msgs[i]->full_name, full_name) == 0)
			return pool->msgs[i];
	return NULL;
}

static struct mp_enum *
mp_find_enum(const struct mp_pool *pool, const char *full_name)
{
	size_t i;

	if (*full_name == '.')
		full_name++;
	for (i = 0; i < pool->nenums; i++)
		if (strcmp(pool->enums[i]->full_name, full_name) == 0)
			return pool->enums[i];
	return NULL;
}

/*
 * Protobuf scoping: try the name in the innermost scope, then each
 * enclosing one; a leading dot means fully qualified.
 */
static int
mp_lookup(const struct mp_pool *pool, const char *scope, const char *name,
    struct mp_msg **msg, struct mp_enum **en)
{
	char buf[1024], *dot;

	*msg = NULL;
	*en = NULL;
	if (*name == '.') {
		*msg = mp_find_msg(pool, name);
		*en = mp_find_enum(pool, name);
		return *msg || *en ? 0 : -1;
	}
	snprintf(buf, sizeof(buf), "%s", scope);
	for (;;) {
		char full[2048];

		if (*buf)
			snprintf(full, sizeof(full), "%s.%s", buf, name);
		else
			snprintf(full, sizeof(full), "%s", name);
		if ((*msg = mp_find_msg(pool, full)) != NULL ||
		    (*en = mp_find_enum(pool, full)) != NULL)
			return 0;
		if (*buf == '\0')
			return -1;
		if ((dot = strrchr(buf, '.')) != NULL)
			*dot = '\0';
		else
			*buf = '\0';
	}
}

static int
mp_resolve_field(const struct mp_pool *pool, struct mp_field *f, char *err,
    size_t errlen)
{
	if (f->type != MP_UNRESOLVED)
		return 0;
	if (mp_lookup(pool, f->scope, f->type_name, &f->msg, &f->en) == -1) {
		snprintf(err, errlen, "field %s: unknown type %s", f->name,
		    f->type_name);
		return -1;
	}
	f->type = f->msg ? MP_MESSAGE : MP_ENUM;
	return 0;
}

int
mp_resolve(struct mp_pool *pool, char *err, size_t errlen)
{
	struct mp_msg *target, *dummy;
	struct mp_enum *edummy;
	struct mp_field *nf;
	size_t i, j;

	for (i = 0; i < pool->nexts; i++) {
		struct mp_ext *x = &pool->exts[i];

		if (mp_lookup(pool, x->scope, x->target, &target,
		    &edummy) == -1 || target == NULL) {
			snprintf(err, errlen, "extend %s: unknown message",
			    x->target);
			return -1;
		}
		for (j = 0; j < target->nfields; j++)
			if (target->fields[j].number == x->f.number ||
			    strcmp(target->fields[j].name, x->f.name) == 0) {
				snprintf(err, errlen, "extension %s = %u "
				    "clashes in %s", x->f.name, x->f.number,
				    target->full_name);
				return -1;
			}
		if ((nf = reallocarray(target->fields, target->nfields + 1,
		    sizeof(*nf))) == NULL)
			return -1;
		target->fields = nf;
		target->fields[target->nfields++] = x->f;
		free(x->target);
		free(x->scope);
		/* Moved: remove it from the pending list. */
		pool->exts[i] = pool->exts[--pool->nexts];
		i--;
	}
	for (i = 0; i < pool->nmsgs; i++)
		for (j = 0; j < pool->msgs[i]->nfields; j++)
			if (mp_resolve_field(pool, &pool->msgs[i]->fields[j],
			    err, errlen) == -1)
				return -1;
	(void)dummy;
	return 0;
}

const struct mp_field *
mp_field_by_name(const struct mp_msg *m, const char *name)
{
	size_t i;

	for (i = 0; i < m->nfields; i++)
		if (strcmp(m->fields[i].name, name) == 0)
			return &m->fields[i];
	return NULL;
}

const struct mp_field *
mp_field_by_number(const struct mp_msg *m, uint32_t n)
{
	size_t i;

	for (i = 0; i < m->nfields; i++)
		if (m->fields[i].number == n)
			return &m->fields[i];
	return NULL;
}

const char *
mp_enum_name(const struct mp_enum *e, int32_t v)
{
	size_t i;

	for (i = 0; i < e->nvalues; i++)
		if (e->values[i].number == v)
			return e->values[i].name;
	return NULL;
}

int
mp_enum_value(const struct mp_enum *e, const char *name, int32_t *out)
{
	size_t i;

	for (i = 0; i < e->nvalues; i++)
		if (strcmp(e->values[i].name, name) == 0) {
			*out = e->values[i].number;
			return 0;
		}
	return -1;
}

int
mp_wire_type(enum mp_type t)
{
	switch (t) {
	case MP_DOUBLE:
	case MP_FIXED64:
	case MP_SFIXED64:
		return 1;
	case MP_FLOAT:
	case MP_FIXED32:
	case MP_SFIXED32:
		return 5;
	case MP_STRING:
	case MP_BYTES:
	case MP_MESSAGE:
		return 2;
	default:
		return 0;
	}
}
