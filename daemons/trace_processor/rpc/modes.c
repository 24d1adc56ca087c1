/*
 * The trace_processor program's metrics and daemon modes: see modes.h.
 */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "httpd.h"
#include "live.h"
#include "base/log.h"
#include "daemons/trace_processor/sandbox.h"
#include "metrics/metrics.h"
#include "metrics/pbbuf.h"
#include "rpc.h"
#include "modes.h"

void
modes_args_init(struct modes_args *a)
{
	memset(a, 0, sizeof(*a));
	a->http_addr = "127.0.0.1";
	a->http_port = TPRPC_DEFAULT_PORT;
	a->metrics_output = "text";
	a->trace_fd = -1;
	httpd_limits_init(&a->http_limits);
}

int
modes_args_add_extension(struct modes_args *a, const char *dir)
{
	if (a->nmetric_ext >= TPRPC_MAX_EXTENSIONS)
		return -1;
	a->metric_ext[a->nmetric_ext++] = dir;
	return 0;
}

static struct metrics *
modes_metrics_load(const struct modes_args *a)
{
	struct metrics *mx;
	char *err = NULL;
	size_t i;

	if ((mx = metrics_new(&err)) == NULL) {
		fprintf(stderr, "trace_processor: metrics: %s\n",
		    err ? err : "?");
		free(err);
		return NULL;
	}
	for (i = 0; i < a->nmetric_ext; i++)
		if (metrics_add_extension(mx, a->metric_ext[i], &err) == -1) {
			fprintf(stderr, "trace_processor: --metric-extension: "
			    "%s\n", err ? err : "?");
			free(err);
			metrics_free(mx);
			return NULL;
		}
	return mx;
}

static int
modes_run_metrics(struct metrics *mx, struct tp *tp, const char *list,
    const char *format)
{
	enum metrics_format fmt;
	struct pbbuf w;
	char **names, *err = NULL, *txt;
	size_t n, len;
	int rc = 0;

	if (strcmp(format, "text") == 0)
		fmt = METRICS_TEXT;
	else if (strcmp(format, "binary") == 0)
		fmt = METRICS_BINARY;
	else if (strcmp(format, "json") == 0)
		fmt = METRICS_JSON;
	else {
		fprintf(stderr, "trace_processor: --metrics-output: %s is "
		    "not one of text, binary, json\n", format);
		return 1;
	}
	if ((names = metrics_split_names(list, &n)) == NULL || n == 0) {
		fprintf(stderr, "trace_processor: --run-metrics: no names\n");
		metrics_names_free(names, n);
		return 1;
	}
	pbb_init(&w);
	if (metrics_compute(mx, tp_db(tp), (const char *const *)names, n,
	    &w, &err) == -1) {
		fprintf(stderr, "trace_processor: %s\n", err ? err : "?");
		rc = 1;
	} else if ((txt = metrics_render(mx, w.buf, w.len, fmt, &len,
	    &err)) == NULL) {
		fprintf(stderr, "trace_processor: %s\n", err ? err : "?");
		rc = 1;
	} else {
		if (fwrite(txt, 1, len, stdout) != len || fflush(stdout) != 0)
			rc = 1;
		free(txt);
	}
	free(err);
	pbb_free(&w);
	metrics_names_free(names, n);
	return rc;
}

static void
modes_on_signal(evutil_socket_t sig, short ev, void *arg)
{
	(void)ev;
	log_info("%s: signal %d, stopping", __func__, (int)sig);
	event_base_loopbreak(arg);
}

/*
 * Confines the daemon once its socket is bound and before it serves
 * anything (issue 10): the HTTP peers and the traces are untrusted.
 */
static int
modes_confine(struct event_base *base)
{
	struct proc_sandbox_opts sbo;
	const char *cause = NULL;

	proc_sandbox_opts_init(&sbo);
	if (trace_processor_sandbox(&sbo, base, &cause) == -1) {
		fprintf(stderr, "trace_processor: sandbox: %s\n",
		    cause ? cause : "?");
		return -1;
	}
	return 0;
}

/* Each name of the comma-separated list, given to add. */
static int
modes_add_each(struct httpd *h, const char *list,
    int (*add)(struct httpd *, const char *))
{
	char **v;
	size_t n, i;
	int rc = 0;

	if (list == NULL)
		return 0;
	if ((v = metrics_split_names(list, &n)) == NULL)
		return -1;
	for (i = 0; i < n && rc == 0; i++)
		rc = add(h, v[i]);
	metrics_names_free(v, n);
	return rc;
}

/* --httpd TRACE: the trace, read confined, and its metrics if asked. */
static int
modes_preload(struct rpc *rpc, const struct tp_config *cfg,
    const struct modes_args *a, struct metrics *mx)
{
	struct tp *tp;
	char *err = NULL;
	int rc = 0;

	if ((tp = tp_new(cfg, &err)) == NULL ||
	    tp_load_fd(tp, a->trace_fd) == -1) {
		fprintf(stderr, "trace_processor: %s: %s\n", a->trace_name,
		    tp != NULL ? tp_error(tp) : err ? err : "?");
		free(err);
		tp_free(tp);
		return 1;
	}
	if (a->run_metrics != NULL &&
	    (rc = modes_run_metrics(mx, tp, a->run_metrics,
	    a->metrics_output)) != 0) {
		tp_free(tp);
		return rc;
	}
	rpc_preload(rpc, tp, a->trace_name);
	return 0;
}

/*
 * Serves h until SIGINT or SIGTERM, confined (both daemon modes): 0, or 1
 * when the sandbox could not be set up or the preloaded trace could not
 * be read. The trace (--httpd TRACE) is loaded and its metrics printed
 * once confined, before anything is served, as upstream loads it before
 * serving. The banner says where, as "[HTTP] <what>ADDR:PORT<tail>".
 */
static int
modes_serve(struct event_base *base, struct httpd *h, struct rpc *rpc,
    const struct tp_config *cfg, const struct modes_args *a,
    struct metrics *mx, const char *what, const char *tail)
{
	struct event *sigint, *sigterm;
	int rc = 0;

	/* Origins besides the Perfetto UI's, names besides the address's. */
	if (modes_add_each(h, a->http_cors_origins, httpd_allow_origin) ==
	    -1 || modes_add_each(h, a->http_hosts, httpd_allow_host) == -1 ||
	    httpd_set_limits(h, &a->http_limits) == -1) {
		fprintf(stderr, "trace_processor: out of memory\n");
		return 1;
	}
	if (modes_confine(base) == -1)
		return 1;
	if (a->trace_fd != -1 && (rc = modes_preload(rpc, cfg, a, mx)) != 0)
		return rc;
	sigint = evsignal_new(base, SIGINT, modes_on_signal, base);
	sigterm = evsignal_new(base, SIGTERM, modes_on_signal, base);
	evsignal_add(sigint, NULL);
	evsignal_add(sigterm, NULL);
	fprintf(stderr, "[HTTP] %s%s:%d%s\n", what, a->http_addr,
	    httpd_port(h), tail);
	event_base_dispatch(base);
	event_free(sigint);
	event_free(sigterm);
	return rc;
}

/*
 * The loop of a server: changes to what a socket waits for are handed to
 * epoll together, once per turn of the loop; libevent made one call for
 * each (9 for a query over HTTP, now 4: "select 1" 0.105 -> 0.098 ms).
 * Safe here: no watched descriptor is a dup of another.
 */
static struct event_base *
modes_base(void)
{
	struct event_config *c = event_config_new();
	struct event_base *base;

	if (c == NULL)
		return NULL;
	(void)event_config_set_flag(c, EVENT_BASE_FLAG_EPOLL_USE_CHANGELIST);
	base = event_base_new_with_config(c);
	event_config_free(c);
	return base;
}

static int
modes_httpd(const struct tp_config *cfg, const struct modes_args *a,
    struct metrics *mx)
{
	struct event_base *base;
	struct httpd *h;
	struct rpc *rpc;
	char *err = NULL;
	int rc;

	signal(SIGPIPE, SIG_IGN);
	if ((base = modes_base()) == NULL) {
		fprintf(stderr, "trace_processor: event_base_new failed\n");
		return 1;
	}
	if ((rpc = rpc_new(cfg, NULL, NULL, mx, &err)) == NULL) {
		fprintf(stderr, "trace_processor: %s\n", err ? err : "?");
		free(err);
		event_base_free(base);
		return 1;
	}
	if ((h = httpd_new(base, a->http_addr, a->http_port, rpc, &err)) ==
	    NULL) {
		fprintf(stderr, "trace_processor: %s\n", err ? err : "?");
		free(err);
		rpc_free(rpc);
		event_base_free(base);
		return 1;
	}
	rc = modes_serve(base, h, rpc, cfg, a, mx, "Starting RPC server on ",
	    "");
	httpd_free(h);
	rpc_free(rpc);
	event_base_free(base);
	return rc;
}

/* --live: the consumer, the window and /metrics on one loop. */
static int
modes_live(const struct tp_config *cfg, const struct modes_args *a,
    struct metrics *mx)
{
	struct event_base *base;
	struct live_opts o;
	struct live *l;
	struct httpd *h;
	char *err = NULL;
	int rc = 0;

	signal(SIGPIPE, SIG_IGN);
	live_opts_init(&o);
	o.config_path = a->live_config;
	if (a->live_period_ms > 0)
		o.period_ms = a->live_period_ms;
	if (a->live_window_mb > 0)
		o.window_bytes = (size_t)a->live_window_mb << 20;
	if (a->live_window_s > 0)
		o.window_s = a->live_window_s;
	if ((base = modes_base()) == NULL) {
		fprintf(stderr, "trace_processor: event_base_new failed\n");
		return 1;
	}
	if ((l = live_new(base, cfg, mx, &o, &err)) == NULL) {
		fprintf(stderr, "trace_processor: --live: %s\n",
		    err ? err : "?");
		free(err);
		event_base_free(base);
		return 1;
	}
	if ((h = httpd_new(base, a->http_addr, a->http_port, live_rpc(l),
	    &err)) == NULL) {
		fprintf(stderr, "trace_processor: %s\n", err ? err : "?");
		free(err);
		live_free(l);
		event_base_free(base);
		return 1;
	}
	httpd_set_metrics(h, live_render, l);
	rc = modes_serve(base, h, NULL, cfg, a, mx, "Live metrics on http://",
	    "/metrics");
	httpd_free(h);
	live_free(l);
	event_base_free(base);
	return rc;
}

int
modes_metrics(struct tp *tp, const struct modes_args *a)
{
	struct metrics *mx;
	int rc;

	if ((mx = modes_metrics_load(a)) == NULL)
		return 1;
	rc = modes_run_metrics(mx, tp, a->run_metrics, a->metrics_output);
	metrics_free(mx);
	return rc;
}

int
modes_main(const struct tp_config *cfg, const struct modes_args *a)
{
	struct metrics *mx;
	int rc;

	if ((mx = modes_metrics_load(a)) == NULL)
		return 1;
	if (a->live)
		rc = modes_live(cfg, a, mx);
	else
		rc = modes_httpd(cfg, a, mx);
	metrics_free(mx);
	return rc;
}
