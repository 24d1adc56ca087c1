/*
 * fuzz_procfs: the /proc and /sys text parsers of linux.process_stats,
 * linux.sys_stats and linux.system_info, and the mountinfo reader that
 * decides whether /proc hides pids. The first byte picks the parser, the
 * rest is the file's text; whatever a parser writes must decode as its
 * proto. Seeds: tests/traced_probes/data/proc_*.txt (or a copy of
 * /proc/self/mountinfo) prefixed by one byte.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "protos/perfetto/trace/ps/process_stats.pb-c.h"
#include "protos/perfetto/trace/ps/process_tree.pb-c.h"
#include "protos/perfetto/trace/sys_stats/sys_stats.pb-c.h"
#include "protos/perfetto/trace/system_info/cpu_info.pb-c.h"

#include "libshm/pbw.h"
#include "procfs.h"
#include "ps_parse.h"
#include "sys_stats_parse.h"
#include "system_info_ds.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static uint8_t out[1 << 20];

/* A parser that wrote malformed protobuf, or overflowed, aborts. */
static void
check(const ProtobufCMessageDescriptor *msg, const struct pbw *w)
{
	ProtobufCMessage *m;

	if (w->error != 0)
		abort();
	m = protobuf_c_message_unpack(msg, NULL, (size_t)pbw_written(w), out);
	if (m == NULL)
		abort();
	protobuf_c_message_free_unpacked(m, NULL);
}

static void
fuzz_status(const char *t, size_t n, struct pbw *w)
{
	struct ps_status st;
	int64_t oom;

	(void)ps_oom_parse_untrusted(t, n, &oom);
	if (ps_status_parse_untrusted(t, n, &st) != 0)
		return;
	ps_write_tree_process(w, &st, t, n);
	ps_write_tree_thread(w, st.pid, st.tgid, t, ps_comm_trim(t, n));
	check(&perfetto__protos__process_tree__descriptor, w);
	pbw_init_flat(w, out, sizeof(out));
	(void)ps_write_stats_process(w, &st, ~0u, 1, 0);
	check(&perfetto__protos__process_stats__descriptor, w);
}

static void
fuzz_mountinfo(const char *t, size_t n)
{
	char mode[64];
	int r;

	/* The answer must be one of the three, the mode a C string. */
	for (uint32_t gid = 0; gid < 2; gid++) {
		memset(mode, 0x55, sizeof(mode));
		r = procfs_pids_hidden_untrusted(t, n, gid, mode, sizeof(mode));
		if (r < -1 || r > 1 || (r == 1 && memchr(mode, '\0',
		    sizeof(mode)) == NULL))
			abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct si_cpu cpus[64];
	struct sys_stats_filter f;
	struct pbw w;
	const char *t = (const char *)data + 1;
	size_t n;
	uint32_t freqs[64];
	int nc;

	if (size < 1)
		return 0;
	n = size - 1;
	sys_stats_filter_init(&f, NULL);
	pbw_init_flat(&w, out, sizeof(out));
	switch (data[0] % 11) {
	case 0:
		fuzz_status(t, n, &w);
		return 0;
	case 1: sys_stats_meminfo_untrusted(t, n, &f, &w); break;
	case 2: sys_stats_vmstat_untrusted(t, n, &f, &w); break;
	case 3: sys_stats_stat_untrusted(t, n, &f, 10000000, &w); break;
	case 4: sys_stats_diskstats_untrusted(t, n, &w); break;
	case 5: sys_stats_psi_untrusted(t, n, 1, 2, &w); break;
	case 6: sys_stats_buddyinfo_untrusted(t, n, &w); break;
	case 7:
	case 8:
		(void)system_info_freqs_untrusted(t, n, data[0] % 11 == 8,
		    freqs, 64);
		return 0;
	case 9:
		nc = system_info_cpuinfo_untrusted(t, n, cpus, 64);
		for (int i = 0; i < nc; i++)
			system_info_write_cpu(&w, &cpus[i], freqs, 0, 0, 0);
		check(&perfetto__protos__cpu_info__descriptor, &w);
		return 0;
	case 10:
		fuzz_mountinfo(t, n);
		return 0;
	}
	check(&perfetto__protos__sys_stats__descriptor, &w);
	return 0;
}
