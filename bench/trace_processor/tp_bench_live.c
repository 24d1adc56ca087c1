/*
 * tp_bench_live: the cost of trace_processor --live's refresh, the way
 * live.c drives the engine, on a synthetic stream (tp_gen_trace), without
 * traced in the way: a tick is one second of a producer writing RATE MB;
 * the window keeps WINDOW ticks (and at most WINDOW_MB); every REFRESH
 * ticks the metrics --live serves are computed.
 *
 *   tp_bench_live [-m incremental|reimport] [-r RATE_MB] [-w WINDOW_S]
 *       [-b WINDOW_MB] [-n TICKS] [-f REFRESH] [-p PRINT] TRACE|-
 *
 * incremental (live.c now): each tick's packets go to one engine as they
 *   come; a refresh is tp_checkpoint + tp_evict_before + the metrics.
 * reimport (live.c before): the packets wait in a window; a refresh
 *   imports the window into a fresh engine (tp_parse ... tp_eof), then
 *   the metrics.
 *
 * Prints a line every PRINT ticks (CPU of the last refresh and of its
 * metrics, RSS, what the engine holds) and a summary: CPU per tick to
 * take the packets in (tokenizing; records are parsed when a checkpoint
 * releases them, inside the refresh), refresh CPU (mean, of which the
 * metrics and the eviction, max), peak RSS. Times are CPU time of this process.
 */
#include <sys/resource.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "metrics/metrics.h"
#include "metrics/pbbuf.h"
#include "tp.h"

static const char *const live_metrics[] = {
	"trace_stats", "linux_cpu", "linux_memory", "linux_io",
	"linux_slices",
};

/* One tick's packets (the reimport mode keeps them). */
struct tick {
	uint8_t		*data;
	size_t		 len;
	int64_t		 ts_hi;
};

static double
cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double
rss_mb(void)
{
	FILE *f = fopen("/proc/self/statm", "r");
	long pages = 0, res = 0;

	if (f == NULL)
		return 0;
	if (fscanf(f, "%ld %ld", &pages, &res) != 2)
		res = 0;
	fclose(f);
	return (double)res * (double)sysconf(_SC_PAGESIZE) / (1 << 20);
}

/* Reads whole packets (Trace.packet, field 1) up to want bytes. */
static size_t
read_packets(FILE *in, struct pbbuf *out, size_t want)
{
	size_t start = out->len;

	while (out->len - start < want) {
		uint8_t hdr[11];
		uint64_t len = 0;
		int c, h = 0, shift = 0;
		void *body;

		if ((c = fgetc(in)) == EOF)
			break;
		hdr[h++] = (uint8_t)c;
		do {
			if ((c = fgetc(in)) == EOF || h == 11)
				return out->len - start;
			hdr[h++] = (uint8_t)c;
			len |= (uint64_t)(c & 0x7f) << shift;
			shift += 7;
		} while (c & 0x80);
		if ((body = malloc(len ? len : 1)) == NULL ||
		    fread(body, 1, len, in) != len) {
			free(body);
			break;
		}
		pbb_raw(out, hdr, (size_t)h);
		pbb_raw(out, body, len);
		free(body);
	}
	return out->len - start;
}

static double
metrics_run(struct metrics *mx, sqlite3 *db)
{
	struct pbbuf w;
	char *err = NULL;
	double t0 = cpu_now();

	pbb_init(&w);
	if (metrics_compute(mx, db, live_metrics,
	    sizeof(live_metrics) / sizeof(live_metrics[0]), &w, &err) == -1) {
		fprintf(stderr, "metrics: %s\n", err ? err : "?");
		exit(1);
	}
	pbb_free(&w);
	return cpu_now() - t0;
}

static struct tp *
engine_new(void)
{
	struct tp *tp;
	char *err = NULL;

	if ((tp = tp_new(NULL, &err)) == NULL) {
		fprintf(stderr, "tp_new: %s\n", err);
		exit(1);
	}
	return tp;
}

/* Feeds like ReadBuffers replies do: pieces of 256 KiB. */
static void
feed(struct tp *tp, const uint8_t *p, size_t len)
{
	size_t off, n;

	for (off = 0; off < len; off += n) {
		n = len - off < (256u << 10) ? len - off : (256u << 10);
		if (tp_parse(tp, p + off, n) == -1) {
			fprintf(stderr, "tp_parse: %s\n", tp_error(tp));
			exit(1);
		}
	}
}

int
main(int argc, char *argv[])
{
	const char *mode = "incremental";
	double rate = 10, window_mb = 1e9, parse_cpu = 0, ref_sum = 0,
	    ref_max = 0, peak = 0, t0, last_ref = 0, met_sum = 0, last_met = 0,
	    ev_sum = 0, t1;
	long window_s = 3, ticks = 10, refresh = 1, print = 1, i, nref = 0;
	struct tick *win;
	size_t whead = 0, wn = 0, wbytes = 0, total = 0;
	int64_t horizon = INT64_MIN, prev_hi = INT64_MIN;
	struct metrics *mx;
	struct tp *tp = NULL;
	FILE *in;
	char *err = NULL;
	int c, reimport;

	while ((c = getopt(argc, argv, "m:r:w:b:n:f:p:")) != -1) {
		switch (c) {
		case 'm': mode = optarg; break;
		case 'r': rate = atof(optarg); break;
		case 'w': window_s = atol(optarg); break;
		case 'b': window_mb = atof(optarg); break;
		case 'n': ticks = atol(optarg); break;
		case 'f': refresh = atol(optarg); break;
		case 'p': print = atol(optarg); break;
		default:
			fprintf(stderr, "usage: tp_bench_live [-m incremental|"
			    "reimport] [-r MB] [-w S] [-b MB] [-n TICKS]"
			    " [-f REFRESH] [-p PRINT] TRACE|-\n");
			return 1;
		}
	}
	if (optind != argc - 1 || window_s < 1 || refresh < 1 || print < 1)
		return 1;
	reimport = strcmp(mode, "reimport") == 0;
	in = strcmp(argv[optind], "-") == 0 ? stdin : fopen(argv[optind], "rb");
	if (in == NULL) {
		perror(argv[optind]);
		return 1;
	}
	if ((mx = metrics_new(&err)) == NULL) {
		fprintf(stderr, "metrics: %s\n", err);
		return 1;
	}
	if ((win = calloc((size_t)window_s + 1, sizeof(*win))) == NULL)
		return 1;
	if (!reimport)
		tp = engine_new();
	for (i = 1; i <= ticks; i++) {
		struct pbbuf b;
		struct tick *t;

		pbb_init(&b);
		if (read_packets(in, &b, (size_t)(rate * (1 << 20))) == 0) {
			pbb_free(&b);
			break;
		}
		total += b.len;
		t = &win[(whead + wn) % ((size_t)window_s + 1)];
		t->len = b.len;
		t->ts_hi = prev_hi;
		if (!reimport) {
			t0 = cpu_now();
			feed(tp, b.buf, b.len);
			parse_cpu += cpu_now() - t0;
			t->ts_hi = tp_newest_ts(tp);
			pbb_free(&b);
			t->data = NULL;
		} else
			t->data = pbb_take(&b, &t->len);
		wn++;
		wbytes += t->len;
		/* The window lets the oldest ticks go (live_evict). */
		while (wn > 0 && (wn > (size_t)window_s ||
		    wbytes > window_mb * (1 << 20))) {
			struct tick *o = &win[whead];

			if (o->ts_hi != INT64_MIN && o->ts_hi + 1 > horizon)
				horizon = o->ts_hi + 1;
			wbytes -= o->len;
			free(o->data);
			o->data = NULL;
			whead = (whead + 1) % ((size_t)window_s + 1);
			wn--;
		}
		if (i % refresh == 0) {
			t0 = cpu_now();
			if (reimport) {
				size_t k;

				tp = engine_new();
				for (k = 0; k < wn; k++) {
					struct tick *w = &win[(whead + k) %
					    ((size_t)window_s + 1)];

					feed(tp, w->data, w->len);
				}
				tp_eof(tp);
				last_met = metrics_run(mx, tp_db(tp));
				if (rss_mb() > peak)
					peak = rss_mb();
				tp_free(tp);
				tp = NULL;
			} else {
				/* Records a tick old are released (LIVE_LAG). */
				if (tp_checkpoint(tp, prev_hi) == -1) {
					fprintf(stderr, "%s\n", tp_error(tp));
					return 1;
				}
				t1 = cpu_now();
				if (horizon != INT64_MIN &&
				    tp_evict_before(tp, horizon) == -1) {
					fprintf(stderr, "%s\n", tp_error(tp));
					return 1;
				}
				ev_sum += cpu_now() - t1;
				last_met = metrics_run(mx, tp_db(tp));
			}
			last_ref = cpu_now() - t0;
			ref_sum += last_ref;
			met_sum += last_met;
			if (last_ref > ref_max)
				ref_max = last_ref;
			nref++;
		}
		if (!reimport)
			prev_hi = tp_newest_ts(tp);
		if (rss_mb() > peak)
			peak = rss_mb();
		if (i % print == 0)
			printf("tick=%ld window_mb=%.1f engine_mb=%.1f"
			    " rss_mb=%.1f refresh_cpu_ms=%.0f (metrics %.0f)\n",
			    i, (double)wbytes / (1 << 20), tp != NULL ?
			    (double)tp_mem_bytes(tp) / (1 << 20) : 0.0,
			    rss_mb(), last_ref * 1e3, last_met * 1e3);
		fflush(stdout);
	}
	printf("mode=%s ticks=%ld stream_mb=%.0f rate_mb=%.1f window_s=%ld"
	    " parse_cpu_s_per_tick=%.3f refreshes=%ld refresh_cpu_ms_mean=%.0f"
	    " of_which_metrics_ms_mean=%.0f evict_ms_mean=%.0f"
	    " refresh_cpu_ms_max=%.0f"
	    " peak_rss_mb=%.1f\n", mode, i - 1, (double)total / (1 << 20),
	    rate, window_s, i > 1 ? parse_cpu / (double)(i - 1) : 0.0, nref,
	    nref ? ref_sum / (double)nref * 1e3 : 0.0,
	    nref ? met_sum / (double)nref * 1e3 : 0.0,
	    nref ? ev_sum / (double)nref * 1e3 : 0.0, ref_max * 1e3, peak);
	tp_free(tp);
	for (i = 0; i < (long)window_s + 1; i++)
		free(win[i].data);
	free(win);
	metrics_free(mx);
	return 0;
}
