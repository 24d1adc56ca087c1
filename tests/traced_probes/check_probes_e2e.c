/*
 * check_probes_e2e: the real traced and the real traced_probes, private
 * sockets, a consumer session with linux.ftrace: a trace_marker write
 * comes back in the trace as a print event with our pid, ftrace stats
 * bracket the data, a flush drains the kernel before it is answered, and
 * tracefs reads the same after traced_probes exits. Needs root and
 * tracefs (exits 77 otherwise).
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/wait.h>

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "protos/perfetto/ipc/consumer_port.pb-c.h"

#include "tfs.h"
#include "ftrace_util.h"
#include "probes_daemon.h"
#include "traced_test.h"

static char tracefs[256];

static char *
snap(void)
{
	static const char *files[] = { "tracing_on", "trace_clock",
	    "current_tracer", "set_event", "tracing_cpumask" };
	char *out = calloc(1, 8192), *v;

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		if (tfs_read(tracefs, files[i], &v, NULL) == 0) {
			strncat(out, v, 8192 - strlen(out) - 1);
			free(v);
		}
	}
	return out;
}

/*
 * _i == 0: the worker runs as the default user ("traced", or the least
 * privileged one when that is missing); _i == 1: as nobody, named. Every
 * tracefs access goes through the broker.
 */
START_TEST(marker_through_traced)
{
	static const char *ds[] = { "linux.ftrace", NULL };
	static const char *events[] = { "ftrace/print", "sched/sched_switch" };
	struct event_base *base = event_base_new();
	struct tt_traced td;
	struct tt_consumer c;
	struct tt_trace t;
	Perfetto__Protos__TraceConfig *cfg;
	Perfetto__Protos__FtraceConfig *fc;
	char run_dir[] = "/tmp/faro-probes-e2e.XXXXXX", path[400];
	char marker[64], inst[32], *before, *after;
	uint8_t *data;
	size_t len;
	int found = 0, stats_start = 0, stats_end = 0, switches = 0, fd;
	pid_t probes;

	signal(SIGPIPE, SIG_IGN);
	before = snap();
	ck_assert_ptr_nonnull(mkdtemp(run_dir));
	ck_assert_int_eq(tt_traced_start(&td, NULL), 0);
	/* The worker runs unprivileged: it must reach the producer socket. */
	ck_assert_int_eq(chmod(td.dir, 0755), 0);
	ck_assert_int_eq(chmod(td.producer_sock, 0666), 0);
	probes = probes_daemon_start(&td, run_dir, _i == 1 ? "nobody" : NULL,
	    NULL, NULL, NULL);
	ck_assert_int_gt(probes, 0);
	tt_spin(base, 300);

	cfg = tt_config_new(4096, 0, ds);
	fc = calloc(1, sizeof(*fc));
	perfetto__protos__ftrace_config__init(fc);
	fc->n_ftrace_events = 2;
	fc->ftrace_events = calloc(2, sizeof(char *));
	fc->ftrace_events[0] = strdup(events[0]);
	fc->ftrace_events[1] = strdup(events[1]);
	fc->has_drain_period_ms = 1;
	fc->drain_period_ms = 50;
	/* An instance of its own: other tracers on this machine cannot
	 * clear or steal its buffer. */
	snprintf(inst, sizeof(inst), "faro_e2e_%d", (int)getpid());
	fc->instance_name = strdup(inst);
	cfg->data_sources[0]->config->ftrace_config = fc;
	ck_assert_int_eq(tt_consumer_connect(&c, base, td.consumer_sock), 0);
	/* Started means the kernel is set up: linux.ftrace says so. */
	ck_assert_int_eq(tt_consumer_observe(&c, 3), 0);
	ck_assert_int_eq(tt_consumer_enable(&c, cfg, -1), 0);
	ck_assert_int_eq(tt_wait(base, &c.observe_all_started, 10000), 0);
	snprintf(marker, sizeof(marker), "faro-e2e-%d\n", (int)getpid());
	snprintf(path, sizeof(path), "%s/instances/%s/trace_marker", tracefs,
	    inst);
	fd = open(path, O_WRONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, marker, strlen(marker)),
	    (ssize_t)strlen(marker));
	close(fd);
	/* The flush must bring the marker in, not the drain timer. */
	ck_assert_int_eq(probes_session_end(base, &c, &data, &len, &t), 0);
	for (size_t i = 0; i < t.npackets; i++) {
		const Perfetto__Protos__TracePacket *pk = t.trace->packet[i];

		if (pk->data_case ==
		    PERFETTO__PROTOS__TRACE_PACKET__DATA_FTRACE_STATS) {
			if (pk->ftrace_stats->phase ==
			    PERFETTO__PROTOS__FTRACE_STATS__PHASE__START_OF_TRACE)
				stats_start++;
			else
				stats_end++;
			continue;
		}
		if (pk->data_case !=
		    PERFETTO__PROTOS__TRACE_PACKET__DATA_FTRACE_EVENTS)
			continue;
		for (size_t k = 0; k < pk->ftrace_events->n_event; k++) {
			const Perfetto__Protos__FtraceEvent *ev =
			    pk->ftrace_events->event[k];

			if (ev->event_case ==
			    PERFETTO__PROTOS__FTRACE_EVENT__EVENT_PRINT &&
			    getenv("E2E_DEBUG") != NULL)
				fprintf(stderr, "print pid %u '%s'\n", ev->pid,
				    ev->print->buf);
			if (ev->event_case ==
			    PERFETTO__PROTOS__FTRACE_EVENT__EVENT_PRINT &&
			    strcmp(ev->print->buf, marker) == 0 &&
			    (int)ev->pid == (int)getpid())
				found++;
			if (ev->event_case ==
			    PERFETTO__PROTOS__FTRACE_EVENT__EVENT_SCHED_SWITCH)
				switches++;
		}
	}
	if (found != 1)
		fprintf(stderr, "e2e: %zu packets, %d switches, %d/%d stats, "
		    "marker '%s' found %d times\n", t.npackets, switches,
		    stats_start, stats_end, marker, found);
	ck_assert_int_eq(found, 1);
	ck_assert_int_gt(switches, 0);
	ck_assert_int_eq(stats_start, 1);
	ck_assert_int_eq(stats_end, 1);
	ck_assert_int_eq(t.bad_trusted, 0);
	tt_trace_free(&t);
	free(data);
	tt_consumer_close(&c);
	tt_config_free(cfg);

	ck_assert_int_eq(probes_daemon_stop(probes), 0);
	ck_assert_int_eq(tt_traced_stop(&td), 0);
	after = snap();
	ck_assert_str_eq(before, after);
	free(before);
	free(after);
	rmdir(run_dir);
	event_base_free(base);
}
END_TEST

static Suite *
probes_e2e_suite(void)
{
	Suite *s = suite_create("probes_e2e");
	TCase *tc = tcase_create("e2e");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, marker_through_traced, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}

/* No state directory: the daemon under test keeps its own run dir. */
int
main(void)
{
	return test_kernel_main("check_probes_e2e", probes_e2e_suite, tracefs,
	    sizeof(tracefs), NULL, NULL);
}
