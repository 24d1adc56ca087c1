/*
 * Privilege drop in one fixed order (see proc.h): chroot, groups, gid,
 * uid, named capabilities, no_new_privs, seccomp. Each step either
 * succeeds or the whole call fails: a daemon never runs half-confined.
 */
#include "config.h"

#include <sys/prctl.h>
#include <sys/syscall.h>

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

#include <event2/event.h>
#include <seccomp.h>
#include <sys/capability.h>

#include "log.h"
#include "proc.h"

/* Syscall names for the debug trap, resolved before the filter loads. */
#define SANDBOX_NR_MAX	1024
static char *sandbox_names[SANDBOX_NR_MAX];

static void
sandbox_fmt_num(char *p, size_t sz, long v)
{
	char tmp[24];
	size_t i = 0, j = 0;

	if (v < 0)
		v = 0;
	do {
		tmp[i++] = (char)('0' + v % 10);
		v /= 10;
	} while (v > 0 && i < sizeof(tmp));
	while (i > 0 && j + 1 < sz)
		p[j++] = tmp[--i];
	p[j] = '\0';
}

/* SIGSYS in debug mode: say which syscall was denied, make it ENOSYS. */
static void
sandbox_sigsys(int sig, siginfo_t *info, void *ctx)
{
	static const char pre[] = "seccomp: denied syscall ";
	ucontext_t *uc = ctx;
	const char *name = NULL;
	char num[24];
	int saved = errno;

	if (info->si_syscall >= 0 && info->si_syscall < SANDBOX_NR_MAX)
		name = sandbox_names[info->si_syscall];
	sandbox_fmt_num(num, sizeof(num), info->si_syscall);
	/* write(2) is async-signal-safe; stdio and syslog are not. */
	(void)!write(STDERR_FILENO, pre, sizeof(pre) - 1);
	if (name != NULL)
		(void)!write(STDERR_FILENO, name, strlen(name));
	(void)!write(STDERR_FILENO, " #", 2);
	(void)!write(STDERR_FILENO, num, strlen(num));
	(void)!write(STDERR_FILENO, "\n", 1);
#if defined(__x86_64__)
	uc->uc_mcontext.gregs[REG_RAX] = -ENOSYS;
#elif defined(__aarch64__)
	uc->uc_mcontext.regs[0] = (uint64_t)-ENOSYS;
#else
	(void)uc;
	_exit(1);
#endif
	errno = saved;
}

static int
sandbox_seccomp(const struct proc_sandbox *sb, const char **cause)
{
	static const char *const debug_extra[] = { "rt_sigreturn", "write" };
	struct sigaction sa;
	scmp_filter_ctx ctx;
	const char *const *p;
	size_t i;
	int nr, rc;

	ctx = seccomp_init(sb->seccomp_debug ? SCMP_ACT_TRAP :
	    SCMP_ACT_KILL_PROCESS);
	if (ctx == NULL) {
		*cause = "seccomp_init";
		return -1;
	}
	for (i = 0; i < sb->nrules; i++) {
		const struct proc_sys_rule *r = &sb->rules[i];
		struct scmp_arg_cmp cmp;

		if ((nr = seccomp_syscall_resolve_name(r->name)) ==
		    __NR_SCMP_ERROR) {
			log_debug("%s: no syscall %s here", __func__, r->name);
			continue;
		}
		memset(&cmp, 0, sizeof(cmp));
		cmp.arg = r->arg;
		cmp.op = SCMP_CMP_MASKED_EQ;
		cmp.datum_a = r->mask;
		cmp.datum_b = r->value;
		if (r->arg > 5) {
			errno = EINVAL;
			*cause = "argument rule: no such argument";
			goto fail;
		}
		rc = seccomp_rule_add_array(ctx, SCMP_ACT_ALLOW, nr, 1, &cmp);
		if (rc < 0) {
			errno = -rc;
			*cause = "seccomp_rule_add (argument rule)";
			goto fail;
		}
	}
	for (p = sb->syscalls; p != NULL && *p != NULL; p++) {
		if (**p == '\0')
			continue;
		if ((nr = seccomp_syscall_resolve_name(*p)) == __NR_SCMP_ERROR) {
			/* Lists are shared by architectures; skip absent ones. */
			log_debug("%s: no syscall %s here", __func__, *p);
			continue;
		}
		if ((rc = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0)) < 0) {
			errno = -rc;
			*cause = "seccomp_rule_add";
			goto fail;
		}
	}
#ifndef FARO_ASAN
	/* ENOSYS, so that glibc falls back to clone, which rules check. */
	if (sb->threads && (rc = seccomp_rule_add(ctx,
	    SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0)) < 0) {
		errno = -rc;
		*cause = "seccomp_rule_add (clone3)";
		goto fail;
	}
#endif
	if (sb->seccomp_debug) {
		for (i = 0; i < sizeof(debug_extra) / sizeof(*debug_extra); i++)
			seccomp_rule_add(ctx, SCMP_ACT_ALLOW,
			    seccomp_syscall_resolve_name(debug_extra[i]), 0);
		for (i = 0; i < SANDBOX_NR_MAX; i++)
			if (sandbox_names[i] == NULL)
				sandbox_names[i] = seccomp_syscall_resolve_num_arch(
				    SCMP_ARCH_NATIVE, (int)i);
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = sandbox_sigsys;
		sa.sa_flags = SA_SIGINFO;
		sigemptyset(&sa.sa_mask);
		if (sigaction(SIGSYS, &sa, NULL) == -1) {
			*cause = "sigaction SIGSYS";
			goto fail;
		}
	}
	if ((rc = seccomp_load(ctx)) < 0) {
		errno = -rc;
		*cause = "seccomp_load";
		goto fail;
	}
	seccomp_release(ctx);
	return 0;
fail:
	seccomp_release(ctx);
	return -1;
}

/* Leaves exactly the listed capabilities, permitted and effective. */
static int
sandbox_caps(const struct proc_sandbox *sb, const char **cause)
{
	cap_value_t vals[64];
	size_t i;
	cap_t caps;
	int rv = -1;

	if (sb->ncaps_keep > sizeof(vals) / sizeof(*vals)) {
		*cause = "too many capabilities";
		errno = EINVAL;
		return -1;
	}
	for (i = 0; i < sb->ncaps_keep; i++)
		vals[i] = (cap_value_t)sb->caps_keep[i];
	if ((caps = cap_init()) == NULL) {
		*cause = "cap_init";
		return -1;
	}
	if (sb->ncaps_keep > 0 &&
	    (cap_set_flag(caps, CAP_PERMITTED, (int)sb->ncaps_keep, vals,
	    CAP_SET) == -1 ||
	    cap_set_flag(caps, CAP_EFFECTIVE, (int)sb->ncaps_keep, vals,
	    CAP_SET) == -1)) {
		*cause = "cap_set_flag";
		goto out;
	}
	if (cap_set_proc(caps) == -1) {
		*cause = "cap_set_proc";
		goto out;
	}
	rv = 0;
out:
	cap_free(caps);
	return rv;
}

int
proc_sandbox_enter(const struct proc_sandbox *sb, const char **cause)
{
	struct passwd *pw = NULL;
	struct group *gr;
	uid_t uid;
	gid_t gid;

	if (sb->user != NULL) {
		if ((pw = getpwnam(sb->user)) == NULL) {
			*cause = "unknown user";
			errno = ENOENT;
			return -1;
		}
		uid = pw->pw_uid;
		gid = pw->pw_gid;
		if (sb->group != NULL) {
			if ((gr = getgrnam(sb->group)) == NULL) {
				*cause = "unknown group";
				errno = ENOENT;
				return -1;
			}
			gid = gr->gr_gid;
		}
	}
	if (sb->chroot_dir != NULL &&
	    (chroot(sb->chroot_dir) == -1 || chdir("/") == -1)) {
		*cause = "chroot";
		return -1;
	}
	if (pw != NULL) {
		/* Capabilities survive the uid change only if asked to. */
		if (sb->ncaps_keep > 0 &&
		    prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) == -1) {
			*cause = "PR_SET_KEEPCAPS";
			return -1;
		}
		if (setgroups(1, &gid) == -1) {
			*cause = "setgroups";
			return -1;
		}
		if (setresgid(gid, gid, gid) == -1) {
			*cause = "setresgid";
			return -1;
		}
		if (setresuid(uid, uid, uid) == -1) {
			*cause = "setresuid";
			return -1;
		}
		if (sb->ncaps_keep > 0)
			prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0);
	}
	/* Named capabilities only; everything else goes, uid change or not. */
	if (sandbox_caps(sb, cause) == -1)
		return -1;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1) {
		*cause = "PR_SET_NO_NEW_PRIVS";
		return -1;
	}
	if ((sb->syscalls != NULL || sb->nrules > 0) &&
	    sandbox_seccomp(sb, cause) == -1)
		return -1;
	return 0;
}

/* ---- the part every daemon shares: options, user choice, test hook ---- */

/*
 * What the sanitizer runtime calls after the filter is in place (LeakSan
 * stops the world at exit through a ptrace'd clone). Added in ASan test
 * builds only, never in a production build.
 */
#ifdef FARO_ASAN
static const char *const sandbox_asan_extra[] = {
	/* the tracer: a clone that ptraces the threads and reads the task
	 * list with the legacy calls (open: the openat rules, mirrored) */
	"clone", "clone3", "ptrace", "wait4", "waitid", "prctl", "getppid",
	"kill", "tgkill", "sigaltstack", "open", "getdents", "getdents64",
	"stat", "lstat", "access", "readlink", "readlinkat", "dup2", "dup3",
	/* the runtime's own bookkeeping */
	"pread64", "sched_getaffinity", "uname", "getrlimit", "prlimit64",
	"setrlimit", "arch_prctl", "set_robust_list", "rseq",
	NULL
};
#endif

void
proc_sandbox_opts_init(struct proc_sandbox_opts *o)
{
	const char *v;

	memset(o, 0, sizeof(*o));
	if ((v = getenv("FARO_SANDBOX_USER")) != NULL && *v != '\0')
		o->user = v;
	if ((v = getenv("FARO_SANDBOX_DEBUG")) != NULL && strcmp(v, "1") == 0)
		o->debug = 1;
}

static const char *
sandbox_user(const struct proc_sandbox *policy,
    const struct proc_sandbox_opts *o)
{
	const char *v;

	/* A policy without a user keeps its ids (traced_probes' broker). */
	if (geteuid() != 0 || policy->user == NULL)
		return NULL;
	if (o != NULL && o->user != NULL)
		return o->user;
	if ((v = getenv("FARO_SANDBOX_USER")) != NULL && *v != '\0')
		return v;
	/* The dedicated account when installed; else the uid stays, with
	 * no capabilities (a root-owned private directory stays usable). */
	if (getpwnam(policy->user) != NULL)
		return policy->user;
	log_warnx("%s: no user %s: uid %d kept, without capabilities "
	    "(create the user, or use --sandbox-user)", __func__, policy->user,
	    (int)geteuid());
	return NULL;
}

/*
 * What every faro daemon does on its event loop, whatever its job: the
 * base of each allow-list, which a daemon's own list extends.
 */
static const char *const sandbox_common[] = {
	/* memory (mmap and mprotect: argument rules below) */
	"brk", "munmap", "mremap", "madvise",
	/* the event loop */
	"epoll_create1", "epoll_ctl", "epoll_wait", "epoll_pwait",
	"epoll_pwait2", "poll", "ppoll", "pipe2", "eventfd2",
	/* I/O on descriptors already open */
	"read", "readv", "write", "writev", "close", "fstat", "newfstatat",
	"statx", "lseek", "fcntl",
	/* Unix sockets: IPC peers, syslog (socket: argument rule below) */
	"connect", "sendto", "sendmsg", "recvfrom", "recvmsg", "shutdown",
	"getsockopt", "setsockopt", "getsockname", "getpeername",
	/* time */
	"clock_gettime", "clock_getres", "gettimeofday", "nanosleep",
	"clock_nanosleep",
	/* signals, threads, exit */
	"rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "futex",
	"getpid", "gettid", "getuid", "geteuid", "getgid", "getegid",
	"sched_yield", "getrandom", "exit", "exit_group",
	NULL
};

/* What glibc's pthread_create needs beyond clone (policy->threads): the
 * new thread's robust futex list and restartable sequences. */
#ifndef FARO_ASAN
static const char *const sandbox_thread_calls[] = {
	"set_robust_list", "rseq", NULL
};
#endif

#define SANDBOX_PROT_EXEC	0x4
#define SANDBOX_IOCTL_TCGETS	0x5401	/* isatty() on the log's stderr */
#define SANDBOX_IOCTL_FIONREAD	0x541b	/* libevent sizes its reads */
#define SANDBOX_IOCTL_FIONBIO	0x5421	/* non-blocking sockets */

static const struct proc_sys_rule sandbox_common_rules[] = {
	/* Never new executable memory: no JIT, no code from data. */
	{ "mmap", 2, SANDBOX_PROT_EXEC, 0 },
	{ "mprotect", 2, SANDBOX_PROT_EXEC, 0 },
	/* Sockets of the Unix domain only, unless a daemon adds more. */
	{ "socket", 0, 0xffffffff, 1 /* AF_UNIX */ },
	/* Three ioctls; nothing that reaches a driver. */
	{ "ioctl", 1, 0xffffffff, SANDBOX_IOCTL_TCGETS },
	{ "ioctl", 1, 0xffffffff, SANDBOX_IOCTL_FIONREAD },
	{ "ioctl", 1, 0xffffffff, SANDBOX_IOCTL_FIONBIO },
};

static size_t
sandbox_count(const char *const *l)
{
	size_t n = 0;

	while (l != NULL && l[n] != NULL)
		n++;
	return n;
}

int
proc_sandbox_run(const struct proc_sandbox *policy,
    const struct proc_sandbox_opts *o, struct event_base *base,
    const char **cause)
{
	static const size_t ncommon_rules = sizeof(sandbox_common_rules) /
	    sizeof(*sandbox_common_rules);
	const char *const *parts[3] = { sandbox_common, policy->syscalls,
	    NULL };
	struct proc_sandbox sb = *policy;
	struct proc_sys_rule *rules;
	const char **list;
	const char *v;
	size_t n = 0, i = 0, j, r;
	int rv;

#ifdef FARO_ASAN
	parts[2] = sandbox_asan_extra;
#else
	if (policy->threads)
		parts[2] = sandbox_thread_calls;
#endif
	sb.user = sandbox_user(policy, o);
	if (sb.user == NULL)
		sb.group = NULL;
	v = getenv("FARO_SANDBOX_DEBUG");
	sb.seccomp_debug = policy->seccomp_debug || (o != NULL && o->debug) ||
	    (v != NULL && strcmp(v, "1") == 0);

	/* One list: the common base, the daemon's own, the test extras
	 * (or a thread's needs). */
	for (j = 0; j < 3; j++)
		n += sandbox_count(parts[j]);
	list = calloc(n + 1, sizeof(*list));
	/* Twice the room: ASan builds mirror openat rules onto open. */
	rules = calloc(2 * (ncommon_rules + policy->nrules) + 2,
	    sizeof(*rules));
	if (list == NULL || rules == NULL) {
		free(list);
		free(rules);
		*cause = "out of memory";
		return -1;
	}
	for (j = 0; j < 3; j++)
		for (const char *const *p = parts[j]; p && *p; p++)
			list[i++] = *p;
	memcpy(rules, sandbox_common_rules, sizeof(sandbox_common_rules));
	if (policy->nrules > 0)
		memcpy(rules + ncommon_rules, policy->rules,
		    policy->nrules * sizeof(*rules));
	sb.nrules = ncommon_rules + policy->nrules;
#ifndef FARO_ASAN
	/* abort() signals its own thread group only: a failed assertion
	 * still dies of SIGABRT, not of SIGSYS. (ASan builds allow tgkill
	 * for the sanitizer.) */
	rules[sb.nrules].name = "tgkill";
	rules[sb.nrules].arg = 0;
	rules[sb.nrules].mask = 0xffffffff;
	rules[sb.nrules].value = (uint64_t)getpid();
	sb.nrules++;
	/* Threads, never processes (ASan builds allow clone outright). */
	if (policy->threads) {
		rules[sb.nrules].name = "clone";
		rules[sb.nrules].arg = 0;
		rules[sb.nrules].mask = CLONE_THREAD;
		rules[sb.nrules].value = CLONE_THREAD;
		sb.nrules++;
	}
#endif
#ifdef FARO_ASAN
	/* The sanitizer runtime opens files (/proc/self/maps, the task
	 * list) with open(2), not openat: same flags rules, flags in arg 1. */
	for (r = 0, j = sb.nrules; r < j; r++)
		if (strcmp(rules[r].name, "openat") == 0) {
			rules[sb.nrules] = rules[r];
			rules[sb.nrules].name = "open";
			rules[sb.nrules].arg = 1;
			sb.nrules++;
		}
#endif
	/* A name allowed outright would void its argument rules. */
	for (j = 0; j < i; j++)
		for (r = 0; r < sb.nrules; r++)
			if (strcmp(list[j], rules[r].name) == 0)
				list[j] = "";
	sb.syscalls = list;
	sb.rules = rules;
	rv = proc_sandbox_enter(&sb, cause);
#ifdef FARO_ASAN
	/* LeakSan ptraces its own process at exit; the uid change cleared
	 * the dumpable flag that allows it. Test builds only. */
	if (rv == 0)
		(void)prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
#endif
	free(list);
	free(rules);
	if (rv == 0)
		log_debug("%s: confined as %s, %zu capabilities, seccomp%s",
		    __func__, sb.user ? sb.user : "(same user)",
		    sb.ncaps_keep, sb.seccomp_debug ? " (debug)" : "");
	proc_sandbox_test_hook(base);
	return rv;
}

#ifdef FARO_TEST_HOOKS
static void
sandbox_forbidden(evutil_socket_t fd, short ev, void *arg)
{
	long rc;

	(void)fd;
	(void)ev;
	(void)arg;
	/* personality(2) is on no daemon's list. */
	rc = syscall(SYS_personality, 0xffffffffUL);
	log_warnx("%s: forbidden syscall returned %ld (errno %d)", __func__,
	    rc, errno);
}
#endif

#ifdef FARO_TEST_HOOKS
static int
sandbox_test_asked(void)
{
	const char *v = getenv("FARO_TEST_FORBIDDEN_SYSCALL");

	return v != NULL && strcmp(v, "1") == 0;
}
#endif

void
proc_sandbox_test_now(void)
{
#ifdef FARO_TEST_HOOKS
	if (sandbox_test_asked())
		sandbox_forbidden(-1, 0, NULL);
#endif
}

void
proc_sandbox_test_hook(struct event_base *base)
{
#ifdef FARO_TEST_HOOKS
	struct timeval tv = { 0, 0 };

	if (base == NULL || !sandbox_test_asked())
		return;
	if (event_base_once(base, -1, EV_TIMEOUT, sandbox_forbidden, NULL,
	    &tv) == -1)
		log_warnx("%s: event_base_once failed", __func__);
#else
	(void)base;
#endif
}
