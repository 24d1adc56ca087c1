/*
 * check_psql: PerfettoSQL on an engine's database, through psql_next()
 * as the shell and the RPC walk statements: errors and their positions,
 * what the scanner must not mistake for a statement's end or a macro,
 * DROP, packages read from a directory, and hostile text (unterminated
 * strings and invocations, runaway macro and include recursion).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tp.h"
#include "psql/psql.h"

static struct tp *tp;

static void
setup(void)
{
	char *err = NULL;

	tp = tp_new(NULL, &err);
	ck_assert_msg(tp != NULL, "%s", err ? err : "?");
	ck_assert_int_eq(tp_eof(tp), 0);
}

static void
teardown(void)
{
	tp_free(tp);
}

/*
 * Runs sql; returns the first column of the last row of the last
 * statement with rows (malloc'd, "" if none), or NULL with *err set.
 */
static char *
run(const char *sql, char **err)
{
	struct psql *ps = psql_of(tp_db(tp));
	struct psql_iter it;
	sqlite3_stmt *st;
	char *out = strdup("");
	int rc;

	*err = NULL;
	psql_iter_init(&it, "stdin", sql, strlen(sql));
	while ((rc = psql_next(ps, &it, &st, err)) == 1) {
		if (st == NULL)
			continue;
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			free(out);
			out = strdup(sqlite3_column_type(st, 0) == SQLITE_NULL ?
			    "NULL" : (const char *)sqlite3_column_text(st, 0));
		}
		if (rc != SQLITE_DONE)
			*err = psql_step_error(ps, sqlite3_errmsg(tp_db(tp)));
		sqlite3_finalize(st);
		if (*err != NULL)
			break;
	}
	if (*err != NULL) {
		free(out);
		return NULL;
	}
	return out;
}

static void
expect(const char *sql, const char *want)
{
	char *err, *got = run(sql, &err);

	ck_assert_msg(got != NULL, "%s: %s", sql, err);
	ck_assert_msg(strcmp(got, want) == 0, "%s: got '%s', want '%s'",
	    sql, got, want);
	free(got);
}

/* The statement fails; its message holds each of the pieces given. */
static void
expect_error(const char *sql, const char *piece1, const char *piece2)
{
	char *err, *got = run(sql, &err);

	ck_assert_msg(got == NULL, "%s: succeeded with '%s'", sql, got);
	ck_assert_msg(strstr(err, piece1) != NULL, "%s: '%s' not in '%s'", sql,
	    piece1, err);
	ck_assert_msg(piece2 == NULL || strstr(err, piece2) != NULL,
	    "%s: '%s' not in '%s'", sql, piece2, err);
	free(err);
}

START_TEST(test_errors_have_positions)
{
	expect_error("select 1;\nselect nosuch from slice;",
	    "File \"stdin\" line 2 col 8\n    select nosuch from slice\n"
	    "           ^\n", "no such column: nosuch");
	expect_error("INCLUDE PERFETTO MODULE nosuch.mod;",
	    "INCLUDE: Package 'nosuch.mod' not found", NULL);
	expect_error("INCLUDE PERFETTO MODULE time.nosuch;",
	    "INCLUDE: unknown module 'time.nosuch'", NULL);
	expect_error("CREATE PERFETTO TABLE t(a LONG, c STRING) AS"
	    " SELECT 1 AS a, 2 AS b;", "declared in the schema, but do not"
	    " exist: c", "exist, but are not declared: b");
	expect_error("CREATE PERFETTO FUNCTION f(x LONG) RETURNS LONG AS"
	    " SELECT $x; SELECT f('a');", "line 1 col 63",
	    "f[arg=a]: argument 0 does not have expected type: expected LONG,"
	    " actual STRING");
	expect_error("CREATE PERFETTO FUNCTION g() RETURNS TABLE(a LONG) AS"
	    " SELECT 1 AS b;", "g: column b at index 0 does not match return"
	    " value name a.", NULL);
	expect_error("CREATE PERFETTO FUNCTION h() RETURNS LONG AS SELECT 1;"
	    " CREATE PERFETTO FUNCTION h() RETURNS LONG AS SELECT 2;",
	    "function already exists", NULL);
	expect_error("CREATE PERFETTO FUNCTION k() RETURNS LONG AS"
	    " SELECT x FROM nosuch;", "no such table: nosuch", NULL);
	expect_error("SELECT nosuch_macro!(1);", "unknown macro nosuch_macro",
	    NULL);
	expect_error("CREATE PERFETTO MACRO two(a Expr, b Expr) RETURNS Expr"
	    " AS $a + $b; SELECT two!(1);", "two: expected 2 arguments, got 1",
	    NULL);
	expect_error("CREATE PERFETTO TABLE", "expected a name", NULL);
	/* The engine is still usable after each error. */
	expect("SELECT 40 + 2;", "42");
}
END_TEST

START_TEST(test_scanner)
{
	/* ';', '!(' and '$x' inside strings, names and comments are text. */
	expect("CREATE PERFETTO MACRO m(x Expr) RETURNS Expr AS $x;"
	    " SELECT 'm!(1); $x' || \"a;b\" -- m!(2); it's\n"
	    " FROM (SELECT 'q' AS \"a;b\") /* m!(3); ' */;", "m!(1); $xq");
	/* A trigger's body holds ';' before its END. */
	expect("CREATE TABLE tr(a); CREATE TABLE tr_log(a);"
	    " CREATE TRIGGER tr_t AFTER INSERT ON tr BEGIN"
	    " INSERT INTO tr_log VALUES (new.a); INSERT INTO tr_log VALUES"
	    " (new.a * 10); END; INSERT INTO tr VALUES (4);"
	    " SELECT sum(a) FROM tr_log;", "44");
	/* != is not an invocation; empty statements are skipped. */
	expect(";; SELECT 1 != 2;;", "1");
	expect("-- only a comment", "");
}
END_TEST

START_TEST(test_drop)
{
	expect("CREATE PERFETTO TABLE dt AS SELECT 1 AS a;"
	    " CREATE PERFETTO INDEX dt_a ON dt(a);"
	    " CREATE PERFETTO VIEW dv AS SELECT a FROM dt;"
	    " CREATE PERFETTO FUNCTION df() RETURNS LONG AS SELECT 5;"
	    " CREATE PERFETTO FUNCTION dtf() RETURNS TABLE(x LONG) AS"
	    " SELECT 6 AS x;"
	    " CREATE PERFETTO MACRO dm() RETURNS Expr AS 7;"
	    " SELECT df() + (SELECT x FROM dtf()) + dm!() + (SELECT a FROM dv);",
	    "19");
	expect("DROP PERFETTO INDEX dt_a ON dt; DROP PERFETTO VIEW dv;"
	    " DROP PERFETTO TABLE dt; DROP PERFETTO FUNCTION df;"
	    " DROP PERFETTO FUNCTION dtf; DROP PERFETTO MACRO dm;"
	    " SELECT count(*) FROM sqlite_schema WHERE name IN ('dt', 'dv',"
	    " 'dt_a');", "0");
	expect_error("SELECT df();", "no such function: df", NULL);
	expect_error("SELECT * FROM dtf();", "no such table: dtf", NULL);
	expect_error("SELECT dm!();", "unknown macro dm", NULL);
	expect_error("DROP PERFETTO MACRO dm;", "no macro dm", NULL);
	/* Replacing a function with another argument count drops the old. */
	expect("CREATE PERFETTO FUNCTION r(a LONG) RETURNS LONG AS SELECT $a;"
	    " CREATE OR REPLACE PERFETTO FUNCTION r(a LONG, b LONG) RETURNS"
	    " LONG AS SELECT $a * $b; SELECT r(6, 7);", "42");
	expect_error("SELECT r(6);", "wrong number of arguments", NULL);
}
END_TEST

static void
write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

START_TEST(test_package_dir)
{
	char dir[] = "/tmp/check_psql.XXXXXX", path[256], *err = NULL;
	struct psql *ps = psql_of(tp_db(tp));
	struct psql_pkgs *pkgs = NULL, *again = NULL, *over = NULL;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/mypkg", dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/mypkg/sub", dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/mypkg/sub/mod.sql", dir);
	write_file(path, "INCLUDE PERFETTO MODULE mypkg.base;\n"
	    "CREATE PERFETTO FUNCTION pkg_answer() RETURNS LONG AS\n"
	    "SELECT pkg_base() * 2;\n");
	snprintf(path, sizeof(path), "%s/mypkg/base.sql", dir);
	write_file(path, "CREATE PERFETTO FUNCTION pkg_base() RETURNS LONG AS"
	    " SELECT 21;\n");
	snprintf(path, sizeof(path), "%s/mypkg/loop.sql", dir);
	write_file(path, "INCLUDE PERFETTO MODULE mypkg.loop2;\n");
	snprintf(path, sizeof(path), "%s/mypkg/loop2.sql", dir);
	write_file(path, "INCLUDE PERFETTO MODULE mypkg.loop;\n"
	    "SELECT nosuch FROM slice;\n");
	snprintf(path, sizeof(path), "%s/mypkg", dir);
	ck_assert_msg(psql_pkgs_read(&pkgs, path, NULL, 0, &err) == 0, "%s",
	    err);
	ck_assert_msg(psql_pkgs_add(ps, pkgs, &err) == 0, "%s", err);
	expect("INCLUDE PERFETTO MODULE mypkg.sub.mod; SELECT pkg_answer();",
	    "42");
	/* A module including itself back is run once; its error shows. */
	expect_error("INCLUDE PERFETTO MODULE mypkg.loop;",
	    "File \"mypkg.loop2\" line 2 col 8", "no such column: nosuch");
	/* The same package again is refused unless it overrides. */
	ck_assert_int_eq(psql_pkgs_read(&again, path, NULL, 0, &err), 0);
	ck_assert_int_eq(psql_pkgs_add(ps, again, &err), -1);
	ck_assert_ptr_nonnull(strstr(err, "already exists"));
	free(err);
	/* Overriding replaces modules not yet included. */
	snprintf(path, sizeof(path), "%s/mypkg/other.sql", dir);
	write_file(path, "CREATE PERFETTO FUNCTION pkg_other() RETURNS LONG AS"
	    " SELECT 50;\n");
	snprintf(path, sizeof(path), "%s/mypkg", dir);
	ck_assert_int_eq(psql_pkgs_read(&over, path, NULL, 1, &err), 0);
	ck_assert_int_eq(psql_pkgs_add(ps, over, &err), 0);
	expect("INCLUDE PERFETTO MODULE mypkg.other; SELECT pkg_other();",
	    "50");
	/* A package named otherwise than its directory. */
	psql_pkgs_free(pkgs);
	pkgs = NULL;
	ck_assert_int_eq(psql_pkgs_read(&pkgs, path, "renamed", 0, &err), 0);
	ck_assert_int_eq(psql_pkgs_add(ps, pkgs, &err), 0);
	expect("INCLUDE PERFETTO MODULE renamed.other; SELECT pkg_other();",
	    "50");
	ck_assert_int_eq(psql_pkgs_read(&pkgs, "/nonexistent/pkg", NULL, 0,
	    &err), -1);
	free(err);
	psql_pkgs_free(pkgs);
	psql_pkgs_free(again);
	psql_pkgs_free(over);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	ck_assert_int_eq(system(path), 0);
}
END_TEST

START_TEST(test_hostile)
{
	char *sql, *p;
	int i;

	expect_error("SELECT 'unterminated", "unrecognized token", NULL);
	expect_error("CREATE PERFETTO MACRO id(x Expr) RETURNS Expr AS $x;"
	    " SELECT id!(1, (2;", "unterminated macro invocation", NULL);
	/* A macro expanding to itself stops at the depth bound. */
	expect_error("CREATE PERFETTO MACRO loop(x Expr) RETURNS Expr AS"
	    " loop!($x); SELECT loop!(1);", "macros nest more than", NULL);
	/* A function calling itself without end stops in SQLite's bound. */
	expect_error("CREATE PERFETTO FUNCTION inf(n LONG) RETURNS LONG AS"
	    " SELECT inf($n + 1); SELECT inf(0);", "inf: functions nest more"
	    " than", NULL);
	expect_error("CREATE PERFETTO FUNCTION tinf(n LONG) RETURNS TABLE(v LONG)"
	    " AS SELECT v FROM tinf($n + 1); SELECT * FROM tinf(0);",
	    "functions nest more than", NULL);
	/* Deeply nested brackets and a long statement. */
	sql = malloc(200003);
	ck_assert_ptr_nonnull(sql);
	p = sql;
	p += sprintf(p, "SELECT ");
	for (i = 0; i < 50000; i++)
		*p++ = '(';
	*p++ = '1';
	for (i = 0; i < 50000; i++)
		*p++ = ')';
	*p = '\0';
	expect_error(sql, "stdin", NULL);
	free(sql);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("psql");
	TCase *tc = tcase_create("psql");
	SRunner *sr;
	int nf;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_errors_have_positions);
	tcase_add_test(tc, test_scanner);
	tcase_add_test(tc, test_drop);
	tcase_add_test(tc, test_package_dir);
	tcase_add_test(tc, test_hostile);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf == 0 ? 0 : 1;
}
