/*
 * SQLite's temporary files in memory (storage/tp_tempvfs.c): a file is
 * written and read across chunk edges, with holes and short reads as a
 * disk file gives them; a sort far larger than SQLite's cache (so spilled
 * to temporary files) and a temporary table give the right rows. That no
 * file is made on disk is checked where it matters, in the sandboxed
 * shell (check_tp_cli.sh: a spilled sort there would die opening one).
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "tp_int.h"

static sqlite3_file *
temp_open(sqlite3_vfs **vfs)
{
	sqlite3_file *f;
	int out;

	ck_assert_int_eq(tp_tempvfs_register(), 0);
	*vfs = sqlite3_vfs_find(NULL);
	ck_assert_ptr_nonnull(*vfs);
	ck_assert_ptr_nonnull(f = calloc(1, (size_t)(*vfs)->szOsFile));
	ck_assert_int_eq((*vfs)->xOpen(*vfs, NULL, f, SQLITE_OPEN_READWRITE |
	    SQLITE_OPEN_CREATE | SQLITE_OPEN_DELETEONCLOSE |
	    SQLITE_OPEN_TEMP_JOURNAL, &out), SQLITE_OK);
	return f;
}

START_TEST(test_file_ops)
{
	sqlite3_vfs *vfs;
	sqlite3_file *f = temp_open(&vfs);
	const sqlite3_io_methods *io = f->pMethods;
	unsigned char *w = malloc(300000), *r = malloc(300000);
	sqlite3_int64 size;
	size_t i;

	for (i = 0; i < 300000; i++)
		w[i] = (unsigned char)(i * 7 + 3);
	/* Written past the end, across several chunks: a hole before. */
	ck_assert_int_eq(io->xWrite(f, w, 200000, 1000), SQLITE_OK);
	ck_assert_int_eq(io->xFileSize(f, &size), SQLITE_OK);
	ck_assert_int_eq(size, 201000);
	ck_assert_int_eq(io->xRead(f, r, 1000, 0), SQLITE_OK);
	for (i = 0; i < 1000; i++)
		ck_assert_int_eq(r[i], 0);
	ck_assert_int_eq(io->xRead(f, r, 200000, 1000), SQLITE_OK);
	ck_assert_mem_eq(r, w, 200000);
	/* Overwritten in the middle, straddling a chunk edge. */
	ck_assert_int_eq(io->xWrite(f, w + 5, 70000, 65000), SQLITE_OK);
	ck_assert_int_eq(io->xRead(f, r, 70000, 65000), SQLITE_OK);
	ck_assert_mem_eq(r, w + 5, 70000);
	/* A read past the end: the rest zeros, a short read. */
	memset(r, 0xff, 3000);
	ck_assert_int_eq(io->xRead(f, r, 3000, 200000), SQLITE_IOERR_SHORT_READ);
	ck_assert_mem_eq(r, w + 199000, 1000);
	for (i = 1000; i < 3000; i++)
		ck_assert_int_eq(r[i], 0);
	ck_assert_int_eq(io->xRead(f, r, 10, 500000), SQLITE_IOERR_SHORT_READ);
	/* Truncated, then grown again: the cut part reads as zeros. */
	ck_assert_int_eq(io->xTruncate(f, 100), SQLITE_OK);
	ck_assert_int_eq(io->xWrite(f, w, 10, 200), SQLITE_OK);
	ck_assert_int_eq(io->xRead(f, r, 210, 0), SQLITE_OK);
	ck_assert_mem_eq(r + 200, w, 10);
	for (i = 100; i < 200; i++)
		ck_assert_int_eq(r[i], 0);
	ck_assert_int_eq(io->xClose(f), SQLITE_OK);
	free(f);
	free(w);
	free(r);
}
END_TEST

static int64_t
query_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	int64_t v;

	ck_assert_int_eq(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
	v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

START_TEST(test_sort_spills)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	int64_t prev = INT64_MIN, n = 0, v;

	ck_assert_int_eq(tp_tempvfs_register(), 0);
	ck_assert_int_eq(sqlite3_open(":memory:", &db), SQLITE_OK);
	/* A tiny cache: the sort below runs in many spilled runs. */
	ck_assert_int_eq(sqlite3_exec(db, "PRAGMA temp_store=FILE;"
	    " PRAGMA cache_size=-64; CREATE TEMP TABLE t(x INTEGER, pad TEXT);"
	    " WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s"
	    " WHERE i < 200000) INSERT INTO t SELECT (i * 2654435761) % 1000003,"
	    " printf('%040d', i) FROM s;", NULL, NULL, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_prepare_v2(db, "SELECT x, pad FROM t ORDER BY"
	    " x, pad", -1, &st, NULL), SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		v = sqlite3_column_int64(st, 0);
		ck_assert_int_ge(v, prev);
		prev = v;
		n++;
	}
	sqlite3_finalize(st);
	ck_assert_int_eq(n, 200000);
	ck_assert_int_eq(query_int(db, "SELECT COUNT(*) FROM (SELECT DISTINCT"
	    " x FROM t)"), query_int(db, "SELECT COUNT(*) FROM (SELECT x FROM t"
	    " GROUP BY x)"));
	ck_assert_int_eq(query_int(db, "SELECT SUM(x) FROM t"),
	    query_int(db, "SELECT SUM(x) FROM (SELECT x FROM t ORDER BY pad"
	    " DESC)"));
	sqlite3_close(db);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("tp_tempvfs");
	TCase *tc = tcase_create("tempvfs");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_file_ops);
	tcase_add_test(tc, test_sort_spills);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
