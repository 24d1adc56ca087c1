/*
 * linux.system_info: once per session, a SystemInfo packet (utsname,
 * page size, CPU count, USER_HZ, RAM) and a CpuInfo packet (per CPU: the
 * processor name, its frequencies from cpufreq, capacity, and the ARM
 * identifier registers where /proc/cpuinfo has them).
 */
#ifndef FARO_SYSTEM_INFO_DS_H
#define FARO_SYSTEM_INFO_DS_H

#include <stddef.h>
#include <stdint.h>

#include "protos/perfetto/config/data_source_config.pb-c.h"

#define SYSTEM_INFO_DS_NAME	"linux.system_info"

struct event_base;
struct producer_ep;
struct pbw;
struct system_info_ds;

struct system_info_ds *system_info_ds_start(struct event_base *,
	    struct producer_ep *, uint64_t id,
	    const Perfetto__Protos__DataSourceConfig *);
void	system_info_ds_flush(struct system_info_ds *);
void	system_info_ds_stop(struct system_info_ds *);

/* One CPU's block of /proc/cpuinfo. */
struct si_cpu {
	int		 index;			/* "processor" */
	char		 processor[128];	/* model name, or "" */
	int		 has_arm;
	uint32_t	 implementer, architecture, variant, part, revision;
};

/*
 * Parses /proc/cpuinfo (untrusted) into at most max CPUs; returns the
 * count. A machine-wide "Processor"/"Hardware" line names the CPUs whose
 * block has no model name.
 */
int	system_info_cpuinfo_untrusted(const char *, size_t,
	    struct si_cpu *, int max);
/*
 * cpufreq frequency lists (kHz): scaling_available_frequencies (words on
 * one line), or stats/time_in_state (per_line: the first word of each
 * line). Returns the count, at most max.
 */
int	system_info_freqs_untrusted(const char *, size_t, int per_line,
	    uint32_t *, int max);
/* CpuInfo.cpus entry. */
void	system_info_write_cpu(struct pbw *, const struct si_cpu *,
	    const uint32_t *freqs, int nfreqs, int has_capacity,
	    uint32_t capacity);

#endif
