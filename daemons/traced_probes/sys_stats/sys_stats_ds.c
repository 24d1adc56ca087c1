/*
 * linux.sys_stats data source instances (sys_stats_ds.h).
 */
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "protos/perfetto/trace/sys_stats/sys_stats.pb-c.h"

#include "base/log.h"
#include "packet.h"
#include "procfs.h"
#include "libipc/producer_endpoint.h"
#include "sys_stats_ds.h"
#include "sys_stats_parse.h"

#define SS_MIN_PERIOD_MS	10	/* as upstream */
#define SS_BUF_SIZE		(256 * 1024)	/* /proc/stat's intr line */
#define SS_CPU_DIR		"/sys/devices/system/cpu"
#define SS_THERMAL_DIR		"/sys/class/thermal"

enum reader {
	R_MEMINFO, R_VMSTAT, R_STAT, R_CPUFREQ, R_BUDDY, R_DISK, R_PSI,
	R_THERMAL, R_CPUIDLE, R_N
};

static const char *const reader_names[R_N] = {
	"meminfo", "vmstat", "stat", "cpufreq", "buddyinfo", "diskstat",
	"psi", "thermal", "cpuidle",
};

struct sys_stats_ds {
	struct producer_ep	*ep;
	uint64_t		 id;
	struct shm_writer	*w;
	struct event		*ev;
	struct sys_stats_filter	 filter;
	uint64_t		 ns_per_tick;
	int			 ncpus;
	uint32_t		 period_ms[R_N];	/* 0: off */
	uint64_t		 due_ms[R_N];
	int			 warned[R_N];
	char			*buf;
};

static uint64_t
now_ms(void)
{
	return procfs_boottime_ns() / 1000000;
}

/* A /proc file into the buffer; 0 length when it cannot be read. */
static size_t
read_proc(struct sys_stats_ds *ds, enum reader r, const char *path)
{
	ssize_t n;

	if ((n = procfs_read(path, ds->buf, SS_BUF_SIZE, NULL)) == -1) {
		if (!ds->warned[r]++)
			log_info("sys_stats: %s: %s (not collected)", path,
			    strerror(errno));
		return 0;
	}
	return (size_t)n;
}

static void
read_cpufreq(struct sys_stats_ds *ds, struct pbw *w)
{
	char path[128];
	uint64_t khz[1024];
	int n = ds->ncpus < 1024 ? ds->ncpus : 1024, found = 0;

	for (int c = 0; c < n; c++) {
		snprintf(path, sizeof(path),
		    SS_CPU_DIR "/cpu%d/cpufreq/scaling_cur_freq", c);
		if (procfs_read_u64(path, &khz[c]) == 0)
			found++;
		else
			khz[c] = 0;	/* offline: keeps the CPU index */
	}
	if (found == 0) {
		if (!ds->warned[R_CPUFREQ]++)
			log_info("sys_stats: no cpufreq in %s (not collected)",
			    SS_CPU_DIR);
		return;
	}
	for (int c = 0; c < n; c++)
		pbw_varint(w, SS_CPUFREQ_KHZ, khz[c] > UINT32_MAX ?
		    UINT32_MAX : khz[c]);
}

static void
read_thermal(struct sys_stats_ds *ds, struct pbw *w)
{
	struct dirent *de;
	char path[512];
	uint64_t milli;
	ssize_t n;
	DIR *d;

	if ((d = opendir(SS_THERMAL_DIR)) == NULL) {
		if (!ds->warned[R_THERMAL]++)
			log_info("sys_stats: %s: %s (not collected)",
			    SS_THERMAL_DIR, strerror(errno));
		return;
	}
	while ((de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, "thermal_zone", 12) != 0)
			continue;
		pbw_nested_begin(w, SS_THERMAL_ZONE);
		pbw_string(w, 1, de->d_name);
		snprintf(path, sizeof(path), SS_THERMAL_DIR "/%s/temp",
		    de->d_name);
		/* millidegrees; SysStats carries degrees, as upstream */
		if (procfs_read_u64(path, &milli) == 0)
			pbw_varint(w, 2, milli / 1000);
		n = procfs_readf(ds->buf, SS_BUF_SIZE, NULL,
		    SS_THERMAL_DIR "/%s/type", de->d_name);
		if (n > 0)
			pbw_bytes(w, 3, ds->buf, strcspn(ds->buf, "\n"));
		pbw_nested_end(w);
	}
	closedir(d);
}

static void
read_cpuidle(struct sys_stats_ds *ds, struct pbw *w)
{
	struct dirent *de;
	char path[256];
	uint64_t us;
	ssize_t n;
	DIR *d;
	int any = 0;

	for (int c = 0; c < ds->ncpus; c++) {
		snprintf(path, sizeof(path), SS_CPU_DIR "/cpu%d/cpuidle", c);
		if ((d = opendir(path)) == NULL)
			continue;
		any = 1;
		pbw_nested_begin(w, SS_CPUIDLE_STATE);
		pbw_varint(w, 1, (uint64_t)c);
		while ((de = readdir(d)) != NULL) {
			if (strncmp(de->d_name, "state", 5) != 0)
				continue;
			snprintf(path, sizeof(path),
			    SS_CPU_DIR "/cpu%d/cpuidle/%.32s/time", c,
			    de->d_name);
			if (procfs_read_u64(path, &us) == -1)
				continue;
			n = procfs_readf(ds->buf, SS_BUF_SIZE, NULL,
			    SS_CPU_DIR "/cpu%d/cpuidle/%.32s/name", c,
			    de->d_name);
			if (n <= 0)
				continue;
			pbw_nested_begin(w, 2);
			pbw_bytes(w, 1, ds->buf, strcspn(ds->buf, "\n"));
			pbw_varint(w, 2, us);
			pbw_nested_end(w);
		}
		pbw_nested_end(w);
		closedir(d);
	}
	if (!any && !ds->warned[R_CPUIDLE]++)
		log_info("sys_stats: no cpuidle in %s (not collected)",
		    SS_CPU_DIR);
}

static void
read_psi(struct sys_stats_ds *ds, struct pbw *w)
{
	static const struct {
		const char	*path;
		int		 some, full;
	} files[] = {
		{ "/proc/pressure/cpu",
		  PERFETTO__PROTOS__SYS_STATS__PSI_SAMPLE__PSI_RESOURCE__PSI_RESOURCE_CPU_SOME,
		  PERFETTO__PROTOS__SYS_STATS__PSI_SAMPLE__PSI_RESOURCE__PSI_RESOURCE_CPU_FULL },
		{ "/proc/pressure/io",
		  PERFETTO__PROTOS__SYS_STATS__PSI_SAMPLE__PSI_RESOURCE__PSI_RESOURCE_IO_SOME,
		  PERFETTO__PROTOS__SYS_STATS__PSI_SAMPLE__PSI_RESOURCE__PSI_RESOURCE_IO_FULL },
		{ "/proc/pressure/memory",
		  PERFETTO__PROTOS__SYS_STATS__PSI_SAMPLE__PSI_RESOURCE__PSI_RESOURCE_MEMORY_SOME,
		  PERFETTO__PROTOS__SYS_STATS__PSI_SAMPLE__PSI_RESOURCE__PSI_RESOURCE_MEMORY_FULL },
	};
	size_t n;

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		if ((n = read_proc(ds, R_PSI, files[i].path)) > 0)
			sys_stats_psi_untrusted(ds->buf, n, files[i].some,
			    files[i].full, w);
}

static void
read_one(struct sys_stats_ds *ds, enum reader r, struct pbw *w)
{
	size_t n;

	switch (r) {
	case R_MEMINFO:
		if ((n = read_proc(ds, r, "/proc/meminfo")) > 0)
			sys_stats_meminfo_untrusted(ds->buf, n, &ds->filter, w);
		break;
	case R_VMSTAT:
		if ((n = read_proc(ds, r, "/proc/vmstat")) > 0)
			sys_stats_vmstat_untrusted(ds->buf, n, &ds->filter, w);
		break;
	case R_STAT:
		if ((n = read_proc(ds, r, "/proc/stat")) > 0)
			sys_stats_stat_untrusted(ds->buf, n, &ds->filter,
			    ds->ns_per_tick, w);
		break;
	case R_BUDDY:
		if ((n = read_proc(ds, r, "/proc/buddyinfo")) > 0)
			sys_stats_buddyinfo_untrusted(ds->buf, n, w);
		break;
	case R_DISK:
		if ((n = read_proc(ds, r, "/proc/diskstats")) > 0)
			sys_stats_diskstats_untrusted(ds->buf, n, w);
		break;
	case R_CPUFREQ:
		read_cpufreq(ds, w);
		break;
	case R_PSI:
		read_psi(ds, w);
		break;
	case R_THERMAL:
		read_thermal(ds, w);
		break;
	case R_CPUIDLE:
		read_cpuidle(ds, w);
		break;
	case R_N:
		break;
	}
}

/* Reads every reader that is due into one packet, then sleeps. */
static void
ss_tick(evutil_socket_t fd, short what, void *arg)
{
	struct sys_stats_ds *ds = arg;
	struct timeval tv;
	struct pbw *w = NULL;
	uint64_t now = now_ms(), next = UINT64_MAX;

	for (int r = 0; r < R_N; r++) {
		if (ds->period_ms[r] == 0)
			continue;
		/* 1 ms early counts as due: timers do not fire exactly */
		if (ds->due_ms[r] <= now + 1) {
			if (w == NULL) {
				w = probe_packet_begin(ds->w,
				    procfs_boottime_ns());
				pbw_nested_begin(w, TP_SYS_STATS);
			}
			read_one(ds, (enum reader)r, w);
			ds->due_ms[r] += ds->period_ms[r];
			/* fell behind (a stalled loop): skip, do not burst */
			if (ds->due_ms[r] <= now)
				ds->due_ms[r] = now + ds->period_ms[r];
		}
		if (ds->due_ms[r] < next)
			next = ds->due_ms[r];
	}
	if (w != NULL) {
		pbw_varint(w, SS_COLLECTION_END, procfs_boottime_ns());
		pbw_nested_end(w);
		shm_writer_packet_end(ds->w);
	}
	if (next == UINT64_MAX)
		return;
	now = now_ms();
	next = next > now ? next - now : 0;
	tv.tv_sec = (time_t)(next / 1000);
	tv.tv_usec = (suseconds_t)(next % 1000) * 1000;
	evtimer_add(ds->ev, &tv);
}

struct sys_stats_ds *
sys_stats_ds_start(struct event_base *base, struct producer_ep *ep,
    uint64_t id, const Perfetto__Protos__DataSourceConfig *cfg)
{
	const Perfetto__Protos__SysStatsConfig *sc = cfg->sys_stats_config;
	struct sys_stats_ds *ds;
	const char *cause = NULL;
	uint64_t now;
	long hz;
	int any = 0;

	if ((ds = calloc(1, sizeof(*ds))) == NULL) {
		log_warnx("%s: out of memory", __func__);
		return NULL;
	}
	ds->ep = ep;
	ds->id = id;
	sys_stats_filter_init(&ds->filter, sc);
	hz = sysconf(_SC_CLK_TCK);
	ds->ns_per_tick = 1000000000ull / (uint64_t)(hz > 0 ? hz : 100);
	ds->ncpus = (int)sysconf(_SC_NPROCESSORS_CONF);
	if (ds->ncpus < 1)
		ds->ncpus = 1;
	if (sc != NULL) {
		ds->period_ms[R_MEMINFO] = sc->meminfo_period_ms;
		ds->period_ms[R_VMSTAT] = sc->vmstat_period_ms;
		ds->period_ms[R_STAT] = sc->stat_period_ms;
		ds->period_ms[R_CPUFREQ] = sc->cpufreq_period_ms;
		ds->period_ms[R_BUDDY] = sc->buddyinfo_period_ms;
		ds->period_ms[R_DISK] = sc->diskstat_period_ms;
		ds->period_ms[R_PSI] = sc->psi_period_ms;
		ds->period_ms[R_THERMAL] = sc->thermal_period_ms;
		ds->period_ms[R_CPUIDLE] = sc->cpuidle_period_ms;
		if (sc->devfreq_period_ms || sc->gpufreq_period_ms ||
		    sc->slab_period_ms)
			log_info("%s: devfreq, gpufreq and slab counters are "
			    "not collected", __func__);
	}
	now = now_ms();
	for (int r = 0; r < R_N; r++) {
		if (ds->period_ms[r] > 0 &&
		    ds->period_ms[r] < SS_MIN_PERIOD_MS) {
			log_info("%s: %s period %u ms raised to %u", __func__,
			    reader_names[r], ds->period_ms[r],
			    SS_MIN_PERIOD_MS);
			ds->period_ms[r] = SS_MIN_PERIOD_MS;
		}
		ds->due_ms[r] = now;	/* a first sample at the start */
		any |= ds->period_ms[r] > 0;
	}
	ds->buf = malloc(SS_BUF_SIZE);
	ds->ev = evtimer_new(base, ss_tick, ds);
	ds->w = producer_ep_writer_new(ep, cfg->target_buffer,
	    SHM_POLICY_DROP, &cause);
	if (ds->buf == NULL || ds->ev == NULL || ds->w == NULL) {
		log_warnx("%s: instance %llu: %s", __func__,
		    (unsigned long long)id, cause ? cause : "out of memory");
		sys_stats_ds_stop(ds);
		return NULL;
	}
	if (any)
		ss_tick(-1, 0, ds);
	shm_writer_flush(ds->w);
	return ds;
}

void
sys_stats_ds_flush(struct sys_stats_ds *ds)
{
	shm_writer_flush(ds->w);
}

void
sys_stats_ds_stop(struct sys_stats_ds *ds)
{
	if (ds->ev != NULL)
		event_free(ds->ev);
	if (ds->w != NULL)
		producer_ep_writer_free(ds->ep, ds->w);
	free(ds->buf);
	free(ds);
}
