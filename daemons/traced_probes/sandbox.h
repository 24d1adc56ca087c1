/*
 * traced_probes' confinement (sandbox.c), one policy per process, each
 * entered through base/proc.h's proc_sandbox_run().
 */
#ifndef FARO_TRACED_PROBES_SANDBOX_H
#define FARO_TRACED_PROBES_SANDBOX_H

#include "base/proc.h"

/* The worker that parses kernel data: no capabilities at all. */
int	traced_probes_sandbox(const struct proc_sandbox_opts *,
	    struct event_base *, const char **cause);
/* The privileged broker that opens tracefs and /proc for the worker. */
int	traced_probes_broker_sandbox(const struct proc_sandbox_opts *,
	    const char **cause);

#endif
