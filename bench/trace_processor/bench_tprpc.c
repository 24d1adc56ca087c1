/*
 * bench_tprpc: what the RPC daemon and metrics cost on a real trace.
 *
 *   bench_tprpc TRACE
 *
 * Loads TRACE through /parse in 32 MiB pieces (as the Python API sends
 * it), then times over real HTTP on 127.0.0.1: a query returning every
 * slice (rows/s and MB/s of QueryResult), the same through /rpc, and each
 * built-in metric through /compute_metric. Best of three for each figure;
 * CPU is the whole process's (server thread and client), which says more
 * than wall time on a busy machine.
 */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event2/event.h>
#include <event2/thread.h>

#include "http_client.h"
#include "daemons/trace_processor/rpc/httpd.h"
#include "metrics/metrics.h"
#include "metrics/pbbuf.h"
#include "daemons/trace_processor/rpc/rpc.h"
#include "tp.h"

static struct event_base *base;

static void *
serve(void *arg)
{
	(void)arg;
	event_base_dispatch(base);
	return NULL;
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* CPU of the whole process: the server thread and the client. */
static double
cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double	best_cpu;

static char *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *b;
	long n;

	if (f == NULL)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	if ((b = malloc((size_t)n + 1)) == NULL ||
	    fread(b, 1, (size_t)n, f) != (size_t)n) {
		fclose(f);
		free(b);
		return NULL;
	}
	fclose(f);
	*len = (size_t)n;
	return b;
}

static double
best_of_3(int port, const char *path, const void *body, size_t len,
    size_t *out)
{
	struct http_reply r;
	double best = 1e9, t0, t, c0, c;
	int i;

	best_cpu = 1e9;
	for (i = 0; i < 3; i++) {
		t0 = now_s();
		c0 = cpu_s();
		if (http_request(port, "POST", path, NULL, body, len, &r) ==
		    -1 || r.status != 200) {
			fprintf(stderr, "bench_tprpc: %s failed\n", path);
			exit(1);
		}
		t = now_s() - t0;
		c = cpu_s() - c0;
		*out = r.len;
		http_reply_free(&r);
		if (t < best)
			best = t;
		if (c < best_cpu)
			best_cpu = c;
	}
	return best;
}

int
main(int argc, char *argv[])
{
	static const char *const metrics[] = { "trace_stats", "trace_metadata",
	    "linux_cpu", "linux_memory", "linux_io", "linux_slices" };
	const char *sql = "select id, ts, dur, name, depth, arg_set_id "
	    "from slice";
	struct tp_config cfg;
	struct metrics *mx;
	struct rpc *rpc;
	struct httpd *h;
	struct http_reply r;
	struct pbbuf w, s;
	pthread_t th;
	char *trace, *err = NULL;
	size_t len, off, n, got;
	double t0, t, c0;
	long long rows = 0;
	int port;
	size_t i;

	if (argc != 2) {
		fprintf(stderr, "usage: bench_tprpc TRACE\n");
		return 1;
	}
	if ((trace = slurp(argv[1], &len)) == NULL) {
		fprintf(stderr, "bench_tprpc: cannot read %s\n", argv[1]);
		return 1;
	}
	evthread_use_pthreads();
	tp_config_init(&cfg);
	if ((mx = metrics_new(&err)) == NULL ||
	    (rpc = rpc_new(&cfg, NULL, NULL, mx, &err)) == NULL ||
	    (base = event_base_new()) == NULL ||
	    (h = httpd_new(base, "127.0.0.1", 0, rpc, &err)) == NULL) {
		fprintf(stderr, "bench_tprpc: %s\n", err ? err : "setup");
		return 1;
	}
	port = httpd_port(h);
	pthread_create(&th, NULL, serve, NULL);

	t0 = now_s();
	c0 = cpu_s();
	for (off = 0; off < len; off += n) {
		n = len - off < (32u << 20) ? len - off : (32u << 20);
		if (http_request(port, "POST", "/parse", NULL, trace + off, n,
		    &r) == -1)
			return 1;
		http_reply_free(&r);
	}
	if (http_request(port, "GET", "/notify_eof", NULL, NULL, 0, &r) == -1)
		return 1;
	http_reply_free(&r);
	t = now_s() - t0;
	printf("load over HTTP: %.1f MB in %.2f s = %.1f MB/s (CPU %.2f s)\n",
	    (double)len / 1e6, t, (double)len / 1e6 / t, cpu_s() - c0);

	{
		sqlite3_stmt *st;

		sqlite3_prepare_v2(rpc_db(rpc), "select count(*) from slice",
		    -1, &st, NULL);
		if (sqlite3_step(st) == SQLITE_ROW)
			rows = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	pbb_init(&w);
	pbb_string(&w, 1, sql);
	t = best_of_3(port, "/query", w.buf, w.len, &got);
	printf("/query all slices: %lld rows, %.1f MB in %.3f s = "
	    "%.2f Mrows/s, %.1f MB/s (CPU %.3f s)\n", rows, (double)got / 1e6,
	    t, (double)rows / 1e6 / t, (double)got / 1e6 / t, best_cpu);
	/* The same through the /rpc stream. */
	pbb_init(&s);
	{
		size_t m = pbb_begin(&s, 1);

		pbb_uint(&s, 1, 1);
		pbb_uint(&s, 2, 3);
		pbb_bytes(&s, 103, w.buf, w.len);
		pbb_end(&s, m);
	}
	t = best_of_3(port, "/rpc", s.buf, s.len, &got);
	printf("/rpc all slices: %.1f MB in %.3f s = %.2f Mrows/s (CPU %.3f s)\n",
	    (double)got / 1e6, t, (double)rows / 1e6 / t, best_cpu);
	pbb_free(&s);
	pbb_free(&w);

	for (i = 0; i < sizeof(metrics) / sizeof(metrics[0]); i++) {
		pbb_init(&w);
		pbb_string(&w, 1, metrics[i]);
		t = best_of_3(port, "/compute_metric", w.buf, w.len, &got);
		printf("metric %-15s %8.3f s, CPU %.3f s (%zu bytes)\n",
		    metrics[i], t, best_cpu, got);
		pbb_free(&w);
	}
	event_base_loopbreak(base);
	pthread_join(th, NULL);
	httpd_free(h);
	rpc_free(rpc);
	metrics_free(mx);
	event_base_free(base);
	free(trace);
	return 0;
}
