/*
 * Scalar and aggregate SQL functions of Perfetto's trace processor.
 *
 *   EXTRACT_ARG(arg_set_id, key)   the value of key in an arg set, typed by
 *                                  the arg's value_type; NULL for a NULL set
 *                                  or a missing key
 *   HASH(v, ...)                   64-bit FNV-1a over the arguments: an
 *                                  integer as its 8 little-endian bytes, a
 *                                  string as its bytes; other types are an
 *                                  error (values match upstream's HASH)
 *   STR_SPLIT(s, delim, n)         the n-th (from 0) field of s; NULL past
 *                                  the last field or for a non-string s
 *   REVERSE(s)                     s with its bytes in reverse order
 *   UNHEX(s)                       a hex string ("0x" optional) as integer
 *   REGEXP(pattern, s[, flags])    POSIX extended match anywhere in s, so
 *                                  "s REGEXP pattern" works; flags 'i'
 *                                  (ignore case) and 'c' (not), last wins
 *   REGEXP_REPLACE_SIMPLE(s, pattern, r)  every match of pattern in s
 *                                  replaced by r (an empty pattern matches
 *                                  between every two characters)
 *   REGEXP_EXTRACT(s, pattern)     the pattern's group (or whole match)
 *   VALUE_AT_MAX_TS(ts, value)     aggregate: value of the row with the
 *                                  largest ts (the last such row on ties)
 *
 * Compiled patterns and EXTRACT_ARG's lookup statement are kept as
 * auxiliary data of the calling statement, so a query pays for them once
 * when the pattern or key is a constant, and they go away with it.
 */
#include "config.h"

#include <regex.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "ops_int.h"
#include "tp_ops.h"

static const char extract_arg_sql[] =
    "SELECT value_type, int_value, string_value, real_value FROM args"
    " WHERE arg_set_id = ?1 AND key = ?2 LIMIT 1";

static void
stmt_destroy(void *p)
{
	sqlite3_finalize(p);
}

static void
result_column(sqlite3_context *ctx, sqlite3_stmt *st, int col)
{
	sqlite3_result_value(ctx, sqlite3_column_value(st, col));
}

static void
fn_extract_arg(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	sqlite3		*db = sqlite3_context_db_handle(ctx);
	const struct tp_ops_hooks *hooks = sqlite3_user_data(ctx);
	sqlite3_stmt	*st;
	const char	*vt;
	int		 rc, i;

	if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
		return;
	if (sqlite3_value_type(argv[0]) != SQLITE_INTEGER) {
		sqlite3_result_error(ctx,
		    "EXTRACT_ARG: 1st argument should be arg set id", -1);
		return;
	}
	if (sqlite3_value_type(argv[1]) != SQLITE_TEXT) {
		sqlite3_result_error(ctx,
		    "EXTRACT_ARG: 2nd argument should be key", -1);
		return;
	}
	if (hooks != NULL && hooks->extract_arg != NULL) {
		hooks->extract_arg(hooks->ctx, sqlite3_value_int64(argv[0]),
		    (const char *)sqlite3_value_text(argv[1]),
		    (size_t)sqlite3_value_bytes(argv[1]), ctx);
		return;
	}
	/*
	 * SQLite keeps the statement only while the key stays the same (a
	 * constant in the query), so the key is bound once, when prepared.
	 */
	if ((st = sqlite3_get_auxdata(ctx, 1)) == NULL) {
		if (sqlite3_prepare_v3(db, extract_arg_sql, -1,
		    SQLITE_PREPARE_PERSISTENT, &st, NULL) != SQLITE_OK) {
			sqlite3_result_error(ctx, sqlite3_errmsg(db), -1);
			return;
		}
		sqlite3_bind_value(st, 2, argv[1]);
		sqlite3_set_auxdata(ctx, 1, st, stmt_destroy);
		if ((st = sqlite3_get_auxdata(ctx, 1)) == NULL) {
			sqlite3_result_error_nomem(ctx);
			return;
		}
	}
	sqlite3_bind_int64(st, 1, sqlite3_value_int64(argv[0]));
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		vt = (const char *)sqlite3_column_text(st, 0);
		if (vt == NULL)
			vt = "";
		if (strcmp(vt, "int") == 0 || strcmp(vt, "uint") == 0 ||
		    strcmp(vt, "bool") == 0 || strcmp(vt, "pointer") == 0)
			result_column(ctx, st, 1);
		else if (strcmp(vt, "string") == 0 || strcmp(vt, "json") == 0)
			result_column(ctx, st, 2);
		else if (strcmp(vt, "real") == 0)
			result_column(ctx, st, 3);
		else if (strcmp(vt, "null") != 0) {
			/* Unknown type: whichever value is set. */
			for (i = 1; i <= 3; i++)
				if (sqlite3_column_type(st, i) != SQLITE_NULL) {
					result_column(ctx, st, i);
					break;
				}
		}
	} else if (rc != SQLITE_DONE)
		sqlite3_result_error(ctx, sqlite3_errmsg(db), -1);
	sqlite3_reset(st);
}

#define FNV_OFFSET	0xcbf29ce484222325ULL
#define FNV_PRIME	0x100000001b3ULL

static uint64_t
fnv_bytes(uint64_t h, const unsigned char *p, size_t n)
{
	while (n-- > 0) {
		h ^= *p++;
		h *= FNV_PRIME;
	}
	return h;
}

static void
fn_hash(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	unsigned char	 le[8];
	const unsigned char *s;
	uint64_t	 h = FNV_OFFSET, v;
	int		 i, b;
	char		*msg;

	for (i = 0; i < argc; i++) {
		switch (sqlite3_value_type(argv[i])) {
		case SQLITE_INTEGER:
			v = (uint64_t)sqlite3_value_int64(argv[i]);
			for (b = 0; b < 8; b++)
				le[b] = (unsigned char)(v >> (8 * b));
			h = fnv_bytes(h, le, sizeof(le));
			break;
		case SQLITE_TEXT:
			s = sqlite3_value_text(argv[i]);
			h = fnv_bytes(h, s, strlen((const char *)s));
			break;
		default:
			msg = sqlite3_mprintf("HASH: arg %d has unknown type",
			    i);
			sqlite3_result_error(ctx, msg ? msg : "HASH: bad arg",
			    -1);
			sqlite3_free(msg);
			return;
		}
	}
	sqlite3_result_int64(ctx, (sqlite3_int64)h);
}

static void
fn_str_split(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const char	*in, *delim, *next;
	size_t		 dlen;
	sqlite3_int64	 field;

	if (sqlite3_value_type(argv[1]) != SQLITE_TEXT ||
	    (dlen = strlen((const char *)sqlite3_value_text(argv[1]))) == 0) {
		sqlite3_result_error(ctx,
		    "str_split: delimiter must be a non-empty string", -1);
		return;
	}
	delim = (const char *)sqlite3_value_text(argv[1]);
	if (sqlite3_value_type(argv[2]) != SQLITE_INTEGER ||
	    (field = sqlite3_value_int64(argv[2])) < 0) {
		sqlite3_result_error(ctx,
		    "str_split: field number must be a non-negative integer", -1);
		return;
	}
	if (sqlite3_value_type(argv[0]) != SQLITE_TEXT)
		return;
	in = (const char *)sqlite3_value_text(argv[0]);
	for (;;) {
		next = strstr(in, delim);
		if (field == 0) {
			sqlite3_result_text(ctx, in, next != NULL ?
			    (int)(next - in) : -1, SQLITE_TRANSIENT);
			return;
		}
		if (next == NULL)
			return;
		in = next + dlen;
		field--;
	}
}

static void
fn_reverse(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const unsigned char *in;
	unsigned char	*out;
	int		 n, i;

	switch (sqlite3_value_type(argv[0])) {
	case SQLITE_NULL:
		return;
	case SQLITE_TEXT:
		break;
	default:
		sqlite3_result_error(ctx, "REVERSE: argument should be string",
		    -1);
		return;
	}
	in = sqlite3_value_text(argv[0]);
	n = sqlite3_value_bytes(argv[0]);
	if ((out = sqlite3_malloc(n + 1)) == NULL) {
		sqlite3_result_error_nomem(ctx);
		return;
	}
	for (i = 0; i < n; i++)
		out[i] = in[n - 1 - i];
	out[n] = '\0';
	sqlite3_result_text(ctx, (char *)out, n, sqlite3_free);
}

static int
hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static void
fn_unhex(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const char	*s, *e;
	uint64_t	 v = 0;
	int		 d;

	if (sqlite3_value_type(argv[0]) == SQLITE_NULL)
		return;
	if (sqlite3_value_type(argv[0]) != SQLITE_TEXT) {
		sqlite3_result_error(ctx, "UNHEX: argument must be text", -1);
		return;
	}
	s = (const char *)sqlite3_value_text(argv[0]);
	e = s + strlen(s);
	while (s < e && strchr(" \t\n\r\f\v", *s) != NULL)
		s++;
	while (e > s && strchr(" \t\n\r\f\v", e[-1]) != NULL)
		e--;
	if (s == e) {
		sqlite3_result_error(ctx,
		    "UNHEX: input is empty or only whitespace", -1);
		return;
	}
	if (e - s >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	if (s == e) {
		sqlite3_result_error(ctx,
		    "UNHEX: hex string is empty after prefix", -1);
		return;
	}
	for (; s < e; s++) {
		/* The value must fit a signed 64-bit integer. */
		if ((d = hex_digit((unsigned char)*s)) == -1 ||
		    v > ((uint64_t)INT64_MAX - (uint64_t)d) / 16) {
			sqlite3_result_error(ctx,
			    "UNHEX: invalid or out of range hex string", -1);
			return;
		}
		v = v * 16 + (uint64_t)d;
	}
	sqlite3_result_int64(ctx, (sqlite3_int64)v);
}

static void
regex_destroy(void *p)
{
	regfree(p);
	sqlite3_free(p);
}

/* The compiled form of argument i, cached on the statement. */
/* The pattern of argument i compiled with cflags, cached on the call. */
static regex_t *
regex_get(sqlite3_context *ctx, sqlite3_value **argv, int i, int cflags,
    const char *fn)
{
	regex_t		*re;
	char		 buf[128];
	char		*msg;
	int		 rc;

	if ((re = sqlite3_get_auxdata(ctx, i)) != NULL)
		return re;
	if ((re = sqlite3_malloc(sizeof(*re))) == NULL) {
		sqlite3_result_error_nomem(ctx);
		return NULL;
	}
	rc = regcomp(re, (const char *)sqlite3_value_text(argv[i]),
	    REG_EXTENDED | cflags);
	if (rc != 0) {
		regerror(rc, re, buf, sizeof(buf));
		sqlite3_free(re);
		msg = sqlite3_mprintf("%s: %s", fn, buf);
		sqlite3_result_error(ctx, msg ? msg : fn, -1);
		sqlite3_free(msg);
		return NULL;
	}
	sqlite3_set_auxdata(ctx, i, re, regex_destroy);
	if ((re = sqlite3_get_auxdata(ctx, i)) == NULL)
		sqlite3_result_error_nomem(ctx);
	return re;
}

static void
fn_regexp(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const unsigned char *fl;
	regex_t		*re, own;
	int		 icase = 0, rc;

	if (sqlite3_value_type(argv[0]) == SQLITE_NULL ||
	    sqlite3_value_type(argv[1]) == SQLITE_NULL)
		return;
	if (argc < 3) {
		if ((re = regex_get(ctx, argv, 0, 0, "REGEXP")) == NULL)
			return;
		sqlite3_result_int(ctx, regexec(re,
		    (const char *)sqlite3_value_text(argv[1]), 0, NULL, 0) ==
		    0);
		return;
	}
	/* With flags the pattern is compiled for this call alone. */
	for (fl = sqlite3_value_text(argv[2]); fl != NULL && *fl; fl++)
		if (*fl == 'i' || *fl == 'c')
			icase = *fl == 'i';
		else {
			sqlite3_result_error(ctx, "REGEXP: flags are 'i' or"
			    " 'c'", -1);
			return;
		}
	if (regcomp(&own, (const char *)sqlite3_value_text(argv[0]),
	    REG_EXTENDED | (icase ? REG_ICASE : 0)) != 0) {
		sqlite3_result_error(ctx, "REGEXP: bad pattern", -1);
		return;
	}
	rc = regexec(&own, (const char *)sqlite3_value_text(argv[1]), 0,
	    NULL, 0);
	regfree(&own);
	sqlite3_result_int(ctx, rc == 0);
}

static void
fn_regexp_replace_simple(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const char	*s, *r, *p;
	sqlite3_str	*out;
	regmatch_t	 m;
	regex_t		*re;
	int		 eflags = 0;

	(void)argc;
	if (sqlite3_value_type(argv[0]) == SQLITE_NULL ||
	    sqlite3_value_type(argv[1]) == SQLITE_NULL ||
	    sqlite3_value_type(argv[2]) == SQLITE_NULL)
		return;
	s = (const char *)sqlite3_value_text(argv[0]);
	r = (const char *)sqlite3_value_text(argv[2]);
	out = sqlite3_str_new(sqlite3_context_db_handle(ctx));
	if (*(const char *)sqlite3_value_text(argv[1]) == '\0') {
		/* Empty pattern: r before every character and at the end. */
		for (p = s; *p != '\0'; p++) {
			sqlite3_str_appendall(out, r);
			sqlite3_str_appendchar(out, 1, *p);
		}
		sqlite3_str_appendall(out, r);
		goto done;
	}
	if ((re = regex_get(ctx, argv, 1, 0, "REGEXP_REPLACE_SIMPLE")) ==
	    NULL) {
		sqlite3_free(sqlite3_str_finish(out));
		return;
	}
	for (p = s; regexec(re, p, 1, &m, eflags) == 0; eflags = REG_NOTBOL) {
		sqlite3_str_append(out, p, (int)m.rm_so);
		sqlite3_str_appendall(out, r);
		if (m.rm_eo == m.rm_so) {	/* empty match: step on */
			if (p[m.rm_eo] == '\0') {
				p += m.rm_eo;
				break;
			}
			sqlite3_str_appendchar(out, 1, p[m.rm_eo]);
			p += m.rm_eo + 1;
		} else
			p += m.rm_eo;
	}
	sqlite3_str_appendall(out, p);
done:
	if (sqlite3_str_errcode(out) != SQLITE_OK) {
		sqlite3_free(sqlite3_str_finish(out));
		sqlite3_result_error_nomem(ctx);
		return;
	}
	sqlite3_result_text(ctx, sqlite3_str_finish(out), -1, sqlite3_free);
}

static void
fn_regexp_extract(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	regex_t		*re;
	regmatch_t	 m[2];
	const char	*s;
	int		 g;

	if (sqlite3_value_type(argv[0]) == SQLITE_NULL ||
	    sqlite3_value_type(argv[1]) == SQLITE_NULL)
		return;
	if ((re = regex_get(ctx, argv, 1, 0, "REGEXP_EXTRACT")) == NULL)
		return;
	if (re->re_nsub > 1) {
		sqlite3_result_error(ctx,
		    "REGEXP_EXTRACT: pattern has more than one group.", -1);
		return;
	}
	s = (const char *)sqlite3_value_text(argv[0]);
	if (regexec(re, s, 2, m, 0) != 0)
		return;
	/* The group if there is one and it matched, else the whole match. */
	g = re->re_nsub == 1 && m[1].rm_so != -1 && m[1].rm_eo > m[1].rm_so;
	sqlite3_result_text(ctx, s + m[g].rm_so, (int)(m[g].rm_eo - m[g].rm_so),
	    SQLITE_TRANSIENT);
}

struct max_ts_acc {
	int		 started;
	int		 type;
	sqlite3_int64	 max_ts;
	sqlite3_int64	 ival;
	double		 dval;
};

static void
fn_value_at_max_ts_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct max_ts_acc *a;
	sqlite3_int64	 ts;

	if ((a = sqlite3_aggregate_context(ctx, sizeof(*a))) == NULL) {
		sqlite3_result_error_nomem(ctx);
		return;
	}
	if (sqlite3_value_type(argv[0]) != SQLITE_INTEGER) {
		sqlite3_result_error(ctx,
		    "VALUE_AT_MAX_TS: ts passed was not an integer", -1);
		return;
	}
	if (!a->started) {
		a->type = sqlite3_value_type(argv[1]);
		if (a->type != SQLITE_INTEGER && a->type != SQLITE_FLOAT) {
			sqlite3_result_error(ctx, "VALUE_AT_MAX_TS: value passed"
			    " was not an integer or float", -1);
			return;
		}
		a->max_ts = INT64_MIN;
		a->started = 1;
	} else if (sqlite3_value_type(argv[1]) != a->type) {
		sqlite3_result_error(ctx,
		    "VALUE_AT_MAX_TS: value type is inconsistent", -1);
		return;
	}
	ts = sqlite3_value_int64(argv[0]);
	if (ts >= a->max_ts) {
		a->max_ts = ts;
		if (a->type == SQLITE_INTEGER)
			a->ival = sqlite3_value_int64(argv[1]);
		else
			a->dval = sqlite3_value_double(argv[1]);
	}
}

static void
fn_value_at_max_ts_final(sqlite3_context *ctx)
{
	struct max_ts_acc *a;

	a = sqlite3_aggregate_context(ctx, 0);
	if (a == NULL || !a->started)
		return;
	if (a->type == SQLITE_INTEGER)
		sqlite3_result_int64(ctx, a->ival);
	else
		sqlite3_result_double(ctx, a->dval);
}

static const struct {
	const char	*name;
	int		 nargs;
	void		(*fn)(sqlite3_context *, int, sqlite3_value **);
} scalar_fns[] = {
	{ "extract_arg", 2, fn_extract_arg },
	{ "hash", -1, fn_hash },
	{ "str_split", 3, fn_str_split },
	{ "reverse", 1, fn_reverse },
	{ "unhex", 1, fn_unhex },
	{ "regexp", 2, fn_regexp },
	{ "regexp", 3, fn_regexp },
	{ "regexp_extract", 2, fn_regexp_extract },
	{ "regexp_replace_simple", 3, fn_regexp_replace_simple },
};

int
ops_funcs_register(sqlite3 *db, char **err)
{
	size_t	 i;
	int	 flags = SQLITE_UTF8 | SQLITE_INNOCUOUS;

	for (i = 0; i < sizeof(scalar_fns) / sizeof(scalar_fns[0]); i++) {
		/* EXTRACT_ARG reads a table: its result is not a constant. */
		if (sqlite3_create_function_v2(db, scalar_fns[i].name,
		    scalar_fns[i].nargs, flags | (scalar_fns[i].fn ==
		    fn_extract_arg ? 0 : SQLITE_DETERMINISTIC),
		    scalar_fns[i].fn == fn_extract_arg ?
		    (void *)ops_hooks_of(db) : NULL,
		    scalar_fns[i].fn, NULL, NULL, NULL) != SQLITE_OK)
			goto fail;
	}
	if (sqlite3_create_function_v2(db, "value_at_max_ts", 2, flags, NULL,
	    NULL, fn_value_at_max_ts_step, fn_value_at_max_ts_final,
	    NULL) != SQLITE_OK)
		goto fail;
	return 0;
fail:
	ops_seterr(err, "%s", sqlite3_errmsg(db));
	return -1;
}
