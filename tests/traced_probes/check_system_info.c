/*
 * check_system_info: linux.system_info.
 *   parse    /proc/cpuinfo of an x86 machine (recorded) and of an ARM one
 *            (ARM identifier registers, the machine-wide Hardware name),
 *            cpufreq frequency lists, every prefix and hostile lines
 *   session  the real traced: SystemInfo has this machine's uname, page
 *            size, CPU count and USER_HZ; CpuInfo one entry per CPU
 */
#include "config.h"

#include <sys/utsname.h>

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "protos/perfetto/trace/system_info/cpu_info.pb-c.h"

#include "libshm/pbw.h"
#include "procfs.h"
#include "system_info_ds.h"
#include "check_ps_session.h"

static struct si_cpu cpus[64];

START_TEST(cpuinfo_x86)
{
	size_t len;
	char *s = pss_sample("proc_cpuinfo_x86.txt", &len);

	ck_assert_int_eq(system_info_cpuinfo_untrusted(s, len, cpus, 64), 2);
	ck_assert_int_eq(cpus[0].index, 0);
	ck_assert_int_eq(cpus[1].index, 1);
	ck_assert_str_eq(cpus[0].processor, "AMD EPYC");
	ck_assert_str_eq(cpus[1].processor, "AMD EPYC");
	ck_assert_int_eq(cpus[0].has_arm, 0);
	/* room for one: the first only */
	ck_assert_int_eq(system_info_cpuinfo_untrusted(s, len, cpus, 1), 1);
	free(s);
}
END_TEST

START_TEST(cpuinfo_arm)
{
	Perfetto__Protos__CpuInfo *ci;
	uint32_t freqs[3] = { 300000, 576000, 1800000 };
	uint8_t buf[1024];
	struct pbw w;
	size_t len;
	char *s = pss_sample("proc_cpuinfo_arm.txt", &len);

	ck_assert_int_eq(system_info_cpuinfo_untrusted(s, len, cpus, 64), 2);
	ck_assert_str_eq(cpus[0].processor, "BCM2835");
	ck_assert_int_eq(cpus[0].has_arm, 1);
	ck_assert_uint_eq(cpus[0].implementer, 0x41);
	ck_assert_uint_eq(cpus[0].architecture, 8);
	ck_assert_uint_eq(cpus[0].part, 0xd03);
	ck_assert_uint_eq(cpus[0].revision, 4);
	ck_assert_uint_eq(cpus[1].variant, 1);
	ck_assert_uint_eq(cpus[1].part, 0xd08);

	pbw_init_flat(&w, buf, sizeof(buf));
	system_info_write_cpu(&w, &cpus[0], freqs, 3, 1, 1024);
	system_info_write_cpu(&w, &cpus[1], NULL, 0, 0, 0);
	ck_assert_uint_eq(w.error, 0);
	ci = perfetto__protos__cpu_info__unpack(NULL, (size_t)pbw_written(&w),
	    buf);
	ck_assert_ptr_nonnull(ci);
	ck_assert_uint_eq(ci->n_cpus, 2);
	ck_assert_str_eq(ci->cpus[0]->processor, "BCM2835");
	ck_assert_uint_eq(ci->cpus[0]->n_frequencies, 3);
	ck_assert_uint_eq(ci->cpus[0]->frequencies[2], 1800000);
	ck_assert_uint_eq(ci->cpus[0]->capacity, 1024);
	ck_assert_int_eq(ci->cpus[0]->identifier_case,
	    PERFETTO__PROTOS__CPU_INFO__CPU__IDENTIFIER_ARM_IDENTIFIER);
	ck_assert_uint_eq(ci->cpus[0]->arm_identifier->part, 0xd03);
	ck_assert(!ci->cpus[1]->has_capacity);
	ck_assert_uint_eq(ci->cpus[1]->arm_identifier->part, 0xd08);
	perfetto__protos__cpu_info__free_unpacked(ci, NULL);
	free(s);
}
END_TEST

START_TEST(freqs)
{
	static const char avail[] = "300000 576000 748800 \n";
	static const char tis[] = "300000 123\n576000 0\n\nx 5\n0 1\n";
	uint32_t f[8];

	ck_assert_int_eq(system_info_freqs_untrusted(avail, strlen(avail), 0,
	    f, 8), 3);
	ck_assert_uint_eq(f[2], 748800);
	ck_assert_int_eq(system_info_freqs_untrusted(avail, strlen(avail), 0,
	    f, 2), 2);
	ck_assert_int_eq(system_info_freqs_untrusted(tis, strlen(tis), 1,
	    f, 8), 2);
	ck_assert_uint_eq(f[1], 576000);
	ck_assert_int_eq(system_info_freqs_untrusted("99999999999 -5", 14, 0,
	    f, 8), 0);
}
END_TEST

START_TEST(cpuinfo_hostile)
{
	static const char *texts[] = {
		"processor : 99999\nmodel name : x\n",		/* index */
		"processor : -1\nprocessor\nprocessor :\n",
		"model name : orphan\nCPU part : 0xd03\n",	/* no block */
		"processor : 0\nCPU part : 0x123456789\n"	/* overflow */
		"CPU implementer : 0xzz\nCPU revision : 99999999999\n",
		":\n::\n\n",
	};
	static const int counts[] = { 0, 0, 0, 1, 0 };
	char big[4096];
	size_t len;
	char *s, *cut;
	int n;

	for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
		n = system_info_cpuinfo_untrusted(texts[i], strlen(texts[i]),
		    cpus, 64);
		ck_assert_msg(n == counts[i], "text %zu: %d cpus", i, n);
	}
	ck_assert_uint_eq(cpus[0].part, 0);
	ck_assert_int_eq(cpus[0].has_arm, 0);
	/* a name longer than the field is cut */
	snprintf(big, sizeof(big), "processor : 0\nmodel name : %0300d\n", 7);
	ck_assert_int_eq(system_info_cpuinfo_untrusted(big, strlen(big),
	    cpus, 64), 1);
	ck_assert_uint_eq(strlen(cpus[0].processor),
	    sizeof(cpus[0].processor) - 1);
	/* more CPUs than room */
	big[0] = '\0';
	for (int i = 0; i < 100; i++)
		snprintf(big + strlen(big), sizeof(big) - strlen(big),
		    "processor : %d\n", i);
	ck_assert_int_eq(system_info_cpuinfo_untrusted(big, strlen(big),
	    cpus, 64), 64);
	/* every cut of both samples, exact-size copies */
	for (int k = 0; k < 2; k++) {
		s = pss_sample(k ? "proc_cpuinfo_arm.txt" :
		    "proc_cpuinfo_x86.txt", &len);
		for (size_t i = 0; i <= len; i++) {
			cut = malloc(i ? i : 1);
			memcpy(cut, s, i);
			n = system_info_cpuinfo_untrusted(cut, i, cpus, 64);
			ck_assert_int_le(n, 2);
			free(cut);
		}
		free(s);
	}
}
END_TEST

START_TEST(session)
{
	static const char *const names[] = { SYSTEM_INFO_DS_NAME, NULL };
	Perfetto__Protos__TraceConfig *cfg;
	struct tt_trace t;
	struct utsname u;
	struct pss s;
	char buf[1 << 16];
	ssize_t n;
	int ours = 0, cpuinfo = 0, nproc;

	ck_assert_int_eq(uname(&u), 0);
	n = procfs_read("/proc/cpuinfo", buf, sizeof(buf), NULL);
	ck_assert_int_gt(n, 0);
	nproc = system_info_cpuinfo_untrusted(buf, (size_t)n, cpus, 64);
	ck_assert_int_ge(nproc, 1);
	ck_assert_int_eq(pss_open(&s), 0);
	cfg = pss_config(names);
	ck_assert_int_eq(pss_run(&s, cfg, 100, NULL, NULL, &t), 0);
	for (size_t i = 0; i < t.npackets; i++) {
		const Perfetto__Protos__TracePacket *pk = t.trace->packet[i];

		if (pk->data_case ==
		    PERFETTO__PROTOS__TRACE_PACKET__DATA_SYSTEM_INFO &&
		    pk->system_info->tracing_service_version == NULL) {
			const Perfetto__Protos__SystemInfo *si =
			    pk->system_info;

			/* the service writes one too, with its version */
			ours++;
			ck_assert_ptr_nonnull(si->utsname);
			ck_assert_str_eq(si->utsname->sysname, u.sysname);
			ck_assert_str_eq(si->utsname->release, u.release);
			ck_assert_str_eq(si->utsname->version, u.version);
			ck_assert_str_eq(si->utsname->machine, u.machine);
			ck_assert_uint_eq(si->page_size,
			    (uint32_t)sysconf(_SC_PAGESIZE));
			ck_assert_uint_eq(si->num_cpus,
			    (uint32_t)sysconf(_SC_NPROCESSORS_CONF));
			ck_assert_int_eq(si->hz, sysconf(_SC_CLK_TCK));
			ck_assert_uint_gt(si->system_ram_bytes, 1 << 20);
		}
		if (pk->data_case ==
		    PERFETTO__PROTOS__TRACE_PACKET__DATA_CPU_INFO) {
			cpuinfo++;
			ck_assert_uint_eq(pk->cpu_info->n_cpus, (size_t)nproc);
			ck_assert_str_eq(pk->cpu_info->cpus[0]->processor,
			    cpus[0].processor);
		}
	}
	ck_assert_int_eq(ours, 1);
	ck_assert_int_eq(cpuinfo, 1);
	ck_assert_int_eq(t.bad_trusted, 0);
	tt_trace_free(&t);
	tt_config_free(cfg);
	pss_close(&s);
}
END_TEST

static Suite *
system_info_suite(void)
{
	Suite *s = suite_create("system_info");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, cpuinfo_x86);
	tcase_add_test(tc, cpuinfo_arm);
	tcase_add_test(tc, freqs);
	tcase_add_test(tc, cpuinfo_hostile);
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
	SRunner *sr = srunner_create(system_info_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
