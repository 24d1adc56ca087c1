/*
 * check_tp_cli: the trace_processor program started as upstream's clients
 * start it, over real sockets: upstream's Python API runs
 * `BIN -D --http-port N --no-ftrace-raw`, polls GET /status, sends the
 * trace in POST /parse pieces, GET /notify_eof, then POST /query; the
 * same through `server http`, a trace given on the command line loaded
 * before serving, and -e / export sqlite read back with SQLite.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <check.h>
#include <sqlite3.h>

#include "http_client.h"
#include "metrics/pbbuf.h"
#include "pbdec.h"

static char	tp_bin[4096], linux_pb[4096];
static pid_t	tp_pid = -1;
static int	tp_port;

/* A port nobody listens on now (as the Python API picks one). */
static int
free_port(void)
{
	static int next;

	if (next == 0)
		next = 20000 + (int)(getpid() % 20000);
	return next++;
}

/* Starts the program with argv (argv[0] is replaced by the binary). */
static void
tp_start(const char *const argv[], int port)
{
	int i;
	struct http_reply r;

	tp_port = port;
	tp_pid = fork();
	ck_assert_int_ne(tp_pid, -1);
	if (tp_pid == 0) {
		int null = open("/dev/null", O_RDWR);

		dup2(null, STDIN_FILENO);
		dup2(null, STDOUT_FILENO);
		execv(tp_bin, (char *const *)argv);
		_exit(127);
	}
	/* The Python API's loop: GET /status until it answers. */
	for (i = 0; i < 300; i++) {
		if (http_request(port, "GET", "/status", NULL, NULL, 0,
		    &r) == 0) {
			ck_assert_int_eq(r.status, 200);
			http_reply_free(&r);
			return;
		}
		ck_assert_int_eq(waitpid(tp_pid, NULL, WNOHANG), 0);
		usleep(20000);
	}
	ck_abort_msg("no /status on port %d", port);
}

static void
tp_stop(void)
{
	int st;

	ck_assert_int_eq(kill(tp_pid, SIGTERM), 0);
	ck_assert_int_eq(waitpid(tp_pid, &st, 0), tp_pid);
	ck_assert(WIFEXITED(st));
	ck_assert_int_eq(WEXITSTATUS(st), 0);
	tp_pid = -1;
}

/*
 * POST /query; the first batch's cells rendered "a|b\n" per row (ints and
 * strings, as these tests ask for), the column names in cols.
 */
static char *
query(const char *sql, char *cols, size_t colslen)
{
	struct http_reply r;
	struct pbbuf w;
	struct pb it, bt;
	struct pb_field f, bf;
	struct pb_packed ints = { 0 };
	const uint8_t *cells = NULL, *strs = NULL;
	size_t ncells = 0, nstrs = 0, ncols = 0, i, len = 0;
	char *out = calloc(1, 65536);
	uint64_t u;
	int have_ints = 0;

	ck_assert_ptr_nonnull(out);
	cols[0] = '\0';
	pbb_init(&w);
	pbb_string(&w, 1, sql);
	ck_assert_int_eq(http_request(tp_port, "POST", "/query", NULL, w.buf,
	    w.len, &r), 0);
	pbb_free(&w);
	ck_assert_int_eq(r.status, 200);
	pb_init(&it, r.body, r.len);
	while (pb_next_untrusted(&it, &f) == 1) {
		if (f.id == 1) {
			snprintf(cols + strlen(cols), colslen - strlen(cols),
			    "%s%.*s", ncols ? "," : "", (int)f.len, f.data);
			ncols++;
		}
		ck_assert_msg(f.id != 2, "query error: %.*s", (int)f.len,
		    f.data);
		if (f.id != 3 || cells != NULL)
			continue;
		pb_init(&bt, f.data, f.len);
		while (pb_next_untrusted(&bt, &bf) == 1) {
			if (bf.id == 1) {
				cells = bf.data;
				ncells = bf.len;
			} else if (bf.id == 2) {
				pb_packed_init(&ints, &bf);
				have_ints = 1;
			} else if (bf.id == 5) {
				strs = bf.data;
				nstrs = bf.len;
			}
		}
	}
	ck_assert_uint_gt(ncols, 0);
	for (i = 0; i < ncells; i++) {
		if (cells[i] == 2) {
			ck_assert(have_ints);
			ck_assert_int_eq(pb_packed_varint_untrusted(&ints, &u),
			    1);
			len += (size_t)snprintf(out + len, 65536 - len, "%lld",
			    (long long)u);
		} else if (cells[i] == 4) {
			size_t l = strnlen((const char *)strs, nstrs);

			ck_assert_uint_lt(l, nstrs);
			len += (size_t)snprintf(out + len, 65536 - len, "%s",
			    (const char *)strs);
			strs += l + 1;
			nstrs -= l + 1;
		} else
			ck_abort_msg("cell type %d", cells[i]);
		out[len++] = (i + 1) % ncols == 0 ? '\n' : '|';
	}
	out[len] = '\0';
	http_reply_free(&r);
	return out;
}

static void
check_query(const char *sql, const char *want_cols, const char *want_rows)
{
	char cols[256], *rows = query(sql, cols, sizeof(cols));

	ck_assert_str_eq(cols, want_cols);
	ck_assert_str_eq(rows, want_rows);
	free(rows);
}

/* The trace sent as the Python API sends it: /parse pieces, EOF. */
static void
send_trace(const char *path)
{
	struct http_reply r;
	char buf[300];	/* small pieces: framing split anywhere */
	ssize_t n;
	int fd = open(path, O_RDONLY);

	ck_assert_int_ne(fd, -1);
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		struct pb it;
		struct pb_field f;

		ck_assert_int_eq(http_request(tp_port, "POST", "/parse", NULL,
		    buf, (size_t)n, &r), 0);
		ck_assert_int_eq(r.status, 200);
		pb_init(&it, r.body, r.len);
		while (pb_next_untrusted(&it, &f) == 1)
			ck_assert_msg(f.id != 2, "parse error: %.*s",
			    (int)f.len, f.data);
		http_reply_free(&r);
	}
	close(fd);
	ck_assert_int_eq(http_request(tp_port, "GET", "/notify_eof", NULL,
	    NULL, 0, &r), 0);
	ck_assert_int_eq(r.status, 200);
	http_reply_free(&r);
}

static const char counts_sql[] =
    "select (select count(*) from sched_slice) as s, "
    "(select count(*) from thread) as t, "
    "(select count(*) from counter) as c";

START_TEST(test_python_api_start)
{
	char port[16];
	const char *argv[] = { "trace_processor", "-D", "--http-port", port,
	    "--no-ftrace-raw", NULL };
	int p = free_port();

	snprintf(port, sizeof(port), "%d", p);
	tp_start(argv, p);
	send_trace(linux_pb);
	check_query(counts_sql, "s,t,c", "9|6|10\n");
	check_query("select name, tid from thread where name is not null "
	    "order by name limit 2", "name,tid", "app|100\napp-worker|101\n");
	tp_stop();
}
END_TEST

/* server http TRACE: loaded before /status answers, as upstream. */
START_TEST(test_server_http_preload)
{
	char port[16];
	const char *argv[] = { "trace_processor", "server", "--port", port, "http",
	    linux_pb, NULL };
	int p = free_port();

	snprintf(port, sizeof(port), "%d", p);
	tp_start(argv, p);
	check_query(counts_sql, "s,t,c", "9|6|10\n");
	tp_stop();
}
END_TEST

/* Runs the program to its end; its exit status. */
static int
tp_run(const char *const argv[])
{
	pid_t pid;
	int st;

	pid = fork();
	ck_assert_int_ne(pid, -1);
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		dup2(null, STDIN_FILENO);
		dup2(null, STDOUT_FILENO);
		execv(tp_bin, (char *const *)argv);
		_exit(127);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st));
	return WEXITSTATUS(st);
}

/* The counts, read from an exported SQLite file with SQLite itself. */
static void
check_export(const char *path)
{
	sqlite3 *db;
	sqlite3_stmt *st;

	ck_assert_int_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY,
	    NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_prepare_v2(db, counts_sql, -1, &st, NULL),
	    SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
	ck_assert_int_eq(sqlite3_column_int(st, 0), 9);
	ck_assert_int_eq(sqlite3_column_int(st, 1), 6);
	ck_assert_int_eq(sqlite3_column_int(st, 2), 10);
	sqlite3_finalize(st);
	/* Views too: upstream's export has them. */
	ck_assert_int_eq(sqlite3_prepare_v2(db, "select count(*) from "
	    "sqlite_master where type = 'view' and name = 'sched'", -1, &st,
	    NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
	ck_assert_int_eq(sqlite3_column_int(st, 0), 1);
	sqlite3_finalize(st);
	sqlite3_close(db);
	unlink(path);
}

START_TEST(test_export)
{
	char path[] = "/tmp/check_tp_cli.XXXXXX";
	int fd = mkstemp(path);
	const char *classic[] = { "trace_processor", "-e", path, linux_pb, NULL };
	const char *sub[] = { "trace_processor", "export", "sqlite", "-o", path,
	    linux_pb, NULL };

	ck_assert_int_ne(fd, -1);
	/* Longer than what is written: the file is truncated first. */
	ck_assert_int_eq(ftruncate(fd, 64 << 20), 0);
	close(fd);
	ck_assert_int_eq(tp_run(classic), 0);
	check_export(path);
	ck_assert_int_eq(tp_run(sub), 0);
	check_export(path);
}
END_TEST

/* Whether the running program's environment holds the entry s. */
static int
environ_has(pid_t pid, const char *s)
{
	char path[64], buf[65536];
	ssize_t n;
	size_t i;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	fd = open(path, O_RDONLY);
	ck_assert_int_ne(fd, -1);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	ck_assert_int_gt(n, 0);
	buf[n] = '\0';
	for (i = 0; i < (size_t)n; i += strlen(buf + i) + 1)
		if (strcmp(buf + i, s) == 0)
			return 1;
	return 0;
}

/* ASan's allocator is not glibc's: it asks for no huge pages. */
#ifdef __SANITIZE_ADDRESS__
#define GLIBC_MALLOC	0
#else
#define GLIBC_MALLOC	1
#endif

/* The kB of its anonymous memory the kernel maps in huge pages. */
static long
anon_huge_kb(pid_t pid)
{
	char path[64], line[256];
	long kb = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/smaps_rollup", (int)pid);
	ck_assert_ptr_nonnull(f = fopen(path, "r"));
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "AnonHugePages: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/*
 * Where the kernel gives huge pages only to memory that asks for them,
 * the program restarts itself once with glibc's malloc asking: its
 * tables then sit in huge pages. Off with FARO_TP_HUGEPAGES=0; a
 * GLIBC_TUNABLES of the user's own is left as it is.
 */
START_TEST(test_hugepages)
{
	static const char want[] = "GLIBC_TUNABLES=glibc.malloc.hugetlb=1";
	char port[16], mode[128] = "";
	const char *argv[] = { "trace_processor", "server", "--port", port,
	    "http", linux_pb, NULL };
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");

	if (f == NULL || fgets(mode, sizeof(mode), f) == NULL ||
	    strstr(mode, "[madvise]") == NULL) {
		/* "always" needs no asking, "never" gives none. */
		fprintf(stderr, "skip test_hugepages: THP is not \"madvise\""
		    " here: %s\n", mode);
		if (f != NULL)
			fclose(f);
		return;
	}
	fclose(f);
	/* Tunables of the caller's own would keep the program as it is. */
	unsetenv("GLIBC_TUNABLES");
	snprintf(port, sizeof(port), "%d", free_port());
	tp_start(argv, atoi(port));
	check_query(counts_sql, "s,t,c", "9|6|10\n");
	ck_assert(environ_has(tp_pid, want));
	if (GLIBC_MALLOC)
		ck_assert_int_gt(anon_huge_kb(tp_pid), 0);
	tp_stop();

	setenv("FARO_TP_HUGEPAGES", "0", 1);
	snprintf(port, sizeof(port), "%d", free_port());
	tp_start(argv, atoi(port));
	ck_assert(!environ_has(tp_pid, want));
	tp_stop();
	unsetenv("FARO_TP_HUGEPAGES");

	setenv("GLIBC_TUNABLES", "glibc.malloc.check=0", 1);
	snprintf(port, sizeof(port), "%d", free_port());
	tp_start(argv, atoi(port));
	ck_assert(environ_has(tp_pid, "GLIBC_TUNABLES=glibc.malloc.check=0"));
	tp_stop();
	unsetenv("GLIBC_TUNABLES");
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("tp_cli");
	TCase *tc = tcase_create("cli");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_python_api_start);
	tcase_add_test(tc, test_server_http_preload);
	tcase_add_test(tc, test_export);
	tcase_add_test(tc, test_hugepages);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	const char *b = getenv("top_builddir"), *src = getenv("top_srcdir");
	SRunner *sr;
	int nf;

	snprintf(tp_bin, sizeof(tp_bin), "%s/daemons/trace_processor/"
	    "trace_processor", b ? b : ".");
	snprintf(linux_pb, sizeof(linux_pb), "%s/tests/trace_processor/"
	    "metrics/data/linux.pb", src ? src : ".");
	signal(SIGPIPE, SIG_IGN);
	sr = srunner_create(suite());
	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf == 0 ? 0 : 1;
}
