/*
 * check_tpmetrics: metrics on a known trace (data/linux.textproto, encoded
 * as data/linux.pb) against golden output, the binary form read back by
 * the protobuf-c TraceMetrics and by protoc when it is installed, users'
 * metrics from a directory, and the errors a user can cause.
 */
#include "config.h"

#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "metrics/metrics.h"
#include "metrics/mproto.h"
#include "metrics/pbbuf.h"
#include "protos/perfetto/metrics/metrics.pb-c.h"
#include "tp.h"

static char *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	ck_assert_msg(f != NULL, "%s", path);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	ck_assert_int_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	if (len)
		*len = (size_t)n;
	return buf;
}

static const char *
srcdir(void)
{
	const char *s = getenv("top_srcdir");

	return s ? s : ".";
}

static struct tp *
load_linux(void)
{
	struct tp_config cfg;
	struct tp *tp;
	char path[1024], *err = NULL;

	tp_config_init(&cfg);
	ck_assert_ptr_nonnull(tp = tp_new(&cfg, &err));
	snprintf(path, sizeof(path),
	    "%s/tests/trace_processor/metrics/data/linux.pb", srcdir());
	ck_assert_msg(tp_load_file(tp, path) == 0, "%s", tp_error(tp));
	return tp;
}

/* Runs names and renders them; the caller frees. */
static char *
run(struct metrics *mx, struct tp *tp, const char *list,
    enum metrics_format fmt, size_t *len, char **errout)
{
	struct pbbuf w;
	char **names, *err = NULL, *txt = NULL;
	size_t n, l = 0;

	names = metrics_split_names(list, &n);
	pbb_init(&w);
	if (metrics_compute(mx, tp_db(tp), (const char *const *)names, n, &w,
	    &err) == 0)
		txt = metrics_render(mx, w.buf, w.len, fmt, &l, &err);
	if (errout != NULL)
		*errout = err;
	else {
		ck_assert_msg(txt != NULL, "%s: %s", list, err);
		free(err);
	}
	pbb_free(&w);
	metrics_names_free(names, n);
	if (len)
		*len = l;
	return txt;
}

static void
check_golden(struct metrics *mx, struct tp *tp, const char *list,
    enum metrics_format fmt, const char *golden)
{
	char path[1024], *want, *got;

	snprintf(path, sizeof(path),
	    "%s/tests/trace_processor/metrics/data/%s", srcdir(), golden);
	want = slurp(path, NULL);
	got = run(mx, tp, list, fmt, NULL, NULL);
	ck_assert_msg(strcmp(want, got) == 0, "%s differs; got:\n%s", golden,
	    got);
	free(want);
	free(got);
}

START_TEST(test_builtin_golden)
{
	static const char *const names[] = { "linux_cpu", "linux_memory",
	    "linux_io", "linux_slices", "trace_metadata" };
	struct metrics *mx;
	struct tp *tp;
	char *err = NULL, golden[64];
	size_t i;

	ck_assert_ptr_nonnull(mx = metrics_new(&err));
	tp = load_linux();
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(golden, sizeof(golden), "%s.out", names[i]);
		check_golden(mx, tp, names[i], METRICS_TEXT, golden);
	}
	check_golden(mx, tp, "linux_io,trace_metadata", METRICS_JSON,
	    "linux_io_metadata.json.out");
	/*
	 * trace_stats lists every stat the engine keeps, a list that grows
	 * with the engine: check it against the stats table instead.
	 */
	{
		sqlite3_stmt *st;
		char *txt = run(mx, tp, "trace_stats", METRICS_TEXT, NULL,
		    NULL), *p;
		long want = -1, got = 0;

		ck_assert_int_eq(sqlite3_prepare_v2(tp_db(tp), "SELECT COUNT() "
		    "FROM (SELECT 1 FROM stats GROUP BY name, idx, source, "
		    "severity)", -1, &st, NULL), SQLITE_OK);
		if (sqlite3_step(st) == SQLITE_ROW)
			want = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
		for (p = txt; (p = strstr(p, "  stat {\n")) != NULL; p++)
			got++;
		ck_assert_int_gt(want, 0);
		ck_assert_int_eq(got, want);
		ck_assert_ptr_nonnull(strstr(txt, "trace_stats {\n  stat {\n"));
		ck_assert_ptr_nonnull(strstr(txt,
		    "    name: \"sorter_push_event_out_of_order\"\n"
		    "    severity: SEVERITY_ERROR\n"
		    "    source: SOURCE_TRACE\n"
		    "    count: 0\n"));
		free(txt);
	}
	/* Running a metric twice gives the same answer (views replaced). */
	check_golden(mx, tp, "linux_cpu", METRICS_TEXT, "linux_cpu.out");
	tp_free(tp);
	metrics_free(mx);
}
END_TEST

START_TEST(test_binary_is_real_proto)
{
	Perfetto__Protos__TraceMetrics *m;
	struct metrics *mx;
	struct tp *tp;
	char *err = NULL, *bin, *txt, cmd[2048], outp[256];
	const char *protoc;
	size_t len, tlen;
	FILE *f;
	size_t i;
	int found = 0;

	ck_assert_ptr_nonnull(mx = metrics_new(&err));
	tp = load_linux();
	bin = run(mx, tp, "trace_stats,trace_metadata,linux_cpu,linux_io",
	    METRICS_BINARY, &len, NULL);
	/* protobuf-c's TraceMetrics reads it; our extensions stay unknown. */
	m = perfetto__protos__trace_metrics__unpack(NULL, len,
	    (const uint8_t *)bin);
	ck_assert_ptr_nonnull(m);
	ck_assert_ptr_nonnull(m->trace_metadata);
	ck_assert_int_eq(m->trace_metadata->trace_duration_ns, 5600);
	ck_assert_ptr_nonnull(m->trace_stats);
	for (i = 0; i < m->trace_stats->n_stat; i++)
		if (strcmp(m->trace_stats->stat[i]->name,
		    "sorter_push_event_out_of_order") == 0)
			found = 1;
	ck_assert(found);
	ck_assert_ptr_nonnull(m->base.unknown_fields);
	perfetto__protos__trace_metrics__free_unpacked(m, NULL);

	/* protoc decodes it to exactly our text. */
	protoc = getenv("PROTOC");
	if (protoc == NULL || *protoc == '\0')
		protoc = "protoc";
	snprintf(outp, sizeof(outp), "/tmp/check_tpmetrics.%d.bin",
	    (int)getpid());
	ck_assert_ptr_nonnull(f = fopen(outp, "wb"));
	ck_assert_int_eq(fwrite(bin, 1, len, f), len);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1 && "
	    "%s --decode=perfetto.protos.TraceMetrics -I %s "
	    "-I %s/daemons/trace_processor/metrics/protos "
	    "linux_metrics.proto < %s", protoc, protoc, srcdir(), srcdir(),
	    outp);
	if ((f = popen(cmd, "r")) != NULL) {
		char *dec = malloc(1 << 20);
		size_t n = fread(dec, 1, (1 << 20) - 1, f);

		dec[n] = '\0';
		if (pclose(f) == 0) {
			txt = run(mx, tp, "trace_stats,trace_metadata,"
			    "linux_cpu,linux_io", METRICS_TEXT, &tlen, NULL);
			ck_assert_str_eq(dec, txt);
			free(txt);
		} else
			fprintf(stderr, "check_tpmetrics: no protoc, the "
			    "protoc comparison is skipped\n");
		free(dec);
	}
	unlink(outp);
	free(bin);
	tp_free(tp);
	metrics_free(mx);
}
END_TEST

static void
write_file(const char *dir, const char *name, const char *text)
{
	char path[2100];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	ck_assert_ptr_nonnull(f = fopen(path, "w"));
	fputs(text, f);
	fclose(f);
}

static char *
mkext(void)
{
	char *dir = strdup("/tmp/check_tpmetrics.XXXXXX");
	char sub[1024];

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(sub, sizeof(sub), "%s/protos", dir);
	mkdir(sub, 0700);
	snprintf(sub, sizeof(sub), "%s/sql", dir);
	mkdir(sub, 0700);
	return dir;
}

static void
rmext(char *dir)
{
	char cmd[1100];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
	free(dir);
}

START_TEST(test_user_metric)
{
	struct metrics *mx;
	struct tp *tp;
	char *err = NULL, *txt, *dir = mkext(), sub[1024];

	snprintf(sub, sizeof(sub), "%s/protos", dir);
	write_file(sub, "busy.proto",
	    "syntax = \"proto2\";\n"
	    "package acme;\n"
	    "import \"protos/perfetto/metrics/metrics.proto\";\n"
	    "// Threads that ran longest, as a user would write it.\n"
	    "message BusyThreads {\n"
	    "  message Entry {\n"
	    "    optional string name = 1;\n"
	    "    optional int64 ns = 2;\n"
	    "    optional Kind kind = 3;\n"
	    "  }\n"
	    "  enum Kind { KIND_UNKNOWN = 0; KIND_APP = 1; KIND_DB = 2; }\n"
	    "  repeated Entry entry = 1;\n"
	    "  optional double share = 2;\n"
	    "  repeated int64 tids = 3;\n"
	    "  oneof extra { string note = 4; }\n"
	    "}\n"
	    "extend perfetto.protos.TraceMetrics {\n"
	    "  optional BusyThreads busy_threads = 450;\n"
	    "}\n");
	snprintf(sub, sizeof(sub), "%s/sql", dir);
	write_file(sub, "busy_helper.sql",
	    "DROP VIEW IF EXISTS busy_base;\n"
	    "CREATE PERFETTO VIEW busy_base AS SELECT utid, SUM(dur) AS ns\n"
	    "FROM sched JOIN thread USING (utid) WHERE dur > 0 AND tid != 0\n"
	    "GROUP BY utid HAVING ns >= {{min_ns}};\n");
	write_file(sub, "busy_threads.sql",
	    "INCLUDE PERFETTO MODULE linux.cpu.utilization.thread;\n"
	    "SELECT RUN_METRIC('busy_helper.sql', 'min_ns', '2000');\n"
	    "DROP VIEW IF EXISTS busy_threads_output;\n"
	    "CREATE PERFETTO VIEW busy_threads_output AS\n"
	    "SELECT BusyThreads(\n"
	    "  'entry', (SELECT RepeatedField(BusyThreads_Entry(\n"
	    "      'name', name, 'ns', ns,\n"
	    "      'kind', CASE WHEN name LIKE 'app%' THEN 'KIND_APP'\n"
	    "        ELSE 2 END))\n"
	    "    FROM (SELECT t.name AS name, b.ns AS ns FROM busy_base b\n"
	    "      JOIN thread t USING (utid) ORDER BY ns DESC, name)),\n"
	    "  'share', 0.25,\n"
	    "  'tids', (SELECT RepeatedField(tid) FROM\n"
	    "    (SELECT tid FROM thread WHERE tid > 100 ORDER BY tid)),\n"
	    "  'note', 'it''s \"quoted\"');\n");
	ck_assert_ptr_nonnull(mx = metrics_new(&err));
	ck_assert_msg(metrics_add_extension(mx, dir, &err) == 0, "%s", err);
	tp = load_linux();
	txt = run(mx, tp, "busy_threads", METRICS_TEXT, NULL, NULL);
	ck_assert_str_eq(txt,
	    "[acme.busy_threads] {\n"
	    "  entry {\n"
	    "    name: \"app-worker\"\n"
	    "    ns: 2800\n"
	    "    kind: KIND_APP\n"
	    "  }\n"
	    "  entry {\n"
	    "    name: \"app\"\n"
	    "    ns: 2000\n"
	    "    kind: KIND_APP\n"
	    "  }\n"
	    "  entry {\n"
	    "    name: \"db\"\n"
	    "    ns: 2000\n"
	    "    kind: KIND_DB\n"
	    "  }\n"
	    "  share: 0.25\n"
	    "  tids: 101\n"
	    "  tids: 200\n"
	    "  tids: 201\n"
	    "  note: \"it's \\\"quoted\\\"\"\n"
	    "}\n");
	free(txt);
	/* Alongside a built-in, in field order. */
	txt = run(mx, tp, "busy_threads,trace_metadata", METRICS_JSON, NULL,
	    NULL);
	ck_assert_ptr_nonnull(strstr(txt, "\"trace_metadata\""));
	ck_assert_ptr_nonnull(strstr(txt, "\"tids\": [101, 200, 201]"));
	ck_assert(strstr(txt, "trace_metadata") < strstr(txt, "acme"));
	free(txt);
	tp_free(tp);
	metrics_free(mx);
	rmext(dir);
}
END_TEST

/* Each bad extension is refused with a message that names the problem. */
START_TEST(test_user_errors)
{
	static const struct {
		const char	*proto;
		const char	*sql;
		const char	*metric;	/* run it; NULL: load fails */
		const char	*want;
	} cases[] = {
		{ "message A { optional int64 x = 1 }\n", NULL, NULL,
		    "a.proto:1: expected ';'" },
		{ "message A {\n  map<string, int64> m = 1;\n}\n", NULL, NULL,
		    "a.proto:2: 'map' fields are not supported" },
		{ "message A { optional Nope x = 1; }\n", NULL, NULL,
		    "unknown type Nope" },
		{ "package perfetto.protos;\nmessage A { optional int64 x = 1; }"
		  "\nextend TraceMetrics { optional A trace_stats = 460; }\n",
		    NULL, NULL, "clashes" },
		{ "package perfetto.protos;\nmessage A { optional int64 x = 1; }"
		  "\nextend TraceMetrics { optional A a = 460; }\n",
		    "CREATE VIEW a_output AS SELECT A('y', 1);\n", "a",
		    "A: no field 'y'" },
		{ "package perfetto.protos;\nmessage A { optional int64 x = 1; }"
		  "\nextend TraceMetrics { optional A a = 460; }\n",
		    "CREATE VIEW a_output AS SELECT A('x', 'text');\n", "a",
		    "field 'x': a text value does not fit" },
		{ "package perfetto.protos;\nmessage A { optional int64 x = 1; }"
		  "\nextend TraceMetrics { optional A a = 460; }\n",
		    "CREATE VIEW a_output AS SELECT 42;\n", "a",
		    "does not hold a message" },
		{ "package perfetto.protos;\nmessage A { optional int64 x = 1; }"
		  "\nextend TraceMetrics { optional A a = 460; }\n",
		    "CREATE VIEW a_output AS SELECT A('x', 1) FROM nope;\n",
		    "a", "no such table" },
		{ "package perfetto.protos;\nmessage A { optional int64 x = 1; }"
		  "\nextend TraceMetrics { optional A a = 460; }\n",
		    "SELECT RUN_METRIC('missing.sql');\n", "a",
		    "no metric file missing.sql" },
		{ "package p;\nmessage A { optional int64 x = 1; }\n",
		    "CREATE VIEW a_output AS SELECT A('x', 1);\n", "a",
		    "TraceMetrics has no message field a" },
	};
	struct metrics *mx;
	struct tp *tp;
	char *err, *dir, *txt;
	size_t i;

	tp = load_linux();
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		dir = mkext();
		err = NULL;
		ck_assert_ptr_nonnull(mx = metrics_new(&err));
		{
			char sub[1024];

			snprintf(sub, sizeof(sub), "%s/protos", dir);
			write_file(sub, "a.proto", cases[i].proto);
			if (cases[i].sql != NULL) {
				snprintf(sub, sizeof(sub), "%s/sql", dir);
				write_file(sub, "a.sql", cases[i].sql);
			}
		}
		if (cases[i].metric == NULL) {
			ck_assert_int_eq(metrics_add_extension(mx, dir, &err),
			    -1);
		} else {
			ck_assert_msg(metrics_add_extension(mx, dir, &err) == 0,
			    "case %zu: %s", i, err);
			txt = run(mx, tp, cases[i].metric, METRICS_TEXT, NULL,
			    &err);
			ck_assert_ptr_null(txt);
		}
		ck_assert_msg(err != NULL && strstr(err, cases[i].want),
		    "case %zu: want '%s', got '%s'", i, cases[i].want,
		    err ? err : "(none)");
		free(err);
		metrics_free(mx);
		rmext(dir);
	}
	/* Unknown names. */
	ck_assert_ptr_nonnull(mx = metrics_new(&err));
	txt = run(mx, tp, "linux_cpu,nope", METRICS_TEXT, NULL, &err);
	ck_assert_ptr_null(txt);
	ck_assert_ptr_nonnull(strstr(err, "unknown metric: nope"));
	free(err);
	ck_assert_int_eq(metrics_add_extension(mx, "/nonexistent", &err), -1);
	free(err);
	metrics_free(mx);
	tp_free(tp);
}
END_TEST

START_TEST(test_empty_trace)
{
	struct tp_config cfg;
	struct metrics *mx;
	struct tp *tp;
	char *err = NULL, *txt;

	/* Nothing to measure: empty messages, no errors. */
	tp_config_init(&cfg);
	ck_assert_ptr_nonnull(tp = tp_new(&cfg, &err));
	ck_assert_int_eq(tp_eof(tp), 0);
	ck_assert_ptr_nonnull(mx = metrics_new(&err));
	txt = run(mx, tp, "linux_cpu,linux_memory,linux_io,linux_slices",
	    METRICS_TEXT, NULL, NULL);
	ck_assert_str_eq(txt,
	    "[perfetto.protos.linux_cpu] {\n"
	    "  total_cpu_time_ns: 0\n"
	    "}\n"
	    "[perfetto.protos.linux_memory] {\n"
	    "}\n"
	    "[perfetto.protos.linux_io] {\n"
	    "}\n"
	    "[perfetto.protos.linux_slices] {\n"
	    "}\n");
	free(txt);
	metrics_free(mx);
	tp_free(tp);
}
END_TEST

START_TEST(test_mproto_reader)
{
	static const char text[] =
	    "syntax = \"proto2\"; package a.b;\n"
	    "/* block\n comment */ option java_package = \"x\";\n"
	    "message Outer {\n"
	    "  reserved 5, 6; reserved \"old\"; extensions 100 to 200;\n"
	    "  message Inner { optional sint32 z = 1 [deprecated = true]; }\n"
	    "  enum E { option allow_alias = true; A = 0; B = 1; C = -1; }\n"
	    "  optional Inner in = 1;\n"
	    "  repeated E es = 2;\n"
	    "  optional .a.b.Outer.Inner abs = 3;\n"
	    "  oneof o { fixed32 f = 4; bytes b = 7; }\n"
	    "}\n";
	struct mp_pool pool;
	struct mp_msg *m;
	const struct mp_field *f;
	char err[256];

	mp_pool_init(&pool);
	ck_assert_msg(mp_parse_untrusted(&pool, text, sizeof(text) - 1, "t",
	    err, sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(mp_resolve(&pool, err, sizeof(err)), 0);
	ck_assert_ptr_nonnull(m = mp_find_msg(&pool, "a.b.Outer"));
	ck_assert_str_eq(m->short_name, "Outer");
	ck_assert_ptr_nonnull(f = mp_field_by_name(m, "in"));
	ck_assert_int_eq(f->type, MP_MESSAGE);
	ck_assert_str_eq(f->msg->full_name, "a.b.Outer.Inner");
	ck_assert_ptr_nonnull(f = mp_field_by_name(m, "es"));
	ck_assert_int_eq(f->type, MP_ENUM);
	ck_assert(f->repeated);
	ck_assert_str_eq(mp_enum_name(f->en, -1), "C");
	ck_assert_ptr_nonnull(f = mp_field_by_number(m, 7));
	ck_assert_int_eq(f->type, MP_BYTES);
	ck_assert_ptr_nonnull(f = mp_field_by_name(m, "abs"));
	ck_assert_str_eq(f->msg->full_name, "a.b.Outer.Inner");
	ck_assert_ptr_nonnull(m = mp_find_msg(&pool, ".a.b.Outer.Inner"));
	ck_assert_str_eq(m->short_name, "Outer.Inner");
	mp_pool_free(&pool);

	/* Truncated input of every length is refused or read, never more. */
	for (size_t n = 0; n < sizeof(text) - 1; n++) {
		char *cut = malloc(n ? n : 1);

		memcpy(cut, text, n);
		mp_pool_init(&pool);
		if (mp_parse_untrusted(&pool, cut, n, "t", err,
		    sizeof(err)) == 0)
			(void)mp_resolve(&pool, err, sizeof(err));
		mp_pool_free(&pool);
		free(cut);
	}
}
END_TEST

/* Every row of a query, one line each, columns separated by '|'. */
static char *
dump(struct tp *tp, const char *sql)
{
	struct pbbuf b;
	sqlite3_stmt *st;
	size_t len;
	int i;

	pbb_init(&b);
	ck_assert_msg(sqlite3_prepare_v2(tp_db(tp), sql, -1, &st, NULL) ==
	    SQLITE_OK, "%s: %s", sql, sqlite3_errmsg(tp_db(tp)));
	while (sqlite3_step(st) == SQLITE_ROW) {
		for (i = 0; i < sqlite3_column_count(st); i++) {
			const char *v = (const char *)sqlite3_column_text(st,
			    i);

			if (i > 0)
				pbb_raw(&b, "|", 1);
			v = v ? v : "NULL";
			pbb_raw(&b, v, strlen(v));
		}
		pbb_raw(&b, "\n", 1);
	}
	sqlite3_finalize(st);
	pbb_raw(&b, "", 1);
	return (char *)pbb_take(&b, &len);
}

/* The tables a checkpoint must show as a full import does. */
static const char *const dumped[] = {
	"SELECT * FROM slice ORDER BY id",
	"SELECT * FROM sched ORDER BY id",
	"SELECT * FROM thread_state ORDER BY id",
	"SELECT * FROM counter ORDER BY id",
	"SELECT * FROM ftrace_event ORDER BY id",
	"SELECT * FROM args ORDER BY arg_set_id, id",
	"SELECT * FROM flow ORDER BY id",
	"SELECT * FROM thread ORDER BY utid",
	"SELECT * FROM process ORDER BY upid",
	"SELECT * FROM track ORDER BY id",
	"SELECT * FROM cpu ORDER BY id",
	/* the time spent parsing differs from run to run */
	"SELECT * FROM stats WHERE name NOT GLOB '*_duration_ns'"
	" ORDER BY name, idx",
	"SELECT * FROM trace_bounds",
};

/* The metrics --live serves. */
static const char live_set[] =
    "trace_stats,linux_cpu,linux_memory,linux_io,linux_slices";

/* Every table of dumped reads the same in full and inc (when: where the
 * test stands, for the failure message). */
static void
assert_tables_equal(struct tp *full, struct tp *inc, const char *when)
{
	char *a, *b;
	size_t i;

	for (i = 0; i < sizeof(dumped) / sizeof(dumped[0]); i++) {
		a = dump(full, dumped[i]);
		b = dump(inc, dumped[i]);
		ck_assert_msg(strcmp(a, b) == 0, "%s: %s\nfull:\n%s\ninc:\n%s",
		    when, dumped[i], a, b);
		free(a);
		free(b);
	}
}

/* Replaces the counts of the *_duration_ns stats in a text rendering
 * by "#": the time spent parsing differs from run to run. */
static void
mask_durations(char *txt)
{
	char *p = txt, *c, *e;

	while ((p = strstr(p, "_duration_ns\"")) != NULL) {
		if ((c = strstr(p, "count: ")) == NULL)
			break;
		c += 7;
		for (e = c; *e >= '0' && *e <= '9'; e++)
			;
		if (e > c) {
			*c = '#';
			memmove(c + 1, e, strlen(e) + 1);
		}
		p = c;
	}
}

/* The live metrics render the same on both; returns inc's (free it). */
static char *
assert_metrics_equal(struct metrics *mx, struct tp *full, struct tp *inc)
{
	char *a = run(mx, full, live_set, METRICS_TEXT, NULL, NULL);
	char *b = run(mx, inc, live_set, METRICS_TEXT, NULL, NULL);

	mask_durations(a);
	mask_durations(b);

	ck_assert_msg(strcmp(a, b) == 0, "full:\n%s\nincremental:\n%s", a, b);
	free(a);
	return b;
}

/*
 * The same packets two ways: a full import (tp_eof) and an incremental
 * one (pieces of 97 bytes, a checkpoint and the metrics after each, the
 * records held back until the last checkpoint releases them all). The
 * metrics and the tables must be the same, and ending the incremental
 * engine afterwards must not change them either.
 */
START_TEST(test_incremental_same_metrics)
{
	struct metrics *mx;
	struct tp_config cfg;
	struct tp *full, *inc;
	char path[1024], *err = NULL, *buf, *b;
	size_t len, off;

	ck_assert_ptr_nonnull(mx = metrics_new(&err));
	full = load_linux();
	snprintf(path, sizeof(path),
	    "%s/tests/trace_processor/metrics/data/linux.pb", srcdir());
	buf = slurp(path, &len);
	tp_config_init(&cfg);
	ck_assert_ptr_nonnull(inc = tp_new(&cfg, &err));
	for (off = 0; off < len; off += 97) {
		size_t n = len - off < 97 ? len - off : 97;

		ck_assert_int_eq(tp_parse(inc, buf + off, n), 0);
		ck_assert_int_eq(tp_checkpoint(inc, INT64_MIN), 0);
		free(run(mx, inc, live_set, METRICS_TEXT, NULL, NULL));
	}
	ck_assert_int_eq(tp_checkpoint(inc, INT64_MAX), 0);
	b = assert_metrics_equal(mx, full, inc);
	/* Not empty: the trace feeds every metric. */
	ck_assert_ptr_nonnull(strstr(b, "linux_slices"));
	ck_assert_ptr_nonnull(strstr(b, "sched_latency"));
	free(b);
	assert_tables_equal(full, inc, "checkpoint");
	/* A checkpoint leaves the engine able to end the trace as usual. */
	ck_assert_int_eq(tp_eof(inc), 0);
	assert_tables_equal(full, inc, "after eof");
	free(buf);
	tp_free(inc);
	tp_free(full);
	metrics_free(mx);
}
END_TEST

/*
 * Windowing: after tp_evict_before(h), each table holds exactly the rows
 * of a full import whose time is not over before h, with the same ids and
 * columns; args are those of the rows left; the metrics still run.
 */
START_TEST(test_evict_window)
{
	static const struct {
		const char	*table;
		const char	*kept;
	} t[] = {
		{ "sched", "NOT (dur >= 0 AND ts + dur < " },
		{ "thread_state", "NOT (dur >= 0 AND ts + dur < " },
		{ "slice", "NOT (dur >= 0 AND ts + dur < " },
		{ "counter", "(ts >= " },
		{ "ftrace_event", "(ts >= " },
	};
	static const long long horizons[] = { 0, 2600, 4000, 5900, 1000000 };
	struct metrics *mx;
	struct tp_config cfg;
	struct tp *full, *inc;
	char path[1024], sql[256], *err = NULL, *buf, *a, *b;
	size_t len, i, h;

	ck_assert_ptr_nonnull(mx = metrics_new(&err));
	full = load_linux();
	snprintf(path, sizeof(path),
	    "%s/tests/trace_processor/metrics/data/linux.pb", srcdir());
	buf = slurp(path, &len);
	tp_config_init(&cfg);
	ck_assert_ptr_nonnull(inc = tp_new(&cfg, &err));
	ck_assert_int_eq(tp_parse(inc, buf, len), 0);
	ck_assert_int_eq(tp_checkpoint(inc, INT64_MAX), 0);
	for (h = 0; h < sizeof(horizons) / sizeof(horizons[0]); h++) {
		long long ts = horizons[h];
		int64_t gone = 0;

		ck_assert_int_eq(tp_evict_before(inc, ts), 0);
		for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
			char cond[128];

			snprintf(cond, sizeof(cond), "%s%lld)", t[i].kept, ts);
			snprintf(sql, sizeof(sql), "SELECT * FROM %s WHERE %s"
			    " ORDER BY id", t[i].table, cond);
			a = dump(full, sql);
			snprintf(sql, sizeof(sql), "SELECT * FROM %s ORDER BY"
			    " id", t[i].table);
			b = dump(inc, sql);
			ck_assert_msg(strcmp(a, b) == 0, "%s before %lld:\n"
			    "want:\n%s\ngot:\n%s", t[i].table, ts, a, b);
			free(a);
			free(b);
			snprintf(sql, sizeof(sql), "SELECT COUNT() FROM %s"
			    " WHERE NOT (%s)", t[i].table, cond);
			a = dump(full, sql);
			gone += atoll(a);
			free(a);
		}
		/* No arg is left without its row, none of a row left goes. */
		a = dump(inc, "SELECT COUNT() FROM __args WHERE arg_set_id"
		    " NOT IN (SELECT arg_set_id FROM ftrace_event WHERE"
		    " arg_set_id IS NOT NULL UNION SELECT arg_set_id FROM"
		    " slice WHERE arg_set_id IS NOT NULL UNION SELECT"
		    " arg_set_id FROM counter WHERE arg_set_id IS NOT NULL"
		    " UNION SELECT dimension_arg_set_id FROM track WHERE"
		    " dimension_arg_set_id IS NOT NULL UNION SELECT"
		    " source_arg_set_id FROM track WHERE"
		    " source_arg_set_id IS NOT NULL)");
		ck_assert_str_eq(a, "0\n");
		free(a);
		a = dump(full, "SELECT COUNT() FROM __args WHERE arg_set_id IN"
		    " (SELECT arg_set_id FROM ftrace_event WHERE ts >= 5900)");
		b = dump(inc, "SELECT COUNT() FROM __args WHERE arg_set_id IN"
		    " (SELECT arg_set_id FROM ftrace_event WHERE ts >= 5900)");
		/* (Past 5900 those rows are over too.) */
		ck_assert_msg(ts > 5900 || strcmp(a, b) == 0,
		    "args before %lld: %s vs %s", ts, a, b);
		free(a);
		free(b);
		if (ts == 4000)
			ck_assert_int_gt(gone, 0);
		/* The window starts at the horizon, or where the data does. */
		a = dump(inc, "SELECT start_ts FROM trace_bounds");
		ck_assert_int_ge(atoll(a), ts < 6600 ? ts : 6600);
		free(a);
		free(run(mx, inc, live_set, METRICS_TEXT, NULL, NULL));
	}
	/* Everything over: the metrics have nothing but open rows left. */
	a = run(mx, inc, "linux_slices", METRICS_TEXT, NULL, NULL);
	ck_assert_ptr_null(strstr(a, "count:"));
	free(a);
	free(buf);
	tp_free(inc);
	tp_free(full);
	metrics_free(mx);
}
END_TEST

/*
 * A Trace in timestamp order: sched_switch and sched_waking among 12
 * tasks of 3 processes on 2 cpus, trace_marker slices (some left open),
 * RSS samples. Its records never arrive late, so an engine that releases
 * everything at each checkpoint drops nothing.
 */
static struct pbbuf
ordered_trace(int bundles)
{
	struct pbbuf t = { 0 }, pk = { 0 }, b = { 0 }, ev = { 0 }, m = { 0 },
	    pr = { 0 };
	uint64_t ts = 1000000;
	uint32_t r = 7;
	int cur[2] = { 0, 0 }, open[12] = { 0 }, i, k, cpu;
	char comm[16], mark[32];

	for (i = 0; i < bundles; i++) {
		cpu = i % 2;
		pbb_uint(&b, 1, (uint64_t)cpu);
		for (k = 0; k < 40; k++) {
			int next = 100 + (int)((r = r * 1103515245 + 12345) >>
			    16) % 12, kind = (int)(r >> 8) % 10;

			ts += 1 + (r >> 4) % 3000;
			pbb_uint(&ev, 1, ts);
			pbb_uint(&ev, 2, (uint64_t)cur[cpu]);
			if (kind < 5) {
				snprintf(comm, sizeof(comm), "t%d", cur[cpu]);
				pbb_string(&m, 1, cur[cpu] ? comm : "swapper");
				pbb_uint(&m, 2, (uint64_t)cur[cpu]);
				pbb_uint(&m, 3, 120);
				pbb_uint(&m, 4, (r >> 12) % 3);
				snprintf(comm, sizeof(comm), "t%d", next);
				pbb_string(&m, 5, comm);
				pbb_uint(&m, 6, (uint64_t)next);
				pbb_uint(&m, 7, 120);
				pbb_bytes(&ev, 4, m.buf, m.len);
				cur[cpu] = next;
			} else if (kind < 8) {
				snprintf(comm, sizeof(comm), "t%d", next);
				pbb_string(&m, 1, comm);
				pbb_uint(&m, 2, (uint64_t)next);
				pbb_uint(&m, 3, 120);
				pbb_uint(&m, 4, 1);
				pbb_uint(&m, 5, (uint64_t)((r >> 3) % 2));
				pbb_bytes(&ev, 20, m.buf, m.len);
			} else if (cur[cpu] != 0) {
				int *o = &open[cur[cpu] - 100];

				if (*o == 0 || (r >> 9) % 3 != 0) {
					snprintf(mark, sizeof(mark), "B|%d|step %u",
					    100 + (cur[cpu] - 100) % 3,
					    (r >> 5) % 4);
					(*o)++;
				} else {
					snprintf(mark, sizeof(mark), "E|%d",
					    100 + (cur[cpu] - 100) % 3);
					(*o)--;
				}
				pbb_uint(&m, 1, 1);
				pbb_string(&m, 2, mark);
				pbb_bytes(&ev, 3, m.buf, m.len);
			}
			m.len = 0;
			pbb_bytes(&b, 2, ev.buf, ev.len);
			ev.len = 0;
		}
		pbb_bytes(&pk, 1, b.buf, b.len);
		b.len = 0;
		pbb_bytes(&t, 1, pk.buf, pk.len);
		pk.len = 0;
		if (i % 5 == 4) {
			/* RSS of the 3 processes, sampled at ts. */
			pbb_uint(&pk, 8, ts);
			for (k = 0; k < 3; k++) {
				pbb_uint(&pr, 1, (uint64_t)(100 + k));
				pbb_uint(&pr, 3, 1000 + (uint64_t)((r >> k) %
				    5000));
				pbb_bytes(&m, 1, pr.buf, pr.len);
				pr.len = 0;
			}
			pbb_bytes(&pk, 9, m.buf, m.len);
			m.len = 0;
			pbb_bytes(&t, 1, pk.buf, pk.len);
			pk.len = 0;
		}
	}
	ck_assert_int_eq(t.oom, 0);
	pbb_free(&pk);
	pbb_free(&b);
	pbb_free(&ev);
	pbb_free(&m);
	pbb_free(&pr);
	return t;
}

/*
 * The same packets two ways, records released while parsing goes on: a
 * checkpoint releasing everything after each piece of 1000 bytes (open
 * sched slices, thread states and slices shown, then replaced as they
 * close), the metrics computed between pieces. Same metrics, same tables.
 */
START_TEST(test_incremental_release_same_metrics)
{
	struct pbbuf t = ordered_trace(300);
	struct metrics *mx;
	struct tp *full, *inc;
	char *err = NULL, *a, *b;
	size_t off;

	ck_assert_ptr_nonnull(mx = metrics_new(&err));
	ck_assert_ptr_nonnull(full = tp_new(NULL, &err));
	ck_assert_int_eq(tp_parse(full, t.buf, t.len), 0);
	ck_assert_int_eq(tp_eof(full), 0);
	ck_assert_ptr_nonnull(inc = tp_new(NULL, &err));
	for (off = 0; off < t.len; off += 1000) {
		size_t n = t.len - off < 1000 ? t.len - off : 1000;

		ck_assert_int_eq(tp_parse(inc, t.buf + off, n), 0);
		ck_assert_int_eq(tp_checkpoint(inc, INT64_MAX), 0);
		if (off % 20000 == 0)
			free(run(mx, inc, live_set, METRICS_TEXT, NULL, NULL));
	}
	ck_assert_int_eq(tp_checkpoint(inc, INT64_MAX), 0);
	b = assert_metrics_equal(mx, full, inc);
	ck_assert_ptr_nonnull(strstr(b, "sched_latency"));
	ck_assert_ptr_nonnull(strstr(b, "rss_peak_bytes"));
	ck_assert_ptr_nonnull(strstr(b, "name: \"step 1\""));
	free(b);
	assert_tables_equal(full, inc, "released every 1000 bytes");
	a = dump(inc, "SELECT value FROM stats WHERE name ="
	    " 'sorter_push_event_out_of_order'");
	ck_assert_str_eq(a, "0\n");
	free(a);
	tp_free(inc);
	tp_free(full);
	metrics_free(mx);
	free(t.buf);
}
END_TEST

static Suite *
metrics_suite(void)
{
	Suite *s = suite_create("tpmetrics");
	TCase *tc = tcase_create("metrics");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_builtin_golden);
	tcase_add_test(tc, test_binary_is_real_proto);
	tcase_add_test(tc, test_user_metric);
	tcase_add_test(tc, test_user_errors);
	tcase_add_test(tc, test_empty_trace);
	tcase_add_test(tc, test_mproto_reader);
	tcase_add_test(tc, test_incremental_same_metrics);
	tcase_add_test(tc, test_evict_window);
	tcase_add_test(tc, test_incremental_release_same_metrics);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(metrics_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
