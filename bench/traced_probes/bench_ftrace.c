/*
 * bench_ftrace: CPU seconds per million ftrace events for linux.ftrace's
 * read-and-translate path, and for `trace-cmd record` on the same load
 * and events, side by side. Needs root and tracefs.
 *
 *   bench_ftrace [-s seconds] [-p pairs] [-t /path/to/trace-cmd]
 *       [-w tracecmd-wrap.sh]
 *
 * Load: pairs of processes bouncing a byte over pipes, so every round
 * trip makes sched_waking and sched_switch events on both sides. Our side
 * measures the process CPU time spent draining every 50 ms (what
 * traced_probes does on its timer) into a proto writer; trace-cmd's side
 * is the CPU of trace-cmd and its per-CPU recorders (RUSAGE_CHILDREN of a
 * process that only runs it). With -w, trace-cmd runs through that wrapper
 * (for machines where it cannot reset the locked function-tracing files).
 * trace-cmd leaves buffer_size_kb and tracing_on changed: both are put
 * back afterwards.
 */
#include "config.h"

#include <sys/resource.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "source.h"
#include "tfs.h"
#include "pingpong.h"

#define DRAIN_MS	50

static const char *events[] = { "sched/sched_switch", "sched/sched_waking" };

static double
now(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- ours ---- */

static uint8_t sinkbuf[8 << 20];
static struct pbw sinkw;
static uint64_t sink_bytes;

static struct pbw *
sink_begin(void *arg)
{
	pbw_init_flat(&sinkw, sinkbuf, sizeof(sinkbuf));
	return &sinkw;
}

static void
sink_end(void *arg)
{
	sink_bytes += pbw_written(&sinkw);
}

static int
run_ours(int secs, int pairs, double *cpu, uint64_t *nevents,
    uint64_t *lost)
{
	Perfetto__Protos__FtraceConfig cfg;
	struct ftrace_sink sink = { sink_begin, sink_end, NULL, NULL };
	struct ftrace_cpu_counters c;
	struct ftrace_host *h;
	struct ftrace_source *s;
	struct timespec tick = { 0, DRAIN_MS * 1000000L };
	const char *cause;
	char err[256];
	double t0, c0, c1 = 0;

	if ((h = ftrace_host_new(NULL, NULL, "/tmp", &cause)) == NULL) {
		fprintf(stderr, "ftrace: %s\n", cause);
		return -1;
	}
	perfetto__protos__ftrace_config__init(&cfg);
	cfg.ftrace_events = (char **)events;
	cfg.n_ftrace_events = 2;
	cfg.has_buffer_size_kb = 1;
	cfg.buffer_size_kb = 4096;
	if ((s = ftrace_source_new(h, &cfg, sink, err, sizeof(err))) == NULL) {
		fprintf(stderr, "ftrace: %s\n", err);
		return -1;
	}
	pingpong_start(pairs);
	t0 = now(CLOCK_MONOTONIC);
	c0 = now(CLOCK_PROCESS_CPUTIME_ID);
	while (now(CLOCK_MONOTONIC) - t0 < secs) {
		nanosleep(&tick, NULL);
		ftrace_source_drain(s);
	}
	pingpong_stop();
	ftrace_source_drain(s);
	c1 = now(CLOCK_PROCESS_CPUTIME_ID);
	ftrace_source_counters(s, &c);
	ftrace_source_free(s);
	ftrace_host_free(h);
	*cpu = c1 - c0;
	*nevents = c.events;
	*lost = c.lost_events;
	return 0;
}

/* ---- trace-cmd ---- */

static int
run_tracecmd(const char *tc, const char *wrap, int secs, int pairs,
    double *cpu, uint64_t *nevents)
{
	char cmd[1024], line[256];
	int fds[2];
	pid_t mid;
	FILE *f;
	double v;

	if (pipe(fds) == -1)
		return -1;
	if ((mid = fork()) == 0) {
		struct rusage ru;
		pid_t rec;

		close(fds[0]);
		if ((rec = fork()) == 0) {
			int nul = open("/dev/null", O_WRONLY);

			dup2(nul, 1);
			dup2(nul, 2);
			if (wrap != NULL)
				execl(wrap, wrap, tc, "record", "-q", "-b",
				    "4096", "-e", "sched:sched_switch", "-e",
				    "sched:sched_waking", "-o",
				    "/tmp/bench_ftrace.dat", (char *)NULL);
			else
				execl(tc, "trace-cmd", "record", "-q", "-b",
				    "4096", "-e", "sched:sched_switch", "-e",
				    "sched:sched_waking", "-o",
				    "/tmp/bench_ftrace.dat", (char *)NULL);
			_exit(127);
		}
		sleep((unsigned)secs + 1);
		kill(rec, SIGINT);
		waitpid(rec, NULL, 0);
		getrusage(RUSAGE_CHILDREN, &ru);
		v = ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
		    ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
		dprintf(fds[1], "%f\n", v);
		_exit(0);
	}
	close(fds[1]);
	/* Let trace-cmd set up before the load starts. */
	sleep(1);
	pingpong_start(pairs);
	sleep((unsigned)secs);
	pingpong_stop();
	f = fdopen(fds[0], "r");
	if (f == NULL || fgets(line, sizeof(line), f) == NULL)
		return -1;
	fclose(f);
	waitpid(mid, NULL, 0);
	*cpu = atof(line);
	snprintf(cmd, sizeof(cmd), "%s report -i /tmp/bench_ftrace.dat "
	    "2>/dev/null | grep -c 'sched_'", tc);
	if ((f = popen(cmd, "r")) == NULL)
		return -1;
	*nevents = fgets(line, sizeof(line), f) ? strtoull(line, NULL, 10) :
	    0;
	pclose(f);
	unlink("/tmp/bench_ftrace.dat");
	return 0;
}

int
main(int argc, char *argv[])
{
	const char *tc = NULL, *wrap = NULL, *cause;
	char root[256], kb[64] = "", on[16] = "";
	double ours_cpu, tc_cpu;
	uint64_t ours_ev, ours_lost, tc_ev;
	int secs = 5, pairs = 2, ch, rc;

	while ((ch = getopt(argc, argv, "s:p:t:w:")) != -1) {
		switch (ch) {
		case 's':
			secs = atoi(optarg);
			break;
		case 'p':
			pairs = atoi(optarg);
			if (pairs < 1 || pairs > 32)
				pairs = 2;
			break;
		case 't':
			tc = optarg;
			break;
		case 'w':
			wrap = optarg;
			break;
		default:
			fprintf(stderr, "usage: bench_ftrace [-s secs] "
			    "[-p pairs] [-t trace-cmd] [-w wrapper]\n");
			return 1;
		}
	}
	if (geteuid() != 0 || tfs_find(root, sizeof(root), 1, &cause) == -1) {
		fprintf(stderr, "bench_ftrace: needs root and tracefs\n");
		return 77;
	}
	if (run_ours(secs, pairs, &ours_cpu, &ours_ev, &ours_lost) == -1)
		return 1;
	printf("faro   : %llu events in %d s, %.3f CPU s, %.3f CPU s per "
	    "million events, %.1f MB of protos, %llu lost\n",
	    (unsigned long long)ours_ev, secs, ours_cpu,
	    ours_ev ? ours_cpu * 1e6 / ours_ev : 0, sink_bytes / 1e6,
	    (unsigned long long)ours_lost);
	if (tc == NULL) {
		printf("trace-cmd: not given (-t), no comparison\n");
		return 0;
	}
	tfs_read_line(root, "buffer_size_kb", kb, sizeof(kb));
	tfs_read_line(root, "tracing_on", on, sizeof(on));
	if (strchr(kb, ' ') != NULL)
		*strchr(kb, ' ') = '\0';
	rc = run_tracecmd(tc, wrap, secs, pairs, &tc_cpu, &tc_ev);
	tfs_write(root, "tracing_on", "0", 0);
	tfs_write(root, "events/sched/sched_switch/enable", "0", 0);
	tfs_write(root, "events/sched/sched_waking/enable", "0", 0);
	tfs_write(root, "buffer_size_kb", kb, 0);
	tfs_write(root, "tracing_on", on, 0);
	if (rc == -1 || tc_ev == 0) {
		printf("trace-cmd: failed to run %s\n", tc);
		return 1;
	}
	printf("tracecmd: %llu events in %d s, %.3f CPU s, %.3f CPU s per "
	    "million events\n", (unsigned long long)tc_ev, secs, tc_cpu,
	    tc_cpu * 1e6 / tc_ev);
	printf("ratio faro/trace-cmd (CPU per event): %.2f\n",
	    (ours_cpu / ours_ev) / (tc_cpu / tc_ev));
	return 0;
}
