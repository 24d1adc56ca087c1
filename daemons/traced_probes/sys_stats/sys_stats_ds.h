/*
 * linux.sys_stats (SysStatsConfig), one instance per session: every
 * configured reader (meminfo, vmstat, stat, cpufreq, buddyinfo,
 * diskstats, psi, thermal, cpuidle) runs at its own period; the readers
 * due at one instant share one SysStats packet. Sources the kernel does
 * not expose (no cpufreq in a VM, no PSI) are skipped, said once in the
 * log.
 */
#ifndef FARO_SYS_STATS_DS_H
#define FARO_SYS_STATS_DS_H

#include <stdint.h>

#include "protos/perfetto/config/data_source_config.pb-c.h"

#define SYS_STATS_DS_NAME	"linux.sys_stats"

struct event_base;
struct producer_ep;
struct sys_stats_ds;

struct sys_stats_ds *sys_stats_ds_start(struct event_base *,
	    struct producer_ep *, uint64_t id,
	    const Perfetto__Protos__DataSourceConfig *);
void	sys_stats_ds_flush(struct sys_stats_ds *);
void	sys_stats_ds_stop(struct sys_stats_ds *);

#endif
