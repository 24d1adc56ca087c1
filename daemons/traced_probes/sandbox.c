/*
 * traced_probes' confinement, for its two processes (main.c):
 *
 *   broker (root uid, 2 capabilities)      worker (no privilege at all)
 *     tracefs accesses, checked per path  <--  producer connection,
 *     (ftrace/tfs.c), tracefs restored         ftrace parsing, /proc and
 *     when the worker dies                     /sys readers (world-readable)
 *
 * The worker parses kernel data, the riskiest input we read, and so has
 * the shortest reach: the traced account, no capabilities, and nothing
 * that creates sockets other than Unix ones.
 */
#include "config.h"

#include <fcntl.h>
#include <stddef.h>

#include <linux/capability.h>

#include "proc.h"

/* ---- the worker ---- */

/*
 * Allow-list on top of the event-loop base of proc_sandbox.c (memory,
 * epoll, reads and writes on open descriptors, Unix sockets, time).
 */
static const char *const worker_syscalls[] = {
	/* /proc, /sys and per-CPU trace_pipe_raw (from the broker). */
	"getdents64", "pread64", "readlink", "readlinkat",
	"sched_getaffinity",

	/* The ftrace controller's state files in the run directory. */
	"rename", "renameat", "renameat2", "unlink", "unlinkat", "fsync",
	"fdatasync", "ftruncate",

	/* Shared memory with traced: mapped from the descriptor it sends;
	 * a producer-provided buffer is made here. */
	"memfd_create",

	/* The retrying producer connection watches the socket directory. */
	"inotify_init1", "inotify_add_watch", "inotify_rm_watch",

	/* linux.system_info and linux.sys_stats. */
	"uname", "sysinfo",
	NULL
};

static const struct proc_sys_rule worker_rules[] = {
	/* Kernel data read-only; state files write-only, never both. */
	{ "openat", 2, O_ACCMODE, O_RDONLY },
	{ "openat", 2, O_ACCMODE, O_WRONLY },
};

static const struct proc_sandbox worker_policy = {
	.user = "traced",
	/* Nothing: tracefs goes through the broker, and the /proc and /sys
	 * files the data sources read are world-readable. */
	.caps_keep = NULL,
	.ncaps_keep = 0,
	.syscalls = worker_syscalls,
	.rules = worker_rules,
	.nrules = sizeof(worker_rules) / sizeof(worker_rules[0]),
};

int
traced_probes_sandbox(const struct proc_sandbox_opts *o,
    struct event_base *base, const char **cause)
{
	return proc_sandbox_run(&worker_policy, o, base, cause);
}

/* ---- the broker ---- */

static const int broker_caps[] = {
	/* tracefs files and directories are root's with modes that vary
	 * by kernel; the run directory belongs to the worker's user and
	 * holds the state the broker replays after a worker crash. */
	CAP_DAC_OVERRIDE,
	/* Signals reach the worker, which runs under another uid. */
	CAP_KILL,
};

static const char *const broker_syscalls[] = {
	/* tracefs: control files, instances, event directories. */
	"getdents64", "mkdir", "mkdirat", "rmdir", "unlink", "unlinkat",
	"openat", "faccessat", "faccessat2", "access", "statfs", "fstatfs",
	"rename", "renameat", "renameat2", "fsync", "ftruncate",

	/* The worker: requests, replies with descriptors, its end. */
	"recvmsg", "sendmsg", "wait4", "waitid", "kill",
	NULL
};

static const struct proc_sandbox broker_policy = {
	/* Stays root: tracefs checks the uid, not only capabilities. */
	.user = NULL,
	.caps_keep = broker_caps,
	.ncaps_keep = sizeof(broker_caps) / sizeof(broker_caps[0]),
	.syscalls = broker_syscalls,
	.rules = NULL,
	.nrules = 0,
};

int
traced_probes_broker_sandbox(const struct proc_sandbox_opts *o,
    const char **cause)
{
	struct proc_sandbox_opts bo = { NULL, o != NULL ? o->debug : 0 };

	/* The broker's user is fixed (root); only debug carries over. */
	return proc_sandbox_run(&broker_policy, &bo, NULL, cause);
}
