/*
 * Process plumbing shared by every faro daemon, written once.
 *
 * A daemon's main() follows one fixed order:
 *
 *   log_init()                       stderr, or syslog once in background
 *   proc_daemonize()                 only with --background
 *   open sockets, files, tracefs     everything that needs privilege
 *   proc_sandbox_enter()             chroot, drop ids, keep named caps,
 *                                    no_new_privs, seccomp allow-list
 *   proc_signals_new()               SIGINT/SIGTERM/SIGHUP via libevent
 *   proc_notify_ready()              systemd Type=notify readiness
 *   event_base_dispatch()
 */
#ifndef FARO_PROC_H
#define FARO_PROC_H

#include <stddef.h>
#include <stdint.h>

struct event_base;
struct proc_signals;

/*
 * Signals through libevent: on_term runs for SIGINT and SIGTERM (NULL:
 * break the loop), on_hup for SIGHUP (NULL: ignored). SIGPIPE is ignored
 * for the whole process: failed writes return EPIPE instead.
 */
typedef void proc_signal_fn(int signo, void *arg);
struct proc_signals *proc_signals_new(struct event_base *,
		    proc_signal_fn *on_term, proc_signal_fn *on_hup, void *arg);
void		 proc_signals_free(struct proc_signals *);

/*
 * systemd readiness (sd_notify protocol): sends state (e.g. "READY=1",
 * "STOPPING=1", "STATUS=...") as one datagram to $NOTIFY_SOCKET, an
 * absolute path or "@abstract" name. Returns 1 if sent, 0 if
 * NOTIFY_SOCKET is unset, -1 on error (logged).
 */
int		 proc_notify(const char *state);
int		 proc_notify_ready(void);

/*
 * --background: forks, the parent exits 0 once the child has a new
 * session; the child chdirs to / and points stdio at /dev/null. Returns 0
 * in the child, -1 on error (in the original process).
 */
int		 proc_daemonize(void);

/*
 * Privilege drop, in this order: chroot (if set), setgroups to the
 * target group only, setresgid, setresuid, keep exactly the listed
 * capabilities (permitted + effective; ambient never), PR_SET_NO_NEW_PRIVS,
 * then the seccomp allow-list. Any NULL/empty member skips its step. A
 * failure of any step is fatal for the caller (returns -1, *cause set,
 * errno kept): a daemon must not go on half-confined.
 */
/*
 * An argument-level seccomp rule: name is allowed when
 * (argument[arg] & mask) == value. Several rules for one name are ORed.
 * A syscall goes either in syscalls or in rules, not both.
 */
struct proc_sys_rule {
	const char		*name;
	unsigned		 arg;		/* 0..5 */
	uint64_t		 mask;
	uint64_t		 value;
};

struct proc_sandbox {
	const char		*user;		/* run as this user */
	const char		*group;		/* NULL: the user's group */
	const char		*chroot_dir;
	const int		*caps_keep;	/* CAP_* values */
	size_t			 ncaps_keep;
	const char *const	*syscalls;	/* allow-list, NULL-terminated */
	const struct proc_sys_rule *rules;	/* argument-level allow-list */
	size_t			 nrules;
	int			 seccomp_debug;	/* trap + log, not kill */
	/* Starts threads: clone with CLONE_THREAD only (never a process),
	 * clone3 answered ENOSYS (its flags are out of a filter's reach;
	 * glibc then uses clone), and what a new thread sets up. */
	int			 threads;
};

int		 proc_sandbox_enter(const struct proc_sandbox *,
		    const char **cause);

/*
 * What the operator may change about a daemon's sandbox. The sandbox is
 * always on; these only pick the user and make denials non-fatal.
 */
struct proc_sandbox_opts {
	const char		*user;	/* --sandbox-user; NULL: see below */
	int			 debug;	/* --sandbox-debug: trap and log */
};

/* Defaults from the environment: FARO_SANDBOX_USER, FARO_SANDBOX_DEBUG=1. */
void		 proc_sandbox_opts_init(struct proc_sandbox_opts *);

/*
 * Enters policy with the operator's options. The user is, in order:
 * opts->user, $FARO_SANDBOX_USER (both must exist), policy->user if
 * that account exists, else none: the uid stays, without capabilities.
 * Only root changes ids: run by anyone else the daemon keeps its uid.
 * base (may be NULL) gets the test hook of proc_sandbox_test_hook().
 */
int		 proc_sandbox_run(const struct proc_sandbox *policy,
		    const struct proc_sandbox_opts *, struct event_base *base,
		    const char **cause);

/*
 * Test builds only (FARO_TEST_HOOKS): with FARO_TEST_FORBIDDEN_SYSCALL=1
 * in the environment, makes one syscall no policy allows as soon as the
 * event loop of base runs, so tests can watch the daemon die of SIGSYS
 * (or, with --sandbox-debug, log the name and go on). A no-op otherwise.
 */
void		 proc_sandbox_test_hook(struct event_base *);
/* The same, at once: for a process confined with no event loop. */
void		 proc_sandbox_test_now(void);

#endif
