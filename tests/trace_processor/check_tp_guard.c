/*
 * check_tp_guard: what SQL may do in an engine's database (tp_sql_guard.c).
 * Every statement a trace query never needs and that reaches files, raw
 * pointers or SQLite's optional extras is refused with an error, and the
 * engine answers the next query as before; what queries do need works.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "tp.h"

#define GUARD_FILE	"/tmp/check_tp_guard.db"

static struct tp *
engine_new(void)
{
	static const char trace[] =
	    "{\"traceEvents\":[{\"name\":\"a\",\"ph\":\"X\",\"ts\":1,"
	    "\"dur\":2,\"pid\":1,\"tid\":1,\"args\":{\"k\":7}}]}";
	struct tp *tp;
	char *err = NULL;

	tp = tp_new(NULL, &err);
	ck_assert_msg(tp != NULL, "tp_new: %s", err ? err : "?");
	ck_assert_int_eq(tp_parse(tp, trace, sizeof(trace) - 1), 0);
	ck_assert_int_eq(tp_eof(tp), 0);
	return tp;
}

/* The engine still answers: the one slice is there. */
static void
engine_alive(struct tp *tp)
{
	sqlite3_stmt *st;

	ck_assert_int_eq(sqlite3_prepare_v2(tp_db(tp),
	    "SELECT count(*) FROM slice", -1, &st, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
	ck_assert_int_eq(sqlite3_column_int(st, 0), 1);
	sqlite3_finalize(st);
}

START_TEST(test_refused)
{
	static const char *const refused[] = {
		/* Raw pointers through SQL (the crash). */
		"SELECT fts3_tokenizer('simple', x'4141414141414141'); "
		    "CREATE VIRTUAL TABLE f USING fts3(x, tokenize=simple); "
		    "INSERT INTO f VALUES('a')",
		"SELECT fts3_tokenizer('simple')",
		/* Code and files. */
		"SELECT load_extension('/tmp/none.so')",
		"SELECT readfile('/etc/passwd')",
		"SELECT writefile('" GUARD_FILE "', 'x')",
		"ATTACH DATABASE '" GUARD_FILE "' AS x",
		"ATTACH DATABASE ':memory:' AS x",
		"DETACH DATABASE main",
		"VACUUM",
		"VACUUM INTO '" GUARD_FILE "'",
		/* Pragmas that set anything. */
		"PRAGMA temp_store_directory = '/tmp'",
		"PRAGMA writable_schema = 1",
		"PRAGMA journal_mode = WAL",
		"PRAGMA mmap_size = 1000000",
		"PRAGMA page_size = 1024",
		"PRAGMA trusted_schema = 0",
		"PRAGMA hard_heap_limit = 1",
		"SELECT * FROM pragma_journal_mode('wal')",
		/* Modules a trace query never needs. */
		"CREATE VIRTUAL TABLE f USING fts3(x)",
		"CREATE VIRTUAL TABLE f USING fts4(x)",
		"CREATE VIRTUAL TABLE f USING fts5(x)",
		"CREATE VIRTUAL TABLE f USING fts3tokenize(simple)",
		"CREATE VIRTUAL TABLE f USING rtree(id, a, b)",
		"CREATE VIRTUAL TABLE f USING dbstat",
		"SELECT * FROM dbstat",
		"SELECT * FROM sqlite_stmt",
		"SELECT rtreenode(2, x'00')",
		"SELECT sqlite_log(1, 'x')",
	};
	struct tp *tp = engine_new();
	char *msg;
	size_t i;

	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		msg = NULL;
		ck_assert_msg(sqlite3_exec(tp_db(tp), refused[i], NULL, NULL,
		    &msg) != SQLITE_OK, "allowed: %s", refused[i]);
		sqlite3_free(msg);
		engine_alive(tp);
	}
	ck_assert_int_eq(access(GUARD_FILE, F_OK), -1);
	tp_free(tp);
}
END_TEST

START_TEST(test_allowed)
{
	static const char *const allowed[] = {
		"SELECT abs(-1), round(2.5), printf('%d', 3), hex('a'), "
		    "sqrt(4), log(100), json_extract('{\"a\":1}', '$.a'), "
		    "'{\"a\":1}' ->> 'a', date(0, 'unixepoch')",
		"SELECT count(*), sum(dur), group_concat(name) FROM slice",
		"SELECT row_number() OVER (ORDER BY ts), lag(ts) OVER () "
		    "FROM slice",
		"SELECT * FROM json_each('[1,2]')",
		"PRAGMA table_info(slice)",
		"SELECT name FROM pragma_table_info('slice')",
		"PRAGMA page_size",
		"PRAGMA function_list",
		"SELECT * FROM pragma_function_list",
		"SELECT * FROM pragma_module_list",
		"SELECT * FROM pragma_index_list('slice')",
		"SELECT EXTRACT_ARG(arg_set_id, 'args.k') FROM slice",
		"CREATE TABLE t AS SELECT ts, dur FROM slice; "
		    "CREATE VIEW v AS SELECT * FROM t; DROP VIEW v; "
		    "DROP TABLE t",
		"CREATE TEMP TABLE a(ts INT, dur INT, cpu INT); "
		    "CREATE TEMP TABLE b(ts INT, dur INT, cpu INT); "
		    "CREATE VIRTUAL TABLE sj USING SPAN_JOIN(a PARTITIONED "
		    "cpu, b PARTITIONED cpu); SELECT * FROM sj; DROP TABLE sj",
		"BEGIN; CREATE TABLE u(x); ROLLBACK",
	};
	struct tp *tp = engine_new();
	char *msg;
	size_t i;

	for (i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++) {
		msg = NULL;
		ck_assert_msg(sqlite3_exec(tp_db(tp), allowed[i], NULL, NULL,
		    &msg) == SQLITE_OK, "%s: %s", allowed[i],
		    msg ? msg : "?");
		sqlite3_free(msg);
	}
	tp_free(tp);
}
END_TEST

/* Does sql fail to prepare in db because the guard refused it? */
static int
refused_by_guard(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);

	sqlite3_finalize(st);
	return rc != SQLITE_OK && strstr(sqlite3_errmsg(db),
	    "not authorized") != NULL;
}

/*
 * Every function and module this SQLite brings, as a bare connection
 * lists them: exactly the ones outside the reviewed lists are refused.
 * A newer SQLite's additions show here as refused until reviewed.
 */
START_TEST(test_review_complete)
{
	static const char *const refused_functions =
	    " bm25 fts3_tokenizer fts5 fts5_source_id highlight"
	    " load_extension match matchinfo offsets optimize rtreecheck"
	    " rtreedepth rtreenode snippet sqlite_log ";
	static const char *const refused_modules =
	    " dbstat fts3 fts3tokenize fts4 fts4aux fts5 fts5vocab rtree"
	    " rtree_i32 sqlite_stmt ";
	struct tp *tp = engine_new();
	sqlite3 *bare;
	sqlite3_stmt *st;
	char sql[512], word[80];
	int narg, i, n, is_refused, want;

	ck_assert_int_eq(sqlite3_open(":memory:", &bare), SQLITE_OK);
	ck_assert_int_eq(sqlite3_prepare_v2(bare, "SELECT DISTINCT name, "
	    "max(narg) FROM pragma_function_list GROUP BY name", -1, &st,
	    NULL), SQLITE_OK);
	for (n = 0; sqlite3_step(st) == SQLITE_ROW; n++) {
		const char *name = (const char *)sqlite3_column_text(st, 0);

		narg = sqlite3_column_int(st, 1);
		if (narg < 0)
			narg = 1;
		snprintf(sql, sizeof(sql), "SELECT \"%s\"(", name);
		for (i = 0; i < narg; i++)
			strcat(sql, i ? ",NULL" : "NULL");
		strcat(sql, ")");
		if (strcmp(name, "->") == 0 || strcmp(name, "->>") == 0)
			snprintf(sql, sizeof(sql), "SELECT '{}' %s 'a'", name);
		is_refused = refused_by_guard(tp_db(tp), sql);
		snprintf(word, sizeof(word), " %s ", name);
		want = strstr(refused_functions, word) != NULL;
		ck_assert_msg(is_refused == want, "function %s: %s", name,
		    is_refused ? "refused" : "allowed");
	}
	sqlite3_finalize(st);
	ck_assert_int_gt(n, 100);
	ck_assert_int_eq(sqlite3_prepare_v2(bare, "SELECT name FROM "
	    "pragma_module_list", -1, &st, NULL), SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);

		/* The pragmas' tables: see test_refused and test_allowed. */
		if (strncmp(name, "pragma_", 7) == 0)
			continue;
		snprintf(sql, sizeof(sql), "CREATE VIRTUAL TABLE temp.x USING "
		    "\"%s\"(a)", name);
		is_refused = refused_by_guard(tp_db(tp), sql);
		snprintf(word, sizeof(word), " %s ", name);
		want = strstr(refused_modules, word) != NULL;
		ck_assert_msg(is_refused == want, "module %s: %s", name,
		    is_refused ? "refused" : "allowed");
	}
	sqlite3_finalize(st);
	sqlite3_close(bare);
	tp_free(tp);
}
END_TEST

START_TEST(test_connection_flags)
{
	struct tp *tp = engine_new();
	int v;

	v = -1;
	sqlite3_db_config(tp_db(tp), SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER, -1,
	    &v);
	ck_assert_int_eq(v, 0);
	v = -1;
	sqlite3_db_config(tp_db(tp), SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, -1,
	    &v);
	ck_assert_int_eq(v, 0);
	v = -1;
	sqlite3_db_config(tp_db(tp), SQLITE_DBCONFIG_DEFENSIVE, -1, &v);
	ck_assert_int_eq(v, 1);
	ck_assert_int_eq(sqlite3_limit(tp_db(tp), SQLITE_LIMIT_ATTACHED, -1),
	    0);
	tp_free(tp);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("tp_guard");
	TCase *tc = tcase_create("guard");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_refused);
	tcase_add_test(tc, test_allowed);
	tcase_add_test(tc, test_review_complete);
	tcase_add_test(tc, test_connection_flags);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
