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
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>

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
	/* Named capabilities only; everything else goes. */
	if ((pw != NULL || sb->ncaps_keep > 0) && sandbox_caps(sb, cause) == -1)
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
