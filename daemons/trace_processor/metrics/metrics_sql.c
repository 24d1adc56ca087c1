/*
 * The SQL side of metrics: one builder function per message type that
 * turns (field name, value) pairs into the message's bytes, and the
 * RepeatedField() aggregate that carries a repeated field's values to it.
 *
 * RepeatedField's result is a blob the builders recognise by its first
 * bytes, 00 'R' 'F' (a message never starts with a zero tag byte), then
 * one entry per value: a type byte (1 integer, 2 real, 3 text, 4 blob)
 * and a varint length before the value's bytes.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "mproto.h"
#include "pbdec.h"
#include "pbbuf.h"

static const uint8_t rf_magic[3] = { 0x00, 'R', 'F' };

enum { RF_INT = 1, RF_REAL = 2, RF_TEXT = 3, RF_BLOB = 4 };

/* One value, whichever way it came (an argument or a RepeatedField). */
struct mval {
	int		 type;		/* RF_* */
	int64_t		 i;
	double		 d;
	const uint8_t	*p;
	size_t		 len;
};

static int
mval_int(const struct mval *v, int64_t *out)
{
	if (v->type == RF_INT) {
		*out = v->i;
		return 0;
	}
	if (v->type == RF_REAL && v->d == floor(v->d) && fabs(v->d) < 9e18) {
		*out = (int64_t)v->d;
		return 0;
	}
	return -1;
}

static const char *
mval_type_name(int t)
{
	switch (t) {
	case RF_INT:
		return "integer";
	case RF_REAL:
		return "real";
	case RF_TEXT:
		return "text";
	default:
		return "blob";
	}
}

/* Writes one value of field f; NULL or an error message. */
static const char *
mfield_put(struct pbbuf *w, const struct mp_field *f, const struct mval *v,
    char *buf, size_t buflen)
{
	int64_t i;
	int32_t e;
	double d;

	switch (f->type) {
	case MP_MESSAGE:
		if (v->type != RF_BLOB)
			goto bad;
		if (v->len >= 3 && memcmp(v->p, rf_magic, 3) == 0)
			return "a repeated value where one message is expected";
		pbb_bytes(w, f->number, v->p, v->len);
		return NULL;
	case MP_STRING:
	case MP_BYTES:
		if (v->type != RF_TEXT && v->type != RF_BLOB)
			goto bad;
		pbb_bytes(w, f->number, v->p, v->len);
		return NULL;
	case MP_ENUM:
		if (v->type == RF_TEXT) {
			char name[256];

			snprintf(name, sizeof(name), "%.*s", (int)v->len,
			    (const char *)v->p);
			if (mp_enum_value(f->en, name, &e) == -1) {
				snprintf(buf, buflen, "'%s' is not a value of "
				    "%s", name, f->en->full_name);
				return buf;
			}
			pbb_uint(w, f->number, (uint64_t)(int64_t)e);
			return NULL;
		}
		if (mval_int(v, &i) == -1)
			goto bad;
		pbb_uint(w, f->number, (uint64_t)i);
		return NULL;
	case MP_DOUBLE:
	case MP_FLOAT:
		if (v->type == RF_INT)
			d = (double)v->i;
		else if (v->type == RF_REAL)
			d = v->d;
		else
			goto bad;
		if (f->type == MP_DOUBLE)
			pbb_double(w, f->number, d);
		else {
			float fl = (float)d;
			uint32_t u;

			memcpy(&u, &fl, sizeof(u));
			pbb_fixed32(w, f->number, u);
		}
		return NULL;
	default:
		if (mval_int(v, &i) == -1)
			goto bad;
		switch (f->type) {
		case MP_SINT32:
		case MP_SINT64:
			pbb_sint(w, f->number, i);
			break;
		case MP_FIXED64:
		case MP_SFIXED64:
			pbb_fixed64(w, f->number, (uint64_t)i);
			break;
		case MP_FIXED32:
		case MP_SFIXED32:
			pbb_fixed32(w, f->number, (uint32_t)i);
			break;
		case MP_BOOL:
			pbb_uint(w, f->number, i != 0);
			break;
		case MP_INT32:
			pbb_uint(w, f->number, (uint64_t)(int64_t)(int32_t)i);
			break;
		case MP_UINT32:
			pbb_uint(w, f->number, (uint32_t)i);
			break;
		default:
			pbb_uint(w, f->number, (uint64_t)i);
			break;
		}
		return NULL;
	}
bad:
	snprintf(buf, buflen, "a %s value does not fit its type",
	    mval_type_name(v->type));
	return buf;
}

static void
mval_from_sql(sqlite3_value *sv, struct mval *v)
{
	memset(v, 0, sizeof(*v));
	switch (sqlite3_value_type(sv)) {
	case SQLITE_INTEGER:
		v->type = RF_INT;
		v->i = sqlite3_value_int64(sv);
		break;
	case SQLITE_FLOAT:
		v->type = RF_REAL;
		v->d = sqlite3_value_double(sv);
		break;
	case SQLITE_TEXT:
		v->type = RF_TEXT;
		v->p = sqlite3_value_text(sv);
		v->len = (size_t)sqlite3_value_bytes(sv);
		break;
	default:
		v->type = RF_BLOB;
		v->p = sqlite3_value_blob(sv);
		v->len = (size_t)sqlite3_value_bytes(sv);
		if (v->p == NULL)
			v->p = (const uint8_t *)"";
		break;
	}
}

/* Walks a RepeatedField blob; 1 per value, 0 at the end, -1 if bad. */
static int
rf_next(const uint8_t **pp, const uint8_t *end, struct mval *v)
{
	const uint8_t *p = *pp;
	uint64_t len, u;

	if (p >= end)
		return 0;
	memset(v, 0, sizeof(*v));
	v->type = *p++;
	if ((p = pb_varint_untrusted(p, end, &len)) == NULL ||
	    len > (uint64_t)(end - p))
		return -1;
	switch (v->type) {
	case RF_INT:
	case RF_REAL:
		if (len != 8)
			return -1;
		memcpy(&u, p, 8);
		if (v->type == RF_INT)
			v->i = (int64_t)u;
		else
			memcpy(&v->d, &u, 8);
		break;
	case RF_TEXT:
	case RF_BLOB:
		v->p = p;
		v->len = (size_t)len;
		break;
	default:
		return -1;
	}
	*pp = p + len;
	return 1;
}

/* Fields go out in number order, as protoc and upstream's printers have
 * them, whatever order the SQL named them in. */
struct marg {
	const struct mp_field	*f;
	int			 i;	/* argument index of the value */
};

static int
marg_cmp(const void *a, const void *b)
{
	const struct marg *x = a, *y = b;

	if (x->f->number != y->f->number)
		return (x->f->number > y->f->number) -
		    (x->f->number < y->f->number);
	return (x->i > y->i) - (x->i < y->i);
}

static void
mbuild(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	const struct mp_msg *m = sqlite3_user_data(ctx);
	const struct mp_field *f;
	struct marg *args;
	struct pbbuf w;
	struct mval v;
	const char *key, *e = NULL;
	char ebuf[300], msg[600];
	int i, n = 0;

	if (argc % 2 != 0) {
		snprintf(msg, sizeof(msg), "%s: arguments come in (field "
		    "name, value) pairs", m->short_name);
		sqlite3_result_error(ctx, msg, -1);
		return;
	}
	if ((args = calloc((size_t)argc / 2 + 1, sizeof(*args))) == NULL) {
		sqlite3_result_error_nomem(ctx);
		return;
	}
	for (i = 0; i < argc; i += 2) {
		key = (const char *)sqlite3_value_text(argv[i]);
		if (key == NULL || (f = mp_field_by_name(m, key)) == NULL) {
			snprintf(msg, sizeof(msg), "%s: no field '%s'",
			    m->short_name, key ? key : "(null)");
			free(args);
			sqlite3_result_error(ctx, msg, -1);
			return;
		}
		if (sqlite3_value_type(argv[i + 1]) == SQLITE_NULL)
			continue;
		args[n].f = f;
		args[n].i = i + 1;
		n++;
	}
	qsort(args, (size_t)n, sizeof(*args), marg_cmp);
	pbb_init(&w);
	for (i = 0; i < n && e == NULL; i++) {
		f = args[i].f;
		mval_from_sql(argv[args[i].i], &v);
		if (v.type == RF_BLOB && v.len >= 3 &&
		    memcmp(v.p, rf_magic, 3) == 0) {
			const uint8_t *p = v.p + 3, *end = v.p + v.len;
			struct mval ev;
			int rc = 0;

			if (!f->repeated)
				e = "RepeatedField for a field that is not "
				    "repeated";
			while (e == NULL && (rc = rf_next(&p, end, &ev)) == 1)
				e = mfield_put(&w, f, &ev, ebuf, sizeof(ebuf));
			if (e == NULL && rc == -1)
				e = "corrupt RepeatedField value";
		} else
			e = mfield_put(&w, f, &v, ebuf, sizeof(ebuf));
		if (e != NULL) {
			snprintf(msg, sizeof(msg), "%s: field '%s': %s",
			    m->short_name, f->name, e);
			pbb_free(&w);
			free(args);
			sqlite3_result_error(ctx, msg, -1);
			return;
		}
	}
	free(args);
	if (w.oom) {
		pbb_free(&w);
		sqlite3_result_error_nomem(ctx);
		return;
	}
	if (w.len == 0)
		sqlite3_result_zeroblob(ctx, 0);
	else
		sqlite3_result_blob64(ctx, w.buf, w.len, free);
}

struct rf_agg {
	struct pbbuf	*w;
};

static void
rf_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct rf_agg *a = sqlite3_aggregate_context(ctx, sizeof(*a));
	struct mval v;
	uint64_t u;

	if (a == NULL) {
		sqlite3_result_error_nomem(ctx);
		return;
	}
	if (argc != 1 || sqlite3_value_type(argv[0]) == SQLITE_NULL)
		return;
	if (a->w == NULL) {
		if ((a->w = malloc(sizeof(*a->w))) == NULL) {
			sqlite3_result_error_nomem(ctx);
			return;
		}
		pbb_init(a->w);
		pbb_raw(a->w, rf_magic, sizeof(rf_magic));
	}
	mval_from_sql(argv[0], &v);
	pbb_raw(a->w, &(uint8_t){ (uint8_t)v.type }, 1);
	switch (v.type) {
	case RF_INT:
	case RF_REAL:
		if (v.type == RF_INT)
			u = (uint64_t)v.i;
		else
			memcpy(&u, &v.d, 8);
		pbb_varint(a->w, 8);
		pbb_raw(a->w, &u, 8);
		break;
	default:
		pbb_varint(a->w, v.len);
		pbb_raw(a->w, v.p, v.len);
		break;
	}
}

static void
rf_final(sqlite3_context *ctx)
{
	struct rf_agg *a = sqlite3_aggregate_context(ctx, 0);

	if (a == NULL || a->w == NULL) {
		sqlite3_result_null(ctx);
		return;
	}
	if (a->w->oom)
		sqlite3_result_error_nomem(ctx);
	else
		sqlite3_result_blob64(ctx, a->w->buf, a->w->len,
		    SQLITE_TRANSIENT);
	pbb_free(a->w);
	free(a->w);
	a->w = NULL;
}

/* NULL_IF_EMPTY(blob): NULL for an empty message, as upstream has it. */
static void
null_if_empty(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc;
	if (sqlite3_value_type(argv[0]) == SQLITE_BLOB &&
	    sqlite3_value_bytes(argv[0]) == 0)
		sqlite3_result_null(ctx);
	else
		sqlite3_result_value(ctx, argv[0]);
}

int
metrics_register_sql_pool(struct mp_pool *pool, sqlite3 *db, char **err)
{
	char name[512], *p;
	size_t i;

	if (sqlite3_create_function_v2(db, "RepeatedField", 1, SQLITE_UTF8,
	    NULL, NULL, rf_step, rf_final, NULL) != SQLITE_OK ||
	    sqlite3_create_function_v2(db, "NULL_IF_EMPTY", 1,
	    SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, null_if_empty, NULL,
	    NULL, NULL) != SQLITE_OK)
		goto fail;
	for (i = 0; i < pool->nmsgs; i++) {
		snprintf(name, sizeof(name), "%s", pool->msgs[i]->short_name);
		for (p = name; *p; p++)
			if (*p == '.')
				*p = '_';
		if (sqlite3_create_function_v2(db, name, -1, SQLITE_UTF8 |
		    SQLITE_DETERMINISTIC, pool->msgs[i], mbuild, NULL, NULL,
		    NULL) != SQLITE_OK)
			goto fail;
	}
	return 0;
fail:
	if (asprintf(err, "registering metric functions: %s",
	    sqlite3_errmsg(db)) == -1)
		*err = NULL;
	return -1;
}
