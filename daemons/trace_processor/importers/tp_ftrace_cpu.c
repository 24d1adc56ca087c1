/*
 * ftrace events that are counters of a cpu: its frequency limits
 * (cpu_frequency_limits) and the scheduler's view of it
 * (sched_cpu_util_cfs), on tracks named and typed as upstream's.
 */
#include <inttypes.h>
#include <stdio.h>

#include "tp_int.h"

#define EV_CPU_FREQUENCY_LIMITS	12
#define EV_SCHED_CPU_UTIL_CFS	421

/* "Cpu N <what>", as upstream names these tracks. */
static void
cpu_counter(struct tp *tp, int64_t ts, const char *kind, const char *what,
    int64_t cpu, double v)
{
	char name[64];

	snprintf(name, sizeof(name), "Cpu %" PRId64 " %s", cpu, what);
	tp_ftrace_cpu_counter(tp, ts, kind, name, cpu, v);
}

void
tp_ftrace_cpu_freq_limits(struct tp *tp, int64_t ts, int64_t cpu,
    const double *max, const double *min)
{
	if (max != NULL)
		cpu_counter(tp, ts, "cpu_max_frequency_limit",
		    "Max Freq Limit", cpu, *max);
	if (min != NULL)
		cpu_counter(tp, ts, "cpu_min_frequency_limit",
		    "Min Freq Limit", cpu, *min);
}

int
tp_ftrace_cpu_event(struct tp *tp, int64_t ts, uint32_t cpu, int64_t pid,
    uint32_t evid, const struct tp_ftrace_ev *e)
{
	double max, min;
	int64_t c;

	(void)cpu;
	(void)pid;
	switch (evid) {
	case EV_CPU_FREQUENCY_LIMITS:
		/* min_freq 1, max_freq 2, cpu_id 3 */
		max = (double)(uint32_t)e->v[2];
		min = (double)(uint32_t)e->v[1];
		tp_ftrace_cpu_freq_limits(tp, ts, (uint32_t)e->v[3], &max,
		    &min);
		return 1;
	case EV_SCHED_CPU_UTIL_CFS:
		/* capacity 2, cpu 4, cpu_util 6, nr_running 11 */
		c = (uint32_t)e->v[4];
		cpu_counter(tp, ts, "cpu_utilization", "Util",
		    c, (double)(uint64_t)e->v[6]);
		cpu_counter(tp, ts, "cpu_capacity", "Cap", c,
		    (double)(uint64_t)e->v[2]);
		cpu_counter(tp, ts, "cpu_nr_running",
		    "Nr Running", c,
		    (double)(uint64_t)e->v[11]);
		return 1;
	}
	return 0;
}
