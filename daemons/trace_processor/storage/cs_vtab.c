/*
 * SQLite module over cs_table (see cs_vtab.h). xBestIndex picks one
 * access path and encodes it in idxNum:
 *
 *   bits 0-2	plan: a scan of every row, a range of ids, a range of
 *		values of a sorted column, the rows of one value (index),
 *		every row in the order of a column's index (ORDER BY,
 *		GROUP BY)
 *   bits 8-15	the column of the plan
 *   bits 16-21	which of argv[] holds a lower bound, an upper bound (and
 *		whether strict), an equality; descending order
 *
 * Every constraint is left for SQLite to check again (omit is never
 * set): a plan only has to yield a superset of the answer, so a value
 * it cannot use (text for an integer column, a collation) falls back to
 * scanning every row.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cs_pool.h"
#include "cs_table.h"
#include "cs_vtab.h"

#define SCAN_COST	1e6

enum plan { P_SCAN, P_IDS, P_SORTED, P_INDEX, P_GROUP };

#define F_LO		(1 << 16)
#define F_LO_STRICT	(1 << 17)
#define F_HI		(1 << 18)
#define F_HI_STRICT	(1 << 19)
#define F_EQ		(1 << 20)
#define F_DESC		(1 << 21)

struct cs_vtab {
	sqlite3_vtab	 base;
	struct cs_table	*t;
	struct cs_db	*db;
};

struct cs_cursor {
	sqlite3_vtab_cursor	 base;
	struct cs_table		*t;
	/* a range of rows, or a slice of an index */
	uint32_t		 lo, hi, r;
	struct cs_index		*idx;
	size_t			 ilo, ihi, i;
	int			 desc, eof;
};

static int
vt_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
    sqlite3_vtab **out, char **err)
{
	struct cs_db *cdb = aux;
	struct cs_table *t = NULL;
	struct cs_vtab *vt;
	sqlite3_str *sql;
	size_t i, n;
	char *decl;
	int rc;

	for (i = 0; argc >= 3 && i < cdb->ntables; i++)
		if (strcmp(cs_table_name(cdb->tables[i]), argv[2]) == 0)
			t = cdb->tables[i];
	if (t == NULL) {
		*err = sqlite3_mprintf("no columnar table %s",
		    argc >= 3 ? argv[2] : "?");
		return SQLITE_ERROR;
	}
	sql = sqlite3_str_new(db);
	sqlite3_str_appendall(sql, "CREATE TABLE x(");
	for (i = 0, n = cs_table_ncols(t); i < n; i++) {
		enum cs_type type = cs_col_type(t, i);

		sqlite3_str_appendf(sql, "%s\"%w\" %s", i ? ", " : "",
		    cs_table_col(t, i)->name, type == CS_STR ? "TEXT" :
		    type == CS_F64 ? "REAL" : "INTEGER");
	}
	sqlite3_str_appendall(sql, ")");
	if ((decl = sqlite3_str_finish(sql)) == NULL)
		return SQLITE_NOMEM;
	rc = sqlite3_declare_vtab(db, decl);
	sqlite3_free(decl);
	if (rc != SQLITE_OK)
		return rc;
	/* Safe in views and triggers: reading has no side effect. */
	sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
	if ((vt = sqlite3_malloc(sizeof(*vt))) == NULL)
		return SQLITE_NOMEM;
	memset(vt, 0, sizeof(*vt));
	vt->t = t;
	vt->db = cdb;
	*out = &vt->base;
	return SQLITE_OK;
}

static int
vt_disconnect(sqlite3_vtab *v)
{
	sqlite3_free(v);
	return SQLITE_OK;
}

static double
log2n(size_t n)
{
	return n > 1 ? log2((double)n) : 1;
}

/* Whether column c can answer = and ranges by binary search. */
static int
col_is_sorted(struct cs_table *t, size_t c)
{
	return cs_col_sorted(t, c);
}

static int
vt_best_index(sqlite3_vtab *v, sqlite3_index_info *info)
{
	struct cs_table *t = ((struct cs_vtab *)v)->t;
	/*
	 * A scan is priced, and its rows counted, as SQLite does a table it
	 * has no statistics of (a million rows), whatever its size: joins
	 * then run from the engine's small SQLite tables (tracks, threads)
	 * into these by their lookups, in the order of the FROM clause, as
	 * upstream's do.
	 */
	double n = (double)cs_table_rows(t) + 1, best = n + SCAN_COST;
	int plan = P_SCAN, col = 0, eq = -1, lo = -1, hi = -1, rc = 0, i;
	int has_eq = 0;

	/* The cheapest single column plan; ties go to the first found. */
	for (i = 0; i < info->nConstraint; i++) {
		const struct sqlite3_index_constraint *k = &info->aConstraint[i];
		size_t c = (size_t)k->iColumn;
		enum cs_type type;
		double cost;

		if (!k->usable || k->iColumn < 0)
			continue;
		c = cs_col_base(t, c);
		type = cs_col_type(t, c);
		if (k->op == SQLITE_INDEX_CONSTRAINT_EQ) {
			const char *coll = sqlite3_vtab_collation(info, i);

			if (type == CS_F64 || (type == CS_STR && coll != NULL &&
			    sqlite3_stricmp(coll, "BINARY") != 0))
				continue;
			cost = type == CS_ID ? 1 : col_is_sorted(t, c) ?
			    1 + log2n((size_t)n) : 2 + log2n((size_t)n);
			if (cost < best) {
				best = cost;
				plan = type == CS_ID ? P_IDS : type != CS_STR &&
				    col_is_sorted(t, c) ? P_SORTED : P_INDEX;
				col = (int)c;
				eq = i;
				lo = hi = -1;
			}
			has_eq = 1;
		}
	}
	/* A range on a sorted column: alone, or beside an equality that is
	 * not on the id, on another column. */
	if (eq < 0 || plan == P_SORTED || plan == P_INDEX) {
		for (i = 0; i < info->nConstraint; i++) {
			const struct sqlite3_index_constraint *k =
			    &info->aConstraint[i];
			size_t c;

			if (!k->usable || k->iColumn < 0)
				continue;
			c = cs_col_base(t, (size_t)k->iColumn);
			if (cs_col_type(t, c) == CS_STR ||
			    cs_col_type(t, c) == CS_F64 ||
			    !col_is_sorted(t, c) ||
			    (eq >= 0 && (int)c == col) ||
			    (lo >= 0 || hi >= 0 ? (int)c != rc : 0))
				continue;
			switch (k->op) {
			case SQLITE_INDEX_CONSTRAINT_GT:
			case SQLITE_INDEX_CONSTRAINT_GE:
				if (lo < 0)
					lo = i;
				break;
			case SQLITE_INDEX_CONSTRAINT_LT:
			case SQLITE_INDEX_CONSTRAINT_LE:
				if (hi < 0)
					hi = i;
				break;
			default:
				continue;
			}
			rc = (int)c;
		}
		if ((lo >= 0 || hi >= 0) && eq >= 0) {
			best /= 2;
		} else if (lo >= 0 || hi >= 0) {
			col = rc;
			plan = cs_col_type(t, (size_t)col) == CS_ID ?
			    P_IDS : P_SORTED;
			best = log2n((size_t)n) + n / (lo >= 0 && hi >= 0 ?
			    16 : 4);
		}
	}
	info->idxNum = plan | col << 8;
	if (eq >= 0 && (lo >= 0 || hi >= 0))
		info->idxNum |= (rc + 1) << 24;
	if (eq >= 0) {
		info->aConstraintUsage[eq].argvIndex = 1;
		info->idxNum |= F_EQ;
	}
	{
		int arg = eq >= 0 ? 2 : 1;

		if (lo >= 0) {
			info->aConstraintUsage[lo].argvIndex = arg++;
			info->idxNum |= F_LO |
			    (info->aConstraint[lo].op ==
			    SQLITE_INDEX_CONSTRAINT_GT ? F_LO_STRICT : 0);
		}
		if (hi >= 0) {
			info->aConstraintUsage[hi].argvIndex = arg;
			info->idxNum |= F_HI |
			    (info->aConstraint[hi].op ==
			    SQLITE_INDEX_CONSTRAINT_LT ? F_HI_STRICT : 0);
		}
	}
	info->estimatedCost = best;
	info->estimatedRows = (sqlite3_int64)(plan == P_SCAN ? SCAN_COST :
	    eq >= 0 ? (plan == P_IDS ? 1 : 10) : best);
	if (plan == P_IDS && eq >= 0)
		info->idxFlags = SQLITE_INDEX_SCAN_UNIQUE;
	/*
	 * Rows come in id order: ORDER BY id, or a sorted column, needs no
	 * sort. Not under an equality, which may be an IN list whose values
	 * are filtered one after the other.
	 */
	if (info->nOrderBy == 1 && !has_eq && info->aOrderBy[0].iColumn >= 0) {
		size_t oc = (size_t)info->aOrderBy[0].iColumn;
		enum cs_type type = cs_col_type(t, oc);

		if (col_is_sorted(t, oc) && type != CS_STR) {
			info->orderByConsumed = 1;
		} else if (plan == P_SCAN && type != CS_F64) {
			/*
			 * The index of the column gives its rows NULLs first,
			 * then by value (texts in BINARY order): cheaper than
			 * SQLite's sort of every row.
			 */
			info->idxNum = P_GROUP | (int)cs_col_base(t, oc) << 8;
			info->orderByConsumed = 1;
			info->estimatedCost = n + SCAN_COST;
		}
		if (info->orderByConsumed && info->aOrderBy[0].desc)
			info->idxNum |= F_DESC;
	}
	/*
	 * ORDER BY a column, then a sorted one (SPAN_JOIN's partition, ts):
	 * the first column's index lists each value's rows in id order, so
	 * the second already rises within each.
	 */
	if (info->nOrderBy == 2 && !has_eq && plan == P_SCAN &&
	    info->aOrderBy[0].iColumn >= 0 && info->aOrderBy[1].iColumn >= 0 &&
	    !info->aOrderBy[0].desc && !info->aOrderBy[1].desc) {
		size_t c1 = (size_t)info->aOrderBy[0].iColumn;
		size_t c2 = (size_t)info->aOrderBy[1].iColumn;

		if (cs_col_type(t, c1) != CS_F64 &&
		    cs_col_type(t, c2) != CS_STR && col_is_sorted(t, c2)) {
			info->idxNum = P_GROUP | (int)cs_col_base(t, c1) << 8;
			info->orderByConsumed = 1;
			info->estimatedCost = n + SCAN_COST;
		}
	}
	return SQLITE_OK;
}

static int
vt_open(sqlite3_vtab *v, sqlite3_vtab_cursor **out)
{
	struct cs_cursor *cur = sqlite3_malloc(sizeof(*cur));

	if (cur == NULL)
		return SQLITE_NOMEM;
	memset(cur, 0, sizeof(*cur));
	cur->t = ((struct cs_vtab *)v)->t;
	*out = &cur->base;
	return SQLITE_OK;
}

static int
vt_close(sqlite3_vtab_cursor *c)
{
	cs_index_unref(((struct cs_cursor *)c)->idx);
	sqlite3_free(c);
	return SQLITE_OK;
}

/* Places the cursor on the first present row from where it stands. */
static void
cursor_settle(struct cs_cursor *cur)
{
	for (;;) {
		if (cur->idx != NULL) {
			if (cur->i >= cur->ihi)
				break;
			cur->r = cur->idx->rows[cur->desc ?
			    cur->ihi - 1 - (cur->i - cur->ilo) : cur->i];
		} else {
			if (cur->i >= (size_t)(cur->hi - cur->lo))
				break;
			cur->r = cur->desc ? cur->hi - 1 - (uint32_t)cur->i :
			    cur->lo + (uint32_t)cur->i;
		}
		if (cs_row_present(cur->t, cur->r))
			return;
		cur->i++;
	}
	cur->eof = 1;
}

/* An integer bound from a value: 0 when the value is not an integer
 * (the plan cannot use it). */
static int
arg_int(sqlite3_value *v, int64_t *out)
{
	if (sqlite3_value_type(v) != SQLITE_INTEGER)
		return 0;
	*out = sqlite3_value_int64(v);
	return 1;
}

/*
 * The range of the lower and upper bounds idxNum says argv holds from
 * argv[a]: 0, or -1 when no value can be within it. A bound that is not
 * an integer is no bound (SQLite checks it).
 */
static int
arg_range(int idxNum, int argc, sqlite3_value **argv, int a, int64_t *min,
    int64_t *max)
{
	int64_t v;

	*min = INT64_MIN;
	*max = INT64_MAX;
	if ((idxNum & F_LO) && a < argc && arg_int(argv[a++], &v)) {
		if ((idxNum & F_LO_STRICT) && v == INT64_MAX)
			return -1;
		*min = idxNum & F_LO_STRICT ? v + 1 : v;
	}
	if ((idxNum & F_HI) && a < argc && arg_int(argv[a], &v)) {
		if ((idxNum & F_HI_STRICT) && v == INT64_MIN)
			return -1;
		*max = idxNum & F_HI_STRICT ? v - 1 : v;
	}
	return 0;
}

static int
vt_filter(sqlite3_vtab_cursor *c, int idxNum, const char *idxStr, int argc,
    sqlite3_value **argv)
{
	struct cs_cursor *cur = (struct cs_cursor *)c;
	struct cs_table *t = cur->t;
	int plan = idxNum & 7, col = (idxNum >> 8) & 0xff;
	int rcol = ((idxNum >> 24) & 0xff) - 1;
	int64_t min = INT64_MIN, max = INT64_MAX, rmin, rmax, v;
	const char *str = NULL;
	size_t slen = 0;
	uint32_t n = (uint32_t)cs_table_rows(t);

	(void)idxStr;
	cs_index_unref(cur->idx);
	cur->idx = NULL;
	cur->i = 0;
	cur->eof = 0;
	cur->desc = (idxNum & F_DESC) != 0;
	cur->lo = 0;
	cur->hi = n;
	if (plan == P_GROUP) {
		if ((cur->idx = cs_col_index(t, (size_t)col)) == NULL)
			return SQLITE_NOMEM;
		cur->ilo = cur->i = 0;
		cur->ihi = cur->idx->n;
		goto settle;
	}
	if (plan == P_SCAN)
		goto settle;
	if (idxNum & F_EQ) {
		/* NULL equals nothing. */
		if (argc < 1 || sqlite3_value_type(argv[0]) == SQLITE_NULL) {
			cur->hi = 0;
			goto settle;
		}
		if (plan == P_INDEX && cs_col_type(t, (size_t)col) == CS_STR) {
			if (sqlite3_value_type(argv[0]) != SQLITE_TEXT)
				goto settle;
			str = (const char *)sqlite3_value_text(argv[0]);
			slen = (size_t)sqlite3_value_bytes(argv[0]);
			/* A text never interned is in no row. */
			if (str == NULL || cs_pool_find(cs_table_pool(t), str,
			    slen) == 0) {
				cur->hi = 0;
				goto settle;
			}
			v = 0;
		} else if (!arg_int(argv[0], &v))
			goto settle;
		min = max = v;
	} else if (arg_range(idxNum, argc, argv, 0, &min, &max) == -1) {
		cur->hi = 0;
		goto settle;
	}
	/* The range of another sorted column beside an equality. */
	if (rcol >= 0 && arg_range(idxNum, argc, argv, 1, &rmin, &rmax) == -1) {
		cur->hi = 0;
		goto settle;
	}
	if (rcol >= 0 && !cs_col_sorted(t, (size_t)rcol))
		rcol = -1;
	switch (plan) {
	case P_IDS:
		cur->lo = min < 0 ? 0 : min > n ? n : (uint32_t)min;
		cur->hi = max < 0 ? 0 : max >= n ? n : (uint32_t)max + 1;
		if (cur->hi < cur->lo)
			cur->hi = cur->lo;
		break;
	case P_SORTED:
		/* Sortedness was judged at planning: judge it again. */
		if (cs_col_sorted(t, (size_t)col))
			cs_col_range(t, (size_t)col, min, max, &cur->lo,
			    &cur->hi);
		if (rcol >= 0)
			cs_col_range(t, (size_t)rcol, rmin, rmax, &cur->lo,
			    &cur->hi);
		break;
	case P_INDEX:
		if ((cur->idx = cs_col_index(t, (size_t)col)) == NULL)
			return SQLITE_NOMEM;
		cs_index_find(t, (size_t)col, cur->idx, min, str, slen,
		    &cur->ilo, &cur->ihi);
		if (rcol >= 0)
			cs_index_narrow(t, (size_t)rcol, cur->idx, rmin, rmax,
			    &cur->ilo, &cur->ihi);
		cur->i = cur->ilo;
		break;
	}
settle:
	cursor_settle(cur);
	return SQLITE_OK;
}

static int
vt_next(sqlite3_vtab_cursor *c)
{
	struct cs_cursor *cur = (struct cs_cursor *)c;

	cur->i++;
	cursor_settle(cur);
	return SQLITE_OK;
}

static int
vt_eof(sqlite3_vtab_cursor *c)
{
	return ((struct cs_cursor *)c)->eof;
}

void
cs_result(sqlite3_context *ctx, const struct cs_table *t, size_t col,
    uint32_t r)
{
	const char *s;
	size_t len;
	int64_t i;
	double d;

	switch (cs_get(t, col, r, &i, &d, &s, &len)) {
	case CS_I64:
		sqlite3_result_int64(ctx, i);
		break;
	case CS_F64:
		sqlite3_result_double(ctx, d);
		break;
	case CS_STR:
		/* Pool strings outlive every statement. */
		sqlite3_result_text(ctx, s, (int)len, SQLITE_STATIC);
		break;
	default:
		sqlite3_result_null(ctx);
		break;
	}
}

static int
vt_column(sqlite3_vtab_cursor *c, sqlite3_context *ctx, int col)
{
	struct cs_cursor *cur = (struct cs_cursor *)c;

	cs_result(ctx, cur->t, (size_t)col, cur->r);
	return SQLITE_OK;
}

static int
vt_rowid(sqlite3_vtab_cursor *c, sqlite3_int64 *out)
{
	*out = ((struct cs_cursor *)c)->r;
	return SQLITE_OK;
}

static int
vt_update(sqlite3_vtab *v, int argc, sqlite3_value **argv,
    sqlite3_int64 *rowid)
{
	struct cs_vtab *vt = (struct cs_vtab *)v;

	(void)rowid;
	if (argc != 1 || !vt->db->deletable) {
		sqlite3_free(v->zErrMsg);
		v->zErrMsg = sqlite3_mprintf("table %s may not be modified",
		    cs_table_name(vt->t));
		return SQLITE_READONLY;
	}
	if (sqlite3_value_type(argv[0]) == SQLITE_INTEGER)
		cs_row_delete(vt->t, (uint32_t)sqlite3_value_int64(argv[0]));
	return SQLITE_OK;
}

static const sqlite3_module cs_module = {
	.iVersion = 1,
	.xCreate = vt_connect,
	.xConnect = vt_connect,
	.xBestIndex = vt_best_index,
	.xDisconnect = vt_disconnect,
	.xDestroy = vt_disconnect,
	.xOpen = vt_open,
	.xClose = vt_close,
	.xFilter = vt_filter,
	.xNext = vt_next,
	.xEof = vt_eof,
	.xColumn = vt_column,
	.xRowid = vt_rowid,
	.xUpdate = vt_update,
};

int
cs_vtab_register(sqlite3 *db, struct cs_db *cdb)
{
	return sqlite3_create_module(db, "__cs", &cs_module, cdb);
}
