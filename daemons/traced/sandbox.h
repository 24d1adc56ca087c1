/*
 * traced's confinement (sandbox.c): its user, its capabilities and its
 * seccomp allow-list, entered through base/proc.h's proc_sandbox_run().
 */
#ifndef FARO_TRACED_SANDBOX_H
#define FARO_TRACED_SANDBOX_H

#include "base/proc.h"

int	traced_sandbox(const struct proc_sandbox_opts *, struct event_base *,
	    const char **cause);

#endif
