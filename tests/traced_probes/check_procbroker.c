/*
 * check_procbroker: the /proc operations of traced_probes' broker
 * (ftrace/tfs.c: tfs_open_proc, tfs_list_proc).
 *
 *   refusals   every path outside the list, through a real broker on a
 *              socketpair (a forked tfs_broker_serve) and in direct mode
 *   grants     the allowed paths give readable descriptors and pid lists
 *              that match the kernel's
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/wait.h>

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tfs.h"

static pid_t broker_pid = -1;
static int broker_sock = -1;

/* A real broker in a child, as main.c runs it; the test is the worker. */
static void
broker_up(void)
{
	int sv[2];

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0,
	    sv), 0);
	broker_pid = fork();
	ck_assert_int_ge(broker_pid, 0);
	if (broker_pid == 0) {
		close(sv[0]);
		_exit(tfs_broker_serve(sv[1], "/sys/kernel/tracing") == 0 ?
		    0 : 1);
	}
	close(sv[1]);
	broker_sock = sv[0];
	tfs_use_broker(broker_sock);
}

static void
broker_down(void)
{
	int status;

	tfs_use_broker(-1);
	close(broker_sock);
	ck_assert_int_eq(waitpid(broker_pid, &status, 0), broker_pid);
	/* a refused request is answered, never a broken stream */
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static const char *const bad_files[] = {
	"", "/", "/proc", "/proc/", "proc/kallsyms", "/proc//kallsyms",
	"/proc/kallsyms/", "/proc/kallsyms2", "/proc/kallsym", "/proc/Kallsyms",
	"/proc/./kallsyms", "/proc/../proc/kallsyms", "//proc/kallsyms",
	"/proc/kallsyms\n", "/sys/../proc/kallsyms", "/proc/self/status",
	"/proc/thread-self/comm", "/proc/1/../kallsyms", "/proc/1/./status",
	"/proc/12a/status", "/proc/a12/status", "/proc/-1/status",
	"/proc/+1/status", "/proc/ 1/status", "/proc/01/status",
	"/proc/0/status", "/proc/4194305/status", "/proc/99999999/status",
	"/proc/1/environ", "/proc/1/mem", "/proc/1/maps", "/proc/1/stat",
	"/proc/1/root", "/proc/1/cwd", "/proc/1/fd/0", "/proc/1/exe",
	"/proc/1/status/", "/proc/1/statusx", "/proc/1//status",
	"/proc/1/task/1/status", "/proc/1/task/1/environ",
	"/proc/1/task/1/comm/", "/proc/1/task/x/comm", "/proc/1/task/01/comm",
	"/proc/1/task/1/../../kallsyms", "/proc/1/task", "/proc/1/comm",
	"/proc/sys/kernel/kptr_restrict", "/proc/meminfo", "/etc/shadow",
	"/sys/kernel/tracing/trace_pipe",
};

static const char *const bad_dirs[] = {
	"", "/", "/proc/", "//proc", "/proc/.", "/proc/self", "/proc/self/task",
	"/proc/1", "/proc/1/", "/proc/1/task/", "/proc/1/task/1",
	"/proc/12a/task", "/proc/01/task", "/proc/1/fd", "/proc/kallsyms",
	"/proc/1/../1/task", "/sys/kernel/tracing", "/proc/sys",
};

static void
check_refusals(void)
{
	int32_t *pids;
	size_t n;

	for (size_t i = 0; i < sizeof(bad_files) / sizeof(bad_files[0]); i++) {
		errno = 0;
		ck_assert_msg(tfs_open_proc(bad_files[i]) == -1 &&
		    errno == EPERM, "open %s allowed (errno %d)", bad_files[i],
		    errno);
	}
	for (size_t i = 0; i < sizeof(bad_dirs) / sizeof(bad_dirs[0]); i++) {
		errno = 0;
		ck_assert_msg(tfs_list_proc(bad_dirs[i], &pids, &n) == -1 &&
		    errno == EPERM, "list %s allowed (errno %d)", bad_dirs[i],
		    errno);
	}
}

START_TEST(refusals_broker)
{
	int fd;

	broker_up();
	check_refusals();
	/* and the broker still serves after all of them */
	fd = tfs_open_proc("/proc/kallsyms");

	ck_assert_int_ge(fd, 0);
	close(fd);
	broker_down();
}
END_TEST

START_TEST(refusals_direct)
{
	check_refusals();
}
END_TEST

/* Reads a descriptor to its end; the byte count. */
static ssize_t
slurp(int fd, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t n;

	while (len < size - 1 && (n = read(fd, buf + len, size - 1 - len)) > 0)
		len += (size_t)n;
	buf[len] = '\0';
	return (ssize_t)len;
}

static int
has_pid(const int32_t *pids, size_t n, int32_t pid)
{
	for (size_t i = 0; i < n; i++)
		if (pids[i] == pid)
			return 1;
	return 0;
}

static void
check_grants(void)
{
	char path[64], buf[4096], want[64];
	int32_t *pids;
	size_t n;
	int fd, fl;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)getpid());
	ck_assert_int_ge(fd = tfs_open_proc(path), 0);
	fl = fcntl(fd, F_GETFL);
	ck_assert_int_eq(fl & O_ACCMODE, O_RDONLY);
	ck_assert(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	ck_assert_int_gt(slurp(fd, buf, sizeof(buf)), 0);
	snprintf(want, sizeof(want), "\nPid:\t%d\n", (int)getpid());
	ck_assert_ptr_nonnull(strstr(buf, want));
	close(fd);

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)getpid());
	ck_assert_int_ge(fd = tfs_open_proc(path), 0);
	ck_assert_int_gt(slurp(fd, buf, sizeof(buf)), 0);
	ck_assert_ptr_nonnull(strstr(buf, "check_procbroker"));
	close(fd);

	snprintf(path, sizeof(path), "/proc/%d/oom_score_adj", (int)getpid());
	ck_assert_int_ge(fd = tfs_open_proc(path), 0);
	close(fd);
	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)getpid(),
	    (int)getpid());
	ck_assert_int_ge(fd = tfs_open_proc(path), 0);
	ck_assert_int_gt(slurp(fd, buf, sizeof(buf)), 0);
	ck_assert_ptr_nonnull(strstr(buf, "check_procbroke"));
	close(fd);

	/* allowed but gone: the kernel's answer, not a refusal */
	errno = 0;
	ck_assert_int_eq(tfs_open_proc("/proc/4194304/status"), -1);
	ck_assert_int_eq(errno, ENOENT);

	ck_assert_int_eq(tfs_list_proc("/proc", &pids, &n), 0);
	ck_assert_uint_gt(n, 1);
	ck_assert(has_pid(pids, n, getpid()));
	ck_assert(has_pid(pids, n, 1));
	for (size_t i = 1; i < n; i++)
		ck_assert_int_lt(pids[i - 1], pids[i]);
	free(pids);
	snprintf(path, sizeof(path), "/proc/%d/task", (int)getpid());
	ck_assert_int_eq(tfs_list_proc(path, &pids, &n), 0);
	ck_assert(has_pid(pids, n, getpid()));
	free(pids);
}

START_TEST(grants_broker)
{
	broker_up();
	check_grants();
	broker_down();
}
END_TEST

START_TEST(grants_direct)
{
	check_grants();
}
END_TEST

int
main(void)
{
	Suite *s;
	TCase *tc;
	SRunner *sr;
	int failed;

	signal(SIGPIPE, SIG_IGN);
	s = suite_create("procbroker");
	tc = tcase_create("paths");
	tcase_add_test(tc, refusals_broker);
	tcase_add_test(tc, refusals_direct);
	tcase_add_test(tc, grants_broker);
	tcase_add_test(tc, grants_direct);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
