/*
 * check_procbroker: the /proc operations of traced_probes' broker
 * (ftrace/tfs.c: tfs_open_proc, tfs_list_proc).
 *
 *   refusals   every path outside the list, through a real broker on a
 *              socketpair (a forked broker_serve) and in direct mode
 *   grants     the allowed paths give readable descriptors and pid lists
 *              that match the kernel's
 *   kallsyms   an unprivileged worker reads the broker's descriptor with
 *              the broker's view of addresses, not its own
 *   daemon     a worker whose broker was killed exits
 *   hidepid    the real traced_probes, worker as nobody, in a private
 *              mount namespace whose /proc is hidepid=invisible: the
 *              ProcessTree and ProcessStats hold a root process (this
 *              test, with a named thread) and another user's process;
 *              with the broker path turned off (a test hook) they are
 *              missing, which shows the namespace really hides them
 * Root only for the last two (skipped otherwise).
 */
#include "config.h"

#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "probes_daemon.h"
#include "daemons/traced_probes/broker.h"
#include "tfs.h"
#include "traced_test.h"

#define NOBODY		65534
#define OTHER_UID	12345	/* neither root nor the worker */
#define CAP_SYS_PTRACE_BIT	19

static pid_t broker_pid = -1;
static int broker_sock = -1;

/*
 * A real broker in a child, as main.c runs it, serving top (tracefs, or
 * a temp dir with regular files in its place); the test is the worker.
 */
static void
broker_up_at(const char *top)
{
	int sv[2];

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0,
	    sv), 0);
	broker_pid = fork();
	ck_assert_int_ge(broker_pid, 0);
	if (broker_pid == 0) {
		close(sv[0]);
		_exit(broker_serve(sv[1], top) == 0 ? 0 : 1);
	}
	close(sv[1]);
	broker_sock = sv[0];
	tfs_use_broker(broker_sock);
}

static void
broker_up(void)
{
	broker_up_at("/sys/kernel/tracing");
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
	char longpath[TFS_PATH_MAX + 64];
	int32_t *pids;
	size_t n;
	int fd;

	broker_up();
	check_refusals();
	/* too long for a request: refused before it reaches the broker */
	memset(longpath, '1', sizeof(longpath) - 1);
	memcpy(longpath, "/proc/", 6);
	longpath[sizeof(longpath) - 1] = '\0';
	errno = 0;
	ck_assert_int_eq(tfs_open_proc(longpath), -1);
	ck_assert_int_eq(errno, ENAMETOOLONG);
	ck_assert_int_eq(tfs_list_proc(longpath, &pids, &n), -1);
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

/*
 * Lists longer than a reply: tiny pages (a test-build hook) must give
 * the same ascending list, each pid once; the second run's page is the
 * whole list, so the last request finds nothing above its cursor.
 */
START_TEST(list_paging)
{
	pid_t kids[20];
	int32_t *pids;
	size_t n, found = 0;
	char page[16] = "7";

#ifndef FARO_TEST_HOOKS
	fprintf(stderr, "check_procbroker: list_paging needs "
	    "--enable-test-hooks, skipped\n");
	return;
#endif
	for (size_t i = 0; i < 20; i++)
		if ((kids[i] = fork()) == 0) {
			pause();
			_exit(0);
		}
	if (_i == 1) {
		ck_assert_int_eq(tfs_list_proc("/proc", &pids, &n), 0);
		/* and the broker about to be forked */
		snprintf(page, sizeof(page), "%zu", n + 1);
		free(pids);
	}
	setenv("FARO_TEST_PROC_LIST_PAGE", page, 1);
	broker_up();
	ck_assert_msg(tfs_list_proc("/proc", &pids, &n) == 0, "list: %s",
	    strerror(errno));
	broker_down();
	unsetenv("FARO_TEST_PROC_LIST_PAGE");
	ck_assert_uint_gt(n, 3 * 7);
	for (size_t i = 1; i < n; i++)
		ck_assert_int_lt(pids[i - 1], pids[i]);
	ck_assert(has_pid(pids, n, 1));
	ck_assert(has_pid(pids, n, getpid()));
	for (size_t i = 0; i < 20; i++) {
		found += has_pid(pids, n, kids[i]);
		kill(kids[i], SIGKILL);
		waitpid(kids[i], NULL, 0);
	}
	ck_assert_uint_eq(found, 20);
	free(pids);
}
END_TEST

/* ---- function_graph's control files (a stand-in tracefs) ---- */

static void
file_is(const char *top, const char *rel, const char *want)
{
	char path[256], buf[8192];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", top, rel);
	ck_assert_int_ge(fd = open(path, O_RDONLY), 0);
	slurp(fd, buf, sizeof(buf));
	close(fd);
	ck_assert_str_eq(buf, want);
}

START_TEST(graph_writes)
{
	static const char *const files[] = { "set_ftrace_filter",
	    "set_graph_function", "max_graph_depth" };
	static const char *const bad_funcs[] = { "vfs_read:mod:ext4",
	    "!vfs_read", "vfs_read;ls", "a/b", "x\n\ny", "[ab]*", "$x" };
	static const char *const bad_depths[] = { "", "-1", "1 2", "0x10",
	    "12345678901", "5\n\n" };
	char top[] = "/tmp/faro-procbroker-tfs.XXXXXX", path[256];
	char longv[4200];
	int fd;

	ck_assert_ptr_nonnull(mkdtemp(top));
	for (size_t i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/%s", top, files[i]);
		ck_assert_int_ge(fd = open(path, O_WRONLY | O_CREAT, 0644), 0);
		ck_assert_int_eq(write(fd, "orig", 4), 4);
		close(fd);
	}
	broker_up_at(top);
	for (size_t f = 0; f < 2; f++) {
		for (size_t i = 0; i < sizeof(bad_funcs) / sizeof(bad_funcs[0]);
		    i++) {
			errno = 0;
			ck_assert_msg(tfs_write(top, files[f], bad_funcs[i], 0) ==
			    -1 && errno == EPERM, "%s <- %s", files[f],
			    bad_funcs[i]);
		}
		/* appends (filter commands accumulate) are not ours */
		errno = 0;
		ck_assert_int_eq(tfs_write(top, files[f], "vfs_read", 1), -1);
		ck_assert_int_eq(errno, EPERM);
		file_is(top, files[f], "orig");
		ck_assert_int_eq(tfs_write(top, files[f],
		    "vfs_read ext4_* do_sys_open?\n", 0), 0);
		file_is(top, files[f], "vfs_read ext4_* do_sys_open?\n");
		ck_assert_int_eq(tfs_write(top, files[f], "", 0), 0);
		file_is(top, files[f], "");
	}
	/* no list longer than a page */
	memset(longv, 'a', sizeof(longv) - 1);
	longv[sizeof(longv) - 1] = '\0';
	errno = 0;
	ck_assert_int_eq(tfs_write(top, files[0], longv, 0), -1);
	ck_assert_int_eq(errno, EPERM);
	for (size_t i = 0; i < sizeof(bad_depths) / sizeof(bad_depths[0]);
	    i++) {
		errno = 0;
		ck_assert_msg(tfs_write(top, files[2], bad_depths[i], 0) == -1 &&
		    errno == EPERM, "max_graph_depth <- %s", bad_depths[i]);
	}
	ck_assert_int_eq(tfs_write(top, files[2], "5\n", 0), 0);
	file_is(top, files[2], "5\n");
	broker_down();
	for (size_t i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/%s", top, files[i]);
		unlink(path);
	}
	rmdir(top);
}
END_TEST

/* ---- kallsyms: the opener's view ---- */

/* The first address of a kallsyms text: non-zero or not. */
static int
first_addr_nonzero(int fd)
{
	char buf[256];

	if (slurp(fd, buf, sizeof(buf)) <= 0)
		return -1;
	return strtoull(buf, NULL, 16) != 0;
}

static int
kallsyms_hidden_from_nobody(void)
{
	char buf[64];
	int fd, kptr, paranoid;
	ssize_t n;

	if ((fd = open("/proc/sys/kernel/kptr_restrict", O_RDONLY)) == -1)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	kptr = atoi(buf);
	if ((fd = open("/proc/sys/kernel/perf_event_paranoid",
	    O_RDONLY)) == -1)
		return kptr <= 1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	paranoid = atoi(buf);
	return kptr == 1 || (kptr == 0 && paranoid > 1);
}

START_TEST(kallsyms_opener)
{
	int status, fd;
	pid_t pid;

	if (geteuid() != 0 || !kallsyms_hidden_from_nobody()) {
		fprintf(stderr, "check_procbroker: kallsyms_opener needs root "
		    "and kptr_restrict hiding addresses, skipped\n");
		return;
	}
	broker_up();	/* root, every capability: sees the addresses */
	if ((pid = fork()) == 0) {
		gid_t g = NOBODY;

		if (setgroups(1, &g) == -1 || setresgid(g, g, g) == -1 ||
		    setresuid(NOBODY, NOBODY, NOBODY) == -1)
			_exit(10);
		/* on its own, nobody reads zeros */
		if ((fd = open("/proc/kallsyms", O_RDONLY)) == -1)
			_exit(11);
		if (first_addr_nonzero(fd) != 0)
			_exit(12);
		close(fd);
		/* through the broker, the broker's view */
		if ((fd = tfs_open_proc("/proc/kallsyms")) == -1)
			_exit(13);
		if (first_addr_nonzero(fd) != 1)
			_exit(14);
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "nobody's kallsyms check: exit %d", WEXITSTATUS(status));
	broker_down();
}
END_TEST

/* ---- hidepid: the daemon in a private mount namespace ---- */

/*
 * Mounts a fresh hidepid=invisible proc on /proc in a new mount
 * namespace (this process's only). Since Linux 5.8 each proc mount has
 * its own options, so the host's /proc keeps its own.
 */
static int
hidepid_ns_enter(const char *opts)
{
	if (unshare(CLONE_NEWNS) == -1 ||
	    mount(NULL, "/", NULL, MS_PRIVATE | MS_REC, NULL) == -1 ||
	    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC,
	    opts) == -1)
		return -1;
	return 0;
}

static int
hidepid_ns_usable(void)
{
	struct utsname u;
	int major = 0, minor = 0, status;
	pid_t pid;

	if (uname(&u) == -1 || sscanf(u.release, "%d.%d", &major, &minor) !=
	    2 || major < 5 || (major == 5 && minor < 8))
		return 0;	/* one proc superblock: would change the host */
	if ((pid = fork()) == 0)
		_exit(hidepid_ns_enter("hidepid=invisible") == 0 ? 0 : 1);
	return waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	    WEXITSTATUS(status) == 0;
}

/* In the daemon's child before its exec: the namespace, the hook. */
struct hidepid_prep {
	const char	*opts;
	int		 direct;
};

static int
hidepid_prep(void *arg)
{
	const struct hidepid_prep *hp = arg;

	if (hp->direct)
		setenv("FARO_TEST_PROC_DIRECT", "1", 1);
	return hidepid_ns_enter(hp->opts);
}

static int
log_has(const char *log, const char *text)
{
	uint8_t *data;
	size_t len;
	int found;

	if (tt_read_file(log, &data, &len) == -1)
		return 0;
	found = memmem(data, len, text, strlen(text)) != NULL;
	free(data);
	return found;
}

/* A process of OTHER_UID: hidden from nobody, and from a broker without
 * CAP_SYS_PTRACE (root's uid does not match it). */
static pid_t
other_user_start(void)
{
	pid_t pid;
	gid_t g = OTHER_UID;

	if ((pid = fork()) == 0) {
		if (setgroups(1, &g) == -1 || setresgid(g, g, g) == -1 ||
		    setresuid(OTHER_UID, OTHER_UID, OTHER_UID) == -1)
			_exit(10);
		execlp("sleep", "sleep", "61", (char *)NULL);
		_exit(127);
	}
	return pid;
}

static void *
named_thread(void *arg)
{
	int *stop = arg;

	while (!__atomic_load_n(stop, __ATOMIC_ACQUIRE))
		usleep(10000);
	return NULL;
}

struct seen {
	int	self_proc, self_uid, self_cmdline, self_thread;
	int	polls;
	int	other_proc, other_uid, other_cmdline, other_stats;
	size_t	nprocs;
};

static void
trace_scan(const struct tt_trace *t, pid_t other, int32_t tid,
    struct seen *s)
{
	for (size_t i = 0; i < t->npackets; i++) {
		const Perfetto__Protos__TracePacket *pk = t->trace->packet[i];

		if (pk->data_case ==
		    PERFETTO__PROTOS__TRACE_PACKET__DATA_PROCESS_STATS) {
			for (size_t k = 0; k < pk->process_stats->n_processes;
			    k++)
				if (pk->process_stats->processes[k]->pid ==
				    other)
					s->other_stats++;
			s->polls += pk->process_stats->n_processes > 0;
			continue;
		}
		if (pk->data_case !=
		    PERFETTO__PROTOS__TRACE_PACKET__DATA_PROCESS_TREE)
			continue;
		for (size_t k = 0; k < pk->process_tree->n_processes; k++) {
			const Perfetto__Protos__ProcessTree__Process *p =
			    pk->process_tree->processes[k];

			s->nprocs++;
			if (p->pid == getpid()) {
				s->self_proc++;
				s->self_uid += p->has_uid && p->uid == 0;
				s->self_cmdline += p->n_cmdline > 0 &&
				    strstr(p->cmdline[0], "check_procbroker") !=
				    NULL;
			} else if (p->pid == other) {
				s->other_proc++;
				s->other_uid += p->has_uid &&
				    p->uid == OTHER_UID;
				s->other_cmdline += p->n_cmdline == 2 &&
				    strcmp(p->cmdline[0], "sleep") == 0 &&
				    strcmp(p->cmdline[1], "61") == 0;
			}
		}
		for (size_t k = 0; k < pk->process_tree->n_threads; k++) {
			const Perfetto__Protos__ProcessTree__Thread *th =
			    pk->process_tree->threads[k];

			if (th->tid == tid && th->tgid == getpid() &&
			    th->name != NULL && strcmp(th->name, "pb-named") ==
			    0)
				s->self_thread++;
		}
	}
}

/* The capabilities a process holds (CapEff), from the host's /proc. */
static unsigned long long
cap_eff(pid_t pid)
{
	char path[64], buf[4096], *p;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	ck_assert_int_ge(fd = open(path, O_RDONLY | O_CLOEXEC), 0);
	ck_assert_int_gt(slurp(fd, buf, sizeof(buf)), 0);
	close(fd);
	ck_assert_ptr_nonnull(p = strstr(buf, "\nCapEff:\t"));
	return strtoull(p + 9, NULL, 16);
}

/*
 * One session of linux.process_stats (full scan, thread names, polls)
 * against traced_probes in a namespace whose /proc is mounted with opts;
 * *caps: the broker's capabilities then.
 */
static void
hidepid_session(const char *opts, int direct, struct seen *s,
    unsigned long long *caps)
{
	static const char *const ds[] = { "linux.process_stats", NULL };
	struct event_base *base = event_base_new();
	Perfetto__Protos__TraceConfig *cfg;
	Perfetto__Protos__ProcessStatsConfig *pc;
	struct hidepid_prep hp = { opts, direct };
	struct tt_traced td;
	struct tt_consumer c;
	struct tt_trace t;
	char run_dir[] = "/tmp/faro-procbroker.XXXXXX", log[300];
	pthread_t th;
	int stop = 0, waited;
	uint8_t *data;
	size_t len;
	pid_t probes, other, idle[300];
	int32_t tid = 0;

	ck_assert_ptr_nonnull(mkdtemp(run_dir));
	snprintf(log, sizeof(log), "%s/probes.log", run_dir);
	ck_assert_int_eq(tt_traced_start(&td, NULL), 0);
	/* nobody must reach the producer socket */
	ck_assert_int_eq(chmod(td.dir, 0755), 0);
	ck_assert_int_eq(chmod(td.producer_sock, 0666), 0);
	ck_assert_int_eq(pthread_create(&th, NULL, named_thread, &stop), 0);
	ck_assert_int_eq(pthread_setname_np(th, "pb-named"), 0);
	{
		/* the thread's tid: the task/ entry that is not us */
		int32_t *tids;
		size_t n;
		char path[64];

		snprintf(path, sizeof(path), "/proc/%d/task", (int)getpid());
		ck_assert_int_eq(tfs_list_proc(path, &tids, &n), 0);
		ck_assert_uint_eq(n, 2);
		tid = tids[0] == getpid() ? tids[1] : tids[0];
		free(tids);
	}
	/* more pids than fit in 1 KiB: the broker's sort then takes
	 * another path in glibc (which once needed a syscall more) */
	for (size_t i = 0; i < sizeof(idle) / sizeof(idle[0]); i++)
		if ((idle[i] = fork()) == 0) {
			pause();
			_exit(0);
		}
	ck_assert_int_gt(other = other_user_start(), 0);
	probes = probes_daemon_start(&td, run_dir, "nobody", log, hidepid_prep,
	    &hp);
	ck_assert_int_gt(probes, 0);
	for (waited = 0; waited < 10000 && !log_has(log,
	    "connected to the tracing service"); waited += 50)
		tt_spin(base, 50);
	ck_assert_msg(waited < 10000, "traced_probes never connected");
	*caps = cap_eff(probes);	/* the broker, confined by now */

	cfg = tt_config_new(16 * 1024, 0, ds);
	pc = calloc(1, sizeof(*pc));
	perfetto__protos__process_stats_config__init(pc);
	pc->has_scan_all_processes_on_start = 1;
	pc->scan_all_processes_on_start = 1;
	pc->has_record_thread_names = 1;
	pc->record_thread_names = 1;
	pc->has_proc_stats_poll_ms = 1;
	pc->proc_stats_poll_ms = 100;
	cfg->data_sources[0]->config->process_stats_config = pc;
	ck_assert_int_eq(tt_consumer_connect(&c, base, td.consumer_sock), 0);
	ck_assert_int_eq(tt_consumer_enable(&c, cfg, -1), 0);
	/*
	 * The scan of 300 processes through the broker, then polls, each
	 * walked in slices: read until the other user's process has been
	 * polled (read directly, the worker sees itself only: until its
	 * first poll), as long as that takes on a slow machine, 15 s at
	 * most.
	 */
	memset(s, 0, sizeof(*s));
	for (waited = 0; waited < 15000 && (direct ? s->polls :
	    s->other_stats) == 0; waited += 200) {
		tt_spin(base, 200);
		ck_assert_int_eq(probes_session_read(base, &c, &data, &len,
		    &t), 0);
		trace_scan(&t, other, tid, s);
		ck_assert_int_eq(t.bad_trusted, 0);
		tt_trace_free(&t);
		free(data);
	}
	ck_assert_int_eq(probes_session_end(base, &c, &data, &len, &t), 0);
	trace_scan(&t, other, tid, s);
	ck_assert_int_eq(t.bad_trusted, 0);
	tt_trace_free(&t);
	free(data);
	ck_assert_int_ge(s->polls, 1);
	tt_consumer_close(&c);
	tt_config_free(cfg);

	ck_assert_int_eq(probes_daemon_stop(probes), 0);
	if (direct)
		ck_assert(log_has(log, "test hook: /proc read directly"));
	else {
		char want[128];

		/* "hidepid=X: ..." as the kernel shows the option */
		snprintf(want, sizeof(want), "/proc has %.*s: reading other "
		    "processes through the broker",
		    (int)strcspn(opts, ","), opts);
		ck_assert_msg(log_has(log, want), "not in the log: %s", want);
	}
	kill(other, SIGKILL);
	waitpid(other, NULL, 0);
	for (size_t i = 0; i < sizeof(idle) / sizeof(idle[0]); i++) {
		kill(idle[i], SIGKILL);
		waitpid(idle[i], NULL, 0);
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	tt_traced_stop(&td);
	event_base_free(base);
	unlink(log);
	rmdir(run_dir);
}

/* The broker's only child, from the host's /proc; 0 if none yet. */
static pid_t
worker_of(pid_t broker)
{
	char path[96], buf[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)broker,
	    (int)broker);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return 0;
	slurp(fd, buf, sizeof(buf));
	close(fd);
	return (pid_t)atoi(buf);
}

/* Gone, or a zombie nobody reaps yet. */
static int
exited(pid_t pid)
{
	char path[64], buf[256], *p;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return 1;
	slurp(fd, buf, sizeof(buf));
	close(fd);
	return (p = strrchr(buf, ')')) != NULL && p[1] == ' ' &&
	    (p[2] == 'Z' || p[2] == 'X');
}

/*
 * A broker killed outright (nothing can catch SIGKILL) leaves a worker
 * that can do nothing: it must notice and exit, not linger.
 */
START_TEST(worker_follows_broker)
{
	struct event_base *base;
	struct tt_traced td;
	char run_dir[] = "/tmp/faro-procbroker.XXXXXX", log[300];
	pid_t probes, worker = 0;
	int waited, status;

	if (geteuid() != 0) {
		fprintf(stderr, "check_procbroker: worker_follows_broker "
		    "needs root, skipped\n");
		return;
	}
	base = event_base_new();
	ck_assert_ptr_nonnull(mkdtemp(run_dir));
	snprintf(log, sizeof(log), "%s/probes.log", run_dir);
	ck_assert_int_eq(tt_traced_start(&td, NULL), 0);
	ck_assert_int_eq(chmod(td.dir, 0755), 0);
	ck_assert_int_eq(chmod(td.producer_sock, 0666), 0);
	probes = probes_daemon_start(&td, run_dir, "nobody", log, NULL, NULL);
	ck_assert_int_gt(probes, 0);
	for (waited = 0; waited < 10000 && !log_has(log,
	    "connected to the tracing service"); waited += 50)
		tt_spin(base, 50);
	ck_assert_msg(waited < 10000, "traced_probes never connected");
	ck_assert_int_gt(worker = worker_of(probes), 0);
	ck_assert_int_eq(kill(probes, SIGKILL), 0);
	ck_assert_int_eq(waitpid(probes, &status, 0), probes);
	for (waited = 0; waited < 5000 && !exited(worker); waited += 20)
		usleep(20000);
	ck_assert_msg(exited(worker), "worker %d outlived its broker",
	    (int)worker);
	ck_assert(log_has(log, "broker gone: stopping"));
	tt_traced_stop(&td);
	event_base_free(base);
	unlink(log);
	rmdir(run_dir);
}
END_TEST

static int
hidepid_skip(void)
{
	if (geteuid() != 0) {
		fprintf(stderr, "check_procbroker: hidepid needs root, "
		    "skipped\n");
		return 1;
	}
	if (!hidepid_ns_usable()) {
		fprintf(stderr, "check_procbroker: no per-mount hidepid= "
		    "(Linux 5.8) or no mount namespace, skipped\n");
		return 1;
	}
	return 0;
}

/*
 * The mounts: hidepid=invisible lets root's group in (no CAP_SYS_PTRACE
 * for the broker), ptraceable and a gid= other than root's do not (the
 * broker keeps it); noaccess lists pids but hides their files.
 */
static const struct {
	const char	*opts;
	int		 ptrace;
} hidepid_mounts[] = {
	{ "hidepid=invisible", 0 },
	{ "hidepid=ptraceable", 1 },
	{ "hidepid=noaccess,gid=4242", 1 },
};

START_TEST(hidepid_broker)
{
	unsigned long long caps;
	struct seen s;

	if (hidepid_skip())
		return;
	hidepid_session(hidepid_mounts[_i].opts, 0, &s, &caps);
	ck_assert_int_ge(s.self_proc, 1);
	ck_assert_int_eq(s.self_uid, s.self_proc);
	ck_assert_int_eq(s.self_cmdline, s.self_proc);
	ck_assert_int_ge(s.self_thread, 1);
	ck_assert_int_ge(s.other_proc, 1);
	ck_assert_int_eq(s.other_uid, s.other_proc);
	ck_assert_int_eq(s.other_cmdline, s.other_proc);
	ck_assert_int_ge(s.other_stats, 1);
	ck_assert_msg(!!(caps & (1ull << CAP_SYS_PTRACE_BIT)) ==
	    hidepid_mounts[_i].ptrace, "%s: broker CapEff %016llx",
	    hidepid_mounts[_i].opts, caps);
}
END_TEST

START_TEST(hidepid_direct)
{
	unsigned long long caps;
	struct seen s;

#ifndef FARO_TEST_HOOKS
	fprintf(stderr, "check_procbroker: hidepid_direct needs "
	    "--enable-test-hooks, skipped\n");
	return;
#endif
	if (hidepid_skip())
		return;
	hidepid_session("hidepid=invisible", 1, &s, &caps);
	/* the worker still sees itself: the scan ran */
	ck_assert_uint_gt(s.nprocs, 0);
	ck_assert_int_eq(s.self_proc, 0);
	ck_assert_int_eq(s.self_thread, 0);
	ck_assert_int_eq(s.other_proc, 0);
	ck_assert_int_eq(s.other_stats, 0);
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
	tcase_add_loop_test(tc, list_paging, 0, 2);
	tcase_add_test(tc, kallsyms_opener);
	tcase_add_test(tc, graph_writes);
	suite_add_tcase(s, tc);
	tc = tcase_create("hidepid");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, hidepid_broker, 0, sizeof(hidepid_mounts) /
	    sizeof(hidepid_mounts[0]));
	tcase_add_test(tc, hidepid_direct);
	tcase_add_test(tc, worker_follows_broker);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
