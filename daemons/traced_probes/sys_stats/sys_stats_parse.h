/*
 * linux.sys_stats parsers: /proc/meminfo, vmstat, stat, diskstats, the
 * pressure files (cpu, io, memory), buddyinfo text in, SysStats fields
 * out, written straight into the open SysStats message of a pbw (tests
 * decode the same bytes).
 *
 * Inputs are untrusted: unknown keys are skipped, a number that does not
 * parse drops its entry (never a made-up zero), short lines write what
 * they have. Each parser returns the number of entries written.
 */
#ifndef FARO_SYS_STATS_PARSE_H
#define FARO_SYS_STATS_PARSE_H

#include <stddef.h>
#include <stdint.h>

#include "protos/perfetto/config/sys_stats/sys_stats_config.pb-c.h"

struct pbw;

/* SysStats field numbers used by the data source too. */
enum {
	SS_COLLECTION_END = 9,
	SS_CPUFREQ_KHZ = 11,
	SS_THERMAL_ZONE = 15,
	SS_CPUIDLE_STATE = 16,
};

#define SS_MEMINFO_MAX	64	/* > MeminfoCounters' largest value */
#define SS_VMSTAT_MAX	256	/* > VmstatCounters' largest value */

/* Which counters a session wants (an empty list in the config: all). */
struct sys_stats_filter {
	uint8_t		meminfo[SS_MEMINFO_MAX];
	uint8_t		vmstat[SS_VMSTAT_MAX];
	uint32_t	stat;		/* 1 << SysStatsConfig.StatCounters */
};

void	sys_stats_filter_init(struct sys_stats_filter *,
	    const Perfetto__Protos__SysStatsConfig *);

int	sys_stats_meminfo_untrusted(const char *, size_t,
	    const struct sys_stats_filter *, struct pbw *);
int	sys_stats_vmstat_untrusted(const char *, size_t,
	    const struct sys_stats_filter *, struct pbw *);
/* ns_per_tick: 1e9 / USER_HZ (cpu times are in ticks). */
int	sys_stats_stat_untrusted(const char *, size_t,
	    const struct sys_stats_filter *, uint64_t ns_per_tick,
	    struct pbw *);
int	sys_stats_diskstats_untrusted(const char *, size_t, struct pbw *);
/* One /proc/pressure file; some/full are its PsiResource values. */
int	sys_stats_psi_untrusted(const char *, size_t, int some, int full,
	    struct pbw *);
int	sys_stats_buddyinfo_untrusted(const char *, size_t, struct pbw *);

/* The vmstat key of a VmstatCounters value ("nr_free_pages"), or NULL. */
const char *sys_stats_vmstat_name(int value);

#endif
