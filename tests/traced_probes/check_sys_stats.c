/*
 * check_sys_stats: linux.sys_stats.
 *   parse    recorded /proc/meminfo, vmstat, stat, diskstats,
 *            pressure/io, buddyinfo (data/proc_*.txt) with and without
 *            counter lists; every prefix of each and hostile lines must
 *            still encode valid SysStats
 *   session  the real traced and kernel: meminfo matches /proc/meminfo,
 *            only the asked counters, each reader at its period, per-CPU
 *            times, forks counted while the test forks
 */
#include "config.h"

#include <sys/wait.h>

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "protos/perfetto/common/sys_stats_counters.pb-c.h"
#include "protos/perfetto/trace/sys_stats/sys_stats.pb-c.h"

#include "libshm/pbw.h"
#include "procfs.h"
#include "sys_stats_ds.h"
#include "sys_stats_parse.h"
#include "check_ps_session.h"

#define NS_PER_TICK	10000000ull	/* USER_HZ 100 */

typedef int (*parse_fn)(const char *, size_t, struct pbw *);

static uint8_t out[1 << 20];

/* Encodes with fn into a flat SysStats and decodes it (must decode). */
static Perfetto__Protos__SysStats *
encode(const char *text, size_t len, parse_fn fn, int *n)
{
	Perfetto__Protos__SysStats *ss;
	struct pbw w;

	pbw_init_flat(&w, out, sizeof(out));
	*n = fn(text, len, &w);
	ck_assert_uint_eq(w.error, 0);
	ss = perfetto__protos__sys_stats__unpack(NULL,
	    (size_t)pbw_written(&w), out);
	ck_assert_ptr_nonnull(ss);
	return ss;
}

static struct sys_stats_filter all;

static int
p_meminfo(const char *t, size_t l, struct pbw *w)
{
	return sys_stats_meminfo_untrusted(t, l, &all, w);
}

static int
p_vmstat(const char *t, size_t l, struct pbw *w)
{
	return sys_stats_vmstat_untrusted(t, l, &all, w);
}

static int
p_stat(const char *t, size_t l, struct pbw *w)
{
	return sys_stats_stat_untrusted(t, l, &all, NS_PER_TICK, w);
}

static int
p_disk(const char *t, size_t l, struct pbw *w)
{
	return sys_stats_diskstats_untrusted(t, l, w);
}

static int
p_psi(const char *t, size_t l, struct pbw *w)
{
	return sys_stats_psi_untrusted(t, l, 3, 4, w);
}

static int
p_buddy(const char *t, size_t l, struct pbw *w)
{
	return sys_stats_buddyinfo_untrusted(t, l, w);
}

static void
setup_all(void)
{
	sys_stats_filter_init(&all, NULL);
}

static uint64_t
meminfo_of(const Perfetto__Protos__SysStats *ss, int key)
{
	for (size_t i = 0; i < ss->n_meminfo; i++)
		if ((int)ss->meminfo[i]->key == key)
			return ss->meminfo[i]->value;
	return UINT64_MAX;
}

START_TEST(meminfo_sample)
{
	Perfetto__Protos__SysStats *ss;
	Perfetto__Protos__SysStatsConfig c =
	    PERFETTO__PROTOS__SYS_STATS_CONFIG__INIT;
	Perfetto__Protos__MeminfoCounters want[] = {
		PERFETTO__PROTOS__MEMINFO_COUNTERS__MEMINFO_MEM_TOTAL,
		PERFETTO__PROTOS__MEMINFO_COUNTERS__MEMINFO_COMMITED_AS,
	};
	struct sys_stats_filter f;
	struct pbw w;
	size_t len;
	char *s = pss_sample("proc_meminfo.txt", &len);
	int n;

	ss = encode(s, len, p_meminfo, &n);
	ck_assert_int_ge(n, 25);
	ck_assert_uint_eq(ss->n_meminfo, (size_t)n);
	ck_assert_uint_eq(meminfo_of(ss,
	    PERFETTO__PROTOS__MEMINFO_COUNTERS__MEMINFO_MEM_TOTAL), 24684084);
	ck_assert_uint_eq(meminfo_of(ss,
	    PERFETTO__PROTOS__MEMINFO_COUNTERS__MEMINFO_MEM_AVAILABLE),
	    23092744);
	ck_assert_uint_eq(meminfo_of(ss,
	    PERFETTO__PROTOS__MEMINFO_COUNTERS__MEMINFO_ACTIVE_ANON), 1728);
	ck_assert_uint_eq(meminfo_of(ss,
	    PERFETTO__PROTOS__MEMINFO_COUNTERS__MEMINFO_SLAB_UNRECLAIMABLE),
	    43468);
	perfetto__protos__sys_stats__free_unpacked(ss, NULL);

	/* a counter list: only those */
	c.n_meminfo_counters = 2;
	c.meminfo_counters = want;
	sys_stats_filter_init(&f, &c);
	pbw_init_flat(&w, out, sizeof(out));
	ck_assert_int_eq(sys_stats_meminfo_untrusted(s, len, &f, &w), 2);
	ss = perfetto__protos__sys_stats__unpack(NULL,
	    (size_t)pbw_written(&w), out);
	ck_assert_uint_eq(ss->n_meminfo, 2);
	ck_assert_uint_eq(meminfo_of(ss,
	    PERFETTO__PROTOS__MEMINFO_COUNTERS__MEMINFO_COMMITED_AS), 1192084);
	perfetto__protos__sys_stats__free_unpacked(ss, NULL);
	free(s);
}
END_TEST

START_TEST(vmstat_sample)
{
	Perfetto__Protos__SysStats *ss;
	size_t len;
	char *s = pss_sample("proc_vmstat.txt", &len);
	int n, hits = 0;

	ck_assert_str_eq(sys_stats_vmstat_name(
	    PERFETTO__PROTOS__VMSTAT_COUNTERS__VMSTAT_NR_FREE_PAGES),
	    "nr_free_pages");
	ss = encode(s, len, p_vmstat, &n);
	ck_assert_int_ge(n, 100);
	for (size_t i = 0; i < ss->n_vmstat; i++) {
		if (ss->vmstat[i]->key ==
		    PERFETTO__PROTOS__VMSTAT_COUNTERS__VMSTAT_NR_FREE_PAGES) {
			ck_assert_uint_eq(ss->vmstat[i]->value, 1554885);
			hits++;
		}
		if (ss->vmstat[i]->key ==
		    PERFETTO__PROTOS__VMSTAT_COUNTERS__VMSTAT_PGFAULT) {
			ck_assert_uint_eq(ss->vmstat[i]->value, 442393986);
			hits++;
		}
	}
	ck_assert_int_eq(hits, 2);
	perfetto__protos__sys_stats__free_unpacked(ss, NULL);
	free(s);
}
END_TEST

START_TEST(stat_sample)
{
	Perfetto__Protos__SysStats *ss;
	Perfetto__Protos__SysStatsConfig c =
	    PERFETTO__PROTOS__SYS_STATS_CONFIG__INIT;
	Perfetto__Protos__SysStatsConfig__StatCounters forks =
	    PERFETTO__PROTOS__SYS_STATS_CONFIG__STAT_COUNTERS__STAT_FORK_COUNT;
	struct sys_stats_filter f;
	struct pbw w;
	size_t len;
	char *s = pss_sample("proc_stat.txt", &len);
	int n;

	ss = encode(s, len, p_stat, &n);
	ck_assert_uint_eq(ss->n_cpu_stat, 2);	/* the "cpu" sum is not one */
	ck_assert_uint_eq(ss->cpu_stat[0]->cpu_id, 0);
	ck_assert_uint_eq(ss->cpu_stat[0]->user_ns, 201541 * NS_PER_TICK);
	ck_assert_uint_eq(ss->cpu_stat[0]->user_nice_ns, 9098 * NS_PER_TICK);
	ck_assert_uint_eq(ss->cpu_stat[0]->system_mode_ns,
	    102077 * NS_PER_TICK);
	ck_assert_uint_eq(ss->cpu_stat[0]->idle_ns, 57798 * NS_PER_TICK);
	ck_assert_uint_eq(ss->cpu_stat[1]->steal_ns, 111 * NS_PER_TICK);
	ck_assert_uint_eq(ss->num_forks, 1528268);
	ck_assert_uint_eq(ss->num_irq_total, 3451726);
	ck_assert_uint_gt(ss->n_num_irq, 0);
	for (size_t i = 0; i < ss->n_num_irq; i++)
		ck_assert_uint_gt(ss->num_irq[i]->count, 0);	/* no zeros */
	ck_assert_uint_eq(ss->num_softirq_total, 3557800);
	ck_assert_uint_eq(ss->n_num_softirq, 8);
	ck_assert_int_eq(ss->num_softirq[0]->irq, 1);
	ck_assert_uint_eq(ss->num_softirq[0]->count, 492321);
	perfetto__protos__sys_stats__free_unpacked(ss, NULL);

	c.n_stat_counters = 1;
	c.stat_counters = &forks;
	sys_stats_filter_init(&f, &c);
	pbw_init_flat(&w, out, sizeof(out));
	ck_assert_int_eq(sys_stats_stat_untrusted(s, len, &f, NS_PER_TICK,
	    &w), 1);
	ss = perfetto__protos__sys_stats__unpack(NULL,
	    (size_t)pbw_written(&w), out);
	ck_assert_uint_eq(ss->num_forks, 1528268);
	ck_assert_uint_eq(ss->n_cpu_stat, 0);
	ck_assert(!ss->has_num_irq_total);
	perfetto__protos__sys_stats__free_unpacked(ss, NULL);
	free(s);
}
END_TEST

START_TEST(diskstats_psi_buddy_samples)
{
	Perfetto__Protos__SysStats *ss;
	const Perfetto__Protos__SysStats__DiskStat *vda = NULL;
	size_t len;
	char *s = pss_sample("proc_diskstats.txt", &len);
	int n;

	ss = encode(s, len, p_disk, &n);
	ck_assert_int_gt(n, 1);
	for (size_t i = 0; i < ss->n_disk_stat; i++)
		if (strcmp(ss->disk_stat[i]->device_name, "vda") == 0)
			vda = ss->disk_stat[i];
	ck_assert_ptr_nonnull(vda);
	ck_assert_uint_eq(vda->read_sectors, 6251146);
	ck_assert_uint_eq(vda->read_time_ms, 89636);
	ck_assert_uint_eq(vda->write_sectors, 105582336);
	ck_assert_uint_eq(vda->write_time_ms, 676079);
	ck_assert_uint_eq(vda->discard_sectors, 94514520);
	ck_assert_uint_eq(vda->discard_time_ms, 27943);
	ck_assert_uint_eq(vda->flush_count, 3096);
	ck_assert_uint_eq(vda->flush_time_ms, 264);
	perfetto__protos__sys_stats__free_unpacked(ss, NULL);
	free(s);

	s = pss_sample("proc_pressure_io.txt", &len);
	ss = encode(s, len, p_psi, &n);
	ck_assert_int_eq(n, 2);
	ck_assert_int_eq(ss->psi[0]->resource, 3);
	ck_assert_uint_eq(ss->psi[0]->total_ns, 22397996000ull);
	ck_assert_int_eq(ss->psi[1]->resource, 4);
	ck_assert_uint_eq(ss->psi[1]->total_ns, 4193283000ull);
	perfetto__protos__sys_stats__free_unpacked(ss, NULL);
	free(s);

	s = pss_sample("proc_buddyinfo.txt", &len);
	ss = encode(s, len, p_buddy, &n);
	ck_assert_int_eq(n, 3);
	ck_assert_str_eq(ss->buddy_info[2]->node, "0");
	ck_assert_str_eq(ss->buddy_info[2]->zone, "Normal");
	ck_assert_uint_eq(ss->buddy_info[2]->n_order_pages, 11);
	ck_assert_uint_eq(ss->buddy_info[2]->order_pages[0], 301);
	ck_assert_uint_eq(ss->buddy_info[2]->order_pages[10], 140);
	perfetto__protos__sys_stats__free_unpacked(ss, NULL);
	free(s);
}
END_TEST

/* Every cut of every sample, in exact-size copies: valid output. */
START_TEST(every_prefix)
{
	static const struct {
		const char	*file;
		parse_fn	 fn;
	} cases[] = {
		{ "proc_meminfo.txt", p_meminfo },
		{ "proc_vmstat.txt", p_vmstat },
		{ "proc_stat.txt", p_stat },
		{ "proc_diskstats.txt", p_disk },
		{ "proc_pressure_io.txt", p_psi },
		{ "proc_buddyinfo.txt", p_buddy },
	};
	Perfetto__Protos__SysStats *ss;
	size_t len;
	char *s, *cut;
	int n;

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		s = pss_sample(cases[k].file, &len);
		for (size_t i = 0; i <= len; i++) {
			cut = malloc(i ? i : 1);
			memcpy(cut, s, i);
			ss = encode(cut, i, cases[k].fn, &n);
			perfetto__protos__sys_stats__free_unpacked(ss, NULL);
			free(cut);
		}
		free(s);
	}
}
END_TEST

START_TEST(hostile_lines)
{
	static const struct {
		const char	*text;
		parse_fn	 fn;
		int		 entries;
	} cases[] = {
		{ "MemTotal: 99999999999999999999 kB\n", p_meminfo, 0 },
		{ "MemTotal:\n:\nMemTotal 5 kB\nMemFree: -1 kB\n", p_meminfo, 0 },
		{ "MemTotal: 5", p_meminfo, 1 },	/* no unit, no newline */
		{ "nr_free_pages\nnr_free_pages x\n"
		  "nr_free_pages 18446744073709551616\n", p_vmstat, 0 },
		{ "x_unknown_counter 5\n", p_vmstat, 0 },
		{ "cpu99999999999999999999 1 2\ncpux 1\ncpu", p_stat, 0 },
		{ "cpu4294967296 1\n", p_stat, 0 },
		{ "cpu3 1 2 x 4\n", p_stat, 1 },	/* what parses */
		{ "intr\nsoftirq x 1\nprocesses\nprocesses -4\n", p_stat, 0 },
		{ "intr 7 0 x 2\n", p_stat, 1 },		/* the total */
		{ "8 0 sda 1 2 3\n8 0\n\n", p_disk, 0 },
		{ "8 0 sda 1 2 3 4 5 6 7 8 9 10 x\n", p_disk, 1 },
		{ "some total=abc\nfull total=18446744073709551615\n"
		  "none total=5\nsome\n", p_psi, 0 },
		{ "Node\nNode 0,\nNode 0, zone\nNode 0, zone DMA 1 x 3\n",
		  p_buddy, 1 },
	};
	Perfetto__Protos__SysStats *ss;
	int n;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ss = encode(cases[i].text, strlen(cases[i].text),
		    cases[i].fn, &n);
		ck_assert_msg(n == cases[i].entries, "case %zu: %d entries",
		    i, n);
		perfetto__protos__sys_stats__free_unpacked(ss, NULL);
	}
}
END_TEST

/* ---- session -------------------------------------------------------- */

static void
fork_some(struct pss *s, void *arg)
{
	for (int i = 0; i < 20; i++) {
		pid_t pid = fork();

		if (pid == 0)
			_exit(0);
		waitpid(pid, NULL, 0);
	}
}

static uint64_t
proc_meminfo_total(void)
{
	char buf[8192];
	const char *v;
	size_t vl;
	uint64_t kb = 0;
	ssize_t n = procfs_read("/proc/meminfo", buf, sizeof(buf), NULL);

	ck_assert_int_gt(n, 0);
	v = procfs_field(buf, (size_t)n, "MemTotal:", &vl);
	ck_assert_ptr_nonnull(v);
	kb = strtoull(v, NULL, 10);
	return kb;
}

START_TEST(session)
{
	static const char *const names[] = { SYS_STATS_DS_NAME, NULL };
	Perfetto__Protos__MeminfoCounters want[] = {
		PERFETTO__PROTOS__MEMINFO_COUNTERS__MEMINFO_MEM_TOTAL,
		PERFETTO__PROTOS__MEMINFO_COUNTERS__MEMINFO_MEM_FREE,
	};
	Perfetto__Protos__TraceConfig *cfg;
	Perfetto__Protos__SysStatsConfig *sc;
	struct tt_trace t;
	struct pss s;
	uint64_t first_forks = 0, last_forks = 0, last_ts = 0;
	int meminfo = 0, stat = 0, disk = 0, psi = 0, vm = 0, ncpu_lines = 0;
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	char buf[65536];
	const char *p, *end, *line;
	size_t ll;
	ssize_t n;

	n = procfs_read("/proc/stat", buf, sizeof(buf), NULL);
	ck_assert_int_gt(n, 0);
	for (p = buf, end = buf + n; procfs_line(&p, end, &line, &ll);)
		if (ll > 3 && memcmp(line, "cpu", 3) == 0 && line[3] != ' ')
			ncpu_lines++;
	ck_assert_int_eq(ncpu_lines, ncpus);

	ck_assert_int_eq(pss_open(&s), 0);
	cfg = pss_config(names);
	sc = calloc(1, sizeof(*sc));
	perfetto__protos__sys_stats_config__init(sc);
	sc->has_meminfo_period_ms = sc->has_stat_period_ms = 1;
	sc->meminfo_period_ms = 100;
	sc->stat_period_ms = 100;
	sc->n_meminfo_counters = 2;
	sc->meminfo_counters = malloc(sizeof(want));
	memcpy(sc->meminfo_counters, want, sizeof(want));
	sc->has_vmstat_period_ms = sc->has_diskstat_period_ms = 1;
	sc->has_psi_period_ms = sc->has_cpufreq_period_ms = 1;
	sc->has_thermal_period_ms = sc->has_cpuidle_period_ms = 1;
	sc->has_buddyinfo_period_ms = 1;
	sc->vmstat_period_ms = sc->diskstat_period_ms = 250;
	sc->psi_period_ms = sc->cpufreq_period_ms = 250;
	sc->thermal_period_ms = sc->cpuidle_period_ms = 250;
	sc->buddyinfo_period_ms = 250;
	cfg->data_sources[0]->config->sys_stats_config = sc;
	ck_assert_int_eq(pss_run(&s, cfg, 1000, fork_some, NULL, &t), 0);

	for (size_t i = 0; i < t.npackets; i++) {
		const Perfetto__Protos__TracePacket *pk = t.trace->packet[i];
		const Perfetto__Protos__SysStats *ss;

		if (pk->data_case !=
		    PERFETTO__PROTOS__TRACE_PACKET__DATA_SYS_STATS)
			continue;
		ss = pk->sys_stats;
		ck_assert(pk->has_timestamp && pk->timestamp >= last_ts);
		ck_assert(ss->collection_end_timestamp >= pk->timestamp);
		last_ts = pk->timestamp;
		if (ss->n_meminfo > 0) {
			meminfo++;
			ck_assert_uint_eq(ss->n_meminfo, 2);
			ck_assert_uint_eq(meminfo_of(ss,
			    PERFETTO__PROTOS__MEMINFO_COUNTERS__MEMINFO_MEM_TOTAL),
			    proc_meminfo_total());
			ck_assert_uint_lt(meminfo_of(ss,
			    PERFETTO__PROTOS__MEMINFO_COUNTERS__MEMINFO_MEM_FREE),
			    proc_meminfo_total());
		}
		if (ss->n_cpu_stat > 0) {
			stat++;
			ck_assert_uint_eq(ss->n_cpu_stat, (size_t)ncpus);
			ck_assert_uint_gt(ss->cpu_stat[0]->idle_ns +
			    ss->cpu_stat[0]->user_ns, 0);
			ck_assert(ss->has_num_forks);
			if (first_forks == 0)
				first_forks = ss->num_forks;
			last_forks = ss->num_forks;
		}
		vm += ss->n_vmstat > 0;
		disk += ss->n_disk_stat > 0;
		psi += ss->n_psi > 0;
	}
	/* 100 ms over ~1 s, the first at the start */
	ck_assert_int_ge(meminfo, 6);
	ck_assert_int_le(meminfo, 16);
	ck_assert_int_eq(stat, meminfo);	/* same period, same packets */
	ck_assert_int_ge(vm, 3);
	ck_assert_int_le(vm, 7);
	ck_assert_uint_ge(last_forks, first_forks + 20);
	if (access("/proc/diskstats", R_OK) == 0)
		ck_assert_int_ge(disk, 3);
	if (access("/proc/pressure/cpu", R_OK) == 0)
		ck_assert_int_ge(psi, 3);
	tt_trace_free(&t);
	tt_config_free(cfg);
	pss_close(&s);
}
END_TEST

static Suite *
sys_stats_suite(void)
{
	Suite *s = suite_create("sys_stats");
	TCase *tc = tcase_create("parse");

	tcase_add_checked_fixture(tc, setup_all, NULL);
	tcase_add_test(tc, meminfo_sample);
	tcase_add_test(tc, vmstat_sample);
	tcase_add_test(tc, stat_sample);
	tcase_add_test(tc, diskstats_psi_buddy_samples);
	tcase_add_test(tc, every_prefix);
	tcase_add_test(tc, hostile_lines);
	suite_add_tcase(s, tc);
	tc = tcase_create("session");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, session);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(sys_stats_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
