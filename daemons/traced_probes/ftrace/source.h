/*
 * linux.ftrace: one data source instance per session, on top of a host
 * that owns tracefs for the whole process.
 *
 *   ftrace_host (tracefs found/mounted, stale state cleaned)
 *     root "top"             root "instances/NAME"    one per tracefs root
 *       controller             controller             union of requests
 *       per-CPU readers        per-CPU readers        trace_pipe_raw fds
 *       drain timer            drain timer
 *       sources ------+        sources
 *                     |
 *   ftrace_source: its translator (its events only), one bundle per CPU,
 *                  its sink (the session's trace writer)
 *
 * Reading trace_pipe_raw consumes the data, so each root has one reader
 * per CPU and every page read goes through every source of that root;
 * each source keeps the records of its own events.
 */
#ifndef FARO_FTRACE_SOURCE_H
#define FARO_FTRACE_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "protos/perfetto/config/ftrace/ftrace_config.pb-c.h"

#include "translate.h"

struct event_base;
struct ftrace_host;
struct ftrace_source;

/*
 * base may be NULL (no drain timer: the caller drains). tracefs is the
 * mount to use (NULL: find or mount it). state_dir holds the controller's
 * state files; stale ones are replayed here.
 */
struct ftrace_host *ftrace_host_new(struct event_base *base,
	    const char *tracefs, const char *state_dir, const char **cause);
void	ftrace_host_free(struct ftrace_host *);
const char *ftrace_host_tracefs(const struct ftrace_host *);

/* Sets up and starts tracing; NULL with err filled on failure. */
struct ftrace_source *ftrace_source_new(struct ftrace_host *,
	    const Perfetto__Protos__FtraceConfig *cfg, struct ftrace_sink sink,
	    char *err, size_t errsz);
/*
 * Reads what the kernel has for this source's root, translates it and
 * closes the open bundles (a flush). Returns pages read, or -1.
 */
int	ftrace_source_drain(struct ftrace_source *);
/* Drains, writes the end stats, releases the kernel state. */
void	ftrace_source_free(struct ftrace_source *);
/*
 * How long ftrace_source_new took (CLOCK_BOOTTIME ns, as trace
 * timestamps): from its call to tracing_on (the kernel records) and to
 * its return (translation planned, readers open), with the tracefs
 * accesses (broker round trips) made by then.
 */
struct ftrace_start_timing {
	uint64_t	begin_ns;
	uint64_t	on_ns;
	uint64_t	ready_ns;
	uint64_t	calls_on;
	uint64_t	calls_ready;
};
void	ftrace_source_timing(const struct ftrace_source *,
	    struct ftrace_start_timing *);
/* Sum over CPUs of this source's counters. */
void	ftrace_source_counters(const struct ftrace_source *,
	    struct ftrace_cpu_counters *sum);
/* The events that were asked for but do not exist / were refused. */
size_t	ftrace_source_unknown(const struct ftrace_source *,
	    const char *const **events);
size_t	ftrace_source_failed(const struct ftrace_source *,
	    const char *const **events);

#endif
