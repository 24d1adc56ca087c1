/*
 * traced_probes' confinement, for its two processes (main.c):
 *
 *   broker (root uid, 2 to 4 capabilities) worker (no privilege at all)
 *     tracefs accesses, checked per path  <--  producer connection,
 *     (ftrace/tfs.c), /proc/kallsyms and       ftrace parsing, /proc and
 *     hidden /proc/PID files opened for        /sys readers (world-readable
 *     it; tracefs restored when it dies        unless /proc has hidepid=)
 *
 * The worker parses kernel data, the riskiest input we read, and so has
 * the shortest reach: the traced account, no capabilities, and nothing
 * that creates sockets other than Unix ones. The broker keeps only the
 * capabilities this machine's settings make useful (broker_caps_pick).
 */
#include "config.h"

#include <fcntl.h>
#include <pwd.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include <linux/capability.h>

#include "base/log.h"
#include "daemons/traced_probes/sandbox.h"
#include "ps/procfs.h"

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

#define BROKER_CAPS_MAX	4

/* A signed sysctl: 0 and *v, or -1 (absent or not a number). */
static int
sysctl_i64(const char *path, int64_t *v)
{
	char buf[32];
	ssize_t n;

	if ((n = procfs_read(path, buf, sizeof(buf), NULL)) <= 0)
		return -1;
	while (n > 0 && buf[n - 1] == '\n')
		n--;
	return procfs_i64(buf, (size_t)n, v);
}

/*
 * Does an opener of /proc/kallsyms need CAP_SYSLOG to see real
 * addresses? The kernel decides at open: kptr_restrict 0 shows them to
 * everyone only while perf_event_paranoid <= 1, else (and with 1) asks
 * for CAP_SYSLOG; with 2 nobody sees them, so the capability is no use.
 */
static int
kallsyms_needs_syslog(void)
{
	int64_t kptr, paranoid;

	if (sysctl_i64("/proc/sys/kernel/kptr_restrict", &kptr) == -1)
		return 0;
	if (kptr == 1)
		return 1;
	if (kptr != 0)
		return 0;
	/* no perf_event_paranoid: a kernel without perf, which asks too */
	return sysctl_i64("/proc/sys/kernel/perf_event_paranoid",
	    &paranoid) == -1 || paranoid > 1;
}

/* The worker's only group, as proc_sandbox_enter() will set it. */
static uint32_t
worker_gid(const struct proc_sandbox_opts *o)
{
	struct passwd *pw;

	pw = getpwnam(o != NULL && o->user != NULL ? o->user :
	    worker_policy.user);
	/* no such account: the worker keeps our uid and gid */
	return pw != NULL ? (uint32_t)pw->pw_gid : (uint32_t)getegid();
}

/* The broker's capabilities, each with its reason. Returns the count. */
static size_t
broker_caps_pick(const struct proc_sandbox_opts *o, int *caps)
{
	char mode[40];
	size_t n = 0;

	/* tracefs files and directories are root's with modes that vary
	 * by kernel; the run directory belongs to the worker's user and
	 * holds the state the broker replays after a worker crash. */
	caps[n++] = CAP_DAC_OVERRIDE;
	/* Signals reach the worker, which runs under another uid. */
	caps[n++] = CAP_KILL;
	/* /proc mounted hidepid=: another user's /proc/PID opens only for
	 * the mount's gid= (root's group by default) or a reader that may
	 * ptrace it. When the worker asks us (main.c decides the same
	 * way) and our group does not let us in (gid=N, or ptraceable),
	 * this lets us read them; seccomp keeps ptrace(2) and
	 * process_vm_readv out of reach, so it serves those checks only. */
	if (procfs_pids_hidden(worker_gid(o), mode, sizeof(mode)) == 1 &&
	    procfs_pids_hidden((uint32_t)getegid(), mode, sizeof(mode)) ==
	    1) {
		caps[n++] = CAP_SYS_PTRACE;
		log_debug("%s: CAP_SYS_PTRACE for /proc (hidepid=%s)",
		    __func__, mode);
	}
	/* /proc/kallsyms opened for the worker (ftrace symbols) shows
	 * real addresses only when we can see them. */
	if (kallsyms_needs_syslog()) {
		caps[n++] = CAP_SYSLOG;
		log_debug("%s: CAP_SYSLOG for /proc/kallsyms", __func__);
	}
	return n;
}

static const char *const broker_syscalls[] = {
	/* tracefs: control files, instances, event directories; /proc:
	 * files opened and pid directories listed (fstatfs: on procfs). */
	"getdents64", "mkdir", "mkdirat", "rmdir", "unlink", "unlinkat",
	"openat", "faccessat", "faccessat2", "access", "statfs", "fstatfs",
	"rename", "renameat", "renameat2", "fsync", "ftruncate",

	/* glibc's qsort (pid lists) sizes its buffer from the memory size. */
	"sysinfo",

	/* The worker: requests, replies with descriptors, its end. */
	"recvmsg", "sendmsg", "wait4", "waitid", "kill",
	NULL
};

int
traced_probes_broker_sandbox(const struct proc_sandbox_opts *o,
    const char **cause)
{
	struct proc_sandbox_opts bo = { NULL, o != NULL ? o->debug : 0 };
	int caps[BROKER_CAPS_MAX];
	struct proc_sandbox policy = {
		/* Stays root: tracefs checks the uid, not only
		 * capabilities. */
		.user = NULL,
		.caps_keep = caps,
		.syscalls = broker_syscalls,
		.rules = NULL,
		.nrules = 0,
	};

	/* o names the worker's user: its group decides hidepid's gid=. */
	policy.ncaps_keep = broker_caps_pick(o, caps);
	/* The broker's user is fixed (root); only debug carries over. */
	return proc_sandbox_run(&policy, &bo, NULL, cause);
}
