/*
 * bench_probes_daemon: the same measure as bench_ftrace, on the real
 * daemons: a private traced, traced_probes (--no-privsep, so one process
 * holds all the work), a consumer session with linux.ftrace recording
 * sched_switch and sched_waking under the pipe ping-pong load. Reports the
 * CPU of the traced_probes process (utime + stime from /proc) per million
 * events the kernel handed it (FtraceStats read_events at the end).
 *
 *   top_builddir=BUILD bench_probes_daemon [-s seconds] [-p pairs]
 */
#include "config.h"

#include <sys/wait.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "protos/perfetto/config/ftrace/ftrace_config.pb-c.h"

#include "traced_test.h"
#include "pingpong.h"
#include "proc_cpu.h"

int
main(int argc, char *argv[])
{
	static const char *ds[] = { "linux.ftrace", NULL };
	const char *top = getenv("top_builddir");
	struct event_base *base;
	struct tt_traced td;
	struct tt_consumer c;
	struct tt_trace t;
	Perfetto__Protos__TraceConfig *cfg;
	Perfetto__Protos__FtraceConfig *fc;
	char prog[512], run_dir[] = "/tmp/faro-bench-probes.XXXXXX";
	uint8_t *data;
	size_t len;
	uint64_t events = 0, overrun = 0;
	double c0, c1;
	int secs = 5, pairs = 2, ch, status;
	pid_t probes;

	while ((ch = getopt(argc, argv, "s:p:")) != -1) {
		if (ch == 's')
			secs = atoi(optarg);
		else if (ch == 'p')
			pairs = atoi(optarg) > 0 && atoi(optarg) <= 32 ?
			    atoi(optarg) : 2;
		else
			return 1;
	}
	if (geteuid() != 0) {
		fprintf(stderr, "bench_probes_daemon: needs root\n");
		return 77;
	}
	if (top == NULL)
		setenv("top_builddir", top = ".", 1);
	signal(SIGPIPE, SIG_IGN);
	base = event_base_new();
	if (mkdtemp(run_dir) == NULL || tt_traced_start(&td, NULL) == -1) {
		fprintf(stderr, "cannot start traced from %s\n", top);
		return 1;
	}
	snprintf(prog, sizeof(prog), "%s/daemons/traced_probes/traced_probes",
	    top);
	if ((probes = fork()) == 0) {
		setenv("PERFETTO_PRODUCER_SOCK_NAME", td.producer_sock, 1);
		execl(prog, "traced_probes", "--no-privsep", "--run-dir",
		    run_dir, (char *)NULL);
		_exit(127);
	}
	tt_spin(base, 300);
	cfg = tt_config_new(256 * 1024, 0, ds);
	fc = calloc(1, sizeof(*fc));
	perfetto__protos__ftrace_config__init(fc);
	fc->n_ftrace_events = 2;
	fc->ftrace_events = calloc(2, sizeof(char *));
	fc->ftrace_events[0] = strdup("sched/sched_switch");
	fc->ftrace_events[1] = strdup("sched/sched_waking");
	fc->has_buffer_size_kb = 1;
	fc->buffer_size_kb = 4096;
	cfg->data_sources[0]->config->ftrace_config = fc;
	if (tt_consumer_connect(&c, base, td.consumer_sock) == -1 ||
	    tt_consumer_observe(&c, 3) == -1 ||
	    tt_consumer_enable(&c, cfg, -1) == -1 ||
	    tt_wait(base, &c.observe_all_started, 10000) == -1) {
		fprintf(stderr, "session did not start\n");
		return 1;
	}
	c0 = proc_cpu(probes);
	pingpong_start(pairs);
	tt_spin(base, secs * 1000);
	pingpong_stop();
	tt_spin(base, 200);
	c1 = proc_cpu(probes);
	tt_consumer_call(&c, CM_DISABLE, NULL, -1, NULL, 0);
	tt_wait(base, &c.enable_done, 10000);
	if (tt_consumer_read(&c, &data, &len) == -1 ||
	    tt_trace_parse(&t, data, len) == -1) {
		fprintf(stderr, "cannot read the trace\n");
		return 1;
	}
	for (size_t i = 0; i < t.npackets; i++) {
		const Perfetto__Protos__TracePacket *pk = t.trace->packet[i];

		if (pk->data_case !=
		    PERFETTO__PROTOS__TRACE_PACKET__DATA_FTRACE_STATS ||
		    pk->ftrace_stats->phase !=
		    PERFETTO__PROTOS__FTRACE_STATS__PHASE__END_OF_TRACE)
			continue;
		for (size_t k = 0; k < pk->ftrace_stats->n_cpu_stats; k++) {
			events += pk->ftrace_stats->cpu_stats[k]->read_events;
			overrun += pk->ftrace_stats->cpu_stats[k]->overrun;
		}
	}
	printf("traced_probes (daemon): %llu events read in %d s, %.3f CPU s, "
	    "%.3f CPU s per million events, %llu overrun, %.1f MB trace\n",
	    (unsigned long long)events, secs, c1 - c0,
	    events ? (c1 - c0) * 1e6 / events : 0,
	    (unsigned long long)overrun, len / 1e6);
	tt_trace_free(&t);
	free(data);
	tt_consumer_close(&c);
	kill(probes, SIGTERM);
	waitpid(probes, &status, 0);
	tt_traced_stop(&td);
	rmdir(run_dir);
	return events ? 0 : 1;
}
