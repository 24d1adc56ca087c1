/*
 * SQLite module over cs_table (see cs_vtab.h). xBestIndex picks one
 * access path and encodes it in idxNum:
 *
 *   bits 0-2	plan: a scan of every row, a range of ids, a range of
 *		values of a sorted column, the rows of one value (index),
 *		every row in the order of a column's index (ORDER BY,
 *		GROUP BY)
 *   bits 8-15	the column of the plan
 *   bits 16-22	which of argv[] holds a lower bound, an upper bound (and
 *		whether strict), an equality; descending order; the
 *		equality is an IN list taken whole (its values' rows
 *		then come in the index's order: ORDER BY, GROUP BY)
 *
 * A plan only has to yield a superset of the answer, so a value it
 * cannot use (text for an integer column, a collation) falls back to
 * scanning every row. The constraints cs_filter.c can test exactly
 * (idxStr lists them: column, operator, argv[] index) are tested on
 * each row the plan yields and omitted from SQLite's checks; the
 * others are left to SQLite.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cs_filter.h"
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
#define F_IN		(1 << 22)	/* argv[0]: the IN list, whole */

#define MAX_FILTERS	8

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
	uint32_t		 run;		/* rows [r, run) are present */
	struct cs_index		*idx;
	size_t			 ilo, ihi, i;
	/* the index's slices of an IN list's values, in index order */
	size_t			(*sl)[2];
	size_t			 nsl, isl;
	int			 desc, eof;
	struct cs_filter	 f[MAX_FILTERS];
	int			 farg[MAX_FILTERS];	/* their argv[] */
	size_t			 nf, nfmax;	/* set now, ever */
	struct cs_view		*views;		/* per column, for xColumn */
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

/*
 * The constraints the cursor tests itself, omitted from SQLite's checks
 * (those the plan uses as well: the plan may yield a superset), listed
 * in idxStr as "column:operator:argv index;".
 */
static void
plan_filters(struct cs_table *t, sqlite3_index_info *info, int nargs,
    int skip)
{
	sqlite3_str *s = NULL;
	int i, op, n = 0;

	for (i = 0; i < info->nConstraint && n < MAX_FILTERS; i++) {
		const struct sqlite3_index_constraint *k = &info->aConstraint[i];
		struct sqlite3_index_constraint_usage *u =
		    &info->aConstraintUsage[i];
		sqlite3_value *rhs = NULL;

		if (!k->usable || k->iColumn < 0 || i == skip)
			continue;
		if (sqlite3_vtab_rhs_value(info, i, &rhs) != SQLITE_OK)
			rhs = NULL;
		if ((op = cs_filter_op(t, (size_t)k->iColumn, k->op, rhs,
		    sqlite3_vtab_collation(info, i))) < 0)
			continue;
		if (s == NULL && (s = sqlite3_str_new(NULL)) == NULL)
			return;
		if (u->argvIndex == 0)
			u->argvIndex = ++nargs;
		u->omit = 1;
		sqlite3_str_appendf(s, "%d:%d:%d;", k->iColumn, op,
		    u->argvIndex - 1);
		n++;
	}
	if (s == NULL)
		return;
	if (sqlite3_str_errcode(s) != SQLITE_OK) {
		/* Nothing omitted after all: SQLite checks every row. */
		sqlite3_free(sqlite3_str_finish(s));
		for (i = 0; i < info->nConstraint; i++)
			info->aConstraintUsage[i].omit = 0;
		return;
	}
	info->idxStr = sqlite3_str_finish(s);
	info->needToFreeIdxStr = 1;
}

static int
vt_best_index(sqlite3_vtab *v, sqlite3_index_info *info)
{
	struct cs_table *t = ((struct cs_vtab *)v)->t;
	/*
	 * A scan is priced, and its rows counted, as SQLite does a table it
	 * has no statistics of (a million rows), whatever its size: joins
	 * then run from the engine's small tables (tracks, threads and
	 * processes, priced by their size) into these by their lookups, in
	 * the order of the FROM clause, as upstream's do.
	 */
	double n = (double)cs_table_rows(t) + 1,
	    scan = cs_table_sized(t) ? 0 : SCAN_COST, best = n + scan;
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
	/*
	 * An IN list on the index's column taken whole: the plan is exact
	 * (omitted) and gives the values' rows in the index's order.
	 */
	if (plan == P_INDEX && eq >= 0 && eq < 32 && lo < 0 && hi < 0 &&
	    cs_filter_kind(t, (size_t)col) != 0 &&
	    sqlite3_vtab_in(info, eq, -1)) {
		sqlite3_vtab_in(info, eq, 1);
		info->idxNum |= F_IN;
		info->aConstraintUsage[eq].omit = 1;
	}
	plan_filters(t, info, (eq >= 0) + (lo >= 0) + (hi >= 0),
	    info->idxNum & F_IN ? eq : -1);
	info->estimatedCost = best;
	info->estimatedRows = (sqlite3_int64)(plan == P_SCAN ?
	    (scan == 0 ? n : SCAN_COST) :
	    eq >= 0 ? (plan == P_IDS ? 1 : 10) : best);
	if (plan == P_IDS && eq >= 0)
		info->idxFlags = SQLITE_INDEX_SCAN_UNIQUE;
	/*
	 * Rows come in id order but from an IN list taken whole: ORDER BY
	 * id, or a sorted column, needs no sort, under an equality too (the
	 * rows of one value, in id order; SQLite itself sorts again when it
	 * filters an IN list's values one after the other).
	 */
	if (info->nOrderBy == 1 && !(info->idxNum & F_IN) &&
	    info->aOrderBy[0].iColumn >= 0) {
		size_t oc = (size_t)info->aOrderBy[0].iColumn;
		enum cs_type type = cs_col_type(t, oc);

		if (col_is_sorted(t, oc) && type != CS_STR) {
			info->orderByConsumed = 1;
		} else if (!has_eq && plan == P_SCAN && type != CS_F64) {
			/*
			 * The index of the column gives its rows NULLs first,
			 * then by value (texts in BINARY order): cheaper than
			 * SQLite's sort of every row.
			 */
			info->idxNum = P_GROUP | (int)cs_col_base(t, oc) << 8;
			info->orderByConsumed = 1;
			info->estimatedCost = n + scan;
		}
		if (info->orderByConsumed && info->aOrderBy[0].desc)
			info->idxNum |= F_DESC;
	}
	/* An IN list taken whole gives its rows in the index's order. */
	if ((info->idxNum & F_IN) && info->nOrderBy == 1 &&
	    info->aOrderBy[0].iColumn >= 0 &&
	    cs_col_base(t, (size_t)info->aOrderBy[0].iColumn) ==
	    (size_t)col) {
		info->orderByConsumed = 1;
		if (info->aOrderBy[0].desc)
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
			info->estimatedCost = n + scan;
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
	/* Empty views (n 0): each is made on its column's first read. */
	if ((cur->views = sqlite3_malloc64(cs_table_ncols(cur->t) *
	    sizeof(*cur->views))) == NULL) {
		sqlite3_free(cur);
		return SQLITE_NOMEM;
	}
	memset(cur->views, 0, cs_table_ncols(cur->t) * sizeof(*cur->views));
	*out = &cur->base;
	return SQLITE_OK;
}

static int
vt_close(sqlite3_vtab_cursor *c)
{
	struct cs_cursor *cur = (struct cs_cursor *)c;
	size_t i;

	cs_index_unref(cur->idx);
	sqlite3_free(cur->sl);
	for (i = 0; i < cur->nfmax; i++)
		cs_filter_clear(&cur->f[i]);
	sqlite3_free(cur->views);
	sqlite3_free(c);
	return SQLITE_OK;
}

/*
 * Drops the filters of the values the plan applied exactly (the bits of
 * their argv[] indexes in done): every row the plan yields passes them.
 * A filter's state (a pattern's) stays in its slot for the next time.
 */
static void
filters_drop(struct cs_cursor *cur, unsigned done)
{
	struct cs_filter tmp;
	size_t i, n = 0;
	int a;

	for (i = 0; i < cur->nf; i++) {
		if (cur->farg[i] < 32 && (done & 1u << cur->farg[i]))
			continue;
		if (n != i) {
			tmp = cur->f[n];
			cur->f[n] = cur->f[i];
			cur->f[i] = tmp;
			a = cur->farg[n];
			cur->farg[n] = cur->farg[i];
			cur->farg[i] = a;
		}
		n++;
	}
	cur->nf = n;
}

static int
filters_match(struct cs_cursor *cur)
{
	size_t i;

	for (i = 0; i < cur->nf; i++)
		if (!cs_filter_match(&cur->f[i], cur->t, cur->r))
			return 0;
	return 1;
}

/* The number at *s (digits then one separator), past it; -1 if none. */
static long
idx_num(const char **s)
{
	const char *p = *s;
	long v = 0;

	if (p == NULL || *p < '0' || *p > '9') {
		*s = NULL;
		return -1;
	}
	for (; *p >= '0' && *p <= '9' && v < 1000000; p++)
		v = v * 10 + (*p - '0');
	*s = *p != '\0' ? p + 1 : p;
	return v;
}

/* The filters idxStr lists (plan_filters), set to their values. */
static int
filters_set(struct cs_cursor *cur, const char *s, int argc,
    sqlite3_value **argv)
{
	long col, op, a;

	cur->nf = 0;
	while (s != NULL && *s != '\0' && cur->nf < MAX_FILTERS) {
		/* Run per statement run: no strtol. */
		col = idx_num(&s);
		op = idx_num(&s);
		a = idx_num(&s);
		if (a < 0 || a >= argc || col < 0 ||
		    (size_t)col >= cs_table_ncols(cur->t))
			return SQLITE_ERROR;
		if (cs_filter_set(&cur->f[cur->nf], cur->t, (size_t)col,
		    (int)op, argv[a]) == -1)
			return SQLITE_NOMEM;
		cur->farg[cur->nf++] = (int)a;
		if (cur->nf > cur->nfmax)
			cur->nfmax = cur->nf;
	}
	return SQLITE_OK;
}

/* The cursor at the start of the k-th slice of an IN list's (from the
 * last when descending). */
static void
in_slice(struct cs_cursor *cur, size_t k)
{
	size_t j = cur->desc ? cur->nsl - 1 - k : k;

	cur->ilo = cur->i = cur->sl[j][0];
	cur->ihi = cur->sl[j][1];
}

static int
slice_order(const void *a, const void *b)
{
	size_t x = ((const size_t *)a)[0], y = ((const size_t *)b)[0];

	return x < y ? -1 : x > y;
}

/*
 * The index's slices of each value of the IN list v: values as the
 * column compares them (cs_filter.c), each slice once, in index order.
 */
static int
in_slices(struct cs_cursor *cur, size_t col, sqlite3_value *list)
{
	struct cs_table *t = cur->t;
	struct cs_filter f;
	sqlite3_value *v;
	const char *s;
	size_t len = 0, cap = 0, i, n;
	int rc;

	cur->nsl = cur->isl = 0;
	memset(&f, 0, sizeof(f));
	for (rc = sqlite3_vtab_in_first(list, &v); rc == SQLITE_OK && v != NULL;
	    rc = sqlite3_vtab_in_next(list, &v)) {
		if (cs_filter_set(&f, t, col, CS_F_EQ, v) == -1) {
			rc = SQLITE_NOMEM;
			break;
		}
		if (f.none)
			continue;
		s = NULL;
		if (f.text && (s = cs_pool_get(cs_table_pool(t),
		    (uint32_t)f.ne, &len)) == NULL)
			continue;
		if (cur->nsl == cap) {
			size_t (*ns)[2] = sqlite3_realloc64(cur->sl,
			    (cap ? cap * 2 : 8) * sizeof(*ns));

			if (ns == NULL) {
				rc = SQLITE_NOMEM;
				break;
			}
			cur->sl = ns;
			cap = cap ? cap * 2 : 8;
		}
		cs_index_find(t, col, cur->idx, f.min, s, len,
		    &cur->sl[cur->nsl][0], &cur->sl[cur->nsl][1]);
		if (cur->sl[cur->nsl][0] < cur->sl[cur->nsl][1])
			cur->nsl++;
	}
	cs_filter_clear(&f);
	if (rc != SQLITE_OK && rc != SQLITE_DONE)
		return rc;
	if (cur->nsl < 2)
		return SQLITE_OK;
	qsort(cur->sl, cur->nsl, sizeof(*cur->sl), slice_order);
	for (i = n = 1; i < cur->nsl; i++)
		if (cur->sl[i][0] != cur->sl[n - 1][0]) {
			if (n != i)
				memcpy(cur->sl[n], cur->sl[i], sizeof(*cur->sl));
			n++;
		}
	cur->nsl = n;
	return SQLITE_OK;
}

/* Places the cursor on the first present row, of those the filters
 * pass, from where it stands. */
static void
cursor_settle(struct cs_cursor *cur)
{
	for (;;) {
		if (cur->idx != NULL) {
			if (cur->i >= cur->ihi) {
				if (cur->isl + 1 >= cur->nsl)
					break;
				in_slice(cur, ++cur->isl);
				continue;
			}
			cur->r = cur->idx->rows[cur->desc ?
			    cur->ihi - 1 - (cur->i - cur->ilo) : cur->i];
		} else {
			if (cur->i >= (size_t)(cur->hi - cur->lo))
				break;
			cur->r = cur->desc ? cur->hi - 1 - (uint32_t)cur->i :
			    cur->lo + (uint32_t)cur->i;
		}
		if (cur->idx != NULL || cur->desc) {
			if (!cs_row_present(cur->t, cur->r)) {
				cur->i++;
				continue;
			}
		} else if (cur->r >= cur->run) {
			/* An ascending range: the rows after r known present
			 * are passed without asking again. */
			cur->run = cs_present_until(cur->t, cur->r);
			if (cur->run == cur->r) {
				cur->i++;
				continue;
			}
		}
		if (filters_match(cur))
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

/* The bits of the argv[] indexes of the bounds idxNum says argv holds
 * from argv[a] if each is an integer (arg_range applies them exactly),
 * else 0. */
static unsigned
range_exact(int idxNum, int argc, sqlite3_value **argv, int a)
{
	unsigned bits = 0;
	int f;

	for (f = F_LO; f <= F_HI; f <<= 2) {
		if (!(idxNum & f))
			continue;
		if (a >= argc || a >= 32 ||
		    sqlite3_value_type(argv[a]) != SQLITE_INTEGER)
			return 0;
		bits |= 1u << a++;
	}
	return bits;
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
	unsigned done = 0;	/* argv[] the plan applied exactly */
	int rc, eq = 0;

	cs_index_unref(cur->idx);
	if ((rc = filters_set(cur, idxStr, argc, argv)) != SQLITE_OK)
		return rc;
	cur->idx = NULL;
	cur->i = 0;
	cur->eof = 0;
	cur->desc = (idxNum & F_DESC) != 0;
	cur->lo = 0;
	cur->hi = n;
	cur->run = 0;
	cur->nsl = cur->isl = 0;
	if (idxNum & F_IN) {
		if (argc < 1 || (cur->idx = cs_col_index(t, (size_t)col)) ==
		    NULL)
			return argc < 1 ? SQLITE_ERROR : SQLITE_NOMEM;
		if ((rc = in_slices(cur, (size_t)col, argv[0])) != SQLITE_OK)
			return rc;
		cur->ilo = cur->ihi = cur->i = 0;
		if (cur->nsl > 0)
			in_slice(cur, 0);
		goto settle;
	}
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
		eq = 1;
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
		done |= eq ? 1u : range_exact(idxNum, argc, argv, 0);
		break;
	case P_SORTED:
		/* Sortedness was judged at planning: judge it again. */
		if (cs_col_sorted(t, (size_t)col)) {
			cs_col_range(t, (size_t)col, min, max, &cur->lo,
			    &cur->hi);
			done |= eq ? 1u : range_exact(idxNum, argc, argv, 0);
		}
		if (rcol >= 0) {
			cs_col_range(t, (size_t)rcol, rmin, rmax, &cur->lo,
			    &cur->hi);
			done |= range_exact(idxNum, argc, argv, 1);
		}
		break;
	case P_INDEX:
		if ((cur->idx = cs_col_index(t, (size_t)col)) == NULL)
			return SQLITE_NOMEM;
		cs_index_find(t, (size_t)col, cur->idx, min, str, slen,
		    &cur->ilo, &cur->ihi);
		if (rcol >= 0) {
			cs_index_narrow(t, (size_t)rcol, cur->idx, rmin, rmax,
			    &cur->ilo, &cur->ihi);
			done |= range_exact(idxNum, argc, argv, 1);
		}
		cur->i = cur->ilo;
		done |= (unsigned)eq;
		break;
	}
settle:
	filters_drop(cur, done);
	cursor_settle(cur);
	return SQLITE_OK;
}

static int
vt_next(sqlite3_vtab_cursor *c)
{
	struct cs_cursor *cur = (struct cs_cursor *)c;

	cur->i++;
	/* The next row of an ascending range, known present; the next of
	 * an index's slice if present. */
	if (cur->nf == 0 && !cur->desc) {
		if (cur->idx == NULL && cur->r + 1 < cur->run &&
		    cur->i < (size_t)(cur->hi - cur->lo)) {
			cur->r++;
			return SQLITE_OK;
		}
		if (cur->idx != NULL && cur->i < cur->ihi &&
		    cs_row_present(cur->t, cur->idx->rows[cur->i])) {
			cur->r = cur->idx->rows[cur->i];
			return SQLITE_OK;
		}
	}
	cursor_settle(cur);
	return SQLITE_OK;
}

static int
vt_eof(sqlite3_vtab_cursor *c)
{
	return ((struct cs_cursor *)c)->eof;
}

/* A cell through its column's view: the row before's block, mostly. */
static int
vt_column(sqlite3_vtab_cursor *c, sqlite3_context *ctx, int col)
{
	struct cs_cursor *cur = (struct cs_cursor *)c;
	struct cs_view *v = &cur->views[col];

	cs_view_at(cur->t, (size_t)col, cur->r, v);
	if (cs_view_result(ctx, v, cur->r) == -1)
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
