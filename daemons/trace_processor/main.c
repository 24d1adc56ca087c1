/*
 * trace_processor: load a trace into Perfetto's tables and query it.
 *
 *   trace_processor TRACE                 interactive SQL prompt
 *   trace_processor -q FILE.sql TRACE     run the file, print each
 *                                         result as CSV
 *   trace_processor -Q 'SQL' TRACE        the same with a query string
 *
 * The trace is untrusted input: it is read through the engine's importers
 * only, nothing in it is ever executed or used as a path.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "daemons/trace_processor/sandbox.h"
#include "shell.h"
#include "tp.h"
#include "rpc/modes.h"

static int	progress_shown;

static __attribute__((noreturn)) void
usage(void)
{
	fprintf(stderr,
	    "usage: trace_processor [-hv] [-q FILE.sql] [-Q SQL] [-i]"
	    " [--sort-window MB] TRACE\n"
	    "  -q, --query-file FILE     run the SQL in FILE, print each"
	    " result as CSV\n"
	    "  -Q, --query-string SQL    the same with SQL given inline\n"
	    "  -i, --interactive         start the prompt after -q/-Q\n"
	    "  --sort-window MB          bound the sorter's memory (default:"
	    " none, as upstream;\n"
	    "                            past it, late records are dropped)\n"
	    "  -v                        verbose\n"
	    "  --run-metrics NAME[,NAME] print metrics (trace_stats,"
	    " trace_metadata,\n"
	    "                            linux_cpu, linux_memory, linux_io,"
	    " linux_slices)\n"
	    "  --metrics-output FMT      text (default), binary or json\n"
	    "  --metric-extension DIR    load more metrics (.proto, .sql)\n"
	    "  --httpd                   serve Perfetto's trace processor RPC"
	    " over HTTP\n"
	    "  --http-port N             port for --httpd (default 9001)\n"
	    "  --http-ip-address ADDR    address for --httpd (default"
	    " 127.0.0.1)\n"
	    "  --http-allowed-host H[,H] Host names served besides"
	    " 127.0.0.1, localhost,\n"
	    "                            [::1] and ADDR\n"
	    "  --http-additional-cors-origins O[,O]  browser origins"
	    " besides the UI's\n"
	    "  --http-max-connections N  connections held at once"
	    " (default 512)\n"
	    "  --http-header-timeout-ms N, --http-body-timeout-ms N,"
	    " --http-idle-timeout-ms N\n"
	    "                            deadlines per request (default"
	    " 10000, 60000, 60000)\n"
	    "  --live[=CONFIG]           trace through traced, serve"
	    " /metrics\n"
	    "  --live-period-ms N        how often --live reads traced"
	    " (default 1000)\n"
	    "  --live-window-mb N        MB of packets whose rows --live"
	    " keeps (default 32)\n"
	    "  --live-window-s N         and for how long, in seconds"
	    " (default 600)\n"
	    "  --sandbox-debug           --httpd/--live: log a denied syscall"
	    " instead of dying\n"
	    );
	exit(1);
}

/* A positive count or duration given on the command line. */
static unsigned
opt_count(const char *s)
{
	char *ep;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &ep, 10);
	if (errno != 0 || ep == s || *ep != '\0' || v == 0 || v > UINT_MAX) {
		fprintf(stderr, "trace_processor: %s: not a positive "
		    "number\n", s);
		exit(1);
	}
	return (unsigned)v;
}

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

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "query-file", required_argument, NULL, 'q' },
		{ "query-string", required_argument, NULL, 'Q' },
		{ "interactive", no_argument, NULL, 'i' },
		{ "sort-window", required_argument, NULL, 'W' },
		{ "help", no_argument, NULL, 'h' },
		{ "httpd", no_argument, NULL, 256 },
		{ "http-port", required_argument, NULL, 257 },
		{ "http-ip-address", required_argument, NULL, 258 },
		{ "run-metrics", required_argument, NULL, 259 },
		{ "metrics-output", required_argument, NULL, 260 },
		{ "metric-extension", required_argument, NULL, 261 },
		{ "live", optional_argument, NULL, 262 },
		{ "live-period-ms", required_argument, NULL, 263 },
		{ "live-window-mb", required_argument, NULL, 264 },
		{ "live-window-s", required_argument, NULL, 265 },
		{ "sandbox-debug", no_argument, NULL, 266 },
		{ "http-allowed-host", required_argument, NULL, 267 },
		{ "http-additional-cors-origins", required_argument, NULL,
		    268 },
		{ "http-max-connections", required_argument, NULL, 269 },
		{ "http-header-timeout-ms", required_argument, NULL, 270 },
		{ "http-body-timeout-ms", required_argument, NULL, 271 },
		{ "http-idle-timeout-ms", required_argument, NULL, 272 },
		{ NULL, 0, NULL, 0 },
	};
	struct tp_config cfg;
	struct tp *tp;
	const char *qfile = NULL, *qstring = NULL;
	char *sql = NULL, *err = NULL;
	const char *cause = NULL;
	int ch, interactive = 0, verbose = 0, rc = 0, fd, daemon = 0;
	struct timespec t0, t1;
	struct modes_args ra;

	modes_args_init(&ra);

	tp_config_init(&cfg);
	while ((ch = getopt_long(argc, argv, "hiq:Q:v", longopts, NULL)) !=
	    -1) {
		switch (ch) {
		case 'q':
			qfile = optarg;
			break;
		case 'Q':
			qstring = optarg;
			break;
		case 'i':
			interactive = 1;
			break;
		case 'W':
			cfg.sort_window_bytes = (size_t)strtoul(optarg, NULL,
			    10) << 20;
			break;
		case 'v':
			verbose++;
			break;
		case 256:
			ra.httpd = 1;
			break;
		case 257:
			ra.http_port = atoi(optarg);
			break;
		case 258:
			ra.http_addr = optarg;
			break;
		case 259:
			ra.run_metrics = optarg;
			break;
		case 260:
			ra.metrics_output = optarg;
			break;
		case 261:
			if (modes_args_add_extension(&ra, optarg) == -1)
				usage();
			break;
		case 262:
			ra.live = 1;
			ra.live_config = optarg;
			break;
		case 263:
			ra.live_period_ms = strtoul(optarg, NULL, 10);
			break;
		case 264:
			ra.live_window_mb = strtoul(optarg, NULL, 10);
			break;
		case 265:
			ra.live_window_s = strtoul(optarg, NULL, 10);
			break;
		case 266:
			/* Read by the daemon modes' sandbox (rpc/modes.c). */
			if (setenv("FARO_SANDBOX_DEBUG", "1", 1) == -1)
				usage();
			break;
		case 267:
			ra.http_hosts = optarg;
			break;
		case 268:
			ra.http_cors_origins = optarg;
			break;
		case 269:
			ra.http_limits.max_conns = opt_count(optarg);
			break;
		case 270:
			ra.http_limits.header_ms = opt_count(optarg);
			break;
		case 271:
			ra.http_limits.body_ms = opt_count(optarg);
			break;
		case 272:
			ra.http_limits.idle_ms = opt_count(optarg);
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc == 0 && modes_active(&ra) && !modes_needs_trace(&ra)) {
		log_init("trace_processor", 1, verbose);
		return modes_main(NULL, &cfg, &ra);
	}
	if (argc != 1)
		usage();
	log_init("trace_processor", 1, verbose);
	if (qfile == NULL && qstring == NULL)
		interactive = 1;

	/*
	 * Everything this run reads by path is opened first; the untrusted
	 * trace is then parsed confined. The daemon modes confine themselves
	 * once their socket is bound.
	 */
	if (strcmp(argv[0], "-") == 0)
		fd = STDIN_FILENO;
	else if ((fd = open(argv[0], O_RDONLY | O_CLOEXEC)) == -1) {
		fprintf(stderr, "trace_processor: %s: %s\n", argv[0],
		    strerror(errno));
		return 1;
	}
	if (qfile != NULL && (sql = read_file(qfile)) == NULL) {
		fprintf(stderr, "trace_processor: %s: %s\n", qfile,
		    strerror(errno));
		return 1;
	}
	daemon = modes_active(&ra) && !modes_needs_trace(&ra);
	/* The daemon loads it once confined (metrics first need it now). */
	if (daemon && ra.run_metrics == NULL) {
		ra.trace_fd = fd;
		ra.trace_name = argv[0];
		rc = modes_main(NULL, &cfg, &ra);
		free(sql);
		return rc;
	}
	if (!daemon && trace_processor_sandbox_shell(&cause) == -1) {
		fprintf(stderr, "trace_processor: sandbox: %s: %s\n", cause,
		    strerror(errno));
		return 1;
	}

	if (isatty(STDERR_FILENO)) {
		cfg.progress = progress;
		cfg.progress_arg = NULL;
	}
	if ((tp = tp_new(&cfg, &err)) == NULL) {
		fprintf(stderr, "trace_processor: %s\n", err ? err : "?");
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = tp_load_fd(tp, fd);
	if (fd != STDIN_FILENO)
		close(fd);
	if (rc == -1) {
		if (progress_shown)
			fputc('\n', stderr);
		fprintf(stderr, "trace_processor: %s: %s\n", argv[0],
		    tp_error(tp));
		tp_free(tp);
		free(sql);
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (progress_shown)
		fputc('\n', stderr);
	if (interactive || verbose)
		fprintf(stderr, "Trace loaded in %.2f s\n",
		    (double)(t1.tv_sec - t0.tv_sec) +
		    (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	if (tp_error_stats(tp) > 0)
		shell_print_import_errors(tp_db(tp), stderr);
	if (modes_active(&ra)) {
		free(sql);
		ra.trace_name = argv[0];
		return modes_main(tp, &cfg, &ra);
	}

	if (qfile != NULL || qstring != NULL) {
		if (shell_run_csv(tp_db(tp), sql ? sql : qstring, stdout,
		    &err) == -1) {
			fprintf(stderr, "trace_processor: query: %s\n",
			    err ? err : "?");
			free(err);
			rc = 1;
		}
	}
	free(sql);
	if (interactive && rc == 0)
		shell_interactive(tp_db(tp), stdin, stdout);
	tp_free(tp);
	return rc;
}
