/*
 * tp_bench_load: loads one trace with the engine and reports load speed,
 * peak memory and the latency of a few typical queries, one line per run:
 *
 *   tp_bench_load TRACE
 *   file_mb=.. load_cpu_s=.. load_main_cpu_s=.. load_wall_s=..
 *   mb_per_cpu_s=.. peak_rss_mb=..
 *   rss_per_file_mb=.. q_slices_ms=.. q_sched_ms=.. q_args_ms=..
 * (times are CPU time unless named wall; load_cpu_s of the process,
 * load_main_cpu_s of the loading thread alone)
 *
 * Run one trace per process: peak RSS (getrusage) covers the whole run.
 */
#include <sys/resource.h>
#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "tp.h"

/*
 * CPU time of this process: the figures stay meaningful on a machine
 * shared with other jobs (wall time is reported beside it for the load).
 */
static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* CPU time of the loading thread alone: the critical path a helper
 * thread shortens, whatever else the machine runs. */
static double
thread_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double
wall(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double
query_ms(struct tp *tp, const char *sql)
{
	sqlite3_stmt *st;
	double t0 = now();

	if (sqlite3_prepare_v2(tp_db(tp), sql, -1, &st, NULL) != SQLITE_OK) {
		fprintf(stderr, "query: %s\n", sqlite3_errmsg(tp_db(tp)));
		return -1;
	}
	while (sqlite3_step(st) == SQLITE_ROW)
		;
	sqlite3_finalize(st);
	return (now() - t0) * 1e3;
}

int
main(int argc, char *argv[])
{
	struct stat sb;
	struct rusage ru;
	struct tp *tp;
	char *err = NULL;
	double t0, t1, w0, w1, m0, m1, mb;

	if (argc != 2) {
		fprintf(stderr, "usage: tp_bench_load TRACE\n");
		return 1;
	}
	if (stat(argv[1], &sb) == -1) {
		perror(argv[1]);
		return 1;
	}
	mb = (double)sb.st_size / (1 << 20);
	if ((tp = tp_new(NULL, &err)) == NULL) {
		fprintf(stderr, "tp_new: %s\n", err);
		return 1;
	}
	t0 = now();
	w0 = wall();
	m0 = thread_cpu();
	if (tp_load_file(tp, argv[1]) == -1) {
		fprintf(stderr, "load: %s\n", tp_error(tp));
		return 1;
	}
	t1 = now();
	w1 = wall();
	m1 = thread_cpu();
	getrusage(RUSAGE_SELF, &ru);
	printf("file_mb=%.1f load_cpu_s=%.2f load_main_cpu_s=%.2f"
	    " load_wall_s=%.2f mb_per_cpu_s=%.1f peak_rss_mb=%.1f"
	    " rss_per_file_mb=%.2f", mb, t1 - t0, m1 - m0, w1 - w0,
	    mb / (t1 - t0),
	    (double)ru.ru_maxrss / 1024, (double)ru.ru_maxrss / 1024 / mb);
	printf(" q_slices_ms=%.1f", query_ms(tp, "SELECT name, COUNT(*),"
	    " SUM(dur) FROM slice GROUP BY name ORDER BY 3 DESC LIMIT 10"));
	printf(" q_sched_ms=%.1f", query_ms(tp, "SELECT t.name, SUM(s.dur)"
	    " FROM sched s JOIN thread t USING (utid) GROUP BY utid"
	    " ORDER BY 2 DESC LIMIT 10"));
	printf(" q_args_ms=%.1f\n", query_ms(tp, "SELECT COUNT(*) FROM slice"
	    " s JOIN args a USING (arg_set_id) WHERE a.key = 'debug.arg'"));
	tp_free(tp);
	return 0;
}
