/*
 * The ftrace controller: the one owner of a tracefs root's settings.
 *
 * Several sessions may trace at once. Each adds a request (events, buffer
 * size, clock); the controller applies the union of the events and the
 * largest buffer, and when the last request goes it puts every file it
 * touched back to its original value.
 *
 * Crash safety: before the first write to any tracefs file the original
 * value is appended to a state file (state_dir/ftrace-state.NAME, written
 * atomically). ftrace_ctl_cleanup() replays those files after a crash, at
 * start-up or from `traced_probes --cleanup-after-crash`.
 *
 * A request with an instance name gets a tracefs instance of its own
 * (instances/NAME, created if missing and removed if we created it).
 *
 * Function graph (current_tracer = function_graph, with set_ftrace_filter,
 * set_graph_function and max_graph_depth) is a single-owner setting: the
 * kernel refuses to change the tracer while any trace_pipe_raw is open,
 * so only a request that comes to a root nobody traces yet can turn it
 * on. A request for it on a root already in use fails, with nothing
 * changed (use instance_name for a separate root); a request without it
 * can join a function graph session (its own events only: the graph
 * records are skipped). The tracer stays on until the last request on
 * the root goes, then everything is put back as usual. A kernel without
 * function_graph in available_tracers, or that refuses the tracer
 * (lockdown: EPERM), fails the request with tracefs unchanged.
 */
#ifndef FARO_FTRACE_CONTROLLER_H
#define FARO_FTRACE_CONTROLLER_H

#include <stddef.h>
#include <stdint.h>

#include "tfs.h"

#define FTRACE_DEFAULT_BUFFER_KB	2048
#define FTRACE_MAX_BUFFER_KB		(64 * 1024)

struct ftrace_ctl;

/* A dynamic event to create, e.g. a kprobe. */
struct ftrace_dyn_event {
	const char	*file;	/* "kprobe_events" */
	const char	*def;	/* "p:perfetto_kprobes/sym sym" */
	const char	*name;	/* "perfetto_kprobes/sym" */
};

struct ftrace_ctl_req {
	const char *const	*events;	/* "group/name", expanded */
	size_t			 nevents;
	uint32_t		 buffer_kb;	/* per CPU; 0: default */
	uint32_t		 buffer_percent; /* wake readers at; 0: no */
	const char		*clock;		/* NULL: "boot" */
	int			 preserve;	/* keep the old buffer contents */
	const char		*cpumask;	/* NULL: all CPUs */
	const int32_t		*tids;		/* set_event_pid */
	size_t			 ntids;
	const struct ftrace_dyn_event *dyn;	/* created before enabling */
	size_t			 ndyn;
	/*
	 * syscall_events: raw_syscalls records only for these syscall
	 * numbers. A request with raw_syscalls events but no list wants them
	 * all, and then no filter is set.
	 */
	const long		*syscalls;
	size_t			 nsyscalls;
	/* enable_function_graph and its filters (see above). */
	int			 function_graph;
	const char *const	*function_filters;	/* set_ftrace_filter */
	size_t			 nfunction_filters;
	const char *const	*graph_roots;		/* set_graph_function */
	size_t			 ngraph_roots;
	uint32_t		 graph_max_depth;	/* 0: unlimited */
};

/*
 * A controller for top (the tracefs mount) or, with instance, for
 * top/instances/instance. NULL with *cause on bad names or failure.
 */
struct ftrace_ctl *ftrace_ctl_new(const char *top, const char *instance,
	    const char *state_dir, const char **cause);
/* Restores everything (as if every request had been removed). */
void	ftrace_ctl_free(struct ftrace_ctl *);
const char *ftrace_ctl_root(const struct ftrace_ctl *);
const char *ftrace_ctl_instance(const struct ftrace_ctl *);
int	ftrace_ctl_nrequests(const struct ftrace_ctl *);

/*
 * Applies a request. enabled[i] (may be NULL) is set to 1 for each event
 * that is now on, 0 for one the kernel refused. Returns a handle > 0, or
 * -1 with err filled when nothing could be applied.
 */
int	ftrace_ctl_add(struct ftrace_ctl *, const struct ftrace_ctl_req *,
	    int *enabled, char *err, size_t errsz);
/* Drops a request; the last one restores the original state. */
void	ftrace_ctl_remove(struct ftrace_ctl *, int handle);
/* The per-CPU buffer size in effect, in KiB (0 before any request). */
uint32_t ftrace_ctl_buffer_kb(const struct ftrace_ctl *);
/* 1 while a request's function graph tracer is on. */
int	ftrace_ctl_function_graph(const struct ftrace_ctl *);
/* The clock in effect ("boot", "mono_raw", ...). */
const char *ftrace_ctl_clock(const struct ftrace_ctl *);

/*
 * Replays every state file left in state_dir by a process that died.
 * Returns the number of files replayed, or -1 with *cause.
 */
int	ftrace_ctl_cleanup(const char *state_dir, const char **cause);

#endif
