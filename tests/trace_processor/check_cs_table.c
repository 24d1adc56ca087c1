/*
 * The columnar tables (storage/cs_*): cells, NULLs, widening, reserved
 * and deleted rows, and SQL over them checked row for row against the
 * same data in an ordinary SQLite table, for every access path the
 * virtual table plans (ids, sorted columns, the value index, scans).
 */
#include <check.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "storage/cs_pool.h"
#include "storage/cs_table.h"
#include "storage/cs_vtab.h"

enum { C_ID, C_TS, C_K, C_S, C_V, C_A, C_RN };
static const struct cs_coldef cols[] = {
	{ "id", CS_ID, 0, 0, 0 }, { "ts", CS_I64, 0, 0, 0 }, { "k", CS_I32, 0, 0, 0 },
	{ "s", CS_STR, 0, 0, 0 }, { "v", CS_F64, 0, 0, 0 },
	{ "a", CS_ALIAS, C_K, 0, 0 }, { "rn", CS_REF, C_K, 1, 0 },
};
#define NCOLS (sizeof(cols) / sizeof(cols[0]))
/* The reference: 97 rows named u0 to u6 (names repeat). */
static const struct cs_coldef ucols[] = {
	{ "id", CS_ID, 0, 0, 0 }, { "name", CS_STR, 0, 0, 0 },
};
#define NREF 97

struct fixture {
	struct cs_pool	*pool;
	struct cs_table	*t, *u;
	struct cs_table	*tabs[2];
	struct cs_db	 cdb;
	sqlite3		*db;
};

static void
fx_open(struct fixture *f)
{
	char name[16];
	uint32_t r;

	memset(f, 0, sizeof(*f));
	ck_assert_ptr_nonnull(f->pool = cs_pool_new());
	ck_assert_ptr_nonnull(f->t = cs_table_new("t", cols, NCOLS, f->pool));
	ck_assert_ptr_nonnull(f->u = cs_table_new("u", ucols, 2, f->pool));
	for (r = 0; r < NREF; r++) {
		snprintf(name, sizeof(name), "u%u", r % 7);
		ck_assert_int_eq(cs_row_put(f->u, r), 0);
		cs_set_str(f->u, 1, r, name, strlen(name));
	}
	cs_table_set_ref(f->t, f->u);
	f->tabs[0] = f->t;
	f->tabs[1] = f->u;
	f->cdb.tables = f->tabs;
	f->cdb.ntables = 2;
	ck_assert_int_eq(sqlite3_open(":memory:", &f->db), SQLITE_OK);
	ck_assert_int_eq(cs_vtab_register(f->db, &f->cdb), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(f->db, "CREATE VIRTUAL TABLE t USING __cs;"
	    "CREATE TABLE r(id INTEGER PRIMARY KEY, ts INTEGER, k INTEGER,"
	    " s TEXT, v REAL, a INTEGER, rn TEXT)", NULL, NULL, NULL),
	    SQLITE_OK);
}

static void
fx_close(struct fixture *f)
{
	sqlite3_close(f->db);
	cs_table_free(f->t);
	cs_table_free(f->u);
	cs_pool_free(f->pool);
}

/* Row r in both tables: the columnar one and the reference r. */
static void
put(struct fixture *f, uint32_t r, int64_t ts, int64_t k, const char *s,
    double v)
{
	sqlite3_stmt *st;

	ck_assert_int_eq(cs_row_put(f->t, r), 0);
	cs_set_int(f->t, C_TS, r, ts);
	cs_set_int(f->t, C_K, r, k);
	cs_set_str(f->t, C_S, r, s, s ? strlen(s) : 0);
	cs_set_real(f->t, C_V, r, v);
	ck_assert_int_eq(sqlite3_prepare_v2(f->db, "INSERT OR REPLACE INTO r"
	    " VALUES(?,?,?,?,?,?,?)", -1, &st, NULL), SQLITE_OK);
	sqlite3_bind_int64(st, 1, r);
	if (ts != CS_NULL_I64)
		sqlite3_bind_int64(st, 2, ts);
	if (k != CS_NULL_I64) {
		sqlite3_bind_int64(st, 3, k);
		sqlite3_bind_int64(st, 6, k);
		if (k >= 0 && k < NREF)
			sqlite3_bind_text(st, 7, (const char *[]){ "u0", "u1",
			    "u2", "u3", "u4", "u5", "u6" }[k % 7], -1,
			    SQLITE_TRANSIENT);
	}
	if (s != NULL)
		sqlite3_bind_text(st, 4, s, -1, SQLITE_STATIC);
	if (!isnan(v))
		sqlite3_bind_double(st, 5, v);
	ck_assert_int_eq(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
}

/* Every row of a query, as text. */
static char *
rows_of(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	size_t len = 0, cap = 256;
	char *out = malloc(cap);
	int rc, i;

	ck_assert_ptr_nonnull(out);
	out[0] = '\0';
	rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	ck_assert_msg(rc == SQLITE_OK, "%s: %s", sql, sqlite3_errmsg(db));
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		for (i = 0; i < sqlite3_column_count(st); i++) {
			const char *v = (const char *)sqlite3_column_text(st, i);
			size_t n = (v ? strlen(v) : 4) + 2;

			while (len + n + 1 > cap)
				ck_assert_ptr_nonnull(out = realloc(out,
				    cap *= 2));
			len += (size_t)snprintf(out + len, cap - len, "%s%c",
			    v ? v : "NULL", i + 1 < sqlite3_column_count(st) ?
			    ',' : '\n');
		}
	}
	ck_assert_msg(rc == SQLITE_DONE, "%s: %s", sql, sqlite3_errmsg(db));
	sqlite3_finalize(st);
	return out;
}

/* q with each @ replaced by table name c. */
static void
subst(char *out, size_t cap, const char *q, char c)
{
	size_t i;

	for (i = 0; q[i] != '\0' && i + 1 < cap; i++)
		out[i] = q[i] == '@' ? c : q[i];
	out[i] = '\0';
}

/* The query over t gives what it gives over r, row for row. */
static void
same(struct fixture *f, const char *q)
{
	char sql_t[1024], sql_r[1024], *a, *b;

	subst(sql_t, sizeof(sql_t), q, 't');
	subst(sql_r, sizeof(sql_r), q, 'r');
	a = rows_of(f->db, sql_t);
	b = rows_of(f->db, sql_r);
	ck_assert_msg(strcmp(a, b) == 0, "%s\ncolumnar:\n%.400s\nreference:\n"
	    "%.400s", sql_t, a, b);
	free(a);
	free(b);
}

static const char *const queries[] = {
	"SELECT * FROM @ ORDER BY id",
	"SELECT * FROM @ WHERE id = 77",
	"SELECT * FROM @ WHERE id = '77'",
	"SELECT * FROM @ WHERE id IN (3, 9000, 5000, -1) ORDER BY id",
	"SELECT id FROM @ WHERE id > 100 AND id <= 4200 ORDER BY id",
	"SELECT id FROM @ WHERE id >= 9000 ORDER BY id DESC",
	"SELECT id, ts FROM @ WHERE ts BETWEEN 5000 AND 6000 ORDER BY id",
	"SELECT id, ts FROM @ WHERE ts > 5000 AND ts < 5010 ORDER BY id",
	"SELECT id FROM @ WHERE ts = 4242 ORDER BY id",
	"SELECT id, ts FROM @ WHERE ts >= 9990 ORDER BY ts DESC, id DESC",
	"SELECT id, ts FROM @ WHERE ts < 12.5 ORDER BY id",
	"SELECT id FROM @ WHERE k = 7 ORDER BY id",
	"SELECT id FROM @ WHERE k = 7 AND ts BETWEEN 1500 AND 3000 ORDER BY id",
	"SELECT id FROM @ WHERE k = 7 AND ts > 1500 ORDER BY id",
	"SELECT id FROM @ WHERE s = 'name5' AND ts >= 2000 AND ts < 2100"
	" ORDER BY id",
	"SELECT id FROM @ WHERE ts = 2000 AND k > 5 ORDER BY id",
	"SELECT id FROM @ WHERE k = 7 AND id > 5000 ORDER BY id",
	"SELECT id FROM @ WHERE a = 7 ORDER BY id",
	"SELECT id FROM @ WHERE k = '7' ORDER BY id",
	"SELECT id FROM @ WHERE k = 7.0 ORDER BY id",
	"SELECT id FROM @ WHERE k = NULL",
	"SELECT id FROM @ WHERE k IS NULL ORDER BY id",
	"SELECT id FROM @ WHERE k IN (1, 2, 3) ORDER BY id",
	/* The rows of one value come in id order, backwards too. */
	"SELECT id FROM @ WHERE k = 7 ORDER BY id DESC",
	"SELECT id, ts FROM @ WHERE k = 7 ORDER BY ts DESC",
	"SELECT id FROM @ WHERE k = 7 AND s = 'name5' ORDER BY id DESC",
	"SELECT id FROM @ WHERE k IN (7, 1, 3) ORDER BY ts DESC",
	"SELECT id FROM @ WHERE s IN ('name5', 'name1') ORDER BY id DESC",
	"SELECT id FROM @ WHERE k = 4294967296 ORDER BY id",
	"SELECT id FROM @ WHERE s = 'name5' ORDER BY id",
	"SELECT id FROM @ WHERE s = 'NAME5' COLLATE NOCASE ORDER BY id",
	"SELECT id FROM @ WHERE s = 'absent'",
	"SELECT id FROM @ WHERE s = '' ORDER BY id",
	"SELECT id FROM @ WHERE s IS NULL ORDER BY id",
	"SELECT count(*), sum(v), min(ts), max(ts) FROM @",
	"SELECT k, count(*) FROM @ GROUP BY k ORDER BY k",
	"SELECT x.id, y.id FROM @ x JOIN @ y ON y.k = x.id"
	" ORDER BY x.id, y.id",
	"SELECT id, ts FROM @ ORDER BY ts LIMIT 20",
	"SELECT s, count(*) FROM @ GROUP BY s ORDER BY s",
	"SELECT DISTINCT s FROM @ ORDER BY 1",
	"SELECT s FROM @ WHERE id < 300 ORDER BY s COLLATE NOCASE, id",
	"SELECT s FROM @ ORDER BY s DESC LIMIT 40",
	"SELECT k FROM @ ORDER BY k",
	"SELECT k, ts, id FROM @ ORDER BY k, ts, id",
	"SELECT k, ts FROM @ WHERE v > 100 ORDER BY k, ts",
	"SELECT s, id FROM @ ORDER BY s, id",
	"SELECT k FROM @ ORDER BY k DESC LIMIT 300",
	"SELECT ts FROM @ ORDER BY ts DESC LIMIT 50",
	"SELECT rn, count(*), sum(k) FROM @ GROUP BY rn ORDER BY rn",
	"SELECT id FROM @ WHERE rn = 'u3' ORDER BY id",
	"SELECT id, rn FROM @ WHERE id BETWEEN 90 AND 110 ORDER BY id",
	"SELECT typeof(ts), typeof(k), typeof(s), typeof(v), count(*)"
	" FROM @ GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4",
	/* constraints the scan tests itself (cs_filter.c) */
	"SELECT id FROM @ WHERE k > 90 ORDER BY id",
	"SELECT id FROM @ WHERE k >= 95 AND k < 97 ORDER BY id",
	"SELECT id FROM @ WHERE k <= 1 ORDER BY id",
	"SELECT count(*) FROM @ WHERE k != 7",
	"SELECT count(*) FROM @ WHERE k <> 7.0",
	"SELECT count(*) FROM @ WHERE k != 7.5",
	"SELECT id FROM @ WHERE k > 95.5 ORDER BY id",
	"SELECT id FROM @ WHERE k >= 95.5 ORDER BY id",
	"SELECT id FROM @ WHERE k < 1.5 ORDER BY id",
	"SELECT id FROM @ WHERE k <= 0.5 ORDER BY id",
	"SELECT id FROM @ WHERE k = 7.5",
	"SELECT id FROM @ WHERE k > '95' ORDER BY id",
	"SELECT count(*) FROM @ WHERE k < 'abc'",
	"SELECT count(*) FROM @ WHERE k > 'abc'",
	"SELECT count(*) FROM @ WHERE k > 1e300",
	"SELECT count(*) FROM @ WHERE k < -1e300",
	"SELECT count(*) FROM @ WHERE k > -9223372036854775808",
	"SELECT count(*) FROM @ WHERE k < 9223372036854775807",
	"SELECT count(*) FROM @ WHERE k > NULL",
	"SELECT id FROM @ WHERE ts > 5000.5 AND ts < 5003 ORDER BY id",
	"SELECT id FROM @ WHERE id > 100 AND k <= 2 ORDER BY id",
	"SELECT k, count(*) FROM @ WHERE k > 50 GROUP BY k ORDER BY k",
	"SELECT s, count(*) FROM @ WHERE s LIKE '%5' GROUP BY s ORDER BY s",
	"SELECT s, count(*) FROM @ WHERE s LIKE 'NAME1_' GROUP BY s ORDER BY s",
	"SELECT count(*) FROM @ WHERE s GLOB 'name1*'",
	"SELECT count(*) FROM @ WHERE s GLOB 'NAME1*'",
	"SELECT count(*) FROM @ WHERE s LIKE ''",
	"SELECT count(*) FROM @ WHERE s LIKE NULL",
	"SELECT count(*) FROM @ WHERE s LIKE 5",
	"SELECT count(*) FROM @ WHERE s != 'name5'",
	"SELECT count(*) FROM @ WHERE s != 'absent'",
	"SELECT count(*) FROM @ WHERE s != ''",
	"SELECT id FROM @ WHERE k = 7 AND s LIKE '%7' ORDER BY id",
	"SELECT id FROM @ WHERE k IN (5, 6) AND s LIKE 'name%' ORDER BY id",
	"SELECT rn, count(*) FROM @ WHERE rn LIKE 'U3' GROUP BY rn",
	"SELECT count(*) FROM @ WHERE rn != 'u3'",
	"SELECT count(*) FROM @ WHERE a > 10 AND a < 20",
	"SELECT x.id, y.id FROM @ x JOIN @ y ON y.k = x.id AND y.s LIKE"
	" '%1' WHERE x.id < 30 ORDER BY x.id, y.id",
	"SELECT x.id, count(*) FROM @ x JOIN @ y ON y.k > x.k"
	" WHERE x.id < 40 GROUP BY x.id ORDER BY x.id",
	"SELECT x.id, count(*) FROM @ x JOIN @ y ON y.k = x.s"
	" WHERE x.id < 40 GROUP BY x.id ORDER BY x.id",
	"SELECT x.id, y.id FROM @ x JOIN @ y ON y.ts = x.k + 1000"
	" WHERE x.id < 10 ORDER BY x.id, y.id",
	/* IN lists taken whole, their rows in the index's order */
	"SELECT s, count(*), min(id), max(id) FROM @ WHERE s IN ('name3',"
	" 'name1', 'absent', 'name12', 'name1', NULL) GROUP BY s ORDER BY s",
	"SELECT s FROM @ WHERE s IN ('name3', 'name1') ORDER BY s DESC"
	" LIMIT 50",
	"SELECT s, id FROM @ WHERE s IN ('name3', '') ORDER BY s, id",
	"SELECT rn, count(*) FROM @ WHERE rn IN ('u5', 'u0', 'u9')"
	" GROUP BY rn ORDER BY rn",
	"SELECT k, count(*) FROM @ WHERE k IN (9, 3, 3.0, '5', 7.5, NULL, 'x')"
	" GROUP BY k ORDER BY k",
	"SELECT k, id FROM @ WHERE k IN (9, 3) ORDER BY k DESC, id DESC",
	"SELECT count(*) FROM @ WHERE s IN (SELECT s FROM @ WHERE id < 3)",
	"SELECT s, count(DISTINCT k) FROM @ WHERE s IN ('name4', 'name2')"
	" AND k > 20 GROUP BY s ORDER BY s",
	"SELECT count(*) FROM @ WHERE s IN (5, 'name5')",
};

static void
check_queries(struct fixture *f)
{
	size_t i;

	for (i = 0; i < sizeof(queries) / sizeof(queries[0]); i++)
		same(f, queries[i]);
}

/* 10,000 rows over three blocks: ts rising, keys repeating, NULLs. */
static void
fill(struct fixture *f)
{
	char s[32];
	uint32_t r;

	for (r = 0; r < 10000; r++) {
		snprintf(s, sizeof(s), "name%u", r % 13);
		put(f, r, 1000 + r / 2, r % 11 == 0 ? CS_NULL_I64 : r % 97,
		    r % 17 == 0 ? NULL : r % 19 == 0 ? "" : s,
		    r % 23 == 0 ? NAN : r * 0.5);
	}
}

START_TEST(test_sql_matches_reference)
{
	struct fixture f;

	fx_open(&f);
	fill(&f);
	ck_assert(cs_col_sorted(f.t, C_TS));
	check_queries(&f);
	/* Out of order: ranges on ts fall back, still right. */
	put(&f, 5000, 3, 7, "name5", 1.0);
	ck_assert(!cs_col_sorted(f.t, C_TS));
	check_queries(&f);
	fx_close(&f);
}
END_TEST

START_TEST(test_cells)
{
	struct fixture f;
	int64_t i;
	double d;
	const char *s;
	size_t len;

	fx_open(&f);
	ck_assert_int_eq(cs_row_put(f.t, 0), 0);
	/* A new row is NULL throughout, but for its id. */
	ck_assert_int_eq(cs_get(f.t, C_ID, 0, &i, &d, &s, &len), CS_I64);
	ck_assert_int_eq(i, 0);
	ck_assert_int_eq(cs_get(f.t, C_TS, 0, &i, &d, &s, &len), -1);
	ck_assert_int_eq(cs_get(f.t, C_S, 0, &i, &d, &s, &len), -1);
	ck_assert_int_eq(cs_get(f.t, C_V, 0, &i, &d, &s, &len), -1);
	/* The empty string is not NULL; NULs inside a text are kept. */
	cs_set_str(f.t, C_S, 0, "", 0);
	ck_assert_int_eq(cs_get(f.t, C_S, 0, &i, &d, &s, &len), CS_STR);
	ck_assert_uint_eq(len, 0);
	cs_set_str(f.t, C_S, 0, "a\0b", 3);
	ck_assert_int_eq(cs_get(f.t, C_S, 0, &i, &d, &s, &len), CS_STR);
	ck_assert_uint_eq(len, 3);
	ck_assert_int_eq(memcmp(s, "a\0b", 3), 0);
	/* A 32-bit column widens for a value it cannot hold, and keeps
	 * what it held. */
	ck_assert_int_eq(cs_row_put(f.t, 1), 0);
	cs_set_int(f.t, C_K, 0, -5);
	cs_set_int(f.t, C_K, 1, INT32_MIN);
	ck_assert_int_eq(cs_get_int(f.t, C_K, 0), -5);
	ck_assert_int_eq(cs_get_int(f.t, C_K, 1), INT32_MIN);
	/* The one offset a 32-bit cell cannot hold: its NULL. */
	cs_set_int(f.t, C_K, 1, -5 + (int64_t)INT32_MIN);
	ck_assert_int_eq(cs_get_int(f.t, C_K, 1), -5 + (int64_t)INT32_MIN);
	ck_assert_int_eq(cs_get_int(f.t, C_K, 0), -5);
	cs_set_int(f.t, C_K, 1, (int64_t)1 << 40);
	ck_assert_int_eq(cs_get_int(f.t, C_K, 0), -5);
	ck_assert_int_eq(cs_get_int(f.t, C_K, 1), (int64_t)1 << 40);
	ck_assert_int_eq(cs_get_int(f.t, C_A, 1), (int64_t)1 << 40);
	/* Offsets from a block's base until one does not fit, then full
	 * values; the extremes of int64 (but INT64_MIN, NULL) survive. */
	{
		static const int64_t vals[] = { 10000000000000LL,
		    10000000000005LL, 9999999999999LL, 5, INT64_MAX,
		    INT64_MIN + 1, -1 };
		uint32_t r;

		for (r = 0; r < 7; r++) {
			ck_assert_int_eq(cs_row_put(f.t, 100 + r), 0);
			cs_set_int(f.t, C_TS, 100 + r, vals[r]);
			ck_assert_int_eq(cs_get_int(f.t, C_TS, 100 + r),
			    vals[r]);
		}
		for (r = 0; r < 7; r++)
			ck_assert_int_eq(cs_get_int(f.t, C_TS, 100 + r),
			    vals[r]);
		cs_set_int(f.t, C_TS, 101, CS_NULL_I64);
		ck_assert_int_eq(cs_get(f.t, C_TS, 101, &i, &d, &s, &len), -1);
	}
	/* Interned once. */
	ck_assert_uint_eq(cs_pool_intern(f.pool, "x", 1),
	    cs_pool_intern(f.pool, "x", 1));
	ck_assert_uint_eq(cs_pool_find(f.pool, "y", 1), 0);
	fx_close(&f);
}
END_TEST

START_TEST(test_reserved_rows)
{
	struct fixture f;
	char *a;

	fx_open(&f);
	/* Row 10 first: 0 to 9 are reserved, not rows. */
	ck_assert_int_eq(cs_row_put(f.t, 10), 0);
	cs_set_int(f.t, C_TS, 10, 100);
	ck_assert_uint_eq(cs_table_rows(f.t), 11);
	ck_assert(!cs_row_present(f.t, 4));
	a = rows_of(f.db, "SELECT id, ts FROM t");
	ck_assert_str_eq(a, "10,100\n");
	free(a);
	ck_assert_int_eq(cs_row_put(f.t, 4), 0);
	cs_set_int(f.t, C_TS, 4, 40);
	a = rows_of(f.db, "SELECT id, ts FROM t WHERE ts >= 0 ORDER BY ts");
	ck_assert_str_eq(a, "4,40\n10,100\n");
	free(a);
	a = rows_of(f.db, "SELECT count(*) FROM t WHERE id = 5");
	ck_assert_str_eq(a, "0\n");
	free(a);
	fx_close(&f);
}
END_TEST

START_TEST(test_read_only_and_delete)
{
	struct fixture f;
	size_t before;
	char *a;

	fx_open(&f);
	fill(&f);
	ck_assert_int_ne(sqlite3_exec(f.db, "INSERT INTO t(ts) VALUES(1)",
	    NULL, NULL, NULL), SQLITE_OK);
	ck_assert_int_ne(sqlite3_exec(f.db, "UPDATE t SET ts = 1", NULL, NULL,
	    NULL), SQLITE_OK);
	ck_assert_int_ne(sqlite3_exec(f.db, "DELETE FROM t", NULL, NULL,
	    NULL), SQLITE_OK);
	a = rows_of(f.db, "SELECT count(*) FROM t");
	ck_assert_str_eq(a, "10000\n");
	free(a);
	/* Allowed: the first two blocks go, and their memory with them. */
	f.cdb.deletable = 1;
	ck_assert_int_eq(sqlite3_exec(f.db, "DELETE FROM t WHERE id < 8192;"
	    "DELETE FROM r WHERE id < 8192", NULL, NULL, NULL), SQLITE_OK);
	f.cdb.deletable = 0;
	before = cs_table_bytes(f.t);
	cs_table_compact(f.t);
	ck_assert_uint_lt(cs_table_bytes(f.t), before);
	check_queries(&f);
	fx_close(&f);
}
END_TEST

/*
 * A scan reads a block's cells through a view it keeps: cells written
 * while it runs (a 32-bit block widened, a string set) are read as they
 * are now, not as the view saw them.
 */
START_TEST(test_scan_sees_writes)
{
	struct fixture f;
	sqlite3_stmt *st;
	uint32_t r;

	fx_open(&f);
	fill(&f);
	ck_assert_int_eq(sqlite3_prepare_v2(f.db, "SELECT id, k, s FROM t",
	    -1, &st, NULL), SQLITE_OK);
	for (r = 0; r < 10000; r++) {
		ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
		ck_assert_int_eq(sqlite3_column_int64(st, 0), r);
		if (r == 10)
			put(&f, 20, 1005, INT64_C(10000000000000), "later",
			    1.0);
		if (r == 20) {
			ck_assert_int_eq(sqlite3_column_int64(st, 1),
			    INT64_C(10000000000000));
			ck_assert_str_eq((const char *)sqlite3_column_text(st,
			    2), "later");
		} else if (r == 21) {
			/* The widened block keeps the others' values. */
			ck_assert_int_eq(sqlite3_column_int64(st, 1), 21 % 97);
		}
	}
	ck_assert_int_eq(sqlite3_step(st), SQLITE_DONE);
	sqlite3_finalize(st);
	fx_close(&f);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("cs_table");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_cells);
	tcase_add_test(tc, test_reserved_rows);
	tcase_add_test(tc, test_sql_matches_reference);
	tcase_add_test(tc, test_read_only_and_delete);
	tcase_add_test(tc, test_scan_sees_writes);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
