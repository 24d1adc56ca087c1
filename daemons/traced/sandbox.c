/*
 * traced's confinement. traced only moves bytes between sockets, shared
 * memory and descriptors that consumers hand it: once its sockets are
 * listening it needs no privilege, no path it did not open already, and
 * no network.
 */
#include "config.h"

#include <fcntl.h>
#include <stddef.h>

#include "daemons/traced/sandbox.h"

/*
 * Allow-list on top of the event-loop base of proc_sandbox.c (memory,
 * epoll, reads and writes on open descriptors, Unix sockets, time).
 */
static const char *const traced_syscalls[] = {
	/* Shared memory buffers: created, sized and sealed here. */
	"memfd_create", "ftruncate",

	/* Producers and consumers: accepted on the listening sockets. */
	"accept", "accept4",

	/* Trace files (descriptors from consumers): synced, never opened. */
	"fsync", "fdatasync", "pwrite64", "pread64",

	/* Our sockets go away at exit (fails harmlessly once dropped). */
	"unlink", "unlinkat",

	/* The system_info service packet. */
	"uname", "sysinfo",
	NULL
};

static const struct proc_sys_rule traced_rules[] = {
	/* Read-only opens (time zone, /proc/self); nothing written by path. */
	{ "openat", 2, O_ACCMODE | O_CREAT | O_TRUNC, O_RDONLY },
};

static const struct proc_sandbox traced_policy = {
	/* A dedicated account; its group owns nothing but the sockets. */
	.user = "traced",
	/* No capabilities at all: the sockets exist before the drop. */
	.caps_keep = NULL,
	.ncaps_keep = 0,
	.syscalls = traced_syscalls,
	.rules = traced_rules,
	.nrules = sizeof(traced_rules) / sizeof(traced_rules[0]),
};

int
traced_sandbox(const struct proc_sandbox_opts *o, struct event_base *base,
    const char **cause)
{
	return proc_sandbox_run(&traced_policy, o, base, cause);
}
