/*
 * check_ps_daemon: the /proc and /sys data sources inside the real
 * traced_probes (main.c's registration, the privilege-separated worker,
 * ftrace's pid hook). One session with linux.ftrace, linux.process_stats
 * (on-demand dumps only), linux.sys_stats and linux.system_info: a child
 * forked during the session is described in the process tree because
 * ftrace met its pid; the other sources write their packets. Run with
 * the worker as its default user and as nobody. Needs root and tracefs
 * (exits 77 otherwise).
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

#include "ftrace_util.h"
#include "probes_daemon.h"
#include "traced_test.h"

static void
add_source(Perfetto__Protos__TraceConfig *cfg, const char *name)
{
	Perfetto__Protos__TraceConfig__DataSource *ds = calloc(1, sizeof(*ds));

	perfetto__protos__trace_config__data_source__init(ds);
	ds->config = calloc(1, sizeof(*ds->config));
	perfetto__protos__data_source_config__init(ds->config);
	ds->config->name = strdup(name);
	cfg->data_sources = realloc(cfg->data_sources,
	    (cfg->n_data_sources + 1) * sizeof(*cfg->data_sources));
	cfg->data_sources[cfg->n_data_sources++] = ds;
}

START_TEST(daemon_session)
{
	static const char *const ds[] = { "linux.ftrace", NULL };
	struct event_base *base = event_base_new();
	Perfetto__Protos__TraceConfig *cfg;
	Perfetto__Protos__FtraceConfig *fc;
	Perfetto__Protos__ProcessStatsConfig *pc;
	Perfetto__Protos__SysStatsConfig *sc;
	struct tt_traced td;
	struct tt_consumer c;
	struct tt_trace t;
	char run_dir[] = "/tmp/faro-ps-daemon.XXXXXX";
	int child_proc = 0, child_is_sleep = 0, sys = 0, cpuinfo = 0;
	int trees = 0;
	uint8_t *data;
	size_t len;
	pid_t probes, child;

	signal(SIGPIPE, SIG_IGN);
	ck_assert_ptr_nonnull(mkdtemp(run_dir));
	ck_assert_int_eq(tt_traced_start(&td, NULL), 0);
	if (_i == 1) {
		/* nobody must reach the producer socket */
		ck_assert_int_eq(chmod(td.dir, 0755), 0);
		ck_assert_int_eq(chmod(td.producer_sock, 0666), 0);
	}
	probes = probes_daemon_start(&td, run_dir, _i == 1 ? "nobody" : NULL,
	    NULL, NULL, NULL);
	ck_assert_int_gt(probes, 0);
	tt_spin(base, 300);

	cfg = tt_config_new(16 * 1024, 0, ds);
	fc = calloc(1, sizeof(*fc));
	perfetto__protos__ftrace_config__init(fc);
	fc->n_ftrace_events = 2;
	fc->ftrace_events = calloc(2, sizeof(char *));
	fc->ftrace_events[0] = strdup("sched/sched_switch");
	fc->ftrace_events[1] = strdup("sched/sched_process_fork");
	fc->has_drain_period_ms = 1;
	fc->drain_period_ms = 100;
	cfg->data_sources[0]->config->ftrace_config = fc;
	add_source(cfg, "linux.process_stats");
	pc = calloc(1, sizeof(*pc));
	perfetto__protos__process_stats_config__init(pc);
	pc->has_record_thread_names = 1;
	pc->record_thread_names = 1;
	cfg->data_sources[1]->config->process_stats_config = pc;
	add_source(cfg, "linux.sys_stats");
	sc = calloc(1, sizeof(*sc));
	perfetto__protos__sys_stats_config__init(sc);
	sc->has_meminfo_period_ms = 1;
	sc->meminfo_period_ms = 100;
	cfg->data_sources[2]->config->sys_stats_config = sc;
	add_source(cfg, "linux.system_info");

	ck_assert_int_eq(tt_consumer_connect(&c, base, td.consumer_sock), 0);
	ck_assert_int_eq(tt_consumer_enable(&c, cfg, -1), 0);
	tt_spin(base, 500);		/* every source started */
	if ((child = fork()) == 0) {
		execlp("sleep", "sleep", "7", (char *)NULL);
		_exit(127);
	}
	tt_spin(base, 800);		/* drains, then the on-demand dump */
	ck_assert_int_eq(probes_session_end(base, &c, &data, &len, &t), 0);
	for (size_t i = 0; i < t.npackets; i++) {
		const Perfetto__Protos__TracePacket *pk = t.trace->packet[i];

		switch (pk->data_case) {
		case PERFETTO__PROTOS__TRACE_PACKET__DATA_PROCESS_TREE:
			trees++;
			for (size_t k = 0; k < pk->process_tree->n_processes;
			    k++) {
				const Perfetto__Protos__ProcessTree__Process
				    *p = pk->process_tree->processes[k];

				if (p->pid != child)
					continue;
				child_proc++;
				ck_assert_int_eq(p->ppid, getpid());
				/* a drain between fork and exec sees us */
				if (p->n_cmdline == 2 &&
				    strcmp(p->cmdline[0], "sleep") == 0)
					child_is_sleep++;
			}
			break;
		case PERFETTO__PROTOS__TRACE_PACKET__DATA_SYS_STATS:
			sys += pk->sys_stats->n_meminfo > 0;
			break;
		case PERFETTO__PROTOS__TRACE_PACKET__DATA_CPU_INFO:
			cpuinfo++;
			break;
		default:
			break;
		}
	}
	ck_assert_int_gt(trees, 0);
	ck_assert_int_eq(child_proc, 1);	/* met in ftrace, once */
	ck_assert_int_ge(sys, 5);
	ck_assert_int_eq(cpuinfo, 1);
	ck_assert_int_eq(t.bad_trusted, 0);
	if (!child_is_sleep)
		fprintf(stderr, "note: child described before its exec\n");
	tt_trace_free(&t);
	free(data);
	tt_consumer_close(&c);
	tt_config_free(cfg);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	ck_assert_int_eq(probes_daemon_stop(probes), 0);
	/* traced's own exit status is check_traced's business */
	tt_traced_stop(&td);
	event_base_free(base);
}
END_TEST

static Suite *
ps_daemon_suite(void)
{
	Suite *s = suite_create("ps_daemon");
	TCase *tc = tcase_create("daemon");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, daemon_session, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}

/* No state directory: the daemon under test keeps its own run dir. */
int
main(void)
{
	static char tracefs[256];

	return test_kernel_main("check_ps_daemon", ps_daemon_suite, tracefs,
	    sizeof(tracefs), NULL, NULL);
}
