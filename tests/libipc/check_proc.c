/*
 * Process plumbing: readiness datagrams, signals, daemonising, sandbox,
 * and the service's socket names.
 */
#include "config.h"

#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "libipc/ipc_sockname.h"
#include "base/proc.h"

/* A datagram socket bound to name ("@x" abstract); returns the fd. */
static int
dgram_bind(const char *name)
{
	struct sockaddr_un sun;
	socklen_t len;
	int fd;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	strncpy(sun.sun_path, name, sizeof(sun.sun_path) - 1);
	len = sizeof(sun);
	if (name[0] == '@') {
		sun.sun_path[0] = '\0';
		len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
		    strlen(name));
	}
	fd = socket(AF_UNIX, SOCK_DGRAM, 0);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sun, len), 0);
	return fd;
}

static void
expect_dgram(int fd, const char *want)
{
	char buf[64];
	ssize_t n;

	n = recv(fd, buf, sizeof(buf) - 1, MSG_DONTWAIT);
	ck_assert_int_eq(n, (ssize_t)strlen(want));
	buf[n] = '\0';
	ck_assert_str_eq(buf, want);
}

START_TEST(test_notify)
{
	char path[64], name[64];
	int fd;

	unsetenv("NOTIFY_SOCKET");
	ck_assert_int_eq(proc_notify_ready(), 0);

	snprintf(path, sizeof(path), "/tmp/check_proc.%d.sock", (int)getpid());
	unlink(path);
	fd = dgram_bind(path);
	setenv("NOTIFY_SOCKET", path, 1);
	ck_assert_int_eq(proc_notify_ready(), 1);
	expect_dgram(fd, "READY=1");
	ck_assert_int_eq(proc_notify("STATUS=serving"), 1);
	expect_dgram(fd, "STATUS=serving");
	close(fd);
	unlink(path);

	snprintf(name, sizeof(name), "@check_proc.%d", (int)getpid());
	fd = dgram_bind(name);
	setenv("NOTIFY_SOCKET", name, 1);
	ck_assert_int_eq(proc_notify_ready(), 1);
	expect_dgram(fd, "READY=1");
	close(fd);

	/* Nobody listening, or not a UNIX socket name: an error. */
	setenv("NOTIFY_SOCKET", path, 1);
	ck_assert_int_eq(proc_notify_ready(), -1);
	setenv("NOTIFY_SOCKET", "vsock:2:9", 1);
	ck_assert_int_eq(proc_notify_ready(), -1);
	unsetenv("NOTIFY_SOCKET");
}
END_TEST

static int got_term, got_hup;

static void
on_term(int sig, void *arg)
{
	got_term = sig;
	event_base_loopbreak(arg);
}

static void
on_hup(int sig, void *arg)
{
	got_hup = sig;
}

START_TEST(test_signals)
{
	struct event_base *base = event_base_new();
	struct proc_signals *ps;
	struct timeval tv = { 5, 0 };

	ps = proc_signals_new(base, on_term, on_hup, base);
	ck_assert_ptr_nonnull(ps);
	raise(SIGHUP);
	raise(SIGTERM);
	event_base_loopexit(base, &tv);
	event_base_dispatch(base);
	ck_assert_int_eq(got_hup, SIGHUP);
	ck_assert_int_eq(got_term, SIGTERM);
	/* SIGPIPE no longer kills: writes to a closed pipe give EPIPE. */
	{
		int p[2];

		ck_assert_int_eq(pipe(p), 0);
		close(p[0]);
		ck_assert_int_eq(write(p[1], "x", 1), -1);
		ck_assert_int_eq(errno, EPIPE);
		close(p[1]);
	}
	proc_signals_free(ps);

	/* Without on_term the loop just stops. */
	ps = proc_signals_new(base, NULL, NULL, NULL);
	raise(SIGINT);
	event_base_loopexit(base, &tv);
	ck_assert_int_eq(event_base_dispatch(base), 0);
	ck_assert_int_eq(event_base_got_break(base), 1);
	proc_signals_free(ps);
	event_base_free(base);
}
END_TEST

START_TEST(test_daemonize)
{
	long info[3];
	int p[2], status;
	pid_t pid;

	ck_assert_int_eq(pipe(p), 0);
	if ((pid = fork()) == 0) {
		close(p[0]);
		if (proc_daemonize() == -1)
			_exit(2);
		/* In the daemon: its session, its cwd. */
		info[0] = (long)getpid();
		info[1] = (long)getsid(0);
		{
			char cwd[8];

			info[2] = getcwd(cwd, sizeof(cwd)) != NULL &&
			    strcmp(cwd, "/") == 0;
		}
		if (write(p[1], info, sizeof(info)) != sizeof(info))
			_exit(3);
		_exit(0);
	}
	close(p[1]);
	/* The original process exits 0 once the daemon is set up. */
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ck_assert_int_eq(read(p[0], info, sizeof(info)), sizeof(info));
	ck_assert_int_ne(info[0], pid);
	ck_assert_int_eq(info[1], info[0]);	/* session leader */
	ck_assert_int_eq(info[2], 1);		/* cwd is "/" */
	close(p[0]);
}
END_TEST

/* Reads /proc/self/status with raw syscalls and looks for needle. */
static int
status_has(const char *needle)
{
	char buf[4096];
	ssize_t n, off = 0;
	int fd;

	if ((fd = open("/proc/self/status", O_RDONLY)) == -1)
		return 0;
	while (off < (ssize_t)sizeof(buf) - 1 &&
	    (n = read(fd, buf + off, sizeof(buf) - 1 - (size_t)off)) > 0)
		off += n;
	close(fd);
	buf[off] = '\0';
	return strstr(buf, needle) != NULL;
}

static const char *const allow[] = {
	"exit_group", "exit", "read", "write", "open", "openat", "close",
	"getuid", "fstat", "newfstatat", "lseek", "mmap", "munmap", "brk",
	"rt_sigprocmask", "no_such_syscall_anywhere",
	/* The sanitizer runtime's own needs in an ASan build. */
	"sigaltstack", "gettid", "getpid", "futex", "writev", "tgkill",
	"rt_sigaction", "ioctl", "prctl", "sched_yield", "madvise", "mprotect",
	"readlink", "readlinkat", "uname",
	NULL
};

/* Child: enter the sandbox, report each check as an exit code. */
static int
sandbox_child(int debug)
{
	static const int keep[] = { 10 /* CAP_NET_BIND_SERVICE */ };
	struct proc_sandbox sb = {
		.user = "nobody",
		.caps_keep = keep,
		.ncaps_keep = 1,
		.syscalls = allow,
		.seccomp_debug = debug,
	};
	static const struct proc_sys_rule rules[] = {
		/* socket(2) for AF_UNIX only. */
		{ "socket", 0, 0xffffffff, AF_UNIX },
	};
	const char *cause;
	int fd;

	sb.rules = rules;
	sb.nrules = 1;
	if (proc_sandbox_enter(&sb, &cause) == -1)
		return 10;
	if (getuid() != 65534)
		return 11;
	if (!status_has("NoNewPrivs:\t1"))
		return 12;
	if (!status_has("Seccomp:\t2"))
		return 13;
	if (!status_has("CapEff:\t0000000000000400") ||
	    !status_has("CapPrm:\t0000000000000400"))
		return 14;
	/* getppid is not on the list. */
	if (syscall(SYS_getppid) != -1 || errno != ENOSYS)
		return 15;
	/* Argument rule: AF_UNIX passes, AF_INET does not. */
	if ((fd = socket(AF_UNIX, SOCK_DGRAM, 0)) == -1)
		return 16;
	close(fd);
	if (socket(AF_INET, SOCK_DGRAM, 0) != -1 || errno != ENOSYS)
		return 17;
	return 0;
}

START_TEST(test_sandbox)
{
	struct proc_sandbox bad = { .user = "no-such-user-faro" };
	const char *cause = NULL;
	int status;
	pid_t pid;

	ck_assert_int_eq(proc_sandbox_enter(&bad, &cause), -1);
	ck_assert_str_eq(cause, "unknown user");
	if (geteuid() != 0) {
		fprintf(stderr, "test_sandbox: not root, uid drop not tested\n");
		return;
	}
	/* Debug mode: the denied call fails with ENOSYS and is logged. */
	if ((pid = fork()) == 0)
		_exit(sandbox_child(1));
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "debug sandbox child: status %#x", status);

	/* Enforcing mode: the same call kills the process. */
	if ((pid = fork()) == 0)
		_exit(sandbox_child(0));
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS,
	    "enforcing sandbox child: status %#x", status);
}
END_TEST

/*
 * Child: proc_sandbox_run()'s common argument rules, in debug mode so a
 * denied call fails with ENOSYS instead of killing. Exit code: the first
 * check that failed.
 */
static int
common_rules_child(void)
{
	static const char *const none[] = { NULL };
	static const struct proc_sys_rule rules[] = {
		{ "openat", 2, O_ACCMODE | O_CREAT | O_TRUNC, O_RDONLY },
	};
	const struct proc_sandbox policy = {
		.user = NULL,
		.syscalls = none,
		.rules = rules,
		.nrules = 1,
	};
	struct proc_sandbox_opts o = { NULL, 1 };
	const char *cause;
	void *p;
	int fd, n, pfd[2];

	if (pipe(pfd) == -1)
		return 9;
	if (proc_sandbox_run(&policy, &o, NULL, &cause) == -1)
		return 10;
	/* Memory: writable yes, executable never, neither new nor changed. */
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE |
	    MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 11;
	if (mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE |
	    MAP_ANONYMOUS, -1, 0) != MAP_FAILED || errno != ENOSYS)
		return 12;
	if (mprotect(p, 4096, PROT_READ | PROT_EXEC) != -1 || errno != ENOSYS)
		return 13;
	/* Opens: read-only passes, writing or creating does not. */
	if ((fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) == -1)
		return 14;
	close(fd);
	if (open("/dev/null", O_WRONLY) != -1 || errno != ENOSYS)
		return 15;
	if (open("/tmp/faro-never", O_RDONLY | O_CREAT, 0600) != -1 ||
	    errno != ENOSYS)
		return 16;
	/* ioctl: FIONREAD yes; a terminal injection (TIOCSTI) no. */
	if (ioctl(pfd[0], FIONREAD, &n) == -1)
		return 17;
	if (ioctl(0, TIOCSTI, "x") != -1 || errno != ENOSYS)
		return 18;
	/* Sockets: Unix only. */
	if ((fd = socket(AF_UNIX, SOCK_STREAM, 0)) == -1)
		return 19;
	close(fd);
	if (socket(AF_INET, SOCK_STREAM, 0) != -1 || errno != ENOSYS)
		return 20;
	if (socket(AF_NETLINK, SOCK_RAW, 0) != -1 || errno != ENOSYS)
		return 21;
	return 0;
}

START_TEST(test_sandbox_common_rules)
{
	int status;
	pid_t pid;

	if ((pid = fork()) == 0)
		_exit(common_rules_child());
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "common rules child: status %#x (check %d failed)", status,
	    WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}
END_TEST

static void *
thread_seven(void *arg)
{
	(void)arg;
	return (void *)7;
}

/*
 * Child: a policy with threads (trace_processor's). Enforcing: a thread
 * starts (clone3 answered ENOSYS, then clone with CLONE_THREAD) and ends,
 * where any call refused would kill. Debug: a clone that would make a
 * process is refused (ENOSYS, not a kill).
 */
static int
threads_child(int debug)
{
	static const char *const none[] = { NULL };
	const struct proc_sandbox policy = {
		.user = NULL,
		.syscalls = none,
		.threads = 1,
	};
	struct proc_sandbox_opts o = { NULL, debug };
	const char *cause;
	pthread_t th;
	void *rv = NULL;
	int i;

	if (proc_sandbox_run(&policy, &o, NULL, &cause) == -1)
		return 10;
	/* A thread started, ended and joined, twice: stacks reused. */
	for (i = 0; i < 2; i++) {
		if (pthread_create(&th, NULL, thread_seven, NULL) != 0)
			return 11;
		if (pthread_join(th, &rv) != 0 || rv != (void *)7)
			return 12;
	}
#ifndef FARO_ASAN
	/* (ASan builds allow clone outright, for LeakSan's tracer.) */
	if (debug && (syscall(SYS_clone, SIGCHLD, 0, NULL, NULL, 0) != -1 ||
	    errno != ENOSYS))
		return 13;
	if (debug && (syscall(SYS_clone3, NULL, 0) != -1 || errno != ENOSYS))
		return 14;
#endif
	return 0;
}

START_TEST(test_sandbox_threads)
{
	int status, debug;
	pid_t pid;

	for (debug = 0; debug < 2; debug++) {
		if ((pid = fork()) == 0)
			_exit(threads_child(debug));
		ck_assert_int_eq(waitpid(pid, &status, 0), pid);
		ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		    "threads child (debug %d): status %#x (check %d failed)",
		    debug, status, WIFEXITED(status) ?
		    WEXITSTATUS(status) : -1);
	}
}
END_TEST

/* A confined process that aborts still dies of SIGABRT (core, logs). */
START_TEST(test_sandbox_abort)
{
	static const char *const none[] = { NULL };
	const struct proc_sandbox policy = { .user = NULL, .syscalls = none };
	const char *cause;
	int status;
	pid_t pid;

	if ((pid = fork()) == 0) {
		signal(SIGABRT, SIG_DFL);
		if (proc_sandbox_run(&policy, NULL, NULL, &cause) == -1)
			_exit(10);
		abort();
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT,
	    "aborting child: status %#x", status);
}
END_TEST

START_TEST(test_socket_names)
{
	const char *list;
	char buf[16];
	int run;

	setenv("PERFETTO_PRODUCER_SOCK_NAME", "/x/p.sock,@abs", 1);
	setenv("PERFETTO_CONSUMER_SOCK_NAME", "/x/c.sock", 1);
	ck_assert_str_eq(ipc_sockname(IPC_PORT_PRODUCER), "/x/p.sock,@abs");
	ck_assert_str_eq(ipc_sockname(IPC_PORT_CONSUMER), "/x/c.sock");

	list = ipc_sockname(IPC_PORT_PRODUCER);
	ck_assert_int_eq(ipc_sockname_next(&list, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "/x/p.sock");
	ck_assert_int_eq(ipc_sockname_next(&list, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "@abs");
	ck_assert_int_eq(ipc_sockname_next(&list, buf, sizeof(buf)), -1);
	list = "/a/name/longer/than/the/buffer,/b";
	ck_assert_int_eq(ipc_sockname_next(&list, buf, sizeof(buf)), -1);
	ck_assert_int_eq(ipc_sockname_next(&list, buf, sizeof(buf)), -1);

	/* Without overrides: /run/perfetto/ if usable, else /tmp. */
	unsetenv("PERFETTO_PRODUCER_SOCK_NAME");
	unsetenv("PERFETTO_CONSUMER_SOCK_NAME");
	run = access("/run/perfetto/", X_OK) == 0;
	ck_assert_str_eq(ipc_sockname(IPC_PORT_PRODUCER), run ?
	    "/run/perfetto/traced-producer.sock" : "/tmp/perfetto-producer");
	ck_assert_str_eq(ipc_sockname(IPC_PORT_CONSUMER), run ?
	    "/run/perfetto/traced-consumer.sock" : "/tmp/perfetto-consumer");
}
END_TEST

static Suite *
proc_suite(void)
{
	Suite *s = suite_create("proc");
	TCase *tc = tcase_create("proc");

	tcase_add_test(tc, test_notify);
	tcase_add_test(tc, test_signals);
	tcase_add_test(tc, test_daemonize);
	tcase_add_test(tc, test_sandbox);
	tcase_add_test(tc, test_sandbox_common_rules);
	tcase_add_test(tc, test_sandbox_abort);
	tcase_add_test(tc, test_sandbox_threads);
	tcase_add_test(tc, test_socket_names);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(proc_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
