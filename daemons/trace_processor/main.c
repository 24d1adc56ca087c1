/*
 * trace_processor: load a trace into Perfetto's tables and query it, with
 * upstream trace_processor_shell's command line (args.h):
 *
 *   trace_processor TRACE                  interactive SQL prompt
 *   trace_processor query TRACE 'SQL'      each result as CSV (-Q, -q)
 *   trace_processor server http [TRACE]    the RPC over HTTP (-D)
 *   trace_processor metrics --run A TRACE  metrics (--run-metrics)
 *   trace_processor export sqlite -o F T   the tables as SQLite (-e)
 *
 * The trace is untrusted input: it is read through the engine's importers
 * only, nothing in it is ever executed or used as a path. Every file is
 * opened before the trace is parsed confined.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "daemons/trace_processor/sandbox.h"
#include "args.h"
#include "shell.h"
#include "summarize.h"
#include "psql/psql.h"
#include "tp.h"
#include "rpc/modes.h"
#include "fleet/ch_export.h"

static int	progress_shown;

static void
progress(void *arg, uint64_t done, uint64_t total)
{
	static time_t last;
	time_t now = time(NULL);

	(void)arg;
	if (now == last && done != total)
		return;
	last = now;
	progress_shown = 1;
	if (total > 0)
		fprintf(stderr, "\rLoading trace: %.1f MB (%3.0f%%)",
		    (double)done / 1e6, 100.0 * (double)done / (double)total);
	else
		fprintf(stderr, "\rLoading trace: %.1f MB", (double)done / 1e6);
}

/* The whole file ("-": stdin), NUL-terminated; NULL with errno. */
static char *
read_file(const char *path)
{
	FILE *f;
	char *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (strcmp(path, "-") == 0)
		f = stdin;
	else if ((f = fopen(path, "r")) == NULL)
		return NULL;
	for (;;) {
		if (cap - len < 4096) {
			char *nb = realloc(buf, cap ? cap * 2 : 8192);

			if (nb == NULL)
				break;
			buf = nb;
			cap = cap ? cap * 2 : 8192;
		}
		n = fread(buf + len, 1, cap - len - 1, f);
		if (n == 0)
			break;
		len += n;
	}
	if (f != stdin)
		fclose(f);
	if (buf != NULL)
		buf[len] = '\0';
	return buf;
}

/* What a run opens before it is confined. */
struct main_files {
	int		 trace;		/* -1: none */
	char		*sql;		/* -q, -Q, query's SQL */
	char		*pre;		/* --pre-metrics */
	FILE		*devnull;	/* where --pre-metrics prints */
	int		 export;	/* -e; -1: none */
	struct ch_conn	*ch;		/* export clickhouse, connected */
	struct summarize_files summary;	/* summarize's spec files */
};

static int
main_open(const struct tp_args *a, struct main_files *f)
{
	const char *what = a->trace;
	char *err = NULL;

	memset(f, 0, sizeof(*f));
	f->trace = f->export = -1;
	if (a->trace != NULL && strcmp(a->trace, "-") == 0)
		f->trace = STDIN_FILENO;
	else if (a->trace != NULL &&
	    (f->trace = open(a->trace, O_RDONLY | O_CLOEXEC)) == -1)
		goto fail;
	/* The daemons read no SQL and write no file, as upstream's. */
	if (a->cmd == ARGS_SERVER)
		return 0;
	what = a->query_stdin ? "stdin" : a->query_file;
	if (a->query_string != NULL)
		f->sql = strdup(a->query_string);
	else if (what != NULL)
		f->sql = read_file(a->query_stdin ? "-" : a->query_file);
	if ((what != NULL || a->query_string != NULL) && f->sql == NULL)
		goto fail;
	what = a->pre_metrics;
	if (what != NULL && ((f->pre = read_file(what)) == NULL ||
	    (f->devnull = fopen("/dev/null", "w")) == NULL))
		goto fail;
	if (a->cmd == ARGS_SUMMARIZE && summarize_open(a, &f->summary) == -1)
		return -1;
	what = a->export_path;
	if (a->cmd == ARGS_EXPORT && a->ch.url == NULL && (f->export =
	    open(what, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)) == -1)
		goto fail;
	/* Connected now: once confined, no IP socket can be made. */
	if (a->ch.url != NULL && (f->ch = ch_open(a->ch.url, a->ch.database,
	    &err)) == NULL) {
		fprintf(stderr, "trace_processor: export clickhouse: %s\n",
		    err ? err : "out of memory");
		free(err);
		return -1;
	}
	return 0;
fail:
	fprintf(stderr, "trace_processor: %s: %s\n", what, strerror(errno));
	return -1;
}

/* --add/--override-sql-package: read now, before confining. */
static int
main_packages(const struct tp_args *a, struct psql_pkgs **pkgs)
{
	char *err = NULL;
	size_t i;

	for (i = 0; i < a->npackages; i++)
		if (psql_pkgs_read(pkgs, a->packages[i].path,
		    a->packages[i].package, a->packages[i].override,
		    &err) == -1) {
			fprintf(stderr, "trace_processor: --%s-sql-package:"
			    " %s\n", a->packages[i].override ? "override" :
			    "add", err ? err : "out of memory");
			free(err);
			return -1;
		}
	return 0;
}

static void
main_close(struct main_files *f)
{
	if (f->trace > STDIN_FILENO)
		close(f->trace);
	if (f->export != -1)
		close(f->export);
	if (f->devnull != NULL)
		fclose(f->devnull);
	ch_close(f->ch);
	free(f->sql);
	free(f->pre);
	summarize_close(&f->summary);
}

/* Every table and view, as the SQLite file the engine's database is. */
static int
main_export(struct tp *tp, int fd, const char *path)
{
	int64_t len;
	unsigned char *img;
	size_t off = 0;
	ssize_t n;
	char *err;

	if ((img = tp_export_image(tp, &len, &err)) == NULL) {
		fprintf(stderr, "trace_processor: %s: %s\n", path, err);
		free(err);
		return 1;
	}
	while (off < (size_t)len) {
		if ((n = write(fd, img + off, (size_t)len - off)) == -1) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "trace_processor: %s: %s\n", path,
			    strerror(errno));
			sqlite3_free(img);
			return 1;
		}
		off += (size_t)n;
	}
	sqlite3_free(img);
	return 0;
}

/*
 * export clickhouse: the trace's tables (tp != NULL) or, with
 * --schema-only, only the tables created. The host defaults to the
 * trace file's name up to its first dot (fleets name traces by host).
 */
static int
main_clickhouse(const struct tp_args *a, struct tp *tp, struct ch_conn *c)
{
	struct ch_export_opts o = { a->ch.host, a->ch.cluster,
	    a->ch.database };
	char *err = NULL, *host = NULL;
	const char *base;
	int rc;

	if (tp == NULL)
		rc = ch_export_schema(c, &o, &err);
	else {
		if (o.host == NULL) {
			base = strrchr(a->trace, '/');
			base = base ? base + 1 : a->trace;
			o.host = host = strndup(base, strcspn(base, "."));
		}
		rc = o.host == NULL ? -1 :
		    ch_export_trace(c, tp_db(tp), &o, stdout, &err);
	}
	if (rc == -1)
		fprintf(stderr, "trace_processor: export clickhouse: %s%s%s\n",
		    tp ? a->trace : "", tp ? ": " : "",
		    err ? err : "out of memory");
	free(err);
	free(host);
	return rc == -1;
}

/* SQL text run as the shell runs it; 0 or 1. */
static int
main_sql(struct tp *tp, const char *sql, FILE *out)
{
	char *err = NULL;

	if (shell_run_csv(tp_db(tp), sql, out, &err) == 0)
		return 0;
	/* A traceback says where on its own, as upstream prints it. */
	if (err != NULL && strncmp(err, "Traceback", 9) == 0)
		fprintf(stderr, "%s\n", err);
	else
		fprintf(stderr, "trace_processor: query: %s\n", err ? err : "?");
	free(err);
	return 1;
}

/* The one-shot commands, confined, on a loaded trace. */
static int
main_run(const struct tp_args *a, struct tp *tp, struct main_files *f)
{
	int rc = 0;

	if (a->cmd == ARGS_METRICS) {
		if (f->pre != NULL && (rc = main_sql(tp, f->pre,
		    f->devnull)) != 0)
			return rc;
		if ((rc = modes_metrics(tp, &a->modes)) != 0)
			return rc;
	}
	if (a->cmd == ARGS_SUMMARIZE &&
	    (rc = summarize_run(tp, a, &f->summary, stdout)) != 0)
		return rc;
	if (a->cmd == ARGS_EXPORT && f->ch != NULL)
		rc = main_clickhouse(a, tp, f->ch);
	else if (a->cmd == ARGS_EXPORT)
		rc = main_export(tp, f->export, a->export_path);
	else if (f->sql != NULL)
		rc = main_sql(tp, f->sql, stdout);
	if (rc == 0 && a->interactive)
		shell_interactive(tp_db(tp), stdin, stdout);
	return rc;
}

/*
 * The load's tables, hash tables and sorter live in a few hundred MB of
 * malloc'd memory it touches all over: in 4 KB pages, a tenth of its
 * time goes to page faults and another fifth to TLB misses. Where the
 * kernel gives huge pages only to memory that asks (THP "madvise", as
 * Debian's default), glibc's malloc asks when its glibc.malloc.hugetlb
 * tunable is 1, and tunables are read only at exec: so the process
 * execs itself once with it set. A GLIBC_TUNABLES of the user's own is
 * kept as it is, FARO_TP_HUGEPAGES=0 turns this off, and a failed exec
 * goes on in 4 KB pages.
 */
static void
main_hugepages(char *argv[])
{
	static const char tunable[] = "glibc.malloc.hugetlb=1";
	const char *v = getenv("FARO_TP_HUGEPAGES");
	char mode[128];
	ssize_t n;
	int fd;

	if ((v != NULL && strcmp(v, "0") == 0) ||
	    getenv("GLIBC_TUNABLES") != NULL)
		return;
	if ((fd = open("/sys/kernel/mm/transparent_hugepage/enabled",
	    O_RDONLY | O_CLOEXEC)) == -1)
		return;
	n = read(fd, mode, sizeof(mode) - 1);
	close(fd);
	if (n <= 0)
		return;
	mode[n] = '\0';
	if (strstr(mode, "[madvise]") == NULL ||
	    setenv("GLIBC_TUNABLES", tunable, 0) == -1)
		return;
	(void)execv("/proc/self/exe", argv);
	(void)unsetenv("GLIBC_TUNABLES");
}

int
main(int argc, char *argv[])
{
	struct tp_args a;
	struct main_files f;
	struct psql_pkgs *pkgs = NULL;
	struct tp *tp;
	char *err = NULL;
	const char *cause = NULL;
	int rc;
	struct timespec t0, t1;

	main_hugepages(argv);
	if (args_parse(&a, argc, argv, &err) == -1) {
		fprintf(stderr, "trace_processor: %s\n", err ? err : "?");
		free(err);
		return 1;
	}
	if (a.cmd == ARGS_HELP || a.cmd == ARGS_VERSION) {
		if (a.cmd == ARGS_HELP)
			args_usage(&a, argv[0], stdout);
		else
			args_version(stdout);
		args_free(&a);
		return 0;
	}
	log_init("trace_processor", 1, a.verbose);
	if (main_packages(&a, &pkgs) == -1 || main_open(&a, &f) == -1) {
		psql_pkgs_free(pkgs);
		args_free(&a);
		return 1;
	}
	a.cfg.sql_packages = pkgs;
	/* The daemons load their trace once confined. */
	if (a.cmd == ARGS_SERVER) {
		a.modes.trace_fd = f.trace;
		a.modes.trace_name = a.trace;
		rc = modes_main(&a.cfg, &a.modes);
		main_close(&f);
		psql_pkgs_free(pkgs);
		args_free(&a);
		return rc;
	}
	if (trace_processor_sandbox_shell(&cause) == -1) {
		fprintf(stderr, "trace_processor: sandbox: %s: %s\n", cause,
		    strerror(errno));
		return 1;
	}
	if (a.cmd == ARGS_CH_SCHEMA) {
		rc = main_clickhouse(&a, NULL, f.ch);
		main_close(&f);
		psql_pkgs_free(pkgs);
		args_free(&a);
		return rc;
	}
	if (isatty(STDERR_FILENO)) {
		a.cfg.progress = progress;
		a.cfg.progress_arg = NULL;
	}
	if ((tp = tp_new(&a.cfg, &err)) == NULL) {
		fprintf(stderr, "trace_processor: %s\n", err ? err : "?");
		free(err);
		main_close(&f);
		psql_pkgs_free(pkgs);
		args_free(&a);
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = tp_load_fd(tp, f.trace);
	if (progress_shown)
		fputc('\n', stderr);
	if (rc == -1) {
		fprintf(stderr, "trace_processor: %s: %s\n", a.trace,
		    tp_error(tp));
		rc = 1;
	} else {
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (a.interactive || a.verbose)
			fprintf(stderr, "Trace loaded in %.2f s\n",
			    (double)(t1.tv_sec - t0.tv_sec) +
			    (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
		if (tp_error_stats(tp) > 0)
			shell_print_import_errors(tp_db(tp), stderr);
		rc = main_run(&a, tp, &f);
	}
	tp_free(tp);
	main_close(&f);
	psql_pkgs_free(pkgs);
	args_free(&a);
	return rc;
}
