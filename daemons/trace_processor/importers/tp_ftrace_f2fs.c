/*
 * f2fs_iostat and f2fs_iostat_latency: every field a counter of its
 * device, on "f2fs_iostat[_latency].[MAJOR:MINOR].COUNTER" tracks named
 * and ordered as upstream's.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "tp_int.h"

#define EV_F2FS_IOSTAT		419
#define EV_F2FS_IOSTAT_LATENCY	420

struct counter {
	const char	*name;
	unsigned	 field;
};

static const struct counter iostat[] = {
	{ "write_app_total", 8 }, { "write_app_direct", 3 },
	{ "write_app_buffered", 1 }, { "write_app_mapped", 5 },
	{ "write_fs_data", 14 }, { "write_fs_node", 22 },
	{ "write_fs_meta", 20 }, { "write_gc_data", 17 },
	{ "write_gc_node", 18 }, { "write_cp_data", 11 },
	{ "write_cp_node", 13 }, { "write_cp_meta", 12 },
	{ "read_app_total", 7 }, { "read_app_direct", 4 },
	{ "read_app_buffered", 2 }, { "read_app_mapped", 6 },
	{ "read_fs_data", 16 }, { "read_fs_gdata", 19 },
	{ "read_fs_cdata", 10 }, { "read_fs_node", 23 },
	{ "read_fs_meta", 21 }, { "other_fs_discard", 15 },
};
#define IOSTAT_DEV	9

static const struct counter latency[] = {
	{ "read_data_peak", 3 }, { "read_data_avg", 1 },
	{ "read_data_cnt", 2 }, { "read_node_peak", 22 },
	{ "read_node_avg", 20 }, { "read_node_cnt", 21 },
	{ "read_meta_peak", 13 }, { "read_meta_avg", 11 },
	{ "read_meta_cnt", 12 }, { "write_sync_data_peak", 9 },
	{ "write_sync_data_avg", 7 }, { "write_sync_data_cnt", 8 },
	{ "write_sync_node_peak", 28 }, { "write_sync_node_avg", 26 },
	{ "write_sync_node_cnt", 27 }, { "write_sync_meta_peak", 19 },
	{ "write_sync_meta_avg", 17 }, { "write_sync_meta_cnt", 18 },
	{ "write_async_data_peak", 6 }, { "write_async_data_avg", 4 },
	{ "write_async_data_cnt", 5 }, { "write_async_node_peak", 25 },
	{ "write_async_node_avg", 23 }, { "write_async_node_cnt", 24 },
	{ "write_async_meta_peak", 16 }, { "write_async_meta_avg", 14 },
	{ "write_async_meta_cnt", 15 },
};
#define LATENCY_DEV	10

static void
counters(struct tp *tp, int64_t ts, const char *kind,
    const struct counter *c, size_t n, const struct tp_ftrace_ev *e,
    unsigned devf)
{
	uint64_t dev = (uint64_t)e->v[devf];
	char devname[32], name[128];
	const char *dims[4] = { "linux_device", devname, "counter_key", NULL };
	int64_t track;
	size_t i;

	/* As upstream prints a device: the low 16 bits' major:minor. */
	snprintf(devname, sizeof(devname), "%" PRIu64 ":%" PRIu64,
	    (dev & 0xff00) >> 8, dev & 0xff);
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "%s.[%s].%s", kind, devname,
		    c[i].name);
		dims[3] = c[i].name;
		track = tp_track_intern_dims(tp, TT_COUNTER, name, TP_NULL,
		    dims, 2);
		if (track < 0)
			continue;
		tp_track_kind(tp, track, kind);
		tp_counter_insert(tp, ts, track,
		    (double)(uint64_t)e->v[c[i].field], TP_NULL);
	}
}

int
tp_ftrace_f2fs_event(struct tp *tp, int64_t ts, uint32_t cpu, int64_t pid,
    uint32_t evid, const struct tp_ftrace_ev *e)
{
	(void)cpu;
	(void)pid;
	if (evid == EV_F2FS_IOSTAT)
		counters(tp, ts, "f2fs_iostat", iostat,
		    sizeof(iostat) / sizeof(iostat[0]), e, IOSTAT_DEV);
	else if (evid == EV_F2FS_IOSTAT_LATENCY)
		counters(tp, ts, "f2fs_iostat_latency", latency,
		    sizeof(latency) / sizeof(latency[0]), e, LATENCY_DEV);
	else
		return 0;
	return 1;
}
