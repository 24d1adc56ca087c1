/*
 * trace_processor's confinement (sandbox.c), entered through base/proc.h's
 * proc_sandbox_run().
 */
#ifndef FARO_TRACE_PROCESSOR_SANDBOX_H
#define FARO_TRACE_PROCESSOR_SANDBOX_H

#include "base/proc.h"

/* --httpd and --live, once their socket is bound. */
int	trace_processor_sandbox(const struct proc_sandbox_opts *,
	    struct event_base *, const char **cause);
/* The shell and one-shot modes, once their files are open. */
int	trace_processor_sandbox_shell(const char **cause);

#endif
