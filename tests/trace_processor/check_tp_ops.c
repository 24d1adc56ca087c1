/*
 * check_tp_ops: the trace_processor SQL operators on an in-memory database
 * whose slice, flow and args tables have the engine's shape.
 *
 * Results are rendered one row per line, values separated by commas, NULL
 * as [NULL] (as upstream's diff tests print it), so expectations read like
 * upstream's CSV outputs without quotes. The span join cases with inline
 * data follow the documented semantics and agree with the outputs upstream
 * publishes for the same inputs.
 */
#include "config.h"

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "tp_ops.h"

/* ---- helpers ------------------------------------------------------------ */

static sqlite3 *
db_new(void)
{
	sqlite3	*db;
	char	*err = NULL;

	ck_assert_int_eq(sqlite3_open(":memory:", &db), SQLITE_OK);
	if (tp_ops_register(db, NULL, &err) != 0)
		ck_abort_msg("tp_ops_register: %s", err ? err : "?");
	return db;
}

static void
db_close(sqlite3 *db)
{
	sqlite3_stmt	*st;

	/* Fails if an operator left a statement behind. */
	if (sqlite3_close(db) != SQLITE_OK) {
		for (st = sqlite3_next_stmt(db, NULL); st != NULL;
		    st = sqlite3_next_stmt(db, st))
			fprintf(stderr, "unfinalized: %s\n", sqlite3_sql(st));
		ck_abort_msg("sqlite3_close: %s", sqlite3_errmsg(db));
	}
}

static void
exec(sqlite3 *db, const char *sql)
{
	char	*err = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK)
		ck_abort_msg("exec failed: %s\n%s", err, sql);
}

/*
 * Runs every statement of sql; returns the rows of the last one rendered
 * as text (caller frees), or NULL with *errp set (caller frees).
 */
static char *
run(sqlite3 *db, const char *sql, char **errp)
{
	sqlite3_stmt	*st;
	sqlite3_str	*out = NULL;
	const char	*tail = sql;
	int		 rc, i, nrows;

	*errp = NULL;
	while (tail != NULL && *tail != '\0') {
		if (sqlite3_prepare_v2(db, tail, -1, &st, &tail) != SQLITE_OK) {
			*errp = strdup(sqlite3_errmsg(db));
			goto fail;
		}
		if (st == NULL)
			break;
		if (out != NULL)
			sqlite3_free(sqlite3_str_finish(out));
		out = sqlite3_str_new(db);
		nrows = 0;
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			if (nrows++ > 0)
				sqlite3_str_appendchar(out, 1, '\n');
			for (i = 0; i < sqlite3_column_count(st); i++) {
				if (i > 0)
					sqlite3_str_appendchar(out, 1, ',');
				switch (sqlite3_column_type(st, i)) {
				case SQLITE_NULL:
					sqlite3_str_appendall(out, "[NULL]");
					break;
				case SQLITE_INTEGER:
					sqlite3_str_appendf(out, "%lld",
					    sqlite3_column_int64(st, i));
					break;
				case SQLITE_FLOAT:
					sqlite3_str_appendf(out, "%g",
					    sqlite3_column_double(st, i));
					break;
				default:
					sqlite3_str_appendall(out, (const char *)
					    sqlite3_column_text(st, i));
				}
			}
		}
		if (rc != SQLITE_DONE) {
			*errp = strdup(sqlite3_errmsg(db));
			sqlite3_finalize(st);
			goto fail;
		}
		sqlite3_finalize(st);
	}
	if (out == NULL)
		return strdup("");
	{
		char *s = sqlite3_str_finish(out), *r = strdup(s ? s : "");

		sqlite3_free(s);
		return r;
	}
fail:
	if (out != NULL)
		sqlite3_free(sqlite3_str_finish(out));
	return NULL;
}

#define expect_rows(db, sql, want) expect_rows_at(db, sql, want, __LINE__)
static void
expect_rows_at(sqlite3 *db, const char *sql, const char *want, int line)
{
	char	*err, *got;

	got = run(db, sql, &err);
	if (got == NULL)
		ck_abort_msg("line %d: query failed: %s\n%s", line, err, sql);
	if (strcmp(got, want) != 0)
		ck_abort_msg("line %d: %s\n--- got:\n%s\n--- want:\n%s", line,
		    sql, got, want);
	free(got);
}

#define expect_error(db, sql, frag) expect_error_at(db, sql, frag, __LINE__)
static void
expect_error_at(sqlite3 *db, const char *sql, const char *frag, int line)
{
	char	*err, *got;

	got = run(db, sql, &err);
	if (got != NULL)
		ck_abort_msg("line %d: expected error '%s', got rows:\n%s",
		    line, frag, got);
	if (strstr(err, frag) == NULL)
		ck_abort_msg("line %d: error '%s' lacks '%s'", line, err, frag);
	free(err);
}

/* ---- fixture: slices, flows and args ------------------------------------- */

/*
 * Track 1:  A [0,100) > B [10,60) > C [20,30);  A > D [60,100);
 *           A > E, an instant at 100 (A's end);
 *           F [100,120) > G [100,105)  (G starts where A ends, not under A);
 *           J [200, unfinished) > K [250,260)
 * Track 2:  H [0,30) > I [5,15), with the stacks of A and B.
 * Flows:    B->I, I->F, I->J (fan-out from I), C->K, G->D.
 */
/* As the engine's: the stack ids are in __intrinsic_slice only. */
static const char fixture_sql[] =
    "CREATE TABLE __intrinsic_slice(id INTEGER PRIMARY KEY, ts BIGINT,"
    " dur BIGINT, track_id BIGINT, category TEXT, name TEXT, depth BIGINT,"
    " parent_id BIGINT, arg_set_id BIGINT, stack_id BIGINT,"
    " parent_stack_id BIGINT);"
    "CREATE VIEW slice AS SELECT id, ts, dur, track_id, category, name,"
    " depth, parent_id, arg_set_id FROM __intrinsic_slice;"
    "CREATE INDEX slice_track ON __intrinsic_slice(track_id, depth, ts);"
    "CREATE INDEX slice_stack ON __intrinsic_slice(stack_id);"
    "INSERT INTO __intrinsic_slice VALUES"
    " (0, 0, 100, 1, 'cat', 'A', 0, NULL, 1, 10, 0),"
    " (1, 10, 50, 1, 'cat', 'B', 1, 0, NULL, 11, 10),"
    " (2, 20, 10, 1, NULL, 'C', 2, 1, NULL, 12, 11),"
    " (3, 60, 40, 1, 'cat', 'D', 1, 0, NULL, 13, 10),"
    " (4, 100, 0, 1, 'cat', 'E', 1, 0, NULL, 14, 10),"
    " (5, 100, 20, 1, 'cat', 'F', 0, NULL, 2, 20, 0),"
    " (6, 100, 5, 1, 'cat', 'G', 1, 5, NULL, 21, 20),"
    " (7, 0, 30, 2, 'cat', 'A', 0, NULL, NULL, 10, 0),"
    " (8, 5, 10, 2, 'cat', 'B', 1, 7, NULL, 11, 10),"
    " (9, 200, -1, 1, 'cat', 'J', 0, NULL, NULL, 30, 0),"
    " (10, 250, 10, 1, 'cat', 'K', 1, 9, NULL, 31, 30);"
    "CREATE TABLE flow(id INTEGER PRIMARY KEY, slice_out BIGINT,"
    " slice_in BIGINT, arg_set_id BIGINT);"
    "CREATE INDEX flow_out ON flow(slice_out);"
    "CREATE INDEX flow_in ON flow(slice_in);"
    "INSERT INTO flow VALUES (0, 1, 8, NULL), (1, 8, 5, 3), (2, 8, 9, NULL),"
    " (3, 2, 10, NULL), (4, 6, 3, NULL);"
    "CREATE TABLE args(id INTEGER PRIMARY KEY, arg_set_id BIGINT,"
    " flat_key TEXT, key TEXT, int_value BIGINT, string_value TEXT,"
    " real_value DOUBLE, value_type TEXT);"
    "CREATE INDEX args_key ON args(arg_set_id, key);"
    "INSERT INTO args(arg_set_id, flat_key, key, int_value, string_value,"
    " real_value, value_type) VALUES"
    " (1, 'a.int', 'a.int', 5, NULL, NULL, 'int'),"
    " (1, 'a.str', 'a.str', NULL, 'hello', NULL, 'string'),"
    " (1, 'a.real', 'a.real', NULL, NULL, 1.5, 'real'),"
    " (1, 'a.bool', 'a.bool', 1, NULL, NULL, 'bool'),"
    " (1, 'a.nil', 'a.nil', NULL, NULL, NULL, 'null'),"
    " (1, 'a.json', 'a.json', NULL, '{\"x\":1}', NULL, 'json'),"
    " (1, 'arr', 'arr[0]', 11, NULL, NULL, 'uint'),"
    " (2, 'a.int', 'a.int', 7, NULL, NULL, 'int'),"
    " (3, 'f', 'f', -1, NULL, NULL, 'pointer');";

static sqlite3 *
fixture(void)
{
	sqlite3	*db = db_new();

	exec(db, fixture_sql);
	return db;
}

/* ---- functions ------------------------------------------------------------ */

START_TEST(test_extract_arg)
{
	sqlite3	*db = fixture();

	expect_rows(db, "SELECT EXTRACT_ARG(1, 'a.int'), EXTRACT_ARG(1, 'a.str'),"
	    " EXTRACT_ARG(1, 'a.real'), EXTRACT_ARG(1, 'a.bool'),"
	    " EXTRACT_ARG(1, 'a.nil'), EXTRACT_ARG(1, 'a.json'),"
	    " EXTRACT_ARG(1, 'arr[0]'), EXTRACT_ARG(3, 'f')",
	    "5,hello,1.5,1,[NULL],{\"x\":1},11,-1");
	/* Missing keys, sets and NULL sets give NULL. */
	expect_rows(db, "SELECT EXTRACT_ARG(1, 'nope'), EXTRACT_ARG(99, 'a.int'),"
	    " EXTRACT_ARG(NULL, 'a.int')", "[NULL],[NULL],[NULL]");
	/* Key is matched on key, not flat_key. */
	expect_rows(db, "SELECT EXTRACT_ARG(1, 'arr')", "[NULL]");
	/* Over a table, with a constant and with a per-row key. */
	expect_rows(db, "SELECT id, EXTRACT_ARG(arg_set_id, 'a.int') FROM slice"
	    " WHERE id IN (0, 1, 5) ORDER BY id", "0,5\n1,[NULL]\n5,7");
	expect_rows(db, "SELECT EXTRACT_ARG(arg_set_id, key) FROM args"
	    " WHERE arg_set_id = 1 AND value_type IN ('int', 'string')"
	    " ORDER BY id", "5\nhello");
	/* Nested use. */
	expect_rows(db, "SELECT EXTRACT_ARG(EXTRACT_ARG(1, 'a.bool') + 1,"
	    " 'a.int')", "7");
	expect_error(db, "SELECT EXTRACT_ARG('x', 'a.int')",
	    "1st argument should be arg set id");
	expect_error(db, "SELECT EXTRACT_ARG(1, 2)",
	    "2nd argument should be key");
	db_close(db);
}
END_TEST

START_TEST(test_extract_arg_no_table)
{
	sqlite3	*db = db_new();

	expect_error(db, "SELECT EXTRACT_ARG(1, 'x')", "no such table: args");
	db_close(db);
}
END_TEST

START_TEST(test_hash)
{
	sqlite3	*db = db_new();

	/* 64-bit FNV-1a reference vectors, as signed integers. */
	expect_rows(db, "SELECT HASH(), HASH(''), HASH('a'), HASH('foobar')",
	    "-3750763034362895579,-3750763034362895579,"
	    "-5808556873153909620,-8821353812377114648");
	/* Integers hash as their 8 little-endian bytes. */
	expect_rows(db, "SELECT HASH(0), HASH(1), HASH(-1)",
	    "-6284781860667377211,-8517097267634966620,-8289690350564177859");
	/* Arguments chain: 'a','b' is 'ab'. */
	expect_rows(db, "SELECT HASH('a', 'b') = HASH('ab'),"
	    " HASH('a', 1) = HASH('a', 2)", "1,0");
	expect_error(db, "SELECT HASH(1.5)", "HASH: arg 0 has unknown type");
	expect_error(db, "SELECT HASH('a', NULL)", "HASH: arg 1 has unknown type");
	db_close(db);
}
END_TEST

START_TEST(test_string_fns)
{
	sqlite3	*db = db_new();

	expect_rows(db, "SELECT STR_SPLIT('a|b|c', '|', 0),"
	    " STR_SPLIT('a|b|c', '|', 2), STR_SPLIT('a|b|c', '|', 3),"
	    " STR_SPLIT('a::b', '::', 1), STR_SPLIT('a||c', '|', 1),"
	    " STR_SPLIT(NULL, '|', 0), STR_SPLIT(5, '|', 0)",
	    "a,c,[NULL],b,,[NULL],[NULL]");
	expect_error(db, "SELECT STR_SPLIT('a', '', 0)",
	    "delimiter must be a non-empty string");
	expect_error(db, "SELECT STR_SPLIT('a', '|', -1)",
	    "field number must be a non-negative integer");
	expect_rows(db, "SELECT REVERSE('abc'), REVERSE(''), REVERSE(NULL)",
	    "cba,,[NULL]");
	expect_error(db, "SELECT REVERSE(1)", "REVERSE: argument should be string");
	expect_rows(db, "SELECT UNHEX('0x1F'), UNHEX(' ff '), UNHEX('7fffffffffffffff'),"
	    " UNHEX(NULL)", "31,255,9223372036854775807,[NULL]");
	expect_error(db, "SELECT UNHEX('0xzz')", "invalid or out of range");
	expect_error(db, "SELECT UNHEX('10000000000000000')",
	    "invalid or out of range");
	expect_error(db, "SELECT UNHEX('0x')", "empty after prefix");
	expect_rows(db, "SELECT 'abc' REGEXP 'b.', 'abc' REGEXP '^b',"
	    " REGEXP('x+', 'axxb'), NULL REGEXP 'a'", "1,0,1,[NULL]");
	expect_rows(db, "SELECT REGEXP_EXTRACT('foo123bar', '[0-9]+'),"
	    " REGEXP_EXTRACT('key=val', 'key=([a-z]+)'),"
	    " REGEXP_EXTRACT('abc', 'z')", "123,val,[NULL]");
	expect_error(db, "SELECT REGEXP_EXTRACT('ab', '(a)(b)')",
	    "more than one group");
	expect_error(db, "SELECT 'a' REGEXP '('", "REGEXP");
	db_close(db);
}
END_TEST

START_TEST(test_value_at_max_ts)
{
	sqlite3	*db = db_new();

	exec(db, "CREATE TABLE c(ts BIGINT, v, g BIGINT);"
	    "INSERT INTO c VALUES (10, 1, 1), (30, 3, 1), (20, 2, 1),"
	    " (5, 1.5, 2), (7, 2.5, 2);");
	expect_rows(db, "SELECT g, VALUE_AT_MAX_TS(ts, v) FROM c GROUP BY g"
	    " ORDER BY g", "1,3\n2,2.5");
	expect_rows(db, "SELECT VALUE_AT_MAX_TS(ts, v) FROM c WHERE 0",
	    "[NULL]");
	expect_error(db, "SELECT VALUE_AT_MAX_TS(ts, v) FROM c",
	    "value type is inconsistent");
	expect_error(db, "SELECT VALUE_AT_MAX_TS('x', 1)",
	    "ts passed was not an integer");
	db_close(db);
}
END_TEST

/* ---- slice table functions ----------------------------------------------- */

START_TEST(test_ancestor_slice)
{
	sqlite3	*db = fixture();

	expect_rows(db, "SELECT id, name, depth FROM ancestor_slice(2)",
	    "0,A,0\n1,B,1");
	expect_rows(db, "SELECT * FROM ancestor_slice(1)",
	    "0,0,100,1,cat,A,0,[NULL],1,[NULL],[NULL],[NULL],[NULL]");
	expect_rows(db, "SELECT id FROM ancestor_slice(0)", "");
	expect_rows(db, "SELECT id FROM ancestor_slice(6)", "5");
	expect_rows(db, "SELECT id FROM ancestor_slice(NULL)", "");
	expect_error(db, "SELECT id FROM ancestor_slice(999)",
	    "no row with id 999");
	expect_error(db, "SELECT id FROM ancestor_slice('x')",
	    "start id should be an integer");
	expect_error(db, "SELECT id FROM ancestor_slice", "missing argument");
	/* Correlated: the root of every slice of depth 2 or more. */
	expect_rows(db, "SELECT s.name, a.name FROM slice s"
	    " JOIN ancestor_slice(s.id) a ON a.depth = 0 ORDER BY s.id",
	    "B,A\nC,A\nD,A\nE,A\nG,F\nB,A\nK,J");
	/* The documented LEFT JOIN form keeps roots with NULL. */
	expect_rows(db, "SELECT s.id, a.id FROM slice s LEFT JOIN"
	    " ancestor_slice(s.id) a ON a.depth = 0 WHERE s.depth = 0"
	    " ORDER BY s.id", "0,[NULL]\n5,[NULL]\n7,[NULL]\n9,[NULL]");
	db_close(db);
}
END_TEST

START_TEST(test_descendant_slice)
{
	sqlite3	*db = fixture();

	/* E (instant at A's end) is A's; G (starts there, under F) is not. */
	expect_rows(db, "SELECT id, name FROM descendant_slice(0)",
	    "1,B\n2,C\n3,D\n4,E");
	expect_rows(db, "SELECT id FROM descendant_slice(5)", "6");
	expect_rows(db, "SELECT id FROM descendant_slice(1)", "2");
	/* Unfinished J owns everything after it on its track. */
	expect_rows(db, "SELECT id FROM descendant_slice(9)", "10");
	expect_rows(db, "SELECT id FROM descendant_slice(2)", "");
	expect_rows(db, "SELECT id FROM descendant_slice(NULL)", "");
	expect_error(db, "SELECT id FROM descendant_slice(-4)",
	    "no row with id -4");
	expect_rows(db, "SELECT s.id, (SELECT COUNT(*) FROM descendant_slice(s.id))"
	    " FROM slice s ORDER BY s.id",
	    "0,4\n1,1\n2,0\n3,0\n4,0\n5,1\n6,0\n7,1\n8,0\n9,1\n10,0");
	/* Output columns are upstream's (the fixture lacks the thread ones). */
	expect_rows(db, "SELECT * FROM descendant_slice(7)",
	    "8,5,10,2,cat,B,1,7,[NULL],[NULL],[NULL],[NULL],[NULL]");
	db_close(db);
}
END_TEST

START_TEST(test_slice_by_stack)
{
	sqlite3	*db = fixture();

	/* Stack 11 is B on both tracks: the two A's above them. */
	expect_rows(db, "SELECT id FROM ancestor_slice_by_stack(11)", "0\n7");
	/* Stack 10 is both A's: everything under them, in id order. */
	expect_rows(db, "SELECT id FROM descendant_slice_by_stack(10)",
	    "1\n2\n3\n4\n8");
	/* Stack 14 (E) has one ancestor; stacks no slice has: nothing. */
	expect_rows(db, "SELECT id FROM ancestor_slice_by_stack(14)", "0");
	expect_rows(db, "SELECT id FROM ancestor_slice_by_stack(12345)", "");
	expect_rows(db, "SELECT id FROM descendant_slice_by_stack(NULL)", "");
	/* The documented next-level query. */
	expect_rows(db, "SELECT d.name FROM (SELECT DISTINCT stack_id, depth"
	    " FROM __intrinsic_slice WHERE name = 'A') s JOIN"
	    " descendant_slice_by_stack("
	    "s.stack_id) d ON d.depth = s.depth + 1 ORDER BY d.id",
	    "B\nD\nE\nB");
	db_close(db);
}
END_TEST

START_TEST(test_slice_fns_empty)
{
	sqlite3	*db = db_new();

	exec(db, "CREATE TABLE __intrinsic_slice(id INTEGER PRIMARY KEY,"
	    " ts BIGINT, dur BIGINT, track_id BIGINT, category TEXT,"
	    " name TEXT, depth BIGINT, parent_id BIGINT, arg_set_id BIGINT,"
	    " stack_id BIGINT, parent_stack_id BIGINT);"
	    "CREATE VIEW slice AS SELECT id, ts, dur, track_id, category,"
	    " name, depth, parent_id, arg_set_id FROM __intrinsic_slice;");
	expect_error(db, "SELECT * FROM ancestor_slice(0)", "no row with id 0");
	expect_rows(db, "SELECT * FROM descendant_slice_by_stack(1)", "");
	db_close(db);
}
END_TEST

START_TEST(test_slice_fns_no_table)
{
	sqlite3	*db = db_new();

	expect_error(db, "SELECT * FROM ancestor_slice(0)", "no table slice");
	/* Once the table exists the function works. */
	exec(db, "CREATE TABLE slice(id INTEGER PRIMARY KEY, depth BIGINT,"
	    " parent_id BIGINT);"
	    "INSERT INTO slice VALUES (1, 0, NULL), (2, 1, 1);");
	expect_rows(db, "SELECT id, depth, parent_id FROM ancestor_slice(2)",
	    "1,0,[NULL]");
	db_close(db);
}
END_TEST

/* Broken input (a parent loop, a flow loop) ends with an error or a result. */
START_TEST(test_slice_fns_loops)
{
	sqlite3	*db = db_new();

	exec(db, "CREATE TABLE slice(id INTEGER PRIMARY KEY, ts BIGINT,"
	    " dur BIGINT, track_id BIGINT, depth BIGINT, parent_id BIGINT);"
	    "INSERT INTO slice VALUES (1, 0, 10, 1, 1, 2), (2, 0, 10, 1, 1, 1),"
	    " (3, 20, 10, 1, 0, NULL);"
	    "CREATE TABLE flow(id INTEGER PRIMARY KEY, slice_out BIGINT,"
	    " slice_in BIGINT, arg_set_id BIGINT);"
	    "INSERT INTO flow VALUES (0, 1, 2, NULL), (1, 2, 1, NULL),"
	    " (2, 3, NULL, NULL);");
	expect_error(db, "SELECT * FROM ancestor_slice(1)", "loops");
	expect_rows(db, "SELECT id FROM descendant_slice(1)", "");
	/* Each slice is visited once; flows are reported as crossed. */
	expect_rows(db, "SELECT id FROM directly_connected_flow(1)", "1\n0\n0");
	/* preceding_flow walks ancestors, so it hits the parent loop. */
	expect_error(db, "SELECT id FROM preceding_flow(1)", "loops");
	/* A flow with no end is reported, and leads nowhere. */
	expect_rows(db, "SELECT id, slice_in FROM following_flow(3)", "2,[NULL]");
	db_close(db);
}
END_TEST

/* ---- flow table functions ------------------------------------------------- */

START_TEST(test_flows)
{
	sqlite3	*db = fixture();

	/* Through I: B->I in, I->F and I->J out; columns as flow's. */
	expect_rows(db, "SELECT * FROM directly_connected_flow(8)",
	    "0,1,8,[NULL],[NULL]\n1,8,5,[NULL],3\n2,8,9,[NULL],[NULL]");
	/* From B the chain continues through I both ways. */
	expect_rows(db, "SELECT id FROM directly_connected_flow(1)", "0\n1\n2");
	/* From F: only the chain into it, not I's other branch. */
	expect_rows(db, "SELECT id FROM directly_connected_flow(5)", "1\n0");
	/* Not from A: flows of A's children are not A's. */
	expect_rows(db, "SELECT id FROM directly_connected_flow(0)", "");
	/*
	 * Following from A: A's descendants B, C lead to I and K; I fans out
	 * to F and J; F's child G leads to D.
	 */
	expect_rows(db, "SELECT id FROM following_flow(0)", "0\n3\n1\n2\n4");
	expect_rows(db, "SELECT id FROM following_flow(8)", "1\n2\n4");
	expect_rows(db, "SELECT id FROM following_flow(10)", "");
	/* K <- C; K's parent J <- I; I <- B (the ancestors add no others). */
	expect_rows(db, "SELECT id FROM preceding_flow(10)", "3\n2\n0");
	/* D <- G; G's parent F <- I; I <- B. */
	expect_rows(db, "SELECT id FROM preceding_flow(3)", "4\n1\n0");
	expect_rows(db, "SELECT id FROM preceding_flow(0)", "");
	expect_rows(db, "SELECT id FROM following_flow(NULL)", "");
	expect_error(db, "SELECT id FROM preceding_flow(999)",
	    "invalid slice id 999");
	expect_error(db, "SELECT id FROM following_flow(1.5)",
	    "start id should be an integer");
	/* The documented per-slice count. */
	expect_rows(db, "SELECT s.id, (SELECT COUNT(*) FROM following_flow(s.id))"
	    " FROM slice s ORDER BY s.id",
	    "0,5\n1,5\n2,1\n3,0\n4,0\n5,1\n6,1\n7,3\n8,3\n9,0\n10,0");
	db_close(db);
}
END_TEST

START_TEST(test_flows_trace_id)
{
	sqlite3	*db = db_new();

	exec(db, "CREATE TABLE slice(id INTEGER PRIMARY KEY, ts BIGINT,"
	    " dur BIGINT, track_id BIGINT, depth BIGINT, parent_id BIGINT);"
	    "INSERT INTO slice VALUES (1, 0, 10, 1, 0, NULL),"
	    " (2, 20, 10, 2, 0, NULL), (3, 40, 10, 3, 0, NULL);"
	    "CREATE TABLE flow(id INTEGER PRIMARY KEY, slice_out BIGINT,"
	    " slice_in BIGINT, trace_id BIGINT, arg_set_id BIGINT);"
	    "INSERT INTO flow VALUES (10, 1, 2, 77, NULL), (11, 2, 3, 77, 4);");
	expect_rows(db, "SELECT * FROM following_flow(1)",
	    "10,1,2,77,[NULL]\n11,2,3,77,4");
	expect_rows(db, "SELECT * FROM preceding_flow(3)",
	    "11,2,3,77,4\n10,1,2,77,[NULL]");
	expect_rows(db, "SELECT * FROM directly_connected_flow(2)",
	    "10,1,2,77,[NULL]\n11,2,3,77,4");
	db_close(db);
}
END_TEST

/* ---- span join --------------------------------------------------------------- */

struct sj_case {
	const char	*name;
	const char	*sql;	/* setup; the last statement is the query */
	const char	*want;
};

#define T_PART "CREATE TABLE t1(ts BIGINT, dur BIGINT, part BIGINT, a BIGINT);"
#define T_UNPART2 "CREATE TABLE t2(ts BIGINT, dur BIGINT, b BIGINT);"

static const struct sj_case sj_cases[] = {
	{ "outer, t1 partitioned, t2 not",
	  T_PART T_UNPART2
	  "INSERT INTO t1 VALUES (100, 400, 1, 10), (500, 100, 1, 11),"
	  " (500, 50, 2, 12), (600, 100, 3, 13);"
	  "INSERT INTO t2 VALUES (50, 100, 14), (550, 50, 15), (600, 50, 16),"
	  " (900, 500, 17);"
	  "CREATE VIRTUAL TABLE sp USING span_outer_join(t1 PARTITIONED part, t2);"
	  "SELECT * FROM sp;",
	  "50,50,1,[NULL],14\n100,50,1,10,14\n150,350,1,10,[NULL]\n"
	  "500,50,1,11,[NULL]\n550,50,1,11,15\n600,50,1,[NULL],16\n"
	  "900,500,1,[NULL],17\n50,100,2,[NULL],14\n500,50,2,12,[NULL]\n"
	  "550,50,2,[NULL],15\n600,50,2,[NULL],16\n900,500,2,[NULL],17\n"
	  "50,100,3,[NULL],14\n550,50,3,[NULL],15\n600,50,3,13,16\n"
	  "650,50,3,13,[NULL]\n900,500,3,[NULL],17" },
	{ "left, t1 partitioned, t2 not",
	  T_PART T_UNPART2
	  "INSERT INTO t1 VALUES (100, 400, 1, 111), (500, 150, 1, 111),"
	  " (500, 50, 3, 222), (500, 100, 4, 333), (0, 1000, 5, 444);"
	  "INSERT INTO t2 VALUES (50, 200, 111), (300, 100, 222),"
	  " (400, 250, 333);"
	  "CREATE VIRTUAL TABLE sp USING span_left_join(t1 PARTITIONED part, t2);"
	  "SELECT * FROM sp;",
	  "100,150,1,111,111\n250,50,1,111,[NULL]\n300,100,1,111,222\n"
	  "400,100,1,111,333\n500,150,1,111,333\n500,50,3,222,333\n"
	  "500,100,4,333,333\n0,50,5,444,[NULL]\n50,200,5,444,111\n"
	  "250,50,5,444,[NULL]\n300,100,5,444,222\n400,250,5,444,333\n"
	  "650,350,5,444,[NULL]" },
	{ "left, t2 partitioned with missing partitions",
	  "CREATE TABLE t1(ts BIGINT, dur BIGINT, a BIGINT);"
	  "CREATE TABLE t2(ts BIGINT, dur BIGINT, b BIGINT, part BIGINT);"
	  "INSERT INTO t2 VALUES (0, 25, 111, 0), (50, 50, 222, 0),"
	  " (0, 40, 333, 1), (50, 200, 444, 1), (300, 100, 555, 1),"
	  " (400, 250, 666, 1), (100, 1000, 777, 2), (50, 50, 888, 4),"
	  " (500, 50, 999, 4), (50, 75, 1111, 5), (525, 75, 2222, 5),"
	  " (0, 100, 2222, 6);"
	  "INSERT INTO t1 VALUES (100, 400, 111), (500, 50, 222),"
	  " (600, 100, 333), (900, 100, 444);"
	  "CREATE VIRTUAL TABLE sp USING span_left_join(t1, t2 PARTITIONED part);"
	  "SELECT * FROM sp;",
	  "100,400,0,111,[NULL]\n500,50,0,222,[NULL]\n600,100,0,333,[NULL]\n"
	  "900,100,0,444,[NULL]\n100,150,1,111,444\n250,50,1,111,[NULL]\n"
	  "300,100,1,111,555\n400,100,1,111,666\n500,50,1,222,666\n"
	  "600,50,1,333,666\n650,50,1,333,[NULL]\n900,100,1,444,[NULL]\n"
	  "100,400,2,111,777\n500,50,2,222,777\n600,100,2,333,777\n"
	  "900,100,2,444,777\n100,400,4,111,[NULL]\n500,50,4,222,999\n"
	  "600,100,4,333,[NULL]\n900,100,4,444,[NULL]\n100,25,5,111,1111\n"
	  "125,375,5,111,[NULL]\n500,25,5,222,[NULL]\n525,25,5,222,2222\n"
	  "600,100,5,333,[NULL]\n900,100,5,444,[NULL]\n100,400,6,111,[NULL]\n"
	  "500,50,6,222,[NULL]\n600,100,6,333,[NULL]\n900,100,6,444,[NULL]" },
	{ "outer, unpartitioned",
	  "CREATE TABLE t1(ts BIGINT, dur BIGINT, a BIGINT);" T_UNPART2
	  "INSERT INTO t1 VALUES (100, 400, 1), (500, 50, 2), (600, 100, 3);"
	  "INSERT INTO t2 VALUES (50, 100, 4), (550, 50, 5), (600, 50, 6),"
	  " (900, 500, 7);"
	  "CREATE VIRTUAL TABLE sp USING span_outer_join(t1, t2);"
	  "SELECT * FROM sp;",
	  "50,50,[NULL],4\n100,50,1,4\n150,350,1,[NULL]\n500,50,2,[NULL]\n"
	  "550,50,[NULL],5\n600,50,3,6\n650,50,3,[NULL]\n900,500,[NULL],7" },
	{ "inner, unpartitioned",
	  "CREATE TABLE t1(ts BIGINT, dur BIGINT, a BIGINT);" T_UNPART2
	  "INSERT INTO t1 VALUES (100, 400, 1), (500, 50, 2), (600, 100, 3);"
	  "INSERT INTO t2 VALUES (50, 100, 4), (550, 50, 5), (600, 50, 6),"
	  " (900, 500, 7);"
	  "CREATE VIRTUAL TABLE sp USING span_join(t1, t2);"
	  "SELECT * FROM sp;",
	  "100,50,1,4\n600,50,3,6" },
	{ "zero and negative durations, outer, both partitioned",
	  "CREATE TABLE t1(ts BIGINT, dur BIGINT, part BIGINT);"
	  "CREATE TABLE t2(ts BIGINT, dur BIGINT, part BIGINT);"
	  "INSERT INTO t1 VALUES (1, 0, 0), (5, -1, 0), (2, 0, 1);"
	  "INSERT INTO t2 VALUES (1, 2, 0), (5, 0, 0), (1, 1, 1);"
	  "CREATE VIRTUAL TABLE sp USING span_outer_join(t1 PARTITIONED part,"
	  " t2 PARTITIONED part);"
	  "SELECT ts, dur, part FROM sp;",
	  "1,0,0\n1,2,0\n5,-1,0\n5,-1,0\n1,1,1\n2,0,1" },
	{ "zero durations, inner: a point joins the span it starts or is in",
	  "CREATE TABLE t1(ts BIGINT, dur BIGINT, a BIGINT);" T_UNPART2
	  "INSERT INTO t1 VALUES (0, 0, 1), (10, 0, 2), (15, 0, 3), (20, 0, 4);"
	  "INSERT INTO t2 VALUES (0, 10, 5), (10, 10, 6);"
	  "CREATE VIRTUAL TABLE sp USING span_join(t1, t2);"
	  "SELECT * FROM sp;",
	  "0,0,1,5\n10,0,2,6\n15,0,3,6" },
	{ "inner, same partition, partitions on one side only",
	  "CREATE TABLE t1(ts BIGINT, dur BIGINT, cpu BIGINT, a TEXT);"
	  "CREATE TABLE t2(ts BIGINT, dur BIGINT, cpu BIGINT, b REAL);"
	  "INSERT INTO t1 VALUES (0, 10, 0, 'x'), (10, 10, 0, 'y'),"
	  " (0, 100, 1, 'z'), (5, 5, 3, 'w'), (0, 5, NULL, 'n');"
	  "INSERT INTO t2 VALUES (5, 10, 0, 1.5), (0, 50, 2, 2.5),"
	  " (0, 100, 3, 3.5);"
	  "CREATE VIRTUAL TABLE sp USING span_join(t1 PARTITIONED cpu,"
	  " t2 PARTITIONED cpu);"
	  "SELECT * FROM sp;",
	  "5,5,0,x,1.5\n10,5,0,y,1.5\n5,5,3,w,3.5" },
	{ "outer, same partition, partitions on one side only",
	  "CREATE TABLE t1(ts BIGINT, dur BIGINT, cpu BIGINT, a TEXT);"
	  "CREATE TABLE t2(ts BIGINT, dur BIGINT, cpu BIGINT, b REAL);"
	  "INSERT INTO t1 VALUES (0, 10, 0, 'x'), (0, 100, 1, 'z');"
	  "INSERT INTO t2 VALUES (5, 10, 0, 1.5), (0, 50, 2, 2.5);"
	  "CREATE VIRTUAL TABLE sp USING span_outer_join(t1 PARTITIONED cpu,"
	  " t2 PARTITIONED cpu);"
	  "SELECT * FROM sp;",
	  "0,5,0,x,[NULL]\n5,5,0,x,1.5\n10,5,0,[NULL],1.5\n"
	  "0,100,1,z,[NULL]\n0,50,2,[NULL],2.5" },
	{ "left, same partition, empty right",
	  "CREATE TABLE t1(ts BIGINT, dur BIGINT, part BIGINT);"
	  "CREATE TABLE t2(ts BIGINT, dur BIGINT, part BIGINT);"
	  "INSERT INTO t1 VALUES (500, 500, 100);"
	  "CREATE VIRTUAL TABLE sp USING span_left_join(t1 PARTITIONED part,"
	  " t2 PARTITIONED part);"
	  "SELECT * FROM sp;",
	  "500,500,100" },
	{ "left, same partition, right only elsewhere",
	  "CREATE TABLE t1(ts BIGINT, dur BIGINT, part BIGINT);"
	  "CREATE TABLE t2(ts BIGINT, dur BIGINT, part BIGINT);"
	  "INSERT INTO t1 VALUES (500, 100, 10);"
	  "INSERT INTO t2 VALUES (500, 100, 5);"
	  "CREATE VIRTUAL TABLE sp USING span_left_join(t1 PARTITIONED part,"
	  " t2 PARTITIONED part);"
	  "SELECT * FROM sp;",
	  "500,100,10" },
	{ "outer, same partition, empty right",
	  "CREATE TABLE t1(ts BIGINT, dur BIGINT, part BIGINT);"
	  "CREATE TABLE t2(ts BIGINT, dur BIGINT, part BIGINT);"
	  "INSERT INTO t1 VALUES (500, 100, 10);"
	  "CREATE VIRTUAL TABLE sp USING span_outer_join(t1 PARTITIONED part,"
	  " t2 PARTITIONED part);"
	  "SELECT * FROM sp;",
	  "500,100,10" },
	{ "outer, unpartitioned, both empty",
	  "CREATE TABLE t1(ts BIGINT, dur BIGINT);"
	  "CREATE TABLE t2(ts BIGINT, dur BIGINT);"
	  "CREATE VIRTUAL TABLE sp USING span_outer_join(t1, t2);"
	  "SELECT * FROM sp;",
	  "" },
	{ "outer, unpartitioned, left empty",
	  "CREATE TABLE t1(ts BIGINT, dur BIGINT);"
	  "CREATE TABLE t2(ts BIGINT, dur BIGINT);"
	  "INSERT INTO t2 VALUES (100, 400), (500, 50), (600, 100);"
	  "CREATE VIRTUAL TABLE sp USING span_outer_join(t1, t2);"
	  "SELECT * FROM sp;",
	  "100,400\n500,50\n600,100" },
	{ "outer, unpartitioned, right empty",
	  "CREATE TABLE t1(ts BIGINT, dur BIGINT);"
	  "CREATE TABLE t2(ts BIGINT, dur BIGINT);"
	  "INSERT INTO t1 VALUES (100, 400), (500, 50), (600, 100);"
	  "CREATE VIRTUAL TABLE sp USING span_outer_join(t1, t2);"
	  "SELECT * FROM sp;",
	  "100,400\n500,50\n600,100" },
	{ "outer, mixed, partitioned side empty",
	  "CREATE TABLE t1(ts BIGINT, dur BIGINT, part BIGINT);"
	  "CREATE TABLE t2(ts BIGINT, dur BIGINT);"
	  "INSERT INTO t2 VALUES (100, 400), (500, 50), (600, 100);"
	  "CREATE VIRTUAL TABLE sp USING span_outer_join(t1 PARTITIONED part, t2);"
	  "SELECT * FROM sp;",
	  "" },
	{ "outer, mixed reversed, unpartitioned side empty",
	  "CREATE TABLE t1(ts BIGINT, dur BIGINT, part BIGINT);"
	  "CREATE TABLE t2(ts BIGINT, dur BIGINT);"
	  "INSERT INTO t1 VALUES (100, 400, 0), (100, 50, 1), (600, 100, 1);"
	  "CREATE VIRTUAL TABLE sp USING span_outer_join(t2, t1 PARTITIONED part);"
	  "SELECT * FROM sp;",
	  "100,400,0\n100,50,1\n600,100,1" },
	{ "outer, mixed, unpartitioned side empty",
	  "CREATE TABLE t1(ts BIGINT, dur BIGINT, part BIGINT);"
	  "CREATE TABLE t2(ts BIGINT, dur BIGINT, b BIGINT);"
	  "INSERT INTO t1 VALUES (100, 400, 0), (100, 50, 1), (600, 100, 1);"
	  "CREATE VIRTUAL TABLE sp USING span_outer_join(t1 PARTITIONED part, t2);"
	  "SELECT * FROM sp;",
	  "100,400,0,[NULL]\n100,50,1,[NULL]\n600,100,1,[NULL]" },
	{ "outer, mixed reversed, partitioned side empty",
	  "CREATE TABLE t1(ts BIGINT, dur BIGINT, part BIGINT);"
	  "CREATE TABLE t2(ts BIGINT, dur BIGINT, b BIGINT);"
	  "INSERT INTO t2 VALUES (100, 400, 1), (500, 50, 2), (600, 100, 3);"
	  "CREATE VIRTUAL TABLE sp USING span_outer_join(t2, t1 PARTITIONED part);"
	  "SELECT * FROM sp;",
	  "" },
	{ "inner, unpartitioned, one side empty",
	  "CREATE TABLE t1(ts BIGINT, dur BIGINT);"
	  "CREATE TABLE t2(ts BIGINT, dur BIGINT);"
	  "INSERT INTO t2 VALUES (1, 2), (5, 0), (1, 1);"
	  "CREATE VIRTUAL TABLE sp USING span_join(t1, t2);"
	  "SELECT ts, dur FROM sp;",
	  "" },
	{ "inner and left, partitioned, first side empty: nothing",
	  "CREATE TABLE t1(ts BIGINT, dur BIGINT, part BIGINT);"
	  "CREATE TABLE t2(ts BIGINT, dur BIGINT, part BIGINT, b BIGINT);"
	  "INSERT INTO t2 VALUES (1, 2, 0, 7), (5, 0, 1, 8);"
	  "CREATE VIRTUAL TABLE sp USING span_join(t1 PARTITIONED part,"
	  " t2 PARTITIONED part);"
	  "CREATE VIRTUAL TABLE sl USING span_left_join(t1 PARTITIONED part,"
	  " t2 PARTITIONED part);"
	  "SELECT count(*) FROM sp UNION ALL SELECT count(*) FROM sl;",
	  "0\n0" },
	{ "inner, mixed: the unpartitioned side replays per partition",
	  "CREATE TABLE t1(ts BIGINT, dur BIGINT, cpu BIGINT, a BIGINT);"
	  "CREATE TABLE t2(ts BIGINT, dur BIGINT, b BIGINT);"
	  "INSERT INTO t1 VALUES (0, 10, 2, 1), (20, 10, 2, 2), (5, 10, 7, 3);"
	  "INSERT INTO t2 VALUES (5, 20, 9);"
	  "CREATE VIRTUAL TABLE sp USING span_join(t2, t1 PARTITIONED cpu);"
	  "SELECT * FROM sp;",
	  "5,5,2,9,1\n20,5,2,9,2\n5,10,7,9,3" },
	{ "the documented sched x cpu frequency example",
	  "CREATE TABLE sched(ts BIGINT, dur BIGINT, cpu BIGINT, utid BIGINT);"
	  "CREATE TABLE counter(id INTEGER PRIMARY KEY, ts BIGINT,"
	  " track_id BIGINT, value DOUBLE);"
	  "CREATE TABLE cpu_counter_track(id INTEGER PRIMARY KEY, cpu BIGINT);"
	  "INSERT INTO sched VALUES (0, 50, 0, 1), (50, 50, 0, 2),"
	  " (0, 100, 1, 3);"
	  "INSERT INTO cpu_counter_track VALUES (7, 0), (8, 1);"
	  "INSERT INTO counter(ts, track_id, value) VALUES (0, 7, 100),"
	  " (30, 7, 200), (80, 7, 300), (0, 8, 500);"
	  "CREATE VIEW sp_sched AS SELECT ts, dur, cpu, utid FROM sched;"
	  "CREATE VIEW sp_frequency AS SELECT ts, lead(ts) OVER (PARTITION BY"
	  " track_id ORDER BY ts) - ts AS dur, cpu, value AS freq FROM counter"
	  " JOIN cpu_counter_track ON counter.track_id = cpu_counter_track.id;"
	  "CREATE VIRTUAL TABLE sched_with_frequency USING SPAN_JOIN(sp_sched"
	  " PARTITIONED cpu, sp_frequency PARTITIONED cpu);"
	  "SELECT ts, dur, cpu, utid, freq FROM sched_with_frequency;",
	  /* The last sample of each cpu has no dur: a zero-length span. */
	  "0,30,0,1,100\n30,20,0,1,200\n50,30,0,2,200\n80,0,0,2,300\n"
	  "0,0,1,3,500" },
	{ "ends past INT64_MAX saturate",
	  "CREATE TABLE t1(ts BIGINT, dur BIGINT, a BIGINT);" T_UNPART2
	  "INSERT INTO t1 VALUES (9223372036854775802, 100, 1);"
	  "INSERT INTO t2 VALUES (9223372036854775797, 9223372036854775807, 2);"
	  "CREATE VIRTUAL TABLE sp USING span_outer_join(t1, t2);"
	  "SELECT * FROM sp;",
	  "9223372036854775797,5,[NULL],2\n9223372036854775802,5,1,2" },
	{ "a side without dur is points",
	  "CREATE TABLE t1(ts BIGINT, a BIGINT);" T_UNPART2
	  "INSERT INTO t1 VALUES (5, 1), (10, 2), (30, 3);"
	  "INSERT INTO t2 VALUES (0, 10, 7), (10, 10, 8);"
	  "CREATE VIRTUAL TABLE sp USING span_join(t1, t2);"
	  "SELECT * FROM sp;",
	  "5,0,1,7\n10,0,2,8" },
	{ "views as inputs, columns in table order",
	  "CREATE TABLE raw(cpu BIGINT, name TEXT, dur BIGINT, ts BIGINT);"
	  "INSERT INTO raw VALUES (0, 'p', 10, 0), (0, 'q', 10, 10);"
	  "CREATE VIEW v1 AS SELECT name, cpu, ts, dur FROM raw;"
	  "CREATE VIEW v2 AS SELECT ts, 30 AS dur, cpu, 'f' || cpu AS freq"
	  " FROM raw WHERE name = 'p';"
	  "CREATE VIRTUAL TABLE sp USING span_join(v1 PARTITIONED cpu,"
	  " v2 PARTITIONED cpu);"
	  "SELECT * FROM sp;",
	  "0,10,0,p,f0\n10,10,0,q,f0" },
	{ "constraints and ORDER BY over the join",
	  T_PART T_UNPART2
	  "INSERT INTO t1 VALUES (100, 400, 1, 10), (500, 100, 1, 11),"
	  " (500, 50, 2, 12), (600, 100, 3, 13);"
	  "INSERT INTO t2 VALUES (50, 100, 14), (550, 50, 15), (600, 50, 16),"
	  " (900, 500, 17);"
	  "CREATE VIRTUAL TABLE sp USING span_join(t1 PARTITIONED part, t2);"
	  "SELECT ts, part, a, b FROM sp WHERE a >= 11 AND b != 16 AND ts <= 600"
	  " ORDER BY part, ts;",
	  "550,1,11,15" },
	{ "constraint on the partition and on an outer side",
	  T_PART T_UNPART2
	  "INSERT INTO t1 VALUES (100, 400, 1, 10), (500, 100, 1, 11),"
	  " (500, 50, 2, 12), (600, 100, 3, 13);"
	  "INSERT INTO t2 VALUES (50, 100, 14), (550, 50, 15), (600, 50, 16),"
	  " (900, 500, 17);"
	  "CREATE VIRTUAL TABLE sp USING span_outer_join(t1 PARTITIONED part, t2);"
	  "SELECT ts, dur, a, b FROM sp WHERE part = 3 AND b IS NOT NULL"
	  " ORDER BY ts DESC;",
	  "900,500,[NULL],17\n600,50,13,16\n550,50,[NULL],15\n50,100,[NULL],14" },
};

START_TEST(test_span_join_cases)
{
	sqlite3	*db = db_new();
	char	*err, *got;
	const struct sj_case *c = &sj_cases[_i];

	got = run(db, c->sql, &err);
	if (got == NULL)
		ck_abort_msg("%s: %s", c->name, err);
	if (strcmp(got, c->want) != 0)
		ck_abort_msg("%s\n--- got:\n%s\n--- want:\n%s", c->name, got,
		    c->want);
	free(got);
	db_close(db);
}
END_TEST

START_TEST(test_span_join_columns)
{
	sqlite3	*db = db_new();

	exec(db, "CREATE TABLE t1(ts BIGINT, x TEXT, dur BIGINT, cpu INT);"
	    "CREATE TABLE t2(cpu BIGINT, y DOUBLE, ts BIGINT, z);"
	    "CREATE VIRTUAL TABLE sp USING span_join(t1 PARTITIONED cpu,"
	    " t2 PARTITIONED cpu);");
	expect_rows(db, "SELECT name, type FROM pragma_table_info('sp')",
	    "ts,BIGINT\ndur,BIGINT\ncpu,BIGINT\nx,TEXT\ny,DOUBLE\nz,");
	/* Unpartitioned, cpu is an ordinary column of both: a clash. */
	expect_error(db, "CREATE VIRTUAL TABLE sq USING span_join(t1, t2)",
	    "SPAN_JOIN: column cpu present in both tables t1 and t2");
	/* Partitioned on one side only, the other's cpu clashes too. */
	expect_error(db, "CREATE VIRTUAL TABLE sq USING span_join(t1"
	    " PARTITIONED cpu, t2)", "column cpu present in both tables");
	db_close(db);
}
END_TEST

START_TEST(test_span_join_errors)
{
	sqlite3	*db = db_new();

	exec(db, "CREATE TABLE t1(ts BIGINT, dur BIGINT, cpu BIGINT, a BIGINT);"
	    "CREATE TABLE t2(ts BIGINT, dur BIGINT, cpu BIGINT, a BIGINT);"
	    "CREATE TABLE t3(ts BIGINT, dur BIGINT, utid BIGINT);"
	    "CREATE TABLE nots(dur BIGINT, cpu BIGINT);"
	    "CREATE TABLE nodur1(ts BIGINT, cpu BIGINT);"
	    "CREATE TABLE nodur2(ts BIGINT, cpu BIGINT, b BIGINT);"
	    "CREATE TABLE strpart(ts BIGINT, dur BIGINT, cpu TEXT);"
	    "INSERT INTO t1 VALUES (0, 10, 1, 1);"
	    "INSERT INTO strpart VALUES (0, 10, 'cpu0');");
	expect_error(db, "CREATE VIRTUAL TABLE e USING span_join(t1 PARTITIONED"
	    " cpu, t2 PARTITIONED cpu)", "column a present in both tables");
	expect_error(db, "CREATE VIRTUAL TABLE e USING span_join(t1 PARTITIONED"
	    " cpu, t3 PARTITIONED utid)", "mismatching partitions");
	expect_error(db, "CREATE VIRTUAL TABLE e USING span_join(t1, nots)",
	    "Missing ts column in table nots");
	expect_error(db, "CREATE VIRTUAL TABLE e USING span_join(nodur1,"
	    " nodur2 PARTITIONED cpu)", "column dur must be present");
	expect_error(db, "CREATE VIRTUAL TABLE e USING span_join(t1 PARTITIONED"
	    " ts, t3)", "cannot be any of {ts, dur}");
	expect_error(db, "CREATE VIRTUAL TABLE e USING span_join(t1 PARTITIONED"
	    " utid, t3)", "Missing partition column 'utid' in table 't1'");
	expect_error(db, "CREATE VIRTUAL TABLE e USING span_join(t1 SPLIT cpu,"
	    " t3)", "Invalid token");
	expect_error(db, "CREATE VIRTUAL TABLE e USING span_join(t1 PARTITIONED,"
	    " t3)", "Missing partitioning column");
	expect_error(db, "CREATE VIRTUAL TABLE e USING span_join(t1)",
	    "expected exactly two arguments");
	expect_error(db, "CREATE VIRTUAL TABLE e USING span_join(t1, nosuch)",
	    "no such table nosuch");
	expect_error(db, "CREATE VIRTUAL TABLE e USING span_join(t1;DELETE,"
	    " t3)", "invalid table name");
	/* Partitions must be integers; a bad row is an error, not a skip. */
	exec(db, "CREATE TABLE t4(ts BIGINT, dur BIGINT,"
	    " cpu BIGINT); INSERT INTO t4 VALUES (0, 5, 1);"
	    "CREATE VIRTUAL TABLE sp USING span_join(t4 PARTITIONED cpu,"
	    " strpart PARTITIONED cpu);");
	expect_error(db, "SELECT * FROM sp", "partition is not an INT column");
	/* A dropped input is an error at query time. */
	exec(db, "DROP TABLE t4");
	expect_error(db, "SELECT * FROM sp", "no such table: t4");
	db_close(db);
}
END_TEST

START_TEST(test_span_join_pushdown)
{
	sqlite3		*db = db_new();
	sqlite3_stmt	*st;
	char		*sql;
	const char	*detail;
	int		 found;

	exec(db, T_PART T_UNPART2
	    "INSERT INTO t1 VALUES (100, 400, 1, 10), (500, 100, 1, 11),"
	    " (500, 50, 2, 12), (600, 100, 3, 13);"
	    "INSERT INTO t2 VALUES (50, 100, 14), (550, 50, 15), (600, 50, 16),"
	    " (900, 500, 17);"
	    "CREATE TABLE n1(ts BIGINT, dur BIGINT, name TEXT);"
	    "INSERT INTO n1 VALUES (0, 10, 'x'), (20, 10, 'X'), (40, 10, 'y');"
	    "CREATE VIRTUAL TABLE inner_sp USING span_join(t1 PARTITIONED part,"
	    " t2);"
	    "CREATE VIRTUAL TABLE left_sp USING span_left_join(t2,"
	    " t1 PARTITIONED part);"
	    "CREATE VIRTUAL TABLE names USING span_join(n1, t2);");

	/* Inner: a = 11 goes into t1's query (side 0, column 3, EQ). */
	ck_assert_int_eq(sqlite3_prepare_v2(db, "EXPLAIN QUERY PLAN SELECT *"
	    " FROM inner_sp WHERE a = 11 AND ts <= 700", -1, &st, NULL),
	    SQLITE_OK);
	found = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		detail = (const char *)sqlite3_column_text(st, 3);
		sql = sqlite3_mprintf("0:1:3:%d;", SQLITE_INDEX_CONSTRAINT_EQ);
		if (detail != NULL && strstr(detail, sql) != NULL)
			found = 1;
		sqlite3_free(sql);
	}
	sqlite3_finalize(st);
	ck_assert_msg(found, "a = 11 not pushed into t1");
	expect_rows(db, "SELECT ts, dur, a, b FROM inner_sp WHERE a = 11"
	    " AND ts <= 700", "550,50,11,15");
	/* Left join: t2 (left, no gaps) takes b's constraint; t1 none. */
	expect_rows(db, "SELECT ts, dur, part, b, a FROM left_sp WHERE b = 15"
	    " ORDER BY part", "550,50,1,15,11\n550,50,2,15,[NULL]\n"
	    "550,50,3,15,[NULL]");
	expect_rows(db, "SELECT ts, part, b, a FROM left_sp WHERE a = 13",
	    "600,3,16,13");
	/* A NOCASE comparison is not pushed as a BINARY one. */
	expect_rows(db, "SELECT ts, name FROM names WHERE name = 'x'"
	    " COLLATE NOCASE", "");
	exec(db, "INSERT INTO t2 VALUES (0, 45, 1);");
	expect_rows(db, "SELECT ts, name FROM names WHERE name = 'x'"
	    " COLLATE NOCASE", "0,x\n20,X");
	expect_rows(db, "SELECT ts, name FROM names WHERE name LIKE 'X'",
	    "0,x\n20,X");
	/* SOURCE_GEQ filters the inputs, not the output. */
	expect_rows(db, "SELECT ts, dur, a, b FROM inner_sp"
	    " WHERE SOURCE_GEQ(ts, 550)", "600,50,13,16");
	db_close(db);
}
END_TEST

START_TEST(test_span_join_correlated)
{
	sqlite3	*db = db_new();

	/* sched-like and frequency-like inputs; each query reruns the plan. */
	exec(db, "CREATE TABLE sched(ts BIGINT, dur BIGINT, cpu BIGINT,"
	    " utid BIGINT);"
	    "CREATE TABLE freq(ts BIGINT, dur BIGINT, cpu BIGINT, f BIGINT);"
	    "INSERT INTO sched VALUES (0, 10, 0, 1), (10, 10, 0, 2),"
	    " (0, 20, 1, 1);"
	    "INSERT INTO freq VALUES (0, 15, 0, 100), (15, 100, 0, 200),"
	    " (0, 100, 1, 300);"
	    "CREATE VIRTUAL TABLE sf USING span_join(sched PARTITIONED cpu,"
	    " freq PARTITIONED cpu);");
	expect_rows(db, "SELECT u.utid, (SELECT SUM(dur * f) FROM sf"
	    " WHERE sf.utid = u.utid) FROM (SELECT 1 AS utid UNION SELECT 2) u"
	    " ORDER BY u.utid", "1,7000\n2,1500");
	expect_rows(db, "SELECT cpu, COUNT(*), SUM(dur) FROM sf GROUP BY cpu",
	    "0,3,20\n1,1,20");
	/* Two cursors on one table at once. */
	expect_rows(db, "SELECT COUNT(*) FROM sf a JOIN sf b ON a.cpu = b.cpu",
	    "10");
	db_close(db);
}
END_TEST

/* Both queries must return the same rows. */
#define expect_same(db, a, b) expect_same_at(db, a, b, __LINE__)
static void
expect_same_at(sqlite3 *db, const char *a, const char *b, int line)
{
	char	*err, *ra, *rb;

	if ((ra = run(db, a, &err)) == NULL)
		ck_abort_msg("line %d: %s\n%s", line, err, a);
	if ((rb = run(db, b, &err)) == NULL)
		ck_abort_msg("line %d: %s\n%s", line, err, b);
	if (strcmp(ra, rb) != 0)
		ck_abort_msg("line %d: results differ\n%s\n--- vs\n%s", line,
		    a, b);
	ck_assert_msg(ra[0] != '\0', "line %d: both empty", line);
	free(ra);
	free(rb);
}

/*
 * Random spans (positive durations, no overlaps within a partition,
 * partitions missing on either side) checked against what plain SQL says
 * the joins must produce: inner pairs are the overlapping pairs; a left
 * join tiles every t1 span exactly; an outer join covers the union.
 */
START_TEST(test_span_join_random)
{
	sqlite3		*db = db_new();
	sqlite3_stmt	*ins;
	unsigned int	 seed = 12345u + (unsigned int)_i;
	int		 side, part, n, ts, dur, id = 0;

	exec(db, "CREATE TABLE a(ts BIGINT, dur BIGINT, part BIGINT, x BIGINT);"
	    "CREATE TABLE b(ts BIGINT, dur BIGINT, part BIGINT, y BIGINT);");
	for (side = 0; side < 2; side++) {
		ck_assert_int_eq(sqlite3_prepare_v2(db, side == 0 ?
		    "INSERT INTO a VALUES (?1, ?2, ?3, ?4)" :
		    "INSERT INTO b VALUES (?1, ?2, ?3, ?4)", -1, &ins, NULL),
		    SQLITE_OK);
		for (part = 0; part < 5; part++) {
			/* Partition 1 only in a, partition 3 only in b. */
			if ((side == 1 && part == 1) || (side == 0 && part == 3))
				continue;
			ts = (int)(rand_r(&seed) % 20);
			for (n = 0; n < 150; n++) {
				dur = 1 + (int)(rand_r(&seed) % 30);
				sqlite3_bind_int(ins, 1, ts);
				sqlite3_bind_int(ins, 2, dur);
				sqlite3_bind_int(ins, 3, part);
				sqlite3_bind_int(ins, 4, id++);
				ck_assert_int_eq(sqlite3_step(ins), SQLITE_DONE);
				sqlite3_reset(ins);
				/* Back to back one time in three. */
				ts += dur + (rand_r(&seed) % 3 == 0 ? 0 :
				    (int)(rand_r(&seed) % 20));
			}
		}
		sqlite3_finalize(ins);
	}
	exec(db, "CREATE VIRTUAL TABLE sj USING span_join(a PARTITIONED part,"
	    " b PARTITIONED part);"
	    "CREATE VIRTUAL TABLE lj USING span_left_join(a PARTITIONED part,"
	    " b PARTITIONED part);"
	    "CREATE VIRTUAL TABLE oj USING span_outer_join(a PARTITIONED part,"
	    " b PARTITIONED part);"
	    "CREATE VIEW pairs AS SELECT a.part AS part, MAX(a.ts, b.ts) AS ts,"
	    " MIN(a.ts + a.dur, b.ts + b.dur) - MAX(a.ts, b.ts) AS dur,"
	    " a.x AS x, b.y AS y FROM a JOIN b ON a.part = b.part"
	    " AND a.ts < b.ts + b.dur AND b.ts < a.ts + a.dur;");
	expect_same(db, "SELECT part, ts, dur, x, y FROM sj",
	    "SELECT part, ts, dur, x, y FROM pairs ORDER BY part, ts");
	expect_same(db, "SELECT part, ts, dur, x, y FROM lj WHERE y IS NOT NULL",
	    "SELECT part, ts, dur, x, y FROM pairs ORDER BY part, ts");
	expect_same(db, "SELECT x, SUM(dur), MIN(ts) FROM lj GROUP BY x",
	    "SELECT x, dur, ts FROM a ORDER BY x");
	expect_same(db, "SELECT part, ts, dur, x, y FROM oj"
	    " WHERE x IS NOT NULL AND y IS NOT NULL",
	    "SELECT part, ts, dur, x, y FROM pairs ORDER BY part, ts");
	expect_same(db, "SELECT y, SUM(dur) FROM oj WHERE y IS NOT NULL"
	    " GROUP BY y", "SELECT y, dur FROM b ORDER BY y");
	expect_same(db, "SELECT part, SUM(dur) FROM oj GROUP BY part",
	    "SELECT part, SUM(d) FROM (SELECT part, dur AS d FROM a UNION ALL"
	    " SELECT part, dur FROM b UNION ALL SELECT part, -dur FROM pairs)"
	    " GROUP BY part ORDER BY part");
	/* Output rows never overlap within a partition. */
	expect_rows(db, "SELECT COUNT(*) FROM (SELECT ts, dur, LEAD(ts) OVER"
	    " (PARTITION BY part ORDER BY ts) AS nts FROM oj) WHERE ts + dur > nts",
	    "0");
	db_close(db);
}
END_TEST

START_TEST(test_span_join_large)
{
	sqlite3	*db = db_new();
	char	*sql;

	/*
	 * 4 partitions x 5000 back-to-back spans of 10 against spans of 15:
	 * every boundary of either side starts a new output span, so each
	 * partition yields one span per distinct boundary in [0, 50000).
	 */
	exec(db, "CREATE TABLE a(ts BIGINT, dur BIGINT, cpu BIGINT);"
	    "CREATE TABLE b(ts BIGINT, dur BIGINT, cpu BIGINT);"
	    "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n"
	    " WHERE i < 19999) INSERT INTO a SELECT (i / 4) * 10, 10, i % 4"
	    " FROM n;"
	    "WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n"
	    " WHERE i < 13331) INSERT INTO b SELECT (i / 4) * 15, 15, i % 4"
	    " FROM n;"
	    "CREATE INDEX a_cpu ON a(cpu, ts); CREATE INDEX b_cpu ON b(cpu, ts);");
	sql = sqlite3_mprintf("CREATE VIRTUAL TABLE j USING span_join("
	    "a PARTITIONED cpu, b PARTITIONED cpu);");
	exec(db, sql);
	sqlite3_free(sql);
	/* Boundaries: multiples of 10 or 15 below 49995 (b ends at 49995). */
	expect_rows(db, "SELECT COUNT(*), SUM(dur), MIN(ts), MAX(ts + dur)"
	    " FROM j", "26664,199980,0,49995");
	expect_rows(db, "SELECT COUNT(*) FROM j WHERE cpu = 2", "6666");
	db_close(db);
}
END_TEST

/* ---- graph table functions ----------------------------------------------- */

/*
 * Lengauer and Tarjan's example flow graph, nodes named by letter code:
 * R=82, A=65, B=66, ... The expected trees are upstream's outputs for the
 * same graph.
 */
#define LT_EDGES \
    "WITH v(a, b) AS (VALUES" \
    " ('R','A'), ('R','B'), ('R','C'), ('A','D'), ('B','A'), ('B','D')," \
    " ('B','E'), ('C','F'), ('C','G'), ('D','L'), ('E','H'), ('F','I')," \
    " ('G','I'), ('G','J'), ('H','E'), ('H','K'), ('I','K'), ('J','I')," \
    " ('K','I'), ('K','R'), ('L','H')), lt(s, d) AS" \
    " (SELECT unicode(a), unicode(b) FROM v) "
#define LT_PACKED "(SELECT __intrinsic_int_rows(s, d) FROM lt)"
#define LT_TREE(cols, fn, args) \
    LT_EDGES "SELECT group_concat(x, ' ') FROM (SELECT char(node_id) ||" \
    " iif(" cols " IS NULL, '-', char(" cols ")) AS x FROM " fn "(" \
    LT_PACKED ", " \
    args ") ORDER BY node_id)"

START_TEST(test_graph_search)
{
	sqlite3	*db = db_new();

	expect_rows(db, LT_TREE("parent_node_id", "__intrinsic_graph_dfs",
	    "(SELECT __intrinsic_int_rows(unicode('R')))"),
	    "AR BR CR DA EH FC GC HL IK JG KH LD R-");
	expect_rows(db, LT_TREE("parent_node_id", "__intrinsic_graph_bfs",
	    "(SELECT __intrinsic_int_rows(unicode('R')))"),
	    "AR BR CR DA EB FC GC HE IF JG KH LD R-");
	/* Visit order: depth first takes the last start first. */
	expect_rows(db, "WITH e(s, d) AS (VALUES (1, 2), (2, 3), (5, 3),"
	    " (5, 6), (6, NULL)) SELECT * FROM __intrinsic_graph_dfs("
	    "(SELECT __intrinsic_int_rows(s, d) FROM e),"
	    " (SELECT __intrinsic_int_rows(column1) FROM (VALUES (5), (9),"
	    " (1))))", "1,[NULL]\n2,1\n3,2\n9,[NULL]\n5,[NULL]\n6,5");
	expect_rows(db, "WITH e(s, d) AS (VALUES (1, 2), (2, 3), (5, 3),"
	    " (5, 6)) SELECT * FROM __intrinsic_graph_bfs("
	    "(SELECT __intrinsic_int_rows(s, d) FROM e),"
	    " (SELECT __intrinsic_int_rows(column1) FROM (VALUES (5), (1),"
	    " (5))))", "5,[NULL]\n1,[NULL]\n3,5\n6,5\n2,1");
	/* Nothing in, nothing out; a NULL end is no edge to node 0. */
	expect_rows(db, "SELECT * FROM __intrinsic_graph_dfs(NULL, NULL)", "");
	expect_rows(db, "SELECT * FROM __intrinsic_graph_bfs("
	    "(SELECT __intrinsic_int_rows(1, 2) WHERE 0),"
	    " (SELECT __intrinsic_int_rows(1)))", "1,[NULL]");
	expect_rows(db, "WITH e(s, d) AS (VALUES (2, 1), (1, NULL),"
	    " (0, NULL)) SELECT * FROM __intrinsic_graph_dfs("
	    "(SELECT __intrinsic_int_rows(s, d) FROM e),"
	    " (SELECT __intrinsic_int_rows(2)))", "2,[NULL]\n1,2");
	/* Large, sparse ids are fine. */
	expect_rows(db, "SELECT * FROM __intrinsic_graph_dfs("
	    "(SELECT __intrinsic_int_rows(-9000000000000, 9000000000000)),"
	    " (SELECT __intrinsic_int_rows(-9000000000000)))",
	    "-9000000000000,[NULL]\n9000000000000,-9000000000000");
	db_close(db);
}
END_TEST

/* The example of upstream's floor and ceiling tests, same results. */
START_TEST(test_graph_bounded)
{
	sqlite3	*db = db_new();
	const char *q =
	    "WITH e(s, d, w) AS (VALUES (0, 0, 0), (1, 2, 1), (1, 3, 1),"
	    " (3, 4, 1), (3, 5, 0), (5, 6, 0)),"
	    " r(n, t) AS (VALUES (0, 0), (1, 2), (3, 1), (2, 0))"
	    " SELECT group_concat(root_node_id || ':' || node_id || '<' ||"
	    " coalesce(parent_node_id, '-'), ' ')"
	    " FROM __intrinsic_graph_dfs_bounded("
	    "(SELECT __intrinsic_int_rows(s, d, w) FROM e),"
	    " (SELECT __intrinsic_int_rows(n, t) FROM r), %d)";
	char	*sql;

	sql = sqlite3_mprintf(q, 1);
	expect_rows(db, sql, "0:0<- 1:1<- 1:2<1 1:3<1 1:4<3 3:3<- 3:4<3 "
	    "3:5<3 3:6<5 2:2<-");
	sqlite3_free(sql);
	sql = sqlite3_mprintf(q, 0);
	expect_rows(db, sql, "0:0<- 1:1<- 1:2<1 1:3<1 3:3<- 3:4<3 3:5<3 "
	    "3:6<5 2:2<-");
	sqlite3_free(sql);
	expect_error(db, "SELECT * FROM __intrinsic_graph_dfs_bounded("
	    "(SELECT __intrinsic_int_rows(1, 2, -1)),"
	    " (SELECT __intrinsic_int_rows(1, 5)), 1)", "non-negative");
	expect_error(db, "SELECT * FROM __intrinsic_graph_dfs_bounded("
	    "(SELECT __intrinsic_int_rows(1, 2, 1)),"
	    " (SELECT __intrinsic_int_rows(1, -5)), 1)", "non-negative");
	expect_error(db, "SELECT * FROM __intrinsic_graph_dfs_bounded("
	    "(SELECT __intrinsic_int_rows(1, 2, 1)),"
	    " (SELECT __intrinsic_int_rows(1, 5)), 'x')", "must be an integer");
	db_close(db);
}
END_TEST

START_TEST(test_graph_dominator)
{
	sqlite3	*db = db_new();

	expect_rows(db, LT_TREE("dominator_node_id",
	    "__intrinsic_graph_dominator_tree", "unicode('R')"),
	    "AR BR CR DR ER FC GC HR IR JG KR LD R-");
	/* 98 and 99 cannot be reached from 0: left out. */
	expect_rows(db, "WITH e(s, d) AS (VALUES (0, 1), (1, 2), (2, 3),"
	    " (99, 2), (98, 99), (3, 1)) SELECT * FROM"
	    " __intrinsic_graph_dominator_tree("
	    "(SELECT __intrinsic_int_rows(s, d) FROM e), 0)",
	    "0,[NULL]\n1,0\n2,1\n3,2");
	expect_rows(db, "SELECT * FROM __intrinsic_graph_dominator_tree("
	    "NULL, NULL)", "");
	expect_error(db, "SELECT * FROM __intrinsic_graph_dominator_tree("
	    "(SELECT __intrinsic_int_rows(1, 2)), 7)", "not in the graph");
	expect_error(db, "SELECT * FROM __intrinsic_graph_dominator_tree("
	    "(SELECT __intrinsic_int_rows(1, 2)), 'a')", "must be an integer");
	db_close(db);
}
END_TEST

START_TEST(test_graph_partition)
{
	sqlite3	*db = db_new();

	/* Upstream's documented example, same result. */
	expect_rows(db, "WITH t(i, p, g) AS (VALUES (1, NULL, 1), (2, 1, 1),"
	    " (3, 2, 2), (4, 2, 2), (5, 4, 1), (6, 4, 3), (7, 4, 2),"
	    " (8, 4, 1)) SELECT * FROM __intrinsic_tree_partition("
	    "(SELECT __intrinsic_int_rows(i, p, g) FROM t))",
	    "1,[NULL],1\n2,1,1\n3,[NULL],2\n4,[NULL],2\n5,2,1\n6,[NULL],3\n"
	    "7,4,2\n8,2,1");
	expect_error(db, "SELECT * FROM __intrinsic_tree_partition("
	    "(SELECT __intrinsic_int_rows(column1, column2, 0) FROM"
	    " (VALUES (1, NULL), (1, NULL))))", "duplicate");
	expect_error(db, "SELECT * FROM __intrinsic_tree_partition("
	    "(SELECT __intrinsic_int_rows(column1, column2, 0) FROM"
	    " (VALUES (1, NULL), (2, 7))))", "not a node id");
	expect_error(db, "SELECT * FROM __intrinsic_tree_partition("
	    "(SELECT __intrinsic_int_rows(column1, column2, 0) FROM"
	    " (VALUES (1, NULL), (2, 3), (3, 2))))", "loop");
	db_close(db);
}
END_TEST

/* Bad input to the packing aggregate and the table functions. */
START_TEST(test_graph_bad_input)
{
	sqlite3	*db = db_new();

	expect_error(db, "SELECT __intrinsic_int_rows('a', 1)",
	    "not an integer");
	expect_error(db, "SELECT __intrinsic_int_rows(1.5)", "not an integer");
	expect_error(db, "SELECT __intrinsic_int_rows(-9223372036854775807"
	    " - 1)", "not an integer");
	expect_rows(db, "SELECT length(__intrinsic_int_rows(2.0, 3))", "24");
	/* A BLOB not from the aggregate, or with the wrong shape. */
	expect_error(db, "SELECT * FROM __intrinsic_graph_dfs(x'0102',"
	    " NULL)", "__intrinsic_int_rows");
	expect_error(db, "SELECT * FROM __intrinsic_graph_dfs("
	    "(SELECT __intrinsic_int_rows(1, 2, 3)), NULL)",
	    "__intrinsic_int_rows");
	expect_error(db, "SELECT * FROM __intrinsic_graph_dfs(7, NULL)",
	    "__intrinsic_int_rows");
	expect_error(db, "SELECT * FROM __intrinsic_graph_dfs", "arguments");
	db_close(db);
}
END_TEST

/*
 * A 300000-node chain: deep walks need no recursion. Bounded: a root i
 * reaches min(i + 10, 300000), 11 nodes at most.
 */
START_TEST(test_graph_large)
{
	sqlite3	*db = db_new();

	exec(db, "CREATE TABLE chain AS WITH RECURSIVE c(i) AS (SELECT 0"
	    " UNION ALL SELECT i + 1 FROM c WHERE i < 299999)"
	    " SELECT i AS s, i + 1 AS d FROM c");
	expect_rows(db, "SELECT count(*), max(node_id) FROM"
	    " __intrinsic_graph_dfs((SELECT __intrinsic_int_rows(s, d)"
	    " FROM chain), (SELECT __intrinsic_int_rows(0)))",
	    "300001,300000");
	expect_rows(db, "SELECT count(*), sum(node_id - dominator_node_id)"
	    " FROM __intrinsic_graph_dominator_tree((SELECT"
	    " __intrinsic_int_rows(s, d) FROM chain), 0)", "300001,300000");
	expect_rows(db, "SELECT count(*) FROM __intrinsic_tree_partition("
	    "(SELECT __intrinsic_int_rows(d, nullif(s, -1), d % 3) FROM"
	    " (SELECT -1 AS s, 0 AS d UNION ALL SELECT s, d FROM chain)))",
	    "300001");
	expect_rows(db, "SELECT count(*) FROM __intrinsic_graph_dfs_bounded("
	    "(SELECT __intrinsic_int_rows(s, d, 1) FROM chain),"
	    " (SELECT __intrinsic_int_rows(s, 10) FROM chain), 0)",
	    "3299955");
	db_close(db);
}
END_TEST

#define SCAN_EDGES \
    "(SELECT __intrinsic_int_rows(column1, column2) FROM (VALUES (0, 1)," \
    " (0, 2), (1, 3), (2, 3), (3, 4)))"

/* Plain and aggregating scans; the results are upstream's for the same. */
START_TEST(test_graph_scan)
{
	sqlite3	*db = db_new();

	/* A row per path, text and real values carried along. */
	expect_rows(db, "SELECT * FROM __intrinsic_graph_scan(" SCAN_EDGES
	    ", (SELECT __intrinsic_value_rows(0, 'r', 1.5)),"
	    " '(SELECT id, path || id AS path, w * 2 AS w FROM $table)',"
	    " '(path, w)', 0)",
	    "0,r,1.5,[NULL],[NULL],[NULL],[NULL],[NULL]\n"
	    "1,r1,3,[NULL],[NULL],[NULL],[NULL],[NULL]\n"
	    "2,r2,3,[NULL],[NULL],[NULL],[NULL],[NULL]\n"
	    "3,r13,6,[NULL],[NULL],[NULL],[NULL],[NULL]\n"
	    "3,r23,6,[NULL],[NULL],[NULL],[NULL],[NULL]\n"
	    "4,r134,12,[NULL],[NULL],[NULL],[NULL],[NULL]\n"
	    "4,r234,12,[NULL],[NULL],[NULL],[NULL],[NULL]");
	/* One row per node, all its inputs at once. */
	expect_rows(db, "SELECT c0, c1, c2 FROM __intrinsic_graph_scan("
	    SCAN_EDGES ", (SELECT __intrinsic_value_rows(0, 'r', 1.5)),"
	    " '(SELECT id, max(path) || id, sum(w) FROM $table GROUP BY id)',"
	    " '(path, w)', 1)",
	    "0,r,1.5\n1,r1,1.5\n2,r2,1.5\n3,r23,3\n4,r234,3");
	/* No start rows: nothing; a start outside the graph: itself. */
	expect_rows(db, "SELECT c0, c1 FROM __intrinsic_graph_scan("
	    SCAN_EDGES ", NULL, '(SELECT id, d FROM $table)', '(d)', 0)", "");
	expect_rows(db, "SELECT c0, c1 FROM __intrinsic_graph_scan("
	    SCAN_EDGES ", (SELECT __intrinsic_value_rows(9, NULL)),"
	    " '(SELECT id, d FROM $table)', '(d)', 1)", "9,[NULL]");
	db_close(db);
}
END_TEST

START_TEST(test_graph_scan_errors)
{
	sqlite3	*db = db_new();
	const char *loop = "(SELECT __intrinsic_int_rows(column1, column2)"
	    " FROM (VALUES (0, 1), (1, 2), (2, 1)))";
	char	*sql;

	sql = sqlite3_mprintf("SELECT * FROM __intrinsic_graph_scan(%s,"
	    " (SELECT __intrinsic_value_rows(0, 0)),"
	    " '(SELECT id, d + 1 FROM $table)', '(d)', %d)", loop, 0);
	expect_error(db, sql, "loop");
	sqlite3_free(sql);
	sql = sqlite3_mprintf("SELECT * FROM __intrinsic_graph_scan(%s,"
	    " (SELECT __intrinsic_value_rows(0, 0)),"
	    " '(SELECT id, max(d) + 1 FROM $table GROUP BY id)', '(d)', %d)",
	    loop, 1);
	expect_error(db, sql, "loop");
	sqlite3_free(sql);
	expect_error(db, "SELECT * FROM __intrinsic_graph_scan(" SCAN_EDGES
	    ", (SELECT __intrinsic_value_rows(0, 0)),"
	    " '(SELECT id FROM $table)', '(d)', 0)", "id and the 1 scan");
	expect_error(db, "SELECT * FROM __intrinsic_graph_scan(" SCAN_EDGES
	    ", (SELECT __intrinsic_value_rows(0, 0, 0)),"
	    " '(SELECT id, d FROM $table)', '(d)', 0)", "start rows must");
	expect_error(db, "SELECT * FROM __intrinsic_graph_scan(" SCAN_EDGES
	    ", (SELECT __intrinsic_value_rows(0, 0)),"
	    " '(SELECT id, d FROM $table)', '(d; drop)', 0)", "columns must");
	expect_error(db, "SELECT * FROM __intrinsic_graph_scan(" SCAN_EDGES
	    ", (SELECT __intrinsic_value_rows(0, 0)),"
	    " '(SELECT id, d FROM nowhere)', '(d)', 0)", "no such table");
	expect_error(db, "SELECT * FROM __intrinsic_graph_scan(" SCAN_EDGES
	    ", (SELECT __intrinsic_value_rows(0, 0)),"
	    " '(SELECT ''x'', d FROM $table)', '(d)', 0)", "non-integer id");
	expect_error(db, "SELECT * FROM __intrinsic_graph_scan(" SCAN_EDGES
	    ", x'0011223344', '(SELECT id, d FROM $table)', '(d)', 0)",
	    "__intrinsic_value_rows");
	expect_error(db, "SELECT __intrinsic_value_rows(x'00')", "BLOB");
	expect_error(db, "SELECT * FROM __intrinsic_graph_scan_rows(5)",
	    "no running scan");
	db_close(db);
}
END_TEST

/* Each round's rows travel on: a 2^16-row fan-out is fine, bounded. */
START_TEST(test_graph_scan_large)
{
	sqlite3	*db = db_new();

	/* 16 diamonds in a row: 2^16 paths to the last node. */
	exec(db, "CREATE TABLE dia AS WITH RECURSIVE k(i) AS (SELECT 0"
	    " UNION ALL SELECT i + 1 FROM k WHERE i < 15)"
	    " SELECT 3 * i AS s, 3 * i + 1 AS d FROM k UNION ALL"
	    " SELECT 3 * i, 3 * i + 2 FROM k UNION ALL"
	    " SELECT 3 * i + 1, 3 * i + 3 FROM k UNION ALL"
	    " SELECT 3 * i + 2, 3 * i + 3 FROM k");
	expect_rows(db, "SELECT count(*) FROM __intrinsic_graph_scan("
	    "(SELECT __intrinsic_int_rows(s, d) FROM dia),"
	    " (SELECT __intrinsic_value_rows(0, 0)),"
	    " '(SELECT id, d + 1 FROM $table)', '(d)', 0) WHERE c0 = 48",
	    "65536");
	expect_rows(db, "SELECT c1 FROM __intrinsic_graph_scan("
	    "(SELECT __intrinsic_int_rows(s, d) FROM dia),"
	    " (SELECT __intrinsic_value_rows(0, 1)),"
	    " '(SELECT id, sum(d) FROM $table GROUP BY id)', '(d)', 1)"
	    " WHERE c0 = 48", "65536");
	/* 24 diamonds: 2^24 rows would pass the bound. */
	exec(db, "CREATE TABLE dia24 AS WITH RECURSIVE k(i) AS (SELECT 0"
	    " UNION ALL SELECT i + 1 FROM k WHERE i < 23)"
	    " SELECT 3 * i AS s, 3 * i + 1 AS d FROM k UNION ALL"
	    " SELECT 3 * i, 3 * i + 2 FROM k UNION ALL"
	    " SELECT 3 * i + 1, 3 * i + 3 FROM k UNION ALL"
	    " SELECT 3 * i + 2, 3 * i + 3 FROM k");
	expect_error(db, "SELECT count(*) FROM __intrinsic_graph_scan("
	    "(SELECT __intrinsic_int_rows(s, d) FROM dia24),"
	    " (SELECT __intrinsic_value_rows(0, 0)),"
	    " '(SELECT id, d FROM $table)', '(d)', 0)", "values in flight");
	db_close(db);
}
END_TEST

/*
 * The critical path walk on the graph of diff test
 * stdlib_sched_critical_path (same rows as upstream's walk there).
 */
#define CP_NODES \
    "(SELECT __intrinsic_int_rows(column1, column2, column3, column4," \
    " column5, column6, column7) FROM (VALUES" \
    " (1, 1, 0, 10, NULL, NULL, NULL), (2, 2, 5, 20, 5, 1, NULL)," \
    " (3, 2, 40, 10, 15, NULL, 2), (4, 3, 50, 10, 48, 3, NULL)))"

START_TEST(test_critical_path)
{
	sqlite3	*db = db_new();

	expect_rows(db, "SELECT root_id, depth, ts, dur, blocker_id,"
	    " blocker_utid, parent_id FROM __intrinsic_critical_path_walk("
	    CP_NODES ", (SELECT __intrinsic_int_rows(4)))",
	    "4,0,50,10,4,3,4\n4,1,25,15,3,2,4\n4,1,40,10,3,2,4\n"
	    "4,1,5,20,2,2,4\n4,2,2,3,1,1,4");
	/* Unknown and NULL roots walk nowhere. */
	expect_rows(db, "SELECT * FROM __intrinsic_critical_path_walk("
	    CP_NODES ", (SELECT __intrinsic_int_rows(column1) FROM"
	    " (VALUES (99), (NULL))))", "");
	expect_rows(db, "SELECT * FROM __intrinsic_critical_path_walk("
	    "NULL, NULL)", "");
	/* Bad data: woken by itself never ends; duplicates; NULL ts. */
	expect_error(db, "SELECT * FROM __intrinsic_critical_path_walk("
	    "(SELECT __intrinsic_int_rows(7, 1, 100, 10, 50, 7, NULL)),"
	    " (SELECT __intrinsic_int_rows(7)))", "does not end");
	expect_error(db, "SELECT * FROM __intrinsic_critical_path_walk("
	    "(SELECT __intrinsic_int_rows(7, 1, column1, 10, 5, NULL, NULL)"
	    " FROM (VALUES (1), (2))), (SELECT __intrinsic_int_rows(7)))",
	    "duplicate");
	expect_error(db, "SELECT * FROM __intrinsic_critical_path_walk("
	    "(SELECT __intrinsic_int_rows(7, 1, NULL, 10, 5, NULL, NULL)),"
	    " (SELECT __intrinsic_int_rows(7)))", "must not be NULL");
	/* Times at the int64 edges do not overflow. */
	expect_rows(db, "SELECT count(*) FROM __intrinsic_critical_path_walk("
	    "(SELECT __intrinsic_int_rows(1, 1, 9223372036854775000, 10000,"
	    " 9223372036854775000, NULL, NULL)),"
	    " (SELECT __intrinsic_int_rows(1)))", "1");
	db_close(db);
}
END_TEST

static Suite *
tp_ops_suite(void)
{
	Suite	*s = suite_create("tp_ops");
	TCase	*tc;

	tc = tcase_create("functions");
	tcase_add_test(tc, test_extract_arg);
	tcase_add_test(tc, test_extract_arg_no_table);
	tcase_add_test(tc, test_hash);
	tcase_add_test(tc, test_string_fns);
	tcase_add_test(tc, test_value_at_max_ts);
	suite_add_tcase(s, tc);

	tc = tcase_create("slices");
	tcase_add_test(tc, test_ancestor_slice);
	tcase_add_test(tc, test_descendant_slice);
	tcase_add_test(tc, test_slice_by_stack);
	tcase_add_test(tc, test_slice_fns_empty);
	tcase_add_test(tc, test_slice_fns_no_table);
	tcase_add_test(tc, test_slice_fns_loops);
	suite_add_tcase(s, tc);

	tc = tcase_create("flows");
	tcase_add_test(tc, test_flows);
	tcase_add_test(tc, test_flows_trace_id);
	suite_add_tcase(s, tc);

	tc = tcase_create("graphs");
	tcase_add_test(tc, test_graph_search);
	tcase_add_test(tc, test_graph_bounded);
	tcase_add_test(tc, test_graph_dominator);
	tcase_add_test(tc, test_graph_partition);
	tcase_add_test(tc, test_graph_bad_input);
	tcase_add_test(tc, test_graph_large);
	tcase_add_test(tc, test_graph_scan);
	tcase_add_test(tc, test_graph_scan_errors);
	tcase_add_test(tc, test_graph_scan_large);
	tcase_add_test(tc, test_critical_path);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);

	tc = tcase_create("span_join");
	tcase_add_loop_test(tc, test_span_join_cases, 0,
	    (int)(sizeof(sj_cases) / sizeof(sj_cases[0])));
	tcase_add_test(tc, test_span_join_columns);
	tcase_add_test(tc, test_span_join_errors);
	tcase_add_test(tc, test_span_join_pushdown);
	tcase_add_test(tc, test_span_join_correlated);
	tcase_add_loop_test(tc, test_span_join_random, 0, 4);
	tcase_add_test(tc, test_span_join_large);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner	*sr;
	int	 failed;

	sr = srunner_create(tp_ops_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
