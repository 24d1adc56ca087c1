/*
 * bench_client: ns per TrackEvent begin/end pair through libfaro, with
 * the category enabled by a real session of a real traced (events land
 * in a real SMB and are committed) and with the category disabled; and,
 * in the same run and the same session, the same loop in an upstream
 * Perfetto SDK app (--upstream PATH, built outside the tree: it prints
 * "upstream_on_ns X" and "upstream_off_ns Y" once told to go on stdin).
 *
 *   bench_client [--pairs N] [--upstream PATH]
 *
 * Run from the build directory (it starts daemons/traced/traced).
 * Best of three runs per figure. Enabled pairs are written in batches of
 * 500 with 2 ms pauses (the SMB never runs out); the upstream program
 * must do the same.
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

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/*
 * Enabled: batches small enough for the SMB (256 KiB by default), with a
 * pause between them for traced to take the chunks, so the figure is the
 * cost of writing, not of dropping. Only the batches are timed.
 */
#define BATCH		500
#define PAUSE_US	2000

static double
run_on(long n)
{
	double total = 0, t0;

	for (long done = 0; done < n; done += BATCH) {
		t0 = now();
		for (long i = 0; i < BATCH; i++) {
			FARO_TE_BEGIN(bon, "pair");
			FARO_TE_END(bon);
		}
		total += now() - t0;
		usleep(PAUSE_US);
	}
	return total / (double)n;
}

/* Disabled: ten times as many pairs, the loop is that cheap. */
static double
run_off(long n)
{
	double t0 = now();

	n *= 10;
	for (long i = 0; i < n; i++) {
		FARO_TE_BEGIN(boff, "pair");
		FARO_TE_END(boff);
	}
	return (now() - t0) / (double)n;
}

int
main(int argc, char **argv)
{
	static const char *const names[] = { "track_event", NULL };
	static char *enabled[] = { (char *)"bench.on", NULL };
	static char *disabled[] = { (char *)"*", NULL };
	struct faro_init_args ia = { .struct_size = sizeof(ia) };
	Perfetto__Protos__TrackEventConfig tec;
	Perfetto__Protos__TraceConfig *cfg;
	struct tt_traced td;
	struct tt_consumer c;
	struct event_base *base;
	struct faro_stats st;
	const char *upstream = NULL, *cause;
	double on = 1e18, off = 1e18, t, up_on = 0, up_off = 0;
	long pairs = 200000;
	int in[2], out[2], status;
	pid_t child = -1;
	char line[256], npairs[32];
	FILE *f;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--pairs") == 0 && i + 1 < argc)
			pairs = atol(argv[++i]);
		else if (strcmp(argv[i], "--upstream") == 0 && i + 1 < argc)
			upstream = argv[++i];
		else {
			fprintf(stderr, "usage: bench_client [--pairs N] "
			    "[--upstream PATH]\n");
			return 1;
		}
	}
	signal(SIGPIPE, SIG_IGN);
	if (getenv("top_builddir") == NULL)
		setenv("top_builddir", ".", 1);
	if (tt_traced_start(&td, NULL) == -1) {
		fprintf(stderr, "bench_client: cannot start traced (run from "
		    "the build directory)\n");
		return 1;
	}
	base = event_base_new();
	ia.producer_name = "bench_client";
	ia.socket = td.producer_sock;
	if (faro_init(&ia, &cause) == -1) {
		fprintf(stderr, "bench_client: %s\n", cause);
		goto out;
	}
	FARO_TE_REGISTER(BENCH_CATEGORIES);
	if (upstream != NULL) {
		if (pipe(in) == -1 || pipe(out) == -1)
			goto out;
		snprintf(npairs, sizeof(npairs), "%ld", pairs);
		if ((child = fork()) == 0) {
			dup2(in[0], 0);
			dup2(out[1], 1);
			close(in[1]);
			close(out[0]);
			setenv("PERFETTO_PRODUCER_SOCK_NAME", td.producer_sock,
			    1);
			execl(upstream, upstream, npairs, (char *)NULL);
			_exit(127);
		}
		close(in[0]);
		close(out[1]);
		tt_spin(base, 500);	/* let it connect and register */
	}
	cfg = tt_config_new(65536, 0, names);
	perfetto__protos__track_event_config__init(&tec);
	tec.enabled_categories = enabled;
	tec.n_enabled_categories = 1;
	tec.disabled_categories = disabled;
	tec.n_disabled_categories = 1;
	cfg->data_sources[0]->config->track_event_config = &tec;
	memset(&c, 0, sizeof(c));
	if (tt_consumer_connect(&c, base, td.consumer_sock) == -1 ||
	    tt_consumer_enable(&c, cfg, -1) == -1) {
		fprintf(stderr, "bench_client: cannot start a session\n");
		goto out;
	}
	for (int i = 0; i < 500 && !faro_cat_bon.enabled; i++)
		tt_spin(base, 10);
	if (!faro_cat_bon.enabled) {
		fprintf(stderr, "bench_client: bench.on never enabled\n");
		goto out;
	}
	for (int r = 0; r < 3; r++) {
		if ((t = run_on(pairs)) < on)
			on = t;
		if ((t = run_off(pairs)) < off)
			off = t;
		tt_spin(base, 200);	/* let traced drain the SMB */
	}
	faro_get_stats(&st);
	printf("faro_on_ns %.2f\nfaro_off_ns %.2f\nfaro_dropped_packets %llu\n",
	    on, off, (unsigned long long)st.dropped_packets);
	if (child > 0) {
		if (write(in[1], "go\n", 3) != 3)
			goto out;
		f = fdopen(out[0], "r");
		while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
			sscanf(line, "upstream_on_ns %lf", &up_on);
			sscanf(line, "upstream_off_ns %lf", &up_off);
			fputs(line, stdout);
		}
		waitpid(child, &status, 0);
		child = -1;
		if (up_on > 0 && up_off > 0)
			printf("ratio_on %.3f\nratio_off %.3f\n", on / up_on,
			    off / up_off);
	}
	cfg->data_sources[0]->config->track_event_config = NULL;
	tt_consumer_call(&c, CM_DISABLE, NULL, -1, NULL, 0);
	tt_wait(base, &c.enable_done, 5000);
	tt_consumer_close(&c);
	tt_config_free(cfg);
out:
	if (child > 0) {
		kill(child, SIGTERM);
		waitpid(child, &status, 0);
	}
	faro_shutdown();
	event_base_free(base);
	tt_traced_stop(&td);
	return 0;
}
