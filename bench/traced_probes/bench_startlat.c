/*
 * bench_startlat: how long linux.ftrace takes to start, from the moment
 * traced_probes gets StartDataSource (ftrace_source_new is called) to
 * tracing_on (the kernel records) and to its return (the source is ready
 * and traced_probes tells traced it started), with the tracefs requests
 * made by then. Every tracefs access goes through a broker process on a
 * socket, as in the daemon (-d: direct system calls instead). Three
 * configs: one event, a group (all of ext4), five groups (sched, ext4, block,
 * workqueue, irq). Each start is a first session on the root (tracefs put
 * back in between). Needs root and tracefs; run it in a non-ASan build.
 *
 *   bench_startlat [-n runs] [-d]
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/wait.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "source.h"
#include "daemons/traced_probes/broker.h"
#include "tfs.h"

/* The daemon's broker socket buffers (daemons/traced_probes/main.c). */
#define BROKER_SOCKBUF	(512 * 1024)

static uint8_t sinkbuf[1 << 20];
static struct pbw sinkw;

static struct pbw *
sink_begin(void *arg)
{
	pbw_init_flat(&sinkw, sinkbuf, sizeof(sinkbuf));
	return &sinkw;
}

static void
sink_end(void *arg)
{
}

/* Writable strings: FtraceConfig's fields are char *. */
static char ev_switch[] = "sched/sched_switch", ev_sched[] = "sched/*";
static char ev_ext4[] = "ext4/*", ev_block[] = "block/*";
static char ev_wq[] = "workqueue/*", ev_irq[] = "irq/*";
static char *cfg_small[] = { ev_switch };
static char *cfg_group[] = { ev_ext4 };
static char *cfg_big[] = { ev_sched, ev_ext4, ev_block, ev_wq, ev_irq };

static const struct {
	const char	 *name;
	char		**events;
	size_t		  n;
} configs[] = {
	{ "sched_switch", cfg_small, 1 },
	{ "ext4/*", cfg_group, 1 },
	{ "5 groups", cfg_big, 5 },
};

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* A broker child serving top, as traced_probes' privileged parent. */
static pid_t
broker_start(const char *top, int *fdp)
{
	int sv[2], buf = BROKER_SOCKBUF;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == -1)
		return -1;
	for (int i = 0; i < 2; i++) {
		(void)setsockopt(sv[i], SOL_SOCKET, SO_SNDBUFFORCE, &buf,
		    sizeof(buf));
		(void)setsockopt(sv[i], SOL_SOCKET, SO_RCVBUFFORCE, &buf,
		    sizeof(buf));
	}
	if ((pid = fork()) == -1)
		return -1;
	if (pid == 0) {
		close(sv[1]);
		_exit(broker_serve(sv[0], top) == 0 ? 0 : 1);
	}
	close(sv[0]);
	tfs_use_broker(sv[1]);
	*fdp = sv[1];
	return pid;
}

int
main(int argc, char *argv[])
{
	struct ftrace_sink sink = { sink_begin, sink_end, NULL, NULL };
	struct ftrace_start_timing tm;
	struct ftrace_host *h;
	struct ftrace_source *s;
	Perfetto__Protos__FtraceConfig cfg;
	const char *cause = NULL;
	char top[TFS_PATH_MAX], err[256], state[] = "/tmp/bench-startlat.XXXXXX";
	uint64_t *on, *ready, calls_on = 0, calls_ready = 0;
	int runs = 10, direct = 0, ch, status, bfd = -1;
	pid_t broker = -1;

	while ((ch = getopt(argc, argv, "dn:")) != -1) {
		if (ch == 'd')
			direct = 1;
		else if (ch == 'n' && atoi(optarg) > 0)
			runs = atoi(optarg);
		else {
			fprintf(stderr, "usage: bench_startlat [-n runs] "
			    "[-d]\n");
			return 1;
		}
	}
	if (geteuid() != 0) {
		fprintf(stderr, "bench_startlat: needs root\n");
		return 77;
	}
	if (tfs_find(top, sizeof(top), 1, &cause) == -1) {
		fprintf(stderr, "bench_startlat: %s\n", cause);
		return 77;
	}
	if (mkdtemp(state) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	if (!direct && (broker = broker_start(top, &bfd)) == -1) {
		perror("broker");
		return 1;
	}
	if ((h = ftrace_host_new(NULL, top, state, &cause)) == NULL) {
		fprintf(stderr, "bench_startlat: %s\n", cause);
		return 1;
	}
	on = calloc((size_t)runs, sizeof(*on));
	ready = calloc((size_t)runs, sizeof(*ready));
	if (on == NULL || ready == NULL)
		return 1;
	printf("linux.ftrace start, %s, median (min..max) of %d runs\n",
	    direct ? "direct tracefs access" : "through the broker", runs);
	printf("%-14s %22s %22s %9s %9s\n", "config",
	    "to tracing_on (ms)", "to started (ms)", "req. on", "req. all");
	for (size_t c = 0; c < sizeof(configs) / sizeof(configs[0]); c++) {
		for (int r = 0; r < runs; r++) {
			perfetto__protos__ftrace_config__init(&cfg);
			cfg.ftrace_events = configs[c].events;
			cfg.n_ftrace_events = configs[c].n;
			if ((s = ftrace_source_new(h, &cfg, sink, err,
			    sizeof(err))) == NULL) {
				fprintf(stderr, "bench_startlat: %s: %s\n",
				    configs[c].name, err);
				return 1;
			}
			ftrace_source_timing(s, &tm);
			on[r] = tm.on_ns - tm.begin_ns;
			ready[r] = tm.ready_ns - tm.begin_ns;
			calls_on = tm.calls_on;
			calls_ready = tm.calls_ready;
			ftrace_source_free(s);
		}
		qsort(on, (size_t)runs, sizeof(*on), cmp_u64);
		qsort(ready, (size_t)runs, sizeof(*ready), cmp_u64);
		printf("%-14s %7.1f (%5.1f..%5.1f) %7.1f (%5.1f..%5.1f) "
		    "%9llu %9llu\n", configs[c].name,
		    on[runs / 2] / 1e6, on[0] / 1e6, on[runs - 1] / 1e6,
		    ready[runs / 2] / 1e6, ready[0] / 1e6,
		    ready[runs - 1] / 1e6, (unsigned long long)calls_on,
		    (unsigned long long)calls_ready);
	}
	ftrace_host_free(h);
	rmdir(state);
	if (broker > 0) {
		tfs_use_broker(-1);
		close(bfd);	/* the broker ends at EOF */
		waitpid(broker, &status, 0);
	}
	return 0;
}
