/*
 * trace_processor's command line: see args.h. One table lists every flag
 * with the interfaces it belongs to (the classic one, each subcommand);
 * getopt_long runs on the part of it the command line picked.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "args.h"
#include "rpc/rpc.h"

/* Where a flag is accepted. */
#define S_CLASSIC	0x01u
#define S_QUERY		0x02u
#define S_INTERACTIVE	0x04u
#define S_SERVER	0x08u
#define S_METRICS	0x10u
#define S_EXPORT	0x20u
#define S_SUMMARIZE	0x40u
#define S_SUBS		0x7eu	/* every subcommand */
#define S_ALL		0x7fu

enum args_opt_id {
	O_REFUSE = 1,	/* upstream has it, faro does not yet */
	O_HELP, O_HELP_CLASSIC, O_VERSION,
	O_FULL_SORT, O_NO_FTRACE_RAW, O_ALLOW_FILES, O_DEV,
	O_ADD_PACKAGE, O_OVERRIDE_PACKAGE, O_METRIC_EXT,
	O_HTTPD, O_HTTP_PORT, O_HTTP_IP, O_HTTP_CORS,
	O_INTERACTIVE, O_QUERY_FILE, O_QUERY_STRING, O_EXPORT,
	O_SUMMARY, O_SUMMARY_METRICS, O_SUMMARY_METADATA, O_SUMMARY_SPEC,
	O_SUMMARY_FORMAT,
	O_RUN_METRICS, O_PRE_METRICS, O_METRICS_OUTPUT,
	/* faro's own */
	O_SORT_WINDOW, O_VERBOSE, O_SANDBOX_DEBUG, O_LIVE, O_LIVE_PERIOD,
	O_LIVE_MB, O_LIVE_S, O_HTTP_HOST, O_HTTP_MAXCONN, O_HTTP_HEADER_MS,
	O_HTTP_BODY_MS, O_HTTP_IDLE_MS,
	O_CH_URL, O_CH_DATABASE, O_CH_CLUSTER, O_CH_HOST, O_CH_SCHEMA_ONLY,
};

struct args_opt {
	const char	*name;
	int		 shortopt;	/* 0: long only */
	int		 has_arg;
	unsigned	 scope;
	enum args_opt_id id;
	const char	*help;		/* NULL: not listed by --help */
};

static const struct args_opt args_opts[] = {
	/* Every interface (upstream's global flags). */
	{ "help", 'h', no_argument, S_ALL, O_HELP, "this text" },
	{ "version", 'v', no_argument, S_ALL, O_VERSION,
	    "the version and the RPC API version" },
	{ "full-sort", 0, no_argument, S_ALL, O_FULL_SORT,
	    "sort the whole trace at its end, ignoring the flush marks" },
	{ "no-ftrace-raw", 0, no_argument, S_ALL, O_NO_FTRACE_RAW,
	    "accepted; ftrace_event is still filled (warned)" },
	{ "allow-sql-file-access", 0, no_argument, S_ALL, O_ALLOW_FILES,
	    "accepted; no SQL function reads files" },
	{ "dev", 0, no_argument, S_ALL, O_DEV,
	    "accepted; nothing is reserved for development" },
	{ "add-sql-package", 0, required_argument, S_ALL, O_ADD_PACKAGE,
	    "PATH[@PKG]: the PerfettoSQL modules under PATH" },
	{ "override-sql-package", 0, required_argument, S_ALL,
	    O_OVERRIDE_PACKAGE, "PATH[@PKG]: the same, replacing a package" },
	{ "metric-extension", 0, required_argument, S_ALL, O_METRIC_EXT,
	    "DIR[@VIRTUAL]: more metrics (.proto, .sql)" },
	{ "analyze-trace-proto-content", 0, no_argument, S_ALL, O_REFUSE,
	    NULL },
	{ "crop-track-events", 0, no_argument, S_ALL, O_REFUSE, NULL },
	{ "dev-flag", 0, required_argument, S_ALL, O_REFUSE, NULL },
	{ "extra-checks", 0, no_argument, S_ALL, O_REFUSE, NULL },
	{ "override-stdlib", 0, required_argument, S_ALL, O_REFUSE, NULL },
	{ "register-files-dir", 0, required_argument, S_ALL, O_REFUSE, NULL },
	{ "metatrace", 'm', required_argument, S_ALL, O_REFUSE, NULL },
	{ "metatrace-buffer-capacity", 0, required_argument, S_ALL, O_REFUSE,
	    NULL },
	{ "metatrace-categories", 0, required_argument, S_ALL, O_REFUSE,
	    NULL },
	{ "remote", 0, required_argument, S_SUBS, O_REFUSE, NULL },
	/* faro's own, everywhere. */
	{ "sort-window", 0, required_argument, S_ALL, O_SORT_WINDOW,
	    "MB: bound the sorter's memory; later records are dropped" },
	{ "verbose", 0, no_argument, S_ALL, O_VERBOSE, "log more" },
	{ "sandbox-debug", 0, no_argument, S_ALL, O_SANDBOX_DEBUG,
	    "log a denied syscall instead of dying" },
	/* faro's own, for the daemons. */
	{ "live", 0, optional_argument, S_CLASSIC | S_SERVER, O_LIVE,
	    "[=CONFIG]: trace through traced, serve /metrics" },
	{ "live-period-ms", 0, required_argument, S_CLASSIC | S_SERVER,
	    O_LIVE_PERIOD, "N: how often --live reads traced (1000)" },
	{ "live-window-mb", 0, required_argument, S_CLASSIC | S_SERVER,
	    O_LIVE_MB, "N: MB of packets whose rows --live keeps (32)" },
	{ "live-window-s", 0, required_argument, S_CLASSIC | S_SERVER,
	    O_LIVE_S, "N: and for how long, in seconds (600)" },
	{ "http-allowed-host", 0, required_argument, S_CLASSIC | S_SERVER,
	    O_HTTP_HOST, "H[,H]: Host names served besides the address's" },
	{ "http-max-connections", 0, required_argument, S_CLASSIC | S_SERVER,
	    O_HTTP_MAXCONN, "N: connections held at once (512)" },
	{ "http-header-timeout-ms", 0, required_argument,
	    S_CLASSIC | S_SERVER, O_HTTP_HEADER_MS, "N: (10000)" },
	{ "http-body-timeout-ms", 0, required_argument, S_CLASSIC | S_SERVER,
	    O_HTTP_BODY_MS, "N: (60000)" },
	{ "http-idle-timeout-ms", 0, required_argument, S_CLASSIC | S_SERVER,
	    O_HTTP_IDLE_MS, "N: (60000)" },

	/* The classic interface. */
	{ "help-classic", 0, no_argument, S_CLASSIC, O_HELP_CLASSIC,
	    "the classic flags" },
	{ "httpd", 'D', no_argument, S_CLASSIC, O_HTTPD,
	    "serve the RPC over HTTP (server http)" },
	{ "http-port", 0, required_argument, S_CLASSIC, O_HTTP_PORT,
	    "PORT (9001)" },
	{ "http-ip-address", 0, required_argument, S_CLASSIC, O_HTTP_IP,
	    "IP (127.0.0.1)" },
	{ "http-additional-cors-origins", 0, required_argument, S_CLASSIC,
	    O_HTTP_CORS, "O1,O2: browser origins besides the UI's" },
	{ "stdiod", 0, no_argument, S_CLASSIC, O_REFUSE, NULL },
	{ "interactive", 'i', no_argument, S_CLASSIC, O_INTERACTIVE,
	    "the prompt after -q, -Q, --run-metrics" },
	{ "query-file", 'q', required_argument, S_CLASSIC, O_QUERY_FILE,
	    "FILE: run its SQL, print each result as CSV" },
	{ "query-string", 'Q', required_argument, S_CLASSIC, O_QUERY_STRING,
	    "SQL: the same with SQL given inline" },
	{ "export", 'e', required_argument, S_CLASSIC, O_EXPORT,
	    "FILE: write every table into an SQLite file" },
	{ "summary", 0, no_argument, S_CLASSIC, O_SUMMARY,
	    "compute a trace summary (summarize); -q runs after it" },
	{ "summary-metrics-v2", 0, required_argument, S_CLASSIC,
	    O_SUMMARY_METRICS, "ID1,ID2 or all: the metrics (default none)" },
	{ "summary-metadata-query", 0, required_argument, S_CLASSIC,
	    O_SUMMARY_METADATA, "ID: the shared query giving metadata" },
	{ "summary-spec", 0, required_argument, S_CLASSIC, O_SUMMARY_SPEC,
	    "FILE: a TraceSummarySpec, text or binary (repeatable)" },
	{ "summary-format", 0, required_argument, S_CLASSIC, O_SUMMARY_FORMAT,
	    "text (default) or binary" },
	{ "run-metrics", 0, required_argument, S_CLASSIC, O_RUN_METRICS,
	    "A,B: print these metrics" },
	{ "pre-metrics", 0, required_argument, S_CLASSIC, O_PRE_METRICS,
	    "FILE: SQL run before the metrics, output dropped" },
	{ "metrics-output", 0, required_argument, S_CLASSIC, O_METRICS_OUTPUT,
	    "text (default), binary or json" },
	{ "perf-file", 'p', required_argument, S_CLASSIC, O_REFUSE, NULL },
	{ "wide", 'W', no_argument, S_CLASSIC, O_REFUSE, NULL },
	{ "structured-query-spec", 0, required_argument, S_CLASSIC, O_REFUSE,
	    NULL },
	{ "structured-query-id", 0, required_argument, S_CLASSIC, O_REFUSE,
	    NULL },

	/* query */
	{ "query-file", 'f', required_argument, S_QUERY, O_QUERY_FILE,
	    "FILE: the SQL ('-': stdin)" },
	{ "interactive", 'i', no_argument,
	    S_QUERY | S_METRICS | S_SUMMARIZE, O_INTERACTIVE,
	    "the prompt afterwards" },
	{ "wide", 'W', no_argument, S_QUERY | S_INTERACTIVE, O_REFUSE, NULL },
	{ "perf-file", 0, required_argument, S_QUERY | S_METRICS | S_SUMMARIZE,
	    O_REFUSE, NULL },
	{ "structured-query-id", 0, required_argument, S_QUERY, O_REFUSE,
	    NULL },
	{ "summary-spec", 0, required_argument, S_QUERY, O_REFUSE, NULL },
	/* server */
	{ "port", 0, required_argument, S_SERVER, O_HTTP_PORT, "PORT (9001)" },
	{ "ip-address", 0, required_argument, S_SERVER, O_HTTP_IP,
	    "IP (127.0.0.1)" },
	{ "additional-cors-origins", 0, required_argument, S_SERVER,
	    O_HTTP_CORS, "O1,O2: browser origins besides the UI's" },
	{ "name", 0, required_argument, S_SERVER, O_REFUSE, NULL },
	{ "path", 0, required_argument, S_SERVER, O_REFUSE, NULL },
	{ "idle-timeout", 0, required_argument, S_SERVER, O_REFUSE, NULL },
	{ "idle-start", 0, required_argument, S_SERVER, O_REFUSE, NULL },
	{ "daemonize", 0, no_argument, S_SERVER, O_REFUSE, NULL },
	/* metrics */
	{ "run", 0, required_argument, S_METRICS, O_RUN_METRICS,
	    "A,B: the metrics" },
	{ "pre", 0, required_argument, S_METRICS, O_PRE_METRICS,
	    "FILE: SQL run first, output dropped" },
	{ "output", 0, required_argument, S_METRICS, O_METRICS_OUTPUT,
	    "text (default), binary or json" },
	{ "post-query", 0, required_argument, S_METRICS | S_SUMMARIZE,
	    O_QUERY_FILE, "FILE: SQL run afterwards, printed" },
	/* export */
	{ "output", 'o', required_argument, S_EXPORT, O_EXPORT,
	    "FILE: the SQLite file written" },
	{ "url", 0, required_argument, S_EXPORT, O_CH_URL,
	    "http://HOST:PORT: clickhouse: the server written to" },
	{ "database", 0, required_argument, S_EXPORT, O_CH_DATABASE,
	    "DB: clickhouse: its database (default)" },
	{ "cluster", 0, required_argument, S_EXPORT, O_CH_CLUSTER,
	    "NAME: clickhouse: through Distributed tables over it" },
	{ "host", 0, required_argument, S_EXPORT, O_CH_HOST,
	    "NAME: clickhouse: the machine traced (default: the file's "
	    "name up to its first dot)" },
	{ "schema-only", 0, no_argument, S_EXPORT, O_CH_SCHEMA_ONLY,
	    "clickhouse: create the tables, load no trace" },
	/* summarize */
	{ "metrics-v2", 0, required_argument, S_SUMMARIZE, O_SUMMARY_METRICS,
	    "ID1,ID2 or all: the metrics (default none)" },
	{ "metadata-query", 0, required_argument, S_SUMMARIZE,
	    O_SUMMARY_METADATA, "ID: the shared query giving metadata" },
	{ "format", 0, required_argument, S_SUMMARIZE, O_SUMMARY_FORMAT,
	    "text (default) or binary" },
};
#define NOPTS	(sizeof(args_opts) / sizeof(args_opts[0]))

struct args_sub {
	const char	*name;
	unsigned	 scope;		/* 0: refused as a whole */
	const char	*usage;
};

static const struct args_sub args_subs[] = {
	{ "query", S_QUERY, "query [FLAGS] TRACE [SQL]   (SQL, -f FILE or "
	    "stdin)" },
	{ "interactive", S_INTERACTIVE, "interactive [FLAGS] TRACE" },
	{ "server", S_SERVER, "server [FLAGS] http [TRACE]" },
	{ "metrics", S_METRICS, "metrics --run A,B [FLAGS] TRACE" },
	{ "export", S_EXPORT, "export sqlite -o FILE [FLAGS] TRACE\n"
	    "  export clickhouse --url URL [FLAGS] TRACE" },
	{ "summarize", S_SUMMARIZE, "summarize [FLAGS] TRACE [SPEC...]" },
	{ "convert", 0, NULL },
	{ "bundle", 0, NULL },
	{ "util", 0, NULL },
};
#define NSUBS	(sizeof(args_subs) / sizeof(args_subs[0]))

static int
args_fail(char **err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(err, fmt, ap) == -1)
		*err = NULL;
	va_end(ap);
	return -1;
}

/* "-W/--wide" or "--full-sort", as the help and the errors name it. */
static const char *
args_opt_name(const struct args_opt *o, char *buf, size_t len)
{
	if (o->shortopt != 0)
		snprintf(buf, len, "-%c/--%s", o->shortopt, o->name);
	else
		snprintf(buf, len, "--%s", o->name);
	return buf;
}

/* A number in [min, max]. */
static int
args_number(const char *flag, const char *s, unsigned long min,
    unsigned long max, unsigned long *v, char **err)
{
	char *ep;

	errno = 0;
	*v = strtoul(s, &ep, 10);
	if (errno != 0 || ep == s || *ep != '\0' || s[0] == '-' ||
	    *v < min || *v > max)
		return args_fail(err, "%s: %s: not a number in %lu..%lu", flag,
		    s, min, max);
	return 0;
}

static int
args_add_package(struct tp_args *a, const char *arg, int override,
    char **err)
{
	struct args_sql_package *p, *np;
	const char *at, *base;
	size_t len;

	np = reallocarray(a->packages, a->npackages + 1, sizeof(*np));
	if (np == NULL)
		return args_fail(err, "out of memory");
	a->packages = np;
	p = &np[a->npackages];
	memset(p, 0, sizeof(*p));
	p->override = override;
	at = strrchr(arg, '@');
	len = at != NULL ? (size_t)(at - arg) : strlen(arg);
	p->path = strndup(arg, len);
	if (p->path == NULL)
		return args_fail(err, "out of memory");
	/* The package is the directory's name unless @PACKAGE says. */
	while (len > 1 && p->path[len - 1] == '/')
		p->path[--len] = '\0';
	base = strrchr(p->path, '/');
	base = base != NULL && base[1] != '\0' ? base + 1 : p->path;
	p->package = strdup(at != NULL ? at + 1 : base);
	a->npackages++;
	if (p->package == NULL)
		return args_fail(err, "out of memory");
	if (p->package[0] == '\0' || p->path[0] == '\0')
		return args_fail(err, "--%s-sql-package: %s: expected "
		    "PATH[@PACKAGE]", override ? "override" : "add", arg);
	return 0;
}

static int
args_add_spec(struct tp_args *a, const char *path, char **err)
{
	const char **ns;

	ns = reallocarray(a->summary.specs, a->summary.nspecs + 1,
	    sizeof(*ns));
	if (ns == NULL)
		return args_fail(err, "out of memory");
	a->summary.specs = ns;
	ns[a->summary.nspecs++] = path;
	return 0;
}

/* Applies one flag. */
static int
args_apply(struct tp_args *a, const struct args_opt *o, const char *v,
    char **err)
{
	char nb[80];
	const char *flag = args_opt_name(o, nb, sizeof(nb));
	unsigned long n;

	switch (o->id) {
	case O_REFUSE:
		return args_fail(err, "%s: not supported yet", flag);
	case O_HELP:
		a->cmd = ARGS_HELP;
		break;
	case O_HELP_CLASSIC:
		a->cmd = ARGS_HELP;
		a->help_cmd = "classic";
		break;
	case O_VERSION:
		a->cmd = ARGS_VERSION;
		break;
	case O_FULL_SORT:
		a->cfg.full_sort = 1;
		break;
	case O_NO_FTRACE_RAW:
		a->cfg.ftrace_raw = 0;
		break;
	case O_ALLOW_FILES:
		a->allow_sql_file_access = 1;
		break;
	case O_DEV:
		a->dev = 1;
		break;
	case O_ADD_PACKAGE:
	case O_OVERRIDE_PACKAGE:
		return args_add_package(a, v, o->id == O_OVERRIDE_PACKAGE, err);
	case O_METRIC_EXT:
		if (modes_args_add_extension(&a->modes, v) == -1)
			return args_fail(err, "%s: at most %d", flag,
			    TPRPC_MAX_EXTENSIONS);
		break;
	case O_HTTPD:
		a->modes.httpd = 1;
		break;
	case O_HTTP_PORT:
		if (args_number(flag, v, 0, 65535, &n, err) == -1)
			return -1;
		a->modes.http_port = (int)n;
		break;
	case O_HTTP_IP:
		a->modes.http_addr = v;
		break;
	case O_HTTP_CORS:
		a->modes.http_cors_origins = v;
		break;
	case O_INTERACTIVE:
		a->interactive = 1;
		break;
	case O_QUERY_FILE:
		a->query_file = v;
		break;
	case O_QUERY_STRING:
		a->query_string = v;
		break;
	case O_EXPORT:
		a->export_path = v;
		break;
	case O_CH_URL:
		a->ch.url = v;
		break;
	case O_CH_DATABASE:
		a->ch.database = v;
		break;
	case O_CH_CLUSTER:
		a->ch.cluster = v;
		break;
	case O_CH_HOST:
		a->ch.host = v;
		break;
	case O_CH_SCHEMA_ONLY:
		a->ch.schema_only = 1;
		break;
	case O_SUMMARY:
		a->cmd = ARGS_SUMMARIZE;
		break;
	case O_SUMMARY_METRICS:
		a->summary.metrics_v2 = v;
		break;
	case O_SUMMARY_METADATA:
		a->summary.metadata_query = v;
		break;
	case O_SUMMARY_SPEC:
		return args_add_spec(a, v, err);
	case O_SUMMARY_FORMAT:
		if (strcmp(v, "text") != 0 && strcmp(v, "binary") != 0)
			return args_fail(err, "%s: %s is not text or binary",
			    flag, v);
		a->summary.format = v;
		break;
	case O_RUN_METRICS:
		a->modes.run_metrics = v;
		break;
	case O_PRE_METRICS:
		a->pre_metrics = v;
		break;
	case O_METRICS_OUTPUT:
		if (strcmp(v, "text") != 0 && strcmp(v, "binary") != 0 &&
		    strcmp(v, "json") != 0)
			return args_fail(err, "%s: %s is not one of text, "
			    "binary, json", flag, v);
		a->modes.metrics_output = v;
		break;
	case O_SORT_WINDOW:
		if (args_number(flag, v, 0, SIZE_MAX >> 20, &n, err) == -1)
			return -1;
		a->cfg.sort_window_bytes = (size_t)n << 20;
		break;
	case O_VERBOSE:
		a->verbose++;
		break;
	case O_SANDBOX_DEBUG:
		/* Read by the sandbox (base/proc.c). */
		if (setenv("FARO_SANDBOX_DEBUG", "1", 1) == -1)
			return args_fail(err, "%s: %s", flag, strerror(errno));
		break;
	case O_LIVE:
		a->modes.live = 1;
		a->modes.live_config = v;
		break;
	case O_LIVE_PERIOD:
	case O_LIVE_MB:
	case O_LIVE_S:
	case O_HTTP_MAXCONN:
	case O_HTTP_HEADER_MS:
	case O_HTTP_BODY_MS:
	case O_HTTP_IDLE_MS:
		if (args_number(flag, v, 1, UINT_MAX, &n, err) == -1)
			return -1;
		if (o->id == O_LIVE_PERIOD)
			a->modes.live_period_ms = (unsigned)n;
		else if (o->id == O_LIVE_MB)
			a->modes.live_window_mb = (unsigned)n;
		else if (o->id == O_LIVE_S)
			a->modes.live_window_s = (unsigned)n;
		else if (o->id == O_HTTP_MAXCONN)
			a->modes.http_limits.max_conns = (unsigned)n;
		else if (o->id == O_HTTP_HEADER_MS)
			a->modes.http_limits.header_ms = (unsigned)n;
		else if (o->id == O_HTTP_BODY_MS)
			a->modes.http_limits.body_ms = (unsigned)n;
		else
			a->modes.http_limits.idle_ms = (unsigned)n;
		break;
	case O_HTTP_HOST:
		a->modes.http_hosts = v;
		break;
	}
	return 0;
}

/* Does this flag, spelled exactly so, take the next word as its value? */
static int
args_takes_value(const char *w)
{
	size_t i;

	for (i = 0; i < NOPTS; i++) {
		const struct args_opt *o = &args_opts[i];

		if (o->has_arg != required_argument)
			continue;
		if ((w[1] == '-' && strcmp(w + 2, o->name) == 0) ||
		    (w[1] == o->shortopt && w[2] == '\0'))
			return 1;
	}
	return 0;
}

/*
 * Runs getopt_long over argv with the flags of scope; the words left are
 * returned in pos (npos of them).
 */
static int
args_getopt(struct tp_args *a, unsigned scope, int argc, char *argv[],
    char ***pos, int *npos, char **err)
{
	struct option lo[NOPTS + 1];
	const struct args_opt *map[NOPTS];
	char so[2 * NOPTS + 2], nb[80];
	size_t nlo = 0, nso = 0, i;
	int ch, li;

	so[nso++] = ':';	/* a missing value returns ':' */
	for (i = 0; i < NOPTS; i++) {
		const struct args_opt *o = &args_opts[i];

		if ((o->scope & scope) == 0)
			continue;
		map[nlo] = o;
		lo[nlo].name = o->name;
		lo[nlo].has_arg = o->has_arg;
		lo[nlo].flag = NULL;
		lo[nlo].val = 0x100 + (int)nlo;
		nlo++;
		if (o->shortopt != 0) {
			so[nso++] = (char)o->shortopt;
			if (o->has_arg == required_argument)
				so[nso++] = ':';
		}
	}
	memset(&lo[nlo], 0, sizeof(lo[nlo]));
	so[nso] = '\0';
	opterr = 0;
	optind = 0;
	while ((ch = getopt_long(argc, argv, so, lo, &li)) != -1) {
		const struct args_opt *o = NULL;

		if (ch == '?' || ch == ':') {
			const char *w = argv[optind - 1];

			if (optopt != 0 && optopt < 0x100)
				snprintf(nb, sizeof(nb), "-%c", optopt);
			else
				snprintf(nb, sizeof(nb), "%s", w);
			return args_fail(err, ch == ':' ? "%s: needs a value" :
			    "%s: unknown flag (see --help)", nb);
		}
		if (ch >= 0x100)
			o = map[ch - 0x100];
		else
			for (i = 0; i < nlo && o == NULL; i++)
				if (map[i]->shortopt == ch)
					o = map[i];
		if (args_apply(a, o, optarg, err) == -1)
			return -1;
	}
	*pos = argv + optind;
	*npos = argc - optind;
	return 0;
}

/* The classic interface: the command follows from the flags. */
static int
args_classic(struct tp_args *a, int argc, char *argv[], char **err)
{
	char **pos;
	int npos, daemon;

	if (args_getopt(a, S_CLASSIC, argc, argv, &pos, &npos, err) == -1)
		return -1;
	if (a->cmd == ARGS_HELP || a->cmd == ARGS_VERSION)
		return 0;
	if (a->cmd == ARGS_SUMMARIZE && a->modes.run_metrics != NULL)
		return args_fail(err, "Cannot specify both metrics v1 and "
		    "trace summarization");
	/* Upstream's precedence: httpd, summary, metrics, export, query. */
	daemon = a->modes.httpd || a->modes.live;
	if (daemon)
		a->cmd = ARGS_SERVER;
	else if (a->cmd == ARGS_SUMMARIZE)
		;
	else if (a->modes.run_metrics != NULL)
		a->cmd = ARGS_METRICS;
	else if (a->export_path != NULL) {
		if (a->query_file != NULL)
			return args_fail(err, "Cannot combine -e (export) "
			    "with -q (query). Use the 'export' subcommand "
			    "directly.");
		a->cmd = ARGS_EXPORT;
	} else if (a->query_file != NULL || a->query_string != NULL)
		a->cmd = ARGS_QUERY;
	else
		a->cmd = ARGS_INTERACTIVE;
	if (a->cmd == ARGS_INTERACTIVE)
		a->interactive = 1;
	if (npos > 1)
		return args_fail(err, "expected one trace file, got %d "
		    "arguments", npos);
	if (npos == 1)
		a->trace = pos[0];
	else if (!daemon)
		return args_fail(err, "a trace file is needed (see --help)");
	if (a->modes.live && a->trace != NULL)
		return args_fail(err, "--live reads no trace file");
	return 0;
}

/* A subcommand: its flags, then its positional words. */
static int
args_sub(struct tp_args *a, const struct args_sub *s, int argc,
    char *argv[], char **err)
{
	char **pos;
	int npos, max;

	if (s->scope == 0)
		return args_fail(err, "%s: not supported yet", s->name);
	if (args_getopt(a, s->scope, argc, argv, &pos, &npos, err) == -1)
		return -1;
	if (a->cmd == ARGS_HELP) {
		a->help_cmd = s->name;
		return 0;
	}
	if (a->cmd == ARGS_VERSION)
		return 0;
	switch (s->scope) {
	case S_QUERY:
		a->cmd = ARGS_QUERY;
		max = 2;
		break;
	case S_INTERACTIVE:
		a->cmd = ARGS_INTERACTIVE;
		a->interactive = 1;
		max = 1;
		break;
	case S_SERVER:
		a->cmd = ARGS_SERVER;
		if (npos == 0)
			return args_fail(err, "server: must specify mode "
			    "(expected http, stdio, unix or kill)");
		if (a->modes.live && strcmp(pos[0], "http") == 0)
			return args_fail(err, "server: --live is a mode of "
			    "its own: give no http");
		if (strcmp(pos[0], "http") == 0)
			a->modes.httpd = 1;
		else if (strcmp(pos[0], "stdio") == 0 ||
		    strcmp(pos[0], "unix") == 0 || strcmp(pos[0], "kill") == 0)
			return args_fail(err, "server %s: not supported yet",
			    pos[0]);
		else
			return args_fail(err, "server: unknown mode '%s' "
			    "(expected http, stdio, unix or kill)", pos[0]);
		pos++;
		npos--;
		max = 1;
		break;
	case S_METRICS:
		a->cmd = ARGS_METRICS;
		if (a->modes.run_metrics == NULL)
			return args_fail(err, "metrics: --run is required");
		max = 1;
		break;
	case S_EXPORT:
		a->cmd = ARGS_EXPORT;
		if (npos == 0)
			return args_fail(err, "export: must specify format "
			    "(sqlite, arrow_tar, or perfetto)");
		if (strcmp(pos[0], "arrow_tar") == 0 ||
		    strcmp(pos[0], "perfetto") == 0)
			return args_fail(err, "export %s: not supported yet",
			    pos[0]);
		if (strcmp(pos[0], "clickhouse") == 0) {
			if (a->ch.url == NULL || a->export_path != NULL)
				return args_fail(err, "export clickhouse: "
				    "--url is required, -o is not taken");
			if (a->ch.schema_only) {
				a->cmd = ARGS_CH_SCHEMA;
				return npos > 1 ? args_fail(err, "export "
				    "clickhouse --schema-only: no trace is "
				    "read") : 0;
			}
		} else if (strcmp(pos[0], "sqlite") != 0)
			return args_fail(err, "export: unknown format '%s' "
			    "(expected sqlite, clickhouse, arrow_tar, or "
			    "perfetto)", pos[0]);
		else if (a->export_path == NULL)
			return args_fail(err, "export: -o FILE is required");
		else if (a->ch.url != NULL)
			return args_fail(err, "export sqlite: --url is for "
			    "export clickhouse");
		pos++;
		npos--;
		max = 1;
		break;
	default:	/* S_SUMMARIZE: TRACE SPEC... */
		a->cmd = ARGS_SUMMARIZE;
		for (max = 1; max < npos; max++)
			if (args_add_spec(a, pos[max], err) == -1)
				return -1;
		break;
	}
	if (npos > max)
		return args_fail(err, "%s: expected at most %d positional "
		    "argument(s), got %d", s->name, max, npos);
	if (npos >= 1)
		a->trace = pos[0];
	else if (a->cmd != ARGS_SERVER)
		return args_fail(err, "%s: a trace file is needed", s->name);
	if (a->cmd == ARGS_QUERY) {
		if (npos == 2)
			a->query_string = pos[1];
		else if (a->query_file != NULL &&
		    strcmp(a->query_file, "-") == 0) {
			a->query_file = NULL;
			a->query_stdin = 1;
		} else if (a->query_file == NULL) {
			if (isatty(STDIN_FILENO))
				return args_fail(err, "query: no SQL "
				    "provided. Use positional arg, -f FILE, "
				    "or pipe to stdin.");
			a->query_stdin = 1;
		}
		if (a->query_stdin && strcmp(a->trace, "-") == 0)
			return args_fail(err, "query: the trace and the SQL "
			    "cannot both come on stdin");
	}
	return 0;
}

int
args_parse(struct tp_args *a, int argc, char *argv[], char **err)
{
	char **v;
	int i, j, rc = -1;
	size_t k;
	const struct args_sub *sub = NULL;

	memset(a, 0, sizeof(*a));
	*err = NULL;
	tp_config_init(&a->cfg);
	modes_args_init(&a->modes);
	if (argc <= 1) {
		a->cmd = ARGS_HELP;
		return 0;
	}
	/* The first word that is no flag nor a flag's value picks the form. */
	for (i = 1; i < argc; i++) {
		if (argv[i][0] == '-' && argv[i][1] != '\0') {
			if (strcmp(argv[i], "--") == 0)
				break;
			i += args_takes_value(argv[i]);
			continue;
		}
		if (strcmp(argv[i], "help") == 0) {
			a->cmd = ARGS_HELP;
			if (i + 1 < argc) {
				for (k = 0; k < NSUBS; k++)
					if (strcmp(argv[i + 1],
					    args_subs[k].name) == 0)
						a->help_cmd = args_subs[k].name;
				if (a->help_cmd == NULL)
					return args_fail(err, "Unknown command "
					    "'%s'.", argv[i + 1]);
			}
			return 0;
		}
		for (k = 0; k < NSUBS; k++)
			if (strcmp(argv[i], args_subs[k].name) == 0)
				sub = &args_subs[k];
		break;
	}
	/* getopt permutes its argv: work on a copy, without the command. */
	if ((v = calloc((size_t)argc + 1, sizeof(*v))) == NULL)
		return args_fail(err, "out of memory");
	for (j = 0, k = 0; j < argc; j++)
		if (sub == NULL || j != i)
			v[k++] = argv[j];
	if (sub != NULL)
		rc = args_sub(a, sub, (int)k, v, err);
	else
		rc = args_classic(a, (int)k, v, err);
	free(v);
	if (rc == -1)
		args_free(a);
	return rc;
}

void
args_free(struct tp_args *a)
{
	size_t i;

	for (i = 0; i < a->npackages; i++) {
		free(a->packages[i].path);
		free(a->packages[i].package);
	}
	free(a->packages);
	free(a->summary.specs);
	a->packages = NULL;
	a->npackages = 0;
	a->summary.specs = NULL;
	a->summary.nspecs = 0;
}

/* The flags of scope, one a line; refused ones listed by name only. */
static void
args_usage_flags(unsigned scope, FILE *out)
{
	char nb[80];
	size_t i, col = 0;

	for (i = 0; i < NOPTS; i++) {
		const struct args_opt *o = &args_opts[i];

		if ((o->scope & scope) == 0 || o->help == NULL)
			continue;
		fprintf(out, "  %-32s %s\n", args_opt_name(o, nb, sizeof(nb)),
		    o->help);
	}
	fprintf(out, "Refused (not supported yet):");
	for (i = 0; i < NOPTS; i++) {
		const struct args_opt *o = &args_opts[i];

		if ((o->scope & scope) == 0 || o->id != O_REFUSE)
			continue;
		args_opt_name(o, nb, sizeof(nb));
		if (col + strlen(nb) > 70) {
			fprintf(out, "\n ");
			col = 0;
		}
		col += fprintf(out, " %s", nb);
	}
	fputc('\n', out);
}

void
args_usage(const struct tp_args *a, const char *argv0, FILE *out)
{
	size_t k;

	if (a->help_cmd != NULL && strcmp(a->help_cmd, "classic") == 0) {
		fprintf(out, "Usage: %s [FLAGS] TRACE\n\n", argv0);
		args_usage_flags(S_CLASSIC, out);
		return;
	}
	for (k = 0; a->help_cmd != NULL && k < NSUBS; k++) {
		const struct args_sub *s = &args_subs[k];

		if (strcmp(a->help_cmd, s->name) != 0)
			continue;
		if (s->scope == 0) {
			fprintf(out, "%s: not supported yet\n", s->name);
			return;
		}
		fprintf(out, "Usage: %s %s\n\n", argv0, s->usage);
		args_usage_flags(s->scope, out);
		return;
	}
	fprintf(out,
	    "faro's trace processor, with upstream trace_processor_shell's "
	    "command line.\n"
	    "Usage: %s [command] [flags] [trace_file]\n\n"
	    "If no command is given, opens an interactive SQL shell on the "
	    "trace file.\n\nCommands:\n", argv0);
	for (k = 0; k < NSUBS; k++)
		fprintf(out, "  %-12s %s\n", args_subs[k].name,
		    args_subs[k].usage != NULL ? args_subs[k].usage :
		    "not supported yet");
	fprintf(out, "\nRun '%s help <command>' for per-command flags, "
	    "'%s --help-classic'\nfor the classic flags (-q, -Q, -D, -e, "
	    "--run-metrics, ...).\n", argv0, argv0);
}

void
args_version(FILE *out)
{
	fprintf(out, "faro trace_processor %s\n"
	    "Trace Processor RPC API version: %d\n", PACKAGE_VERSION,
	    RPC_API_VERSION);
}
