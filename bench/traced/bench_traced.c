/*
 * traced throughput and memory.
 *
 *   bench_traced [producers] [seconds] [packet_bytes]
 *
 * Starts the traced of this build tree in a private directory, forks N
 * producer processes that write test packets through their SMBs as fast
 * as traced takes them, and streams the session into a file
 * (write_into_file, 250 ms period). Reports MB/s that reached the file,
 * traced's CPU time, and traced's RSS idle, with one idle session, and at
 * the end. Build without ASan (configure CFLAGS=-O2) for figures.
 */
#include "config.h"

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "libshm/shm_arbiter.h"
#include "traced_test.h"

static double
now_s(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void
producer_main(const char *sock, int idx, double seconds, size_t pad)
{
	struct event_base	*base = event_base_new();
	struct tt_producer	 p;
	struct tt_instance	*in = NULL;
	struct shm_writer	*w;
	char			 name[32];
	double			 end;
	uint32_t		 seq = 0;

	snprintf(name, sizeof(name), "bench.%d", idx);
	if (tt_producer_connect(&p, base, sock, name) == -1 ||
	    tt_producer_register(&p, "bench.ds", 0, 0) == -1)
		_exit(2);
	for (int i = 0; i < 1000 && (in == NULL || !in->started ||
	    p.arb == NULL); i++) {
		tt_spin(base, 5);
		in = tt_producer_instance(&p, "bench.ds");
	}
	if (in == NULL || !in->started)
		_exit(3);
	w = tt_producer_writer(&p, in->target_buffer);
	end = now_s() + seconds;
	while (now_s() < end) {
		tt_write_packets(w, "bench", seq, 64, pad);
		seq += 64;
		/* Let the commits go out and the replies come back. */
		event_base_loop(base, EVLOOP_NONBLOCK);
		while (p.pending_calls > 32)
			event_base_loop(base, EVLOOP_ONCE);
	}
	tt_producer_commit(&p, w);
	tt_producer_close(&p);
	event_base_free(base);
	_exit(0);
}

int
main(int argc, char *argv[])
{
	static const char	*ds[] = { "bench.ds", NULL };
	struct tt_traced	 td;
	struct tt_consumer	 c;
	struct event_base	*base;
	Perfetto__Protos__TraceConfig *cfg;
	struct stat		 st;
	char			 path[400];
	int			 n = argc > 1 ? atoi(argv[1]) : 4;
	double			 secs = argc > 2 ? atof(argv[2]) : 5;
	size_t			 pad = argc > 3 ? (size_t)atoi(argv[3]) : 200;
	double			 t0, t1, c0, c1;
	long			 rss_idle, rss_session, rss_end;
	pid_t			 pids[64];
	int			 fd, i, status;

	if (n < 1 || n > 64)
		n = 4;
	signal(SIGPIPE, SIG_IGN);
	if (getenv("top_builddir") == NULL)
		setenv("top_builddir", ".", 1);
	if (tt_traced_start(&td, NULL) == -1) {
		fprintf(stderr, "bench_traced: cannot start traced\n");
		return 1;
	}
	usleep(200000);
	rss_idle = tt_proc_rss_kb(td.pid);
	base = event_base_new();
	cfg = tt_config_new(32 * 1024, 0, ds);
	cfg->has_write_into_file = cfg->write_into_file = 1;
	cfg->has_file_write_period_ms = 1;
	cfg->file_write_period_ms = 250;
	snprintf(path, sizeof(path), "%s/bench.pftrace", td.dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (tt_consumer_connect(&c, base, td.consumer_sock) == -1 ||
	    tt_consumer_enable(&c, cfg, fd) == -1) {
		fprintf(stderr, "bench_traced: no session\n");
		tt_traced_stop(&td);
		return 1;
	}
	close(fd);
	tt_spin(base, 200);
	rss_session = tt_proc_rss_kb(td.pid);
	c0 = tt_proc_cpu_s(td.pid);
	t0 = now_s();
	for (i = 0; i < n; i++)
		if ((pids[i] = fork()) == 0)
			producer_main(td.producer_sock, i, secs, pad);
	for (i = 0; i < n; i++)
		waitpid(pids[i], &status, 0);
	tt_consumer_call(&c, CM_DISABLE, NULL, -1, NULL, 0);
	tt_wait(base, &c.enable_done, 30000);
	t1 = now_s();
	c1 = tt_proc_cpu_s(td.pid);
	rss_end = tt_proc_rss_kb(td.pid);
	stat(path, &st);
	printf("bench_traced: %d producers, %.1f s, %zu-byte payloads\n", n,
	    t1 - t0, pad);
	printf("  into file: %.1f MB in %.2f s = %.1f MB/s\n",
	    st.st_size / 1e6, t1 - t0, st.st_size / 1e6 / (t1 - t0));
	printf("  traced CPU: %.2f s (%.1f MB per CPU second)\n", c1 - c0,
	    c1 > c0 ? st.st_size / 1e6 / (c1 - c0) : 0.0);
	printf("  traced RSS: idle %ld KiB, one session (32 MiB buffer, "
	    "untouched) %ld KiB, after the run %ld KiB\n", rss_idle,
	    rss_session, rss_end);
	tt_consumer_close(&c);
	tt_config_free(cfg);
	event_base_free(base);
	tt_traced_stop(&td);
	return 0;
}
