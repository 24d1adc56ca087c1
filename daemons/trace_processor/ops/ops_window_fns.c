/*
 * Window functions of upstream's prelude:
 *
 *   LAST_NON_NULL(v) OVER (...)      the last non-NULL v of the frame
 *   INTERNAL_LAYOUT(ts, dur) OVER (ORDER BY ts ROWS BETWEEN UNBOUNDED
 *       PRECEDING AND CURRENT ROW)   the depth at which the row's
 *                                    interval is drawn: the lowest depth
 *                                    whose last interval has ended by ts
 *                                    (dur -1: never ends)
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include <sqlite3.h>

#include "ops_int.h"

/* The frame's values, oldest first: xInverse drops from the front. */
struct frame {
	sqlite3_value	**v;
	size_t		 head, n, cap;
};

static void
frame_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct frame *f = sqlite3_aggregate_context(ctx, sizeof(*f));
	sqlite3_value **nv;
	size_t cap;

	(void)argc;
	if (f == NULL) {
		sqlite3_result_error_nomem(ctx);
		return;
	}
	if (f->head > 0 && f->head + f->n == f->cap) {
		memmove(f->v, f->v + f->head, f->n * sizeof(*f->v));
		f->head = 0;
	}
	if (f->head + f->n == f->cap) {
		cap = f->cap ? f->cap * 2 : 16;
		if ((nv = sqlite3_realloc64(f->v, cap * sizeof(*nv))) == NULL) {
			sqlite3_result_error_nomem(ctx);
			return;
		}
		f->v = nv;
		f->cap = cap;
	}
	if ((f->v[f->head + f->n] = sqlite3_value_dup(argv[0])) == NULL) {
		sqlite3_result_error_nomem(ctx);
		return;
	}
	f->n++;
}

static void
frame_inverse(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct frame *f = sqlite3_aggregate_context(ctx, sizeof(*f));

	(void)argc;
	(void)argv;
	if (f == NULL || f->n == 0)
		return;
	sqlite3_value_free(f->v[f->head]);
	f->head++;
	f->n--;
}

static void
last_non_null_value(sqlite3_context *ctx)
{
	struct frame *f = sqlite3_aggregate_context(ctx, 0);
	size_t i;

	if (f == NULL)
		return;
	for (i = f->n; i > 0; i--)
		if (sqlite3_value_type(f->v[f->head + i - 1]) != SQLITE_NULL) {
			sqlite3_result_value(ctx, f->v[f->head + i - 1]);
			return;
		}
}

static void
last_non_null_final(sqlite3_context *ctx)
{
	struct frame *f = sqlite3_aggregate_context(ctx, 0);
	size_t i;

	last_non_null_value(ctx);
	if (f == NULL)
		return;
	for (i = 0; i < f->n; i++)
		sqlite3_value_free(f->v[f->head + i]);
	sqlite3_free(f->v);
}

/* The end of the last interval at each depth so far. */
struct layout {
	int64_t		*end;
	size_t		 n;
	int64_t		 depth;		/* of the row stepped last */
};

static void
layout_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct layout *l = sqlite3_aggregate_context(ctx, sizeof(*l));
	int64_t ts, dur, *ne;
	size_t d;

	(void)argc;
	if (l == NULL) {
		sqlite3_result_error_nomem(ctx);
		return;
	}
	ts = sqlite3_value_int64(argv[0]);
	dur = sqlite3_value_int64(argv[1]);
	for (d = 0; d < l->n && l->end[d] > ts; d++)
		;
	if (d == l->n) {
		if ((ne = sqlite3_realloc64(l->end, (l->n + 1) *
		    sizeof(*ne))) == NULL) {
			sqlite3_result_error_nomem(ctx);
			return;
		}
		l->end = ne;
		l->n++;
	}
	l->end[d] = dur < 0 || ts > INT64_MAX - dur ? INT64_MAX : ts + dur;
	l->depth = (int64_t)d;
}

static void
layout_inverse(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	(void)argc;
	(void)argv;
	sqlite3_result_error(ctx, "INTERNAL_LAYOUT: the frame must be ROWS"
	    " BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW", -1);
}

static void
layout_value(sqlite3_context *ctx)
{
	struct layout *l = sqlite3_aggregate_context(ctx, 0);

	if (l != NULL)
		sqlite3_result_int64(ctx, l->depth);
}

static void
layout_final(sqlite3_context *ctx)
{
	struct layout *l = sqlite3_aggregate_context(ctx, 0);

	layout_value(ctx);
	if (l != NULL)
		sqlite3_free(l->end);
}

int
ops_window_fns_register(sqlite3 *db, char **err)
{
	int flags = SQLITE_UTF8 | SQLITE_INNOCUOUS;

	if (sqlite3_create_window_function(db, "last_non_null", 1, flags, NULL,
	    frame_step, last_non_null_final, last_non_null_value,
	    frame_inverse, NULL) != SQLITE_OK ||
	    sqlite3_create_window_function(db, "internal_layout", 2, flags,
	    NULL, layout_step, layout_final, layout_value, layout_inverse,
	    NULL) != SQLITE_OK) {
		ops_seterr(err, "%s", sqlite3_errmsg(db));
		return -1;
	}
	return 0;
}
