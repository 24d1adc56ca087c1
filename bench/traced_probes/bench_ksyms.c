/*
 * bench_ksyms: the cost of symbolize_ksyms. Loads /proc/kallsyms into the
 * ksyms table several times (what the first symbolizing session pays),
 * then times lookups. Reports symbols, table bytes, the peak RSS the load
 * adds (the parser's transient arrays included), ms per load and ns per
 * lookup. Run as root (else every address reads 0) in a non-ASan build:
 *   bench/traced_probes/bench_ksyms [-n LOADS]
 */
#include <sys/resource.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ksyms.h"

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static long
maxrss_kb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

static int
dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

int
main(int argc, char **argv)
{
	struct ksyms_parse_stats st;
	struct ksyms *k = NULL;
	const char *cause = NULL;
	char name[KSYMS_NAME_MAX];
	double t, ms[64], best;
	long rss0, rss1 = 0;
	uint64_t seed = 88172645463325252ull, sum = 0;
	int loads = 9, c, fd;
	const int nlook = 2000000;

	while ((c = getopt(argc, argv, "n:")) != -1)
		if (c == 'n')
			loads = atoi(optarg);
	if (loads < 1 || loads > 64) {
		fprintf(stderr, "usage: bench_ksyms [-n 1..64]\n");
		return 2;
	}
	rss0 = maxrss_kb();
	for (int i = 0; i < loads; i++) {
		ksyms_free(k);
		if ((fd = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC)) == -1) {
			perror("/proc/kallsyms");
			return 1;
		}
		t = now_ms();
		if ((k = ksyms_read_fd(fd, &st, &cause)) == NULL) {
			fprintf(stderr, "kallsyms: %s\n", cause);
			return 1;
		}
		ms[i] = now_ms() - t;
		if (i == 0)
			rss1 = maxrss_kb();
	}
	qsort(ms, (size_t)loads, sizeof(ms[0]), dbl_cmp);
	best = ms[0];
	printf("kallsyms: %llu lines, %u text symbols (%llu malformed, %llu "
	    "zero addresses)\n", (unsigned long long)st.lines, ksyms_count(k),
	    (unsigned long long)st.malformed, (unsigned long long)st.zero);
	printf("table: %zu KiB (%.1f bytes/symbol); peak RSS added by a load: "
	    "%ld KiB\n", ksyms_mem_bytes(k) / 1024, ksyms_count(k) ?
	    (double)ksyms_mem_bytes(k) / ksyms_count(k) : 0.0, rss1 - rss0);
	printf("load: %.1f ms median, %.1f ms best (%d loads)\n",
	    ms[loads / 2], best, loads);
	if (ksyms_count(k) == 0) {
		ksyms_free(k);
		return 0;
	}
	/* Random addresses in the kernel text range. */
	t = now_ms();
	for (int i = 0; i < nlook; i++) {
		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		sum += (uint64_t)ksyms_lookup(k, 0xffffffff81000000ull +
		    seed % (64u << 20), name, sizeof(name));
	}
	t = now_ms() - t;
	printf("lookup: %.0f ns each (%d random text addresses, check %llu)\n",
	    t * 1e6 / nlook, nlook, (unsigned long long)sum);
	ksyms_free(k);
	return 0;
}
