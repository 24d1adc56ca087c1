/*
 * Column filters the virtual table applies itself (see cs_filter.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cs_filter.h"
#include "cs_pool.h"
#include "cs_table.h"

/* SQLite refuses longer LIKE patterns by default (50000): such a
 * constraint stays SQLite's, error and all. */
#define PATTERN_MAX	1000

/* What the filter compares: 'i' integers, 's' texts, 0 neither. */
static int
col_kind(const struct cs_table *t, size_t col)
{
	const struct cs_coldef *def = cs_table_col(t, cs_col_base(t, col));

	if (def->type == CS_VARIANT)
		return 0;
	switch (cs_col_type(t, col)) {
	case CS_ID:
	case CS_I32:
	case CS_I64:
		return 'i';
	case CS_STR:
		return 's';
	default:
		return 0;
	}
}

int
cs_filter_kind(const struct cs_table *t, size_t col)
{
	return col_kind(t, col);
}

int
cs_filter_op(const struct cs_table *t, size_t col, int sqlite_op,
    sqlite3_value *rhs, const char *coll)
{
	int kind = col_kind(t, col), type;

	if (kind == 0)
		return -1;
	/* Integers take any value, constant or not (a join's): it is
	 * compared when known as SQLite would. */
	if (kind == 'i') {
		switch (sqlite_op) {
		case SQLITE_INDEX_CONSTRAINT_EQ:	return CS_F_EQ;
		case SQLITE_INDEX_CONSTRAINT_NE:	return CS_F_NE;
		case SQLITE_INDEX_CONSTRAINT_LT:	return CS_F_LT;
		case SQLITE_INDEX_CONSTRAINT_LE:	return CS_F_LE;
		case SQLITE_INDEX_CONSTRAINT_GT:	return CS_F_GT;
		case SQLITE_INDEX_CONSTRAINT_GE:	return CS_F_GE;
		default:				return -1;
		}
	}
	/* A text column: only against a constant text (a number or a
	 * value of some affinity could be converted on either side). */
	if (rhs == NULL || (type = sqlite3_value_type(rhs)) != SQLITE_TEXT)
		return -1;
	switch (sqlite_op) {
	case SQLITE_INDEX_CONSTRAINT_EQ:
	case SQLITE_INDEX_CONSTRAINT_NE:
		if (coll != NULL && sqlite3_stricmp(coll, "BINARY") != 0)
			return -1;
		return sqlite_op == SQLITE_INDEX_CONSTRAINT_EQ ? CS_F_EQ :
		    CS_F_NE;
	case SQLITE_INDEX_CONSTRAINT_LIKE:
	case SQLITE_INDEX_CONSTRAINT_GLOB:
		if (sqlite3_value_bytes(rhs) > PATTERN_MAX)
			return -1;
		return sqlite_op == SQLITE_INDEX_CONSTRAINT_LIKE ? CS_F_LIKE :
		    CS_F_GLOB;
	default:
		return -1;
	}
}

/* Cells below (c < v) every value of v's type: a text or a blob. */
static void
below_all(struct cs_filter *f, int op)
{
	f->none = op == CS_F_EQ || op == CS_F_GT || op == CS_F_GE;
}

static void
int_bounds(struct cs_filter *f, int op, int64_t v)
{
	switch (op) {
	case CS_F_EQ:
		f->min = f->max = v;
		break;
	case CS_F_NE:
		f->ne = v;
		f->has_ne = 1;
		break;
	case CS_F_LT:
		if (v == INT64_MIN)
			f->none = 1;
		else
			f->max = v - 1;
		break;
	case CS_F_LE:
		f->max = v;
		break;
	case CS_F_GT:
		if (v == INT64_MAX)
			f->none = 1;
		else
			f->min = v + 1;
		break;
	case CS_F_GE:
		f->min = v;
		break;
	}
}

/* Integer cells against a real, exactly (as SQLite compares them). */
static void
real_bounds(struct cs_filter *f, int op, double d)
{
	const double big = 9223372036854775808.0;	/* 2^63 */
	int integral = d == floor(d);

	if (op == CS_F_EQ || op == CS_F_NE) {
		if (integral && d >= -big && d < big)
			int_bounds(f, op, (int64_t)d);
		else
			f->none = op == CS_F_EQ;
		return;
	}
	if (d >= big) {
		f->none = op == CS_F_GT || op == CS_F_GE;
		return;
	}
	if (d < -big) {
		f->none = op == CS_F_LT || op == CS_F_LE;
		return;
	}
	switch (op) {
	case CS_F_LT:	/* c < d: c <= ceil(d) - 1 */
		int_bounds(f, CS_F_LT, (int64_t)ceil(d));
		break;
	case CS_F_LE:
		int_bounds(f, CS_F_LE, (int64_t)floor(d));
		break;
	case CS_F_GT:	/* c > d: c >= floor(d) + 1 */
		int_bounds(f, CS_F_GT, (int64_t)floor(d));
		break;
	case CS_F_GE:
		int_bounds(f, CS_F_GE, (int64_t)ceil(d));
		break;
	}
}

static int
set_int(struct cs_filter *f, int op, sqlite3_value *v)
{
	sqlite3_value *n;
	int type = sqlite3_value_type(v);

	if (type == SQLITE_NULL) {
		f->none = 1;
		return 0;
	}
	/* A text takes the column's numeric affinity if it looks like a
	 * number: converted in a copy, not in SQLite's register. */
	n = NULL;
	if (type == SQLITE_TEXT) {
		if ((n = sqlite3_value_dup(v)) == NULL)
			return -1;
		type = sqlite3_value_numeric_type(n);
		v = n;
	}
	if (type == SQLITE_INTEGER)
		int_bounds(f, op, sqlite3_value_int64(v));
	else if (type == SQLITE_FLOAT)
		real_bounds(f, op, sqlite3_value_double(v));
	else
		below_all(f, op);
	sqlite3_value_free(n);
	return 0;
}

/* v's text as SQLite's LIKE or = would take it, in a copy the caller
 * frees; *isnull when v is NULL (or a blob for =). */
static char *
value_text(sqlite3_value *v, size_t *len, int *isnull)
{
	sqlite3_value *n;
	const unsigned char *s;
	char *out;

	*isnull = 0;
	if (sqlite3_value_type(v) == SQLITE_NULL) {
		*isnull = 1;
		return NULL;
	}
	if ((n = sqlite3_value_dup(v)) == NULL)
		return NULL;
	s = sqlite3_value_text(n);
	*len = (size_t)sqlite3_value_bytes(n);
	if (s == NULL || (out = malloc(*len + 1)) == NULL) {
		sqlite3_value_free(n);
		return NULL;
	}
	memcpy(out, s, *len);
	out[*len] = '\0';
	sqlite3_value_free(n);
	return out;
}

static int
set_text(struct cs_filter *f, const struct cs_table *t, int op,
    sqlite3_value *v)
{
	int type = sqlite3_value_type(v), isnull;
	size_t len = 0, npool = cs_pool_count(cs_table_pool(t));
	char *s;

	if (type == SQLITE_NULL) {
		f->none = 1;
		return 0;
	}
	if (op == CS_F_EQ || op == CS_F_NE) {
		/* A text is below a blob: never equal. */
		if (type == SQLITE_BLOB) {
			f->none = op == CS_F_EQ;
			f->ne = 0;
			return 0;
		}
		if ((s = value_text(v, &len, &isnull)) == NULL)
			return -1;
		f->ne = cs_pool_find(cs_table_pool(t), s, len);
		free(s);
		/* A text never interned is in no cell. */
		if (f->ne == 0 && op == CS_F_EQ)
			f->none = 1;
		return 0;
	}
	if ((s = value_text(v, &len, &isnull)) == NULL)
		return isnull ? 0 : -1;
	/* The same pattern again (a join's inner loop): what was learnt
	 * of each text still holds. */
	if (f->pat != NULL && strcmp(f->pat, s) == 0) {
		free(s);
	} else {
		free(f->pat);
		f->pat = s;
		free(f->memo);
		f->memo = NULL;
		f->nmemo = 0;
	}
	if (npool > f->nmemo) {
		unsigned char *m = realloc(f->memo, npool);

		if (m == NULL)
			return -1;
		memset(m + f->nmemo, 0, npool - f->nmemo);
		f->memo = m;
		f->nmemo = npool;
	}
	return 0;
}

int
cs_filter_set(struct cs_filter *f, const struct cs_table *t, size_t col,
    int op, sqlite3_value *v)
{
	/* A pattern and what it learnt survive if op is LIKE or GLOB. */
	if (f->op != op || f->col != col) {
		free(f->pat);
		free(f->memo);
		f->pat = NULL;
		f->memo = NULL;
		f->nmemo = 0;
	}
	f->col = col;
	f->op = op;
	f->none = 0;
	f->text = col_kind(t, col) == 's';
	f->min = INT64_MIN;
	f->max = INT64_MAX;
	f->ne = 0;
	f->has_ne = 0;
	if (f->text)
		return set_text(f, t, op, v);
	return set_int(f, op, v);
}

static int
pattern_match(const struct cs_filter *f, const char *s)
{
	return (f->op == CS_F_LIKE ? sqlite3_strlike(f->pat, s, 0) :
	    sqlite3_strglob(f->pat, s)) == 0;
}

int
cs_filter_match(struct cs_filter *f, const struct cs_table *t, uint32_t r)
{
	int64_t k;
	const char *s;
	size_t len;

	if (f->none || (k = cs_get_key(t, f->col, r)) == CS_NULL_I64)
		return 0;
	if (f->op == CS_F_LIKE || f->op == CS_F_GLOB) {
		if (f->pat == NULL)
			return 0;
		if ((uint64_t)k < f->nmemo && f->memo[k] != 0)
			return f->memo[k] == 1;
		if ((s = cs_pool_get(cs_table_pool(t), (uint32_t)k, &len)) ==
		    NULL)
			return 0;
		if ((uint64_t)k >= f->nmemo)
			return pattern_match(f, s);
		f->memo[k] = pattern_match(f, s) ? 1 : 2;
		return f->memo[k] == 1;
	}
	if (f->text)
		return f->op == CS_F_EQ ? k == f->ne : k != f->ne;
	return k >= f->min && k <= f->max && !(f->has_ne && k == f->ne);
}

void
cs_filter_clear(struct cs_filter *f)
{
	free(f->pat);
	free(f->memo);
	memset(f, 0, sizeof(*f));
}
