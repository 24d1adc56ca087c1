/*
 * The UI's "mipmap" operators, with upstream's names and columns:
 *
 *   CREATE VIRTUAL TABLE m USING __intrinsic_slice_mipmap((SELECT id, ts,
 *       dur, depth FROM ...));
 *   SELECT ts, id, count, dur, depth FROM m(start, end, step);
 *
 *   CREATE VIRTUAL TABLE c USING __intrinsic_counter_mipmap((SELECT ts,
 *       value FROM ...));
 *   SELECT min_value, max_value, last_ts, last_value FROM c(start, end,
 *       step);
 *
 * The source query runs once, when the table is created; each query then
 * cuts [start, end) into buckets of step ns. Per bucket (and per depth for
 * slices) one row: the longest slice of the bucket with the number of
 * slices in it; for counters the min and max of the values and the last
 * one. A slice or value begun before start and still going counts in the
 * first bucket. Buckets are scanned linearly: the rows of one window are
 * what the UI draws anyway.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "ops_int.h"

/* Buckets a query may ask for: more is a caller's mistake, not a plan. */
#define MIPMAP_MAX_BUCKETS	(1 << 22)

struct mm_row {
	int64_t		 ts;
	int64_t		 dur;		/* slices */
	int64_t		 id;		/* slices */
	double		 value;		/* counters */
};

struct mm_level {
	struct mm_row	*rows;		/* sorted by ts */
	size_t		 n, cap;
};

struct mm_out {
	int64_t		 ts, dur, id, count, depth;
	double		 min, max, last_value;
};

struct mm_vtab {
	sqlite3_vtab	 base;
	int		 counter;	/* counter operator, else slices */
	struct mm_level	*levels;	/* by depth (counters: one) */
	size_t		 nlevels;
};

struct mm_cursor {
	sqlite3_vtab_cursor base;
	struct mm_out	*out;
	size_t		 n, cap, pos;
};

static const char slice_schema[] =
	"CREATE TABLE x(in_window_start INTEGER HIDDEN,"
	" in_window_end INTEGER HIDDEN, in_window_step INTEGER HIDDEN,"
	" ts INTEGER, id INTEGER, count INTEGER, dur INTEGER, depth INTEGER)";
static const char counter_schema[] =
	"CREATE TABLE x(in_window_start INTEGER HIDDEN,"
	" in_window_end INTEGER HIDDEN, in_window_step INTEGER HIDDEN,"
	" min_value REAL, max_value REAL, last_ts INTEGER, last_value REAL)";

enum { MM_ARGS = 3 };

static int
mm_cmp_ts(const void *a, const void *b)
{
	const struct mm_row *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int
mm_push(struct mm_level *l, const struct mm_row *r)
{
	struct mm_row	*nr;
	size_t		 ncap;

	if (l->n == l->cap) {
		ncap = l->cap ? l->cap * 2 : 64;
		if ((nr = sqlite3_realloc64(l->rows, ncap * sizeof(*nr))) ==
		    NULL)
			return -1;
		l->rows = nr;
		l->cap = ncap;
	}
	l->rows[l->n++] = *r;
	return 0;
}

static void
mm_free(struct mm_vtab *t)
{
	size_t	 i;

	for (i = 0; i < t->nlevels; i++)
		sqlite3_free(t->levels[i].rows);
	sqlite3_free(t->levels);
	sqlite3_free(t);
}

/* Runs the source query and files its rows by depth. */
static int
mm_load(sqlite3 *db, struct mm_vtab *t, const char *src, char **err)
{
	sqlite3_stmt	*st;
	char		*sql;
	struct mm_row	 r;
	struct mm_level	*nl;
	int64_t		 depth;
	size_t		 i;
	int		 rc;

	if ((sql = sqlite3_mprintf("SELECT * FROM %s", src)) == NULL)
		return SQLITE_NOMEM;
	rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	sqlite3_free(sql);
	if (rc != SQLITE_OK) {
		ops_seterr(err, "%s", sqlite3_errmsg(db));
		return SQLITE_ERROR;
	}
	if (sqlite3_column_count(st) < (t->counter ? 2 : 4)) {
		ops_seterr(err, "%s: the source has too few columns",
		    t->counter ? "counter_mipmap" : "slice_mipmap");
		sqlite3_finalize(st);
		return SQLITE_ERROR;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		memset(&r, 0, sizeof(r));
		if (t->counter) {
			r.ts = sqlite3_column_int64(st, 0);
			r.value = sqlite3_column_double(st, 1);
			depth = 0;
		} else {
			r.id = sqlite3_column_int64(st, 0);
			r.ts = sqlite3_column_int64(st, 1);
			r.dur = sqlite3_column_int64(st, 2);
			depth = sqlite3_column_int64(st, 3);
			if (depth < 0 || depth > 65535) {
				ops_seterr(err, "slice_mipmap: depth %lld out"
				    " of range", (long long)depth);
				sqlite3_finalize(st);
				return SQLITE_ERROR;
			}
		}
		if ((size_t)depth >= t->nlevels) {
			nl = sqlite3_realloc64(t->levels,
			    ((size_t)depth + 1) * sizeof(*nl));
			if (nl == NULL)
				break;
			memset(nl + t->nlevels, 0,
			    ((size_t)depth + 1 - t->nlevels) * sizeof(*nl));
			t->levels = nl;
			t->nlevels = (size_t)depth + 1;
		}
		if (mm_push(&t->levels[depth], &r) == -1)
			break;
	}
	if (rc != SQLITE_DONE) {
		ops_seterr(err, "%s", rc == SQLITE_ROW ? "out of memory" :
		    sqlite3_errmsg(db));
		sqlite3_finalize(st);
		return SQLITE_ERROR;
	}
	sqlite3_finalize(st);
	for (i = 0; i < t->nlevels; i++)
		if (t->levels[i].n > 1)
			qsort(t->levels[i].rows, t->levels[i].n,
			    sizeof(struct mm_row), mm_cmp_ts);
	return SQLITE_OK;
}

static int
mm_create(sqlite3 *db, int counter, int argc, const char *const *argv,
    sqlite3_vtab **out, char **err)
{
	struct mm_vtab	*t;
	int		 rc;

	if (argc != 4) {
		*err = sqlite3_mprintf("%s: wrong number of arguments",
		    counter ? "counter_mipmap" : "slice_mipmap");
		return SQLITE_ERROR;
	}
	rc = sqlite3_declare_vtab(db, counter ? counter_schema :
	    slice_schema);
	if (rc != SQLITE_OK)
		return rc;
	if ((t = sqlite3_malloc(sizeof(*t))) == NULL)
		return SQLITE_NOMEM;
	memset(t, 0, sizeof(*t));
	t->counter = counter;
	if ((rc = mm_load(db, t, argv[3], err)) != SQLITE_OK) {
		mm_free(t);
		return rc;
	}
	*out = &t->base;
	return SQLITE_OK;
}

static int
mm_slice_create(sqlite3 *db, void *aux, int argc, const char *const *argv,
    sqlite3_vtab **out, char **err)
{
	(void)aux;
	return mm_create(db, 0, argc, argv, out, err);
}

static int
mm_counter_create(sqlite3 *db, void *aux, int argc,
    const char *const *argv, sqlite3_vtab **out, char **err)
{
	(void)aux;
	return mm_create(db, 1, argc, argv, out, err);
}

static int
mm_disconnect(sqlite3_vtab *vt)
{
	mm_free((struct mm_vtab *)vt);
	return SQLITE_OK;
}

/* The three hidden arguments are required, with equality. */
static int
mm_best_index(sqlite3_vtab *vt, sqlite3_index_info *info)
{
	int	 i, seen = 0, col;

	(void)vt;
	for (i = 0; i < info->nConstraint; i++) {
		col = info->aConstraint[i].iColumn;
		if (col < 0 || col >= MM_ARGS)
			continue;
		if (!info->aConstraint[i].usable ||
		    info->aConstraint[i].op != SQLITE_INDEX_CONSTRAINT_EQ)
			return SQLITE_CONSTRAINT;
		info->aConstraintUsage[i].argvIndex = col + 1;
		info->aConstraintUsage[i].omit = 1;
		seen |= 1 << col;
	}
	if (seen != (1 << MM_ARGS) - 1)
		return SQLITE_CONSTRAINT;
	info->estimatedCost = 10;
	return SQLITE_OK;
}

static int
mm_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out)
{
	struct mm_cursor *c;

	(void)vt;
	if ((c = sqlite3_malloc(sizeof(*c))) == NULL)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof(*c));
	*out = &c->base;
	return SQLITE_OK;
}

static int
mm_close(sqlite3_vtab_cursor *vc)
{
	struct mm_cursor *c = (struct mm_cursor *)vc;

	sqlite3_free(c->out);
	sqlite3_free(c);
	return SQLITE_OK;
}

static int
mm_emit(struct mm_cursor *c, const struct mm_out *o)
{
	struct mm_out	*no;
	size_t		 ncap;

	if (c->n == c->cap) {
		ncap = c->cap ? c->cap * 2 : 256;
		if ((no = sqlite3_realloc64(c->out, ncap * sizeof(*no))) ==
		    NULL)
			return -1;
		c->out = no;
		c->cap = ncap;
	}
	c->out[c->n++] = *o;
	return 0;
}

/* First row at or after ts. */
static size_t
mm_lower_bound(const struct mm_level *l, int64_t ts)
{
	size_t	 lo = 0, hi = l->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (l->rows[mid].ts < ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Buckets one level: rows [i, j) fall in the bucket ending at edge. */
static int
mm_scan(struct mm_cursor *c, const struct mm_vtab *t, size_t depth,
    int64_t start, int64_t end, int64_t step)
{
	const struct mm_level *l = &t->levels[depth];
	const struct mm_row *r;
	struct mm_out	 o;
	int64_t		 edge;
	size_t		 i, j, k, best;

	if (l->n == 0)
		return 0;
	i = mm_lower_bound(l, start);
	/* The row before the window still counts if it reaches into it. */
	if (i > 0 && (i == l->n || l->rows[i].ts != start)) {
		r = &l->rows[i - 1];
		if (t->counter || r->ts + r->dur > start)
			i--;
	}
	for (edge = start; edge < end && i < l->n; ) {
		edge = edge > INT64_MAX - step ? INT64_MAX : edge + step;
		for (j = i; j < l->n && l->rows[j].ts < edge; j++)
			;
		if (j == i)
			continue;
		memset(&o, 0, sizeof(o));
		o.count = (int64_t)(j - i);
		o.depth = (int64_t)depth;
		best = i;
		o.min = o.max = l->rows[i].value;
		for (k = i; k < j; k++) {
			r = &l->rows[k];
			if (r->dur > l->rows[best].dur)
				best = k;
			if (r->value < o.min)
				o.min = r->value;
			if (r->value > o.max)
				o.max = r->value;
		}
		if (t->counter) {
			o.ts = l->rows[j - 1].ts;
			o.last_value = l->rows[j - 1].value;
		} else {
			o.ts = l->rows[best].ts;
			o.dur = l->rows[best].dur;
			o.id = l->rows[best].id;
		}
		if (mm_emit(c, &o) == -1)
			return -1;
		i = j;
	}
	return 0;
}

static int
mm_filter(sqlite3_vtab_cursor *vc, int idxnum, const char *idxstr,
    int argc, sqlite3_value **argv)
{
	struct mm_cursor *c = (struct mm_cursor *)vc;
	struct mm_vtab	*t = (struct mm_vtab *)vc->pVtab;
	int64_t		 start, end, step;
	size_t		 d;

	(void)idxnum;
	(void)idxstr;
	c->n = c->pos = 0;
	if (argc != MM_ARGS)
		return SQLITE_ERROR;
	start = sqlite3_value_int64(argv[0]);
	end = sqlite3_value_int64(argv[1]);
	step = sqlite3_value_int64(argv[2]);
	if (step <= 0 || end < start ||
	    (end - start) / step > MIPMAP_MAX_BUCKETS) {
		sqlite3_free(t->base.zErrMsg);
		t->base.zErrMsg = sqlite3_mprintf("mipmap: bad window"
		    " (start %lld, end %lld, step %lld)", (long long)start,
		    (long long)end, (long long)step);
		return SQLITE_ERROR;
	}
	for (d = 0; d < t->nlevels; d++)
		if (mm_scan(c, t, d, start, end, step) == -1)
			return SQLITE_NOMEM;
	return SQLITE_OK;
}

static int
mm_next(sqlite3_vtab_cursor *vc)
{
	((struct mm_cursor *)vc)->pos++;
	return SQLITE_OK;
}

static int
mm_eof(sqlite3_vtab_cursor *vc)
{
	struct mm_cursor *c = (struct mm_cursor *)vc;

	return c->pos >= c->n;
}

static int
mm_column(sqlite3_vtab_cursor *vc, sqlite3_context *ctx, int col)
{
	struct mm_cursor *c = (struct mm_cursor *)vc;
	struct mm_vtab	*t = (struct mm_vtab *)vc->pVtab;
	const struct mm_out *o = &c->out[c->pos];

	if (col < MM_ARGS) {
		sqlite3_result_null(ctx);
		return SQLITE_OK;
	}
	col -= MM_ARGS;
	if (t->counter) {
		switch (col) {
		case 0: sqlite3_result_double(ctx, o->min); break;
		case 1: sqlite3_result_double(ctx, o->max); break;
		case 2: sqlite3_result_int64(ctx, o->ts); break;
		default: sqlite3_result_double(ctx, o->last_value); break;
		}
		return SQLITE_OK;
	}
	switch (col) {
	case 0: sqlite3_result_int64(ctx, o->ts); break;
	case 1: sqlite3_result_int64(ctx, o->id); break;
	case 2: sqlite3_result_int64(ctx, o->count); break;
	case 3: sqlite3_result_int64(ctx, o->dur); break;
	default: sqlite3_result_int64(ctx, o->depth); break;
	}
	return SQLITE_OK;
}

static int
mm_rowid(sqlite3_vtab_cursor *vc, sqlite3_int64 *rowid)
{
	*rowid = (sqlite3_int64)((struct mm_cursor *)vc)->pos;
	return SQLITE_OK;
}

#define MM_MODULE(create) {						\
	.iVersion = 1, .xCreate = (create), .xConnect = (create),	\
	.xBestIndex = mm_best_index, .xDisconnect = mm_disconnect,	\
	.xDestroy = mm_disconnect, .xOpen = mm_open, .xClose = mm_close,\
	.xFilter = mm_filter, .xNext = mm_next, .xEof = mm_eof,	\
	.xColumn = mm_column, .xRowid = mm_rowid }

static const sqlite3_module slice_module = MM_MODULE(mm_slice_create);
static const sqlite3_module counter_module = MM_MODULE(mm_counter_create);

int
ops_mipmap_register(sqlite3 *db, char **err)
{
	if (sqlite3_create_module_v2(db, "__intrinsic_slice_mipmap",
	    &slice_module, NULL, NULL) != SQLITE_OK ||
	    sqlite3_create_module_v2(db, "__intrinsic_counter_mipmap",
	    &counter_module, NULL, NULL) != SQLITE_OK) {
		ops_seterr(err, "%s", sqlite3_errmsg(db));
		return -1;
	}
	return 0;
}
