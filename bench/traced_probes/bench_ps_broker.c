/*
 * bench_ps_broker: what linux.process_stats costs per process and poll,
 * with the worker reading /proc itself (a plain /proc) and through the
 * broker (the same machine, traced_probes in a private mount namespace
 * whose /proc is mounted hidepid=invisible), side by side in one run.
 *
 * Real daemons: a private traced, traced_probes with its broker and its
 * worker as nobody, a session of linux.process_stats polling every
 * 100 ms with no cache (every poll reads status and oom_score_adj of every
 * process). Extra idle processes (-n) make the scan long enough to
 * measure. The figure is the CPU time (utime + stime, from the host's
 * /proc) of the worker plus the broker over the session, divided by the
 * ProcessStats entries the trace holds (one per process and poll).
 *
 *   top_builddir=BUILD bench_ps_broker [-s seconds] [-n processes]
 */
#include "config.h"

#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "protos/perfetto/config/process_stats/process_stats_config.pb-c.h"

#include "proc_cpu.h"
#include "traced_test.h"

#define POLL_MS		100
#define EXTRA_MAX	4000

/* The broker's only child. */
static pid_t
worker_of(pid_t broker)
{
	char path[96];
	FILE *f;
	int w = 0;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)broker,
	    (int)broker);
	if ((f = fopen(path, "r")) != NULL) {
		if (fscanf(f, "%d", &w) != 1)
			w = 0;
		fclose(f);
	}
	return (pid_t)w;
}

struct result {
	double		 worker, broker;	/* CPU s */
	unsigned long	 entries;		/* ProcessStats processes */
	unsigned long	 packets;
};

static int
run(const char *mode, int secs, struct result *r)
{
	static const char *ds[] = { "linux.process_stats", NULL };
	const char *top = getenv("top_builddir");
	struct event_base *base = event_base_new();
	Perfetto__Protos__TraceConfig *cfg;
	Perfetto__Protos__ProcessStatsConfig *pc;
	struct tt_traced td;
	struct tt_consumer c;
	struct tt_trace t;
	char prog[512], run_dir[] = "/tmp/faro-bench-ps.XXXXXX";
	double w0, b0;
	uint8_t *data;
	size_t len;
	pid_t probes, worker = 0;
	int status;

	memset(r, 0, sizeof(*r));
	if (mkdtemp(run_dir) == NULL || tt_traced_start(&td, NULL) == -1) {
		fprintf(stderr, "cannot start traced from %s\n", top);
		return -1;
	}
	chmod(td.dir, 0755);
	chmod(td.producer_sock, 0666);
	snprintf(prog, sizeof(prog), "%s/daemons/traced_probes/traced_probes",
	    top);
	if ((probes = fork()) == 0) {
		if (mode != NULL && (unshare(CLONE_NEWNS) == -1 ||
		    mount(NULL, "/", NULL, MS_PRIVATE | MS_REC, NULL) == -1 ||
		    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV |
		    MS_NOEXEC, mode) == -1)) {
			perror("hidepid namespace");
			_exit(126);
		}
		setenv("PERFETTO_PRODUCER_SOCK_NAME", td.producer_sock, 1);
		execl(prog, "traced_probes", "--run-dir", run_dir, "--user",
		    "nobody", (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 100 && (worker = worker_of(probes)) == 0; i++)
		tt_spin(base, 20);
	tt_spin(base, 300);
	cfg = tt_config_new(64 * 1024, 0, ds);
	pc = calloc(1, sizeof(*pc));
	perfetto__protos__process_stats_config__init(pc);
	pc->has_proc_stats_poll_ms = 1;
	pc->proc_stats_poll_ms = POLL_MS;
	cfg->data_sources[0]->config->process_stats_config = pc;
	if (worker == 0 || tt_consumer_connect(&c, base, td.consumer_sock) ==
	    -1 || tt_consumer_enable(&c, cfg, -1) == -1) {
		fprintf(stderr, "session did not start\n");
		return -1;
	}
	w0 = proc_cpu(worker);
	b0 = proc_cpu(probes);
	tt_spin(base, secs * 1000);
	tt_consumer_call(&c, CM_DISABLE, NULL, -1, NULL, 0);
	tt_wait(base, &c.enable_done, 10000);
	r->worker = proc_cpu(worker) - w0;
	r->broker = proc_cpu(probes) - b0;
	if (tt_consumer_read(&c, &data, &len) == -1 ||
	    tt_trace_parse(&t, data, len) == -1) {
		fprintf(stderr, "cannot read the trace\n");
		return -1;
	}
	for (size_t i = 0; i < t.npackets; i++) {
		const Perfetto__Protos__TracePacket *pk = t.trace->packet[i];

		if (pk->data_case !=
		    PERFETTO__PROTOS__TRACE_PACKET__DATA_PROCESS_STATS)
			continue;
		r->packets++;
		r->entries += pk->process_stats->n_processes;
	}
	tt_trace_free(&t);
	free(data);
	tt_consumer_close(&c);
	tt_config_free(cfg);
	kill(probes, SIGTERM);
	waitpid(probes, &status, 0);
	tt_traced_stop(&td);
	event_base_free(base);
	rmdir(run_dir);
	return r->entries > 0 ? 0 : -1;
}

static void
report(const char *what, const struct result *r, int secs)
{
	double polls = secs * 1000.0 / POLL_MS;

	printf("%-32s %6lu entries (%4.0f per poll)  worker %.3f s  broker "
	    "%.3f s  %.2f us/process/poll (worker %.2f)\n", what, r->entries,
	    r->entries / polls, r->worker, r->broker,
	    r->entries ? (r->worker + r->broker) * 1e6 / r->entries : 0,
	    r->entries ? r->worker * 1e6 / r->entries : 0);
}

int
main(int argc, char *argv[])
{
	struct result direct, broker;
	pid_t extra[EXTRA_MAX];
	int secs = 10, n = 400, ch, rc;

	while ((ch = getopt(argc, argv, "s:n:")) != -1) {
		if (ch == 's')
			secs = atoi(optarg) > 0 ? atoi(optarg) : 10;
		else if (ch == 'n')
			n = atoi(optarg) >= 0 && atoi(optarg) <= EXTRA_MAX ?
			    atoi(optarg) : 400;
		else
			return 1;
	}
	if (geteuid() != 0) {
		fprintf(stderr, "bench_ps_broker: needs root\n");
		return 77;
	}
	if (getenv("top_builddir") == NULL)
		setenv("top_builddir", ".", 1);
	signal(SIGPIPE, SIG_IGN);
	/* Idle processes with a user-space memory map: each one is read
	 * every poll (kernel threads are skipped after the first). */
	for (int i = 0; i < n; i++)
		if ((extra[i] = fork()) == 0) {
			pause();
			_exit(0);
		}
	rc = run(NULL, secs, &direct);
	if (rc == 0)
		rc = run("hidepid=invisible", secs, &broker);
	for (int i = 0; i < n; i++) {
		kill(extra[i], SIGKILL);
		waitpid(extra[i], NULL, 0);
	}
	if (rc == -1)
		return 1;
	printf("linux.process_stats, poll %d ms, %d s, %d extra processes\n",
	    POLL_MS, secs, n);
	report("plain /proc (worker reads)", &direct, secs);
	report("hidepid=invisible (broker)", &broker, secs);
	printf("broker / direct: %.2f\n", (broker.worker + broker.broker) *
	    direct.entries / ((direct.worker + direct.broker) *
	    broker.entries));
	return 0;
}
