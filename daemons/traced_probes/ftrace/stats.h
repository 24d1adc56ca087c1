/*
 * FtraceStats: the kernel's per-CPU ring-buffer counters
 * (per_cpu/cpuN/stats) at the start and end of a session, with the setup
 * errors (unknown or refused events) and the parse errors we met.
 */
#ifndef FARO_FTRACE_STATS_H
#define FARO_FTRACE_STATS_H

#include <stdint.h>

#include "libshm/pbw.h"

struct ftrace_cpu_stat {
	uint64_t	entries;
	uint64_t	overrun;
	uint64_t	commit_overrun;
	uint64_t	bytes;
	uint64_t	dropped_events;
	uint64_t	read_events;
	double		oldest_event_ts;
	double		now_ts;
};

enum { FTRACE_PHASE_START = 1, FTRACE_PHASE_END = 2 };

/* Parses per_cpu/cpuN/stats text; unknown lines are ignored. */
void	ftrace_cpu_stat_parse(const char *text, struct ftrace_cpu_stat *);
int	ftrace_cpu_stat_read(const char *root, int cpu,
	    struct ftrace_cpu_stat *);

struct ftrace_stats_msg {
	int				 phase;
	const struct ftrace_cpu_stat	*cpus;
	int				 ncpus;
	const char *const		*unknown_events;
	size_t				 nunknown;
	const char *const		*failed_events;
	size_t				 nfailed;
	const int			*parse_errors;	/* ftrace_status */
	size_t				 nparse_errors;
	int				 preserve;
	uint32_t			 buffer_pages;
	int				 ksyms;	/* symbolize_ksyms asked */
	uint32_t			 ksyms_parsed;
	uint32_t			 ksyms_mem_kb;
};

/* Writes TracePacket.ftrace_stats (the packet must be open). */
void	ftrace_stats_write(struct pbw *, const struct ftrace_stats_msg *);

#endif
