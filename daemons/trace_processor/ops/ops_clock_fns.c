/*
 * Clock functions over the clock_snapshot table:
 *
 *   TO_REALTIME(ts), TO_MONOTONIC(ts)   a trace timestamp on REALTIME or
 *                                       MONOTONIC, from the snapshots
 *   ABS_TIME_STR(ts)                    TO_REALTIME as ISO 8601 (UTC)
 *   TO_TIMECODE(ts)                     "HH:MM:SS mmm uuu nnn" of ts
 *
 * A timestamp between two snapshots is the earlier one's clock value
 * plus the time since, but never past the later one's value (the clock
 * may have been stepped back); before the first it is the first's value,
 * after the last the last's value plus the time since. A clock the trace
 * has no snapshot of gives NULL, as upstream's: one bad timestamp must
 * not fail the query.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <sqlite3.h>

#include "ops_int.h"

#define CLOCK_REALTIME_ID	1	/* BuiltinClock values */
#define CLOCK_MONOTONIC_ID	3

/* The snapshot of clock at or after ts (next) or before it (prev). */
static int
clock_point(sqlite3 *db, int64_t clock, int64_t ts, int next, int64_t *pts,
    int64_t *pval)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db, next ?
	    "SELECT ts, clock_value FROM clock_snapshot WHERE clock_id = ?1"
	    " AND ts >= ?2 ORDER BY ts, id LIMIT 1" :
	    "SELECT ts, clock_value FROM clock_snapshot WHERE clock_id = ?1"
	    " AND ts < ?2 ORDER BY ts DESC, id LIMIT 1", -1, &st, NULL) !=
	    SQLITE_OK)
		return -1;
	sqlite3_bind_int64(st, 1, clock);
	sqlite3_bind_int64(st, 2, ts);
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		*pts = sqlite3_column_int64(st, 0);
		*pval = sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 1 : rc == SQLITE_DONE ? 0 : -1;
}

/* ts on clock; 0 with *out set, -1 when the trace cannot say. */
static int
clock_convert(sqlite3 *db, int64_t clock, int64_t ts, int64_t *out)
{
	int64_t nts, nval, pts, pval;
	int hn, hp;

	if ((hn = clock_point(db, clock, ts, 1, &nts, &nval)) == -1 ||
	    (hp = clock_point(db, clock, ts, 0, &pts, &pval)) == -1)
		return -1;
	if (!hn && !hp)
		return -1;
	if (!hn)
		*out = pval + (ts - pts);
	else if (!hp || nts == ts)
		*out = nval;
	else
		*out = pval + (ts - pts) < nval ? pval + (ts - pts) : nval;
	return 0;
}

/* The integer argument, or 0 after setting NULL or an error. */
static int
ts_arg(sqlite3_context *ctx, sqlite3_value *v, const char *fn, int64_t *ts)
{
	char msg[96];

	switch (sqlite3_value_type(v)) {
	case SQLITE_INTEGER:
		*ts = sqlite3_value_int64(v);
		return 1;
	case SQLITE_NULL:
		sqlite3_result_null(ctx);
		return 0;
	default:
		snprintf(msg, sizeof(msg), "%s: first argument should be"
		    " timestamp", fn);
		sqlite3_result_error(ctx, msg, -1);
		return 0;
	}
}

static void
fn_to_clock(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	int64_t clock = (int64_t)(intptr_t)sqlite3_user_data(ctx), ts, v;

	(void)argc;
	if (!ts_arg(ctx, argv[0], clock == CLOCK_REALTIME_ID ? "TO_REALTIME" :
	    "TO_MONOTONIC", &ts))
		return;
	if (clock_convert(sqlite3_context_db_handle(ctx), clock, ts, &v) == 0)
		sqlite3_result_int64(ctx, v);
	else
		sqlite3_result_null(ctx);
}

static void
fn_abs_time_str(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	int64_t ts, rt, s, ns;
	struct tm tm;
	time_t t;
	char buf[64];

	(void)argc;
	if (!ts_arg(ctx, argv[0], "ABS_TIME_STR", &ts))
		return;
	if (clock_convert(sqlite3_context_db_handle(ctx), CLOCK_REALTIME_ID,
	    ts, &rt) == -1) {
		sqlite3_result_null(ctx);
		return;
	}
	s = rt / 1000000000;
	ns = rt % 1000000000;
	t = (time_t)s;
	if (gmtime_r(&t, &tm) == NULL) {
		sqlite3_result_null(ctx);
		return;
	}
	snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%09" PRId64,
	    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
	    tm.tm_min, tm.tm_sec, ns);
	sqlite3_result_text(ctx, buf, -1, SQLITE_TRANSIENT);
}

static void
fn_to_timecode(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	int64_t ns, us, ms, ss, mm, hh;
	char buf[96];

	(void)argc;
	if (!ts_arg(ctx, argv[0], "TO_TIMECODE", &ns))
		return;
	us = ns / 1000;
	ns %= 1000;
	ms = us / 1000;
	us %= 1000;
	ss = ms / 1000;
	ms %= 1000;
	mm = ss / 60;
	ss %= 60;
	hh = mm / 60;
	mm %= 60;
	snprintf(buf, sizeof(buf), "%02" PRId64 ":%02" PRId64 ":%02" PRId64
	    " %03" PRId64 " %03" PRId64 " %03" PRId64, hh, mm, ss, ms, us, ns);
	sqlite3_result_text(ctx, buf, -1, SQLITE_TRANSIENT);
}

int
ops_clock_fns_register(sqlite3 *db, char **err)
{
	static const struct {
		const char	*name;
		void		(*fn)(sqlite3_context *, int, sqlite3_value **);
		intptr_t	 clock;
	} fns[] = {
		{ "to_realtime", fn_to_clock, CLOCK_REALTIME_ID },
		{ "to_monotonic", fn_to_clock, CLOCK_MONOTONIC_ID },
		{ "abs_time_str", fn_abs_time_str, 0 },
		{ "to_timecode", fn_to_timecode, 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
		if (sqlite3_create_function_v2(db, fns[i].name, 1, SQLITE_UTF8 |
		    SQLITE_DETERMINISTIC, (void *)fns[i].clock, fns[i].fn, NULL,
		    NULL, NULL) != SQLITE_OK) {
			ops_seterr(err, "%s: %s", fns[i].name,
			    sqlite3_errmsg(db));
			return -1;
		}
	return 0;
}
