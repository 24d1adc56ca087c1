/*
 * trace_processor's confinement, as a daemon (--httpd, --live) and as a
 * shell or one-shot run (trace_processor TRACE, -q/-Q, --run-metrics). It parses
 * untrusted traces that arrive over HTTP, so once its listening socket is
 * bound it keeps no privilege, opens nothing for writing and makes no
 * socket but Unix ones (--live's connection to traced): HTTP peers come
 * in through accept(2) on the bound socket. The one socket that goes out
 * over IP, export clickhouse's, is connected before the drop.
 */
#include "config.h"

#include <fcntl.h>
#include <stddef.h>

#include "daemons/trace_processor/sandbox.h"

/*
 * Allow-list on top of the event-loop base of proc_sandbox.c (memory,
 * epoll, reads and writes on open descriptors, Unix sockets, time).
 */
static const char *const trace_processor_syscalls[] = {
	/* HTTP clients, on the socket bound before the drop. */
	"accept", "accept4",

	/* SQLite's in-memory database and its page cache. */
	"pread64", "pwrite64", "getcwd", "access", "faccessat", "faccessat2",

	/* --live: the retrying client watches traced's socket directory. */
	"inotify_init1", "inotify_add_watch", "inotify_rm_watch",

	/* Metrics about the machine we run on. */
	"uname", "sysinfo",

	/* --metric-extension directories, listed once confined. */
	"getdents64",
	NULL
};

static const struct proc_sys_rule trace_processor_rules[] = {
	/* Read-only opens; the daemon writes nothing by path. */
	{ "openat", 2, O_ACCMODE | O_CREAT | O_TRUNC, O_RDONLY },
};

static const struct proc_sandbox trace_processor_policy = {
	/* Shares traced's account: a member of the consumer group can
	 * connect --live to traced. */
	.user = "traced",
	/* No capabilities: port 9001 needs none, and a lower port is bound
	 * before the drop. */
	.caps_keep = NULL,
	.ncaps_keep = 0,
	.syscalls = trace_processor_syscalls,
	.rules = trace_processor_rules,
	.nrules = sizeof(trace_processor_rules) /
	    sizeof(trace_processor_rules[0]),
	/* A file's compressed packets are decompressed on a second thread
	 * (importers/tp_unpack.c), its records parsed on a third
	 * (importers/tp_pipe.c). */
	.threads = 1,
};

int
trace_processor_sandbox(const struct proc_sandbox_opts *o,
    struct event_base *base, const char **cause)
{
	return proc_sandbox_run(&trace_processor_policy, o, base, cause);
}

/*
 * The shell and one-shot modes, once the trace and the query file are
 * open: the same allow-list, no capabilities, no new privileges, but the
 * user who started it stays (what it prints is theirs).
 */
int
trace_processor_sandbox_shell(const char **cause)
{
	struct proc_sandbox shell = trace_processor_policy;
	struct proc_sandbox_opts o;

	shell.user = NULL;
	proc_sandbox_opts_init(&o);
	if (proc_sandbox_run(&shell, &o, NULL, cause) == -1)
		return -1;
	proc_sandbox_test_now();
	return 0;
}
