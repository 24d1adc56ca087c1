/*
 * bench_client: ns per TrackEvent through libfaro, with the category
 * enabled by a real session of a real traced (events land in a real SMB
 * and are committed) and with the category disabled, for five kinds of
 * event:
 *
 *   pair     a begin/end pair (ns per pair)
 *   instant  an instant event
 *   counter  a counter value on a counter track
 *   args2    an instant with two debug annotations (an int, a string)
 *   names    instants whose names cycle through 32 interned names
 *
 * then the bytes each event takes in the trace (the TracePackets that
 * carry a track_event, interned data included, read back from a session
 * of its own per kind and library).
 *
 * With --upstream PATH, the same loops run in the same session in an
 * upstream Perfetto SDK app built outside the tree. It reads commands on
 * stdin and answers on stdout:
 *
 *   run KIND N     ->  "upstream KIND ON_NS OFF_NS" (as run() below)
 *   write KIND N   ->  writes N events with bench.on, flushes, "done"
 *   quit
 *
 *   bench_client [--n N] [--kind KIND] [--upstream PATH]
 *
 * Run from the build directory (it starts daemons/traced/traced). Each
 * figure is the median batch of three rounds (see run()); enabled events
 * are written in batches of 500 with 2 ms pauses (the SMB never runs
 * out). The upstream program must measure the same way.
 */
#include "config.h"

#include <sys/wait.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include <faro/faro.h>
#include <faro/track_event.h>

#include "traced_test.h"

#define BENCH_CATEGORIES(C)					\
	C(bon, "bench.on", "enabled by the session", NULL)	\
	C(boff, "bench.off", "never enabled", NULL)

FARO_TE_CATEGORIES_DECLARE(BENCH_CATEGORIES)
FARO_TE_CATEGORIES_DEFINE(BENCH_CATEGORIES)

#define BATCH		500
#define PAUSE_US	2000
#define BYTES_EVENTS	2000

static const char *const kinds[] = { "pair", "instant", "counter", "args2",
    "names" };
#define NKINDS	(sizeof(kinds) / sizeof(kinds[0]))

static const char *const names[32] = {
	"n00", "n01", "n02", "n03", "n04", "n05", "n06", "n07", "n08", "n09",
	"n10", "n11", "n12", "n13", "n14", "n15", "n16", "n17", "n18", "n19",
	"n20", "n21", "n22", "n23", "n24", "n25", "n26", "n27", "n28", "n29",
	"n30", "n31",
};

static struct faro_track ctr;

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

#define LOOP(cat, k, n) do {						\
	switch (k) {							\
	case 0:								\
		for (long i = 0; i < (n); i++) {			\
			FARO_TE_BEGIN(cat, "pair");			\
			FARO_TE_END(cat);				\
		}							\
		break;							\
	case 1:								\
		for (long i = 0; i < (n); i++)				\
			FARO_TE_INSTANT(cat, "inst");			\
		break;							\
	case 2:								\
		for (long i = 0; i < (n); i++)				\
			FARO_TE_COUNTER_INT(cat, &ctr, i);		\
		break;							\
	case 3:								\
		for (long i = 0; i < (n); i++)				\
			FARO_TE_INSTANT(cat, "args",			\
			    FARO_ARG_INT("count", i),			\
			    FARO_ARG_STRING("label", "x"));		\
		break;							\
	case 4:								\
		for (long i = 0; i < (n); i++)				\
			FARO_TE_INSTANT(cat, names[i & 31]);		\
		break;							\
	}								\
} while (0)

static void
loop_on(unsigned k, long n)
{
	LOOP(bon, k, n);
}

static void
loop_off(unsigned k, long n)
{
	LOOP(boff, k, n);
}

static int
dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * ns per event: the median of timed batches (three rounds of n events).
 * On a shared machine a batch the scheduler cut into costs ten times
 * the others; the median keeps them out. Enabled batches are followed
 * by a pause for traced (not timed); disabled ones are ten times larger.
 */
static double
run(unsigned k, long n, int enabled, struct event_base *base)
{
	long nb = n / BATCH, batch = enabled ? BATCH : BATCH * 10, i = 0;
	double *t, t0, m;

	if ((t = calloc((size_t)nb * 3, sizeof(*t))) == NULL)
		return -1;
	for (int r = 0; r < 3; r++) {
		for (long b = 0; b < nb; b++) {
			t0 = now();
			if (enabled)
				loop_on(k, batch);
			else
				loop_off(k, batch);
			t[i++] = (now() - t0) / (double)batch;
			if (enabled)
				usleep(PAUSE_US);
		}
		tt_spin(base, 200);	/* let traced drain the SMB */
	}
	qsort(t, (size_t)i, sizeof(*t), dbl_cmp);
	m = t[i / 2];
	free(t);
	return m;
}

/* A varint at *p (< end); 0 past the end. */
static uint64_t
varint(const uint8_t **p, const uint8_t *end)
{
	uint64_t v = 0;

	for (int s = 0; *p < end && s < 64; s += 7) {
		uint8_t b = *(*p)++;

		v |= (uint64_t)(b & 0x7f) << s;
		if (!(b & 0x80))
			return v;
	}
	*p = end;
	return 0;
}

/* Skips a field's value; -1 on a bad wire type or length. */
static int
skip(const uint8_t **p, const uint8_t *end, unsigned wt)
{
	uint64_t n;

	switch (wt) {
	case 0:
		(void)varint(p, end);
		return 0;
	case 1:
		n = 8;
		break;
	case 2:
		n = varint(p, end);
		break;
	case 5:
		n = 4;
		break;
	default:
		return -1;
	}
	if (n > (uint64_t)(end - *p))
		return -1;
	*p += n;
	return 0;
}

/* Bytes and number of the TracePackets that carry a track_event. */
static void
count_events(const uint8_t *t, size_t len, size_t *bytes, size_t *events)
{
	const uint8_t *p = t, *end = t + len, *q, *pe;
	uint64_t key, n;

	*bytes = *events = 0;
	while (p < end) {
		key = varint(&p, end);
		if ((key & 7) != 2) {
			if (skip(&p, end, key & 7) == -1)
				return;
			continue;
		}
		n = varint(&p, end);
		if (n > (uint64_t)(end - p))
			return;
		pe = p + n;
		for (q = p; q < pe; ) {
			key = varint(&q, pe);
			if (key >> 3 == 11) {		/* track_event */
				*bytes += n;
				(*events)++;
				break;
			}
			if (skip(&q, pe, key & 7) == -1)
				break;
		}
		p = pe;
	}
}

struct bench {
	struct event_base	*base;
	struct tt_consumer	 c;
	Perfetto__Protos__TraceConfig *cfg;
	FILE			*up_in, *up_out;
};

static int
session_start(struct bench *b)
{
	memset(&b->c, 0, sizeof(b->c));
	if (tt_consumer_connect(&b->c, b->base, getenv("bench_consumer")) ==
	    -1 || tt_consumer_enable(&b->c, b->cfg, -1) == -1)
		return -1;
	for (int i = 0; i < 500 && !faro_cat_bon.enabled; i++)
		tt_spin(b->base, 10);
	tt_spin(b->base, 100);	/* the upstream app's instance too */
	return faro_cat_bon.enabled ? 0 : -1;
}

static void
session_stop(struct bench *b, uint8_t **trace, size_t *len)
{
	tt_consumer_call(&b->c, CM_DISABLE, NULL, -1, NULL, 0);
	tt_wait(b->base, &b->c.enable_done, 5000);
	if (trace != NULL && tt_consumer_read(&b->c, trace, len) == -1)
		*trace = NULL;
	tt_consumer_close(&b->c);
	for (int i = 0; i < 100 && faro_cat_bon.enabled; i++)
		tt_spin(b->base, 10);
}

/* Bytes per event of kind k, written by libfaro or the upstream app. */
static double
bytes_per_event(struct bench *b, unsigned k, int upstream)
{
	char line[256];
	uint8_t *trace = NULL;
	size_t len = 0, bytes, events;
	long n = BYTES_EVENTS;

	if (session_start(b) == -1)
		return -1;
	if (upstream) {
		fprintf(b->up_in, "write %s %ld\n", kinds[k], n);
		fflush(b->up_in);
		if (fgets(line, sizeof(line), b->up_out) == NULL)
			return -1;
	} else {
		for (long done = 0; done < n; done += BATCH) {
			loop_on(k, BATCH);
			usleep(PAUSE_US);
		}
	}
	tt_spin(b->base, 200);
	session_stop(b, &trace, &len);
	if (trace == NULL)
		return -1;
	count_events(trace, len, &bytes, &events);
	free(trace);
	return events ? (double)bytes / (double)events : -1;
}

int
main(int argc, char **argv)
{
	static const char *const dsn[] = { "track_event", NULL };
	static char *enabled[] = { (char *)"bench.on", NULL };
	static char *disabled[] = { (char *)"*", NULL };
	struct faro_init_args ia = { .struct_size = sizeof(ia) };
	Perfetto__Protos__TrackEventConfig tec;
	struct tt_traced td;
	struct bench b;
	struct faro_stats st;
	const char *upstream = NULL, *only = NULL, *cause;
	double on[NKINDS], off[NKINDS];
	double up_on[NKINDS], up_off[NKINDS], by[NKINDS], up_by[NKINDS];
	long n = 100000;
	int in[2], out[2], status;
	pid_t child = -1;
	char line[256], kind[64];
	double x, y;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--n") == 0 && i + 1 < argc)
			n = atol(argv[++i]);
		else if (strcmp(argv[i], "--upstream") == 0 && i + 1 < argc)
			upstream = argv[++i];
		else if (strcmp(argv[i], "--kind") == 0 && i + 1 < argc)
			only = argv[++i];
		else {
			fprintf(stderr, "usage: bench_client [--n N] "
			    "[--kind KIND] [--upstream PATH]\n");
			return 1;
		}
	}
	n = (n + BATCH - 1) / BATCH * BATCH;
	memset(&b, 0, sizeof(b));
	for (unsigned k = 0; k < NKINDS; k++)
		on[k] = off[k] = 1e18, up_on[k] = up_off[k] = by[k] =
		    up_by[k] = -1;
	signal(SIGPIPE, SIG_IGN);
	if (getenv("top_builddir") == NULL)
		setenv("top_builddir", ".", 1);
	if (tt_traced_start(&td, NULL) == -1) {
		fprintf(stderr, "bench_client: cannot start traced (run from "
		    "the build directory)\n");
		return 1;
	}
	setenv("bench_consumer", td.consumer_sock, 1);
	b.base = event_base_new();
	ia.producer_name = "bench_client";
	ia.socket = td.producer_sock;
	if (faro_init(&ia, &cause) == -1) {
		fprintf(stderr, "bench_client: %s\n", cause);
		goto out;
	}
	FARO_TE_REGISTER(BENCH_CATEGORIES);
	faro_counter_track_init(&ctr, "ctr", NULL);
	if (upstream != NULL) {
		if (pipe(in) == -1 || pipe(out) == -1)
			goto out;
		if ((child = fork()) == 0) {
			dup2(in[0], 0);
			dup2(out[1], 1);
			close(in[1]);
			close(out[0]);
			setenv("PERFETTO_PRODUCER_SOCK_NAME", td.producer_sock,
			    1);
			execl(upstream, upstream, (char *)NULL);
			_exit(127);
		}
		close(in[0]);
		close(out[1]);
		b.up_in = fdopen(in[1], "w");
		b.up_out = fdopen(out[0], "r");
		tt_spin(b.base, 500);	/* let it connect and register */
	}
	b.cfg = tt_config_new(65536, 1, dsn);
	perfetto__protos__track_event_config__init(&tec);
	tec.enabled_categories = enabled;
	tec.n_enabled_categories = 1;
	tec.disabled_categories = disabled;
	tec.n_disabled_categories = 1;
	b.cfg->data_sources[0]->config->track_event_config = &tec;
	if (session_start(&b) == -1) {
		fprintf(stderr, "bench_client: bench.on never enabled\n");
		goto out;
	}
	for (unsigned k = 0; k < NKINDS; k++) {
		if (only != NULL && strcmp(only, kinds[k]) != 0)
			continue;
		on[k] = run(k, n, 1, b.base);
		off[k] = run(k, n, 0, b.base);
		if (b.up_in == NULL)
			continue;
		fprintf(b.up_in, "run %s %ld\n", kinds[k], n);
		fflush(b.up_in);
		if (fgets(line, sizeof(line), b.up_out) != NULL &&
		    sscanf(line, "upstream %63s %lf %lf", kind, &x, &y) == 3) {
			up_on[k] = x;
			up_off[k] = y;
		}
	}
	faro_get_stats(&st);
	session_stop(&b, NULL, NULL);
	for (unsigned k = 0; k < NKINDS; k++) {
		if (only != NULL && strcmp(only, kinds[k]) != 0)
			continue;
		by[k] = bytes_per_event(&b, k, 0);
		if (b.up_in != NULL)
			up_by[k] = bytes_per_event(&b, k, 1);
	}
	printf("%-8s %9s %9s %9s %9s %8s %8s %7s %7s\n", "kind", "faro_on",
	    "up_on", "ratio_on", "faro_off", "up_off", "ratio", "bytes",
	    "up_B");
	for (unsigned k = 0; k < NKINDS; k++)
		if (only == NULL || strcmp(only, kinds[k]) == 0)
			printf("%-8s %9.2f %9.2f %9.3f %9.3f %8.3f %8.3f %7.1f "
		    "%7.1f\n", kinds[k], on[k], up_on[k],
		    up_on[k] > 0 ? on[k] / up_on[k] : -1, off[k], up_off[k],
		    up_off[k] > 0 ? off[k] / up_off[k] : -1, by[k],
		    up_by[k]);
	printf("faro_dropped_packets %llu\n",
	    (unsigned long long)st.dropped_packets);
	b.cfg->data_sources[0]->config->track_event_config = NULL;
	tt_config_free(b.cfg);
out:
	if (child > 0) {
		if (b.up_in != NULL) {
			fputs("quit\n", b.up_in);
			fclose(b.up_in);
		}
		waitpid(child, &status, 0);
	}
	faro_shutdown();
	event_base_free(b.base);
	tt_traced_stop(&td);
	return 0;
}
