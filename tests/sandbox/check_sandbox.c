/*
 * The confinement of the three daemons, seen from outside as an operator
 * would see it: each real daemon is started in a private directory, and
 * once it serves, /proc/PID/status must show its user, its capabilities
 * (none, or the broker's few), NoNewPrivs 1 and Seccomp 2. The test hook
 * of test builds (FARO_TEST_FORBIDDEN_SYSCALL=1) makes it call a syscall
 * no policy allows: it must die of SIGSYS, or with FARO_SANDBOX_DEBUG=1
 * log the syscall's name and go on serving.
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <check.h>

#define WAIT_MS		30000

struct daemon {
	pid_t		 pid;
	char		 log[256];
};

static char	 dir[128];
static char	 prod_sock[192], cons_sock[192];
static struct daemon traced_d;

static const char *
builddir(void)
{
	const char *b = getenv("top_builddir");

	return b != NULL ? b : ".";
}

static void
sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

/* Reads a whole small file; "" when absent. Caller frees. */
static char *
slurp(const char *path)
{
	char *buf;
	size_t len = 0;
	ssize_t n;
	int fd;

	buf = calloc(1, 1 << 16);
	ck_assert_ptr_nonnull(buf);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return buf;
	while (len < (1 << 16) - 1 &&
	    (n = read(fd, buf + len, (1 << 16) - 1 - len)) > 0)
		len += (size_t)n;
	close(fd);
	return buf;
}

static int
file_has(const char *path, const char *needle)
{
	char *s = slurp(path);
	int found = strstr(s, needle) != NULL;

	free(s);
	return found;
}

/* Waits until path contains needle or pid is gone; 1 if found. */
static int
wait_for_text(const char *path, const char *needle, pid_t pid)
{
	for (int t = 0; t < WAIT_MS; t += 20) {
		if (file_has(path, needle))
			return 1;
		if (pid > 0 && kill(pid, 0) == -1)
			return file_has(path, needle);
		sleep_ms(20);
	}
	return 0;
}

/* The value of one /proc/PID/status line ("" if missing). */
static void
status_field(pid_t pid, const char *key, char *out, size_t outsz)
{
	char path[64], *s, *p, *e;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	s = slurp(path);
	out[0] = '\0';
	for (p = s; p != NULL && *p != '\0'; p = e ? e + 1 : NULL) {
		e = strchr(p, '\n');
		if (strncmp(p, key, strlen(key)) == 0 &&
		    p[strlen(key)] == ':') {
			p += strlen(key) + 1;
			while (*p == '\t' || *p == ' ')
				p++;
			snprintf(out, outsz, "%.*s", e ? (int)(e - p) :
			    (int)strlen(p), p);
			break;
		}
	}
	free(s);
}

/* Waits for Seccomp 2: the last step before the event loop. */
static int
wait_confined(pid_t pid)
{
	char v[64];

	for (int t = 0; t < WAIT_MS; t += 20) {
		status_field(pid, "Seccomp", v, sizeof(v));
		if (strcmp(v, "2") == 0)
			return 1;
		if (kill(pid, 0) == -1)
			return 0;
		sleep_ms(20);
	}
	return 0;
}

/*
 * Every confined process: no new privileges, seccomp filter mode, the
 * capabilities named (hex CapEff), and the user when we could drop.
 */
static void
check_confined(const char *what, pid_t pid, const char *capeff,
    const char *uid)
{
	char v[128];

	ck_assert_msg(wait_confined(pid), "%s: never reached Seccomp 2",
	    what);
	status_field(pid, "NoNewPrivs", v, sizeof(v));
	ck_assert_msg(strcmp(v, "1") == 0, "%s: NoNewPrivs %s", what, v);
	status_field(pid, "Seccomp", v, sizeof(v));
	ck_assert_msg(strcmp(v, "2") == 0, "%s: Seccomp %s", what, v);
	status_field(pid, "CapEff", v, sizeof(v));
	if (geteuid() == 0 || strcmp(capeff, "0000000000000000") == 0)
		ck_assert_msg(strcmp(v, capeff) == 0, "%s: CapEff %s, want %s",
		    what, v, capeff);
	status_field(pid, "CapPrm", v, sizeof(v));
	if (geteuid() == 0 || strcmp(capeff, "0000000000000000") == 0)
		ck_assert_msg(strcmp(v, capeff) == 0, "%s: CapPrm %s, want %s",
		    what, v, capeff);
	if (uid != NULL && geteuid() == 0) {
		status_field(pid, "Uid", v, sizeof(v));
		ck_assert_msg(strncmp(v, uid, strlen(uid)) == 0 &&
		    strchr("\t ", v[strlen(uid)]) != NULL,
		    "%s: Uid %s, want %s", what, v, uid);
	}
}

/*
 * Starts a daemon with extra environment (NAME=VALUE, NULL-terminated),
 * stdout and stderr to its log in the test directory.
 */
static void
daemon_start(struct daemon *d, const char *name, const char *const argv[],
    const char *const *env)
{
	int fd;

	snprintf(d->log, sizeof(d->log), "%s/%s.log", dir, name);
	unlink(d->log);
	d->pid = fork();
	ck_assert_int_ne(d->pid, -1);
	if (d->pid == 0) {
		setenv("PERFETTO_PRODUCER_SOCK_NAME", prod_sock, 1);
		setenv("PERFETTO_CONSUMER_SOCK_NAME", cons_sock, 1);
		/* Tests never rely on a "traced" account being installed. */
		setenv("FARO_SANDBOX_USER", "nobody", 1);
		unsetenv("FARO_SANDBOX_DEBUG");
		unsetenv("FARO_TEST_FORBIDDEN_SYSCALL");
		unsetenv("NOTIFY_SOCKET");
		unsetenv("LISTEN_FDS");
		unsetenv("LISTEN_PID");
		for (; env != NULL && *env != NULL; env++)
			putenv((char *)*env);
		fd = open(d->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
		    0644);
		if (fd == -1)
			_exit(126);
		dup2(fd, 1);
		dup2(fd, 2);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
}

/* Waits for the exit; returns the raw wait status, -1 on timeout. */
static int
daemon_wait(struct daemon *d)
{
	int status;

	for (int t = 0; t < WAIT_MS; t += 20) {
		if (waitpid(d->pid, &status, WNOHANG) == d->pid) {
			d->pid = 0;
			return status;
		}
		sleep_ms(20);
	}
	kill(d->pid, SIGKILL);
	waitpid(d->pid, &status, 0);
	d->pid = 0;
	return -1;
}

/*
 * Waits until pid catches SIGTERM (SigCgt in its status): a daemon
 * installs its handlers just after it confines itself, and a SIGTERM
 * before then ends it by the default action, not through its clean exit.
 */
static void
wait_sigterm_caught(pid_t pid)
{
	char v[64];

	for (int t = 0; t < WAIT_MS; t += 20) {
		status_field(pid, "SigCgt", v, sizeof(v));
		if (v[0] != '\0' && (strtoull(v, NULL, 16) &
		    (1ULL << (SIGTERM - 1))) != 0)
			return;
		if (kill(pid, 0) == -1)
			return;
		sleep_ms(20);
	}
}

static void
daemon_stop_ok(struct daemon *d, const char *what)
{
	int status;
	char *log;

	wait_sigterm_caught(d->pid);
	ck_assert_int_eq(kill(d->pid, SIGTERM), 0);
	status = daemon_wait(d);
	log = slurp(d->log);
	ck_assert_msg(status != -1 && WIFEXITED(status) &&
	    WEXITSTATUS(status) == 0, "%s: exit status %#x, log:\n%s", what,
	    status, log);
	free(log);
}

static void
daemon_expect_sigsys(struct daemon *d, const char *what)
{
	int status = daemon_wait(d);
	char *log = slurp(d->log);

	ck_assert_msg(status != -1 && WIFSIGNALED(status) &&
	    WTERMSIG(status) == SIGSYS, "%s: wait status %#x, log:\n%s", what,
	    status, log);
	free(log);
}

/*
 * The forbidden-syscall hook exists only in test builds
 * (--enable-test-hooks); elsewhere (make distcheck) its tests skip.
 */
static int
no_hooks(void)
{
#ifdef FARO_TEST_HOOKS
	return 0;
#else
	fprintf(stderr, "check_sandbox: built without test hooks, skipped\n");
	return 1;
#endif
}

/* ---- traced ---- */

static void
traced_start(struct daemon *d, const char *const *env)
{
	char bin[512];
	const char *argv[] = { bin, NULL };

	snprintf(bin, sizeof(bin), "%s/daemons/traced/traced", builddir());
	daemon_start(d, "traced", argv, env);
}

/* Serving: a consumer can connect to the socket. */
static int
connect_unix(const char *path)
{
	struct sockaddr_un sun;
	int fd, rc;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		return -1;
	rc = connect(fd, (struct sockaddr *)&sun, sizeof(sun));
	close(fd);
	return rc;
}

static void
traced_wait_serving(struct daemon *d)
{
	for (int t = 0; t < WAIT_MS; t += 20) {
		if (connect_unix(cons_sock) == 0 && wait_confined(d->pid))
			return;
		ck_assert_msg(kill(d->pid, 0) == 0, "traced died at start");
		sleep_ms(20);
	}
	ck_abort_msg("traced never served");
}

START_TEST(test_traced_confined)
{
	struct daemon d;

	traced_start(&d, NULL);
	traced_wait_serving(&d);
	check_confined("traced", d.pid, "0000000000000000", "65534");
	/* Still serving once confined (the feature suites do the rest). */
	ck_assert_int_eq(connect_unix(prod_sock), 0);
	ck_assert_int_eq(connect_unix(cons_sock), 0);
	daemon_stop_ok(&d, "traced");
}
END_TEST

START_TEST(test_traced_sigsys)
{
	static const char *const env[] = { "FARO_TEST_FORBIDDEN_SYSCALL=1",
	    NULL };
	struct daemon d;

	if (no_hooks())
		return;
	traced_start(&d, env);
	daemon_expect_sigsys(&d, "traced");
}
END_TEST

START_TEST(test_traced_debug)
{
	static const char *const env[] = { "FARO_TEST_FORBIDDEN_SYSCALL=1",
	    "FARO_SANDBOX_DEBUG=1", NULL };
	struct daemon d;

	if (no_hooks())
		return;
	traced_start(&d, env);
	ck_assert_msg(wait_for_text(d.log, "denied syscall personality",
	    d.pid), "no denial logged");
	traced_wait_serving(&d);
	daemon_stop_ok(&d, "traced --sandbox-debug");
}
END_TEST

/* The flag does what the variable does. */
START_TEST(test_traced_debug_flag)
{
	static const char *const env[] = { "FARO_TEST_FORBIDDEN_SYSCALL=1",
	    NULL };
	char bin[512];
	const char *argv[] = { bin, "--sandbox-debug", NULL };
	struct daemon d;

	if (no_hooks())
		return;
	snprintf(bin, sizeof(bin), "%s/daemons/traced/traced", builddir());
	daemon_start(&d, "traced", argv, env);
	ck_assert_msg(wait_for_text(d.log, "denied syscall personality",
	    d.pid), "no denial logged");
	traced_wait_serving(&d);
	daemon_stop_ok(&d, "traced --sandbox-debug");
}
END_TEST

/* ---- traced_probes: a broker and a worker ---- */

static int
tracefs_present(void)
{
	return access("/sys/kernel/tracing/trace", F_OK) == 0 ||
	    access("/sys/kernel/debug/tracing/trace", F_OK) == 0;
}

static void
probes_start(struct daemon *d, const char *const *env)
{
	char bin[512], run[256];
	const char *argv[] = { bin, "--run-dir", run, NULL };

	snprintf(bin, sizeof(bin), "%s/daemons/traced_probes/traced_probes",
	    builddir());
	snprintf(run, sizeof(run), "%s/probes-run", dir);
	daemon_start(d, "traced_probes", argv, env);
}

/* The worker: the broker's only child. */
static pid_t
probes_worker(pid_t broker)
{
	char path[96], *s;
	pid_t w = 0;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)broker,
	    (int)broker);
	for (int t = 0; t < WAIT_MS && w <= 0; t += 20) {
		s = slurp(path);
		w = (pid_t)atoi(s);
		free(s);
		if (w <= 0)
			sleep_ms(20);
	}
	return w;
}

static int
probes_skip(void)
{
	if (geteuid() != 0 || !tracefs_present()) {
		fprintf(stderr, "check_sandbox: traced_probes needs root and "
		    "tracefs, skipped\n");
		return 1;
	}
	return 0;
}

/*
 * The broker's CapEff on this machine: CAP_DAC_OVERRIDE (1) and CAP_KILL
 * (5) always; CAP_SYS_PTRACE (19) when /proc has hidepid= and it does
 * not let root's group in (ptraceable, or a gid= other than 0 and the
 * worker's nogroup); CAP_SYSLOG (34) when /proc/kallsyms shows real
 * addresses only with it (kptr_restrict 1, or 0 with perf_event_paranoid
 * above 1).
 */
static void
probes_broker_caps(char *out, size_t outsz)
{
	unsigned long long caps = (1ull << 1) | (1ull << 5);
	char *kptr = slurp("/proc/sys/kernel/kptr_restrict");
	char *paranoid = slurp("/proc/sys/kernel/perf_event_paranoid");
	char *mounts = slurp("/proc/self/mountinfo"), *line, *save = NULL;

	for (line = strtok_r(mounts, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save))
		if (strstr(line, " /proc ") != NULL &&
		    strstr(line, " - proc ") != NULL) {
			/* the last mount on /proc is the one in use */
			const char *gid = strstr(line, ",gid=");

			caps &= ~(1ull << 19);
			if (strstr(line, "hidepid=") != NULL &&
			    strstr(line, "hidepid=0") == NULL &&
			    strstr(line, "hidepid=off") == NULL &&
			    (strstr(line, "hidepid=4") != NULL ||
			    strstr(line, "hidepid=ptraceable") != NULL ||
			    (gid != NULL && atoi(gid + 5) != 0 &&
			    atoi(gid + 5) != 65534)))
				caps |= 1ull << 19;
		}
	if (atoi(kptr) == 1 || (atoi(kptr) == 0 && (*paranoid == '\0' ||
	    atoi(paranoid) > 1)))
		caps |= 1ull << 34;
	snprintf(out, outsz, "%016llx", caps);
	free(kptr);
	free(paranoid);
	free(mounts);
}

START_TEST(test_probes_confined)
{
	struct daemon d;
	char bcaps[32];
	pid_t w;

	if (probes_skip())
		return;
	traced_start(&traced_d, NULL);
	traced_wait_serving(&traced_d);
	probes_start(&d, NULL);
	ck_assert_msg(wait_for_text(d.log, "connected to the tracing service",
	    d.pid), "worker never connected");
	ck_assert_int_gt((w = probes_worker(d.pid)), 0);
	check_confined("traced_probes worker", w, "0000000000000000",
	    "65534");
	/* Broker: root, the capabilities this machine makes useful. */
	probes_broker_caps(bcaps, sizeof(bcaps));
	check_confined("traced_probes broker", d.pid, bcaps, "0");
	daemon_stop_ok(&d, "traced_probes");
	daemon_stop_ok(&traced_d, "traced");
}
END_TEST

START_TEST(test_probes_sigsys)
{
	static const char *const env[] = { "FARO_TEST_FORBIDDEN_SYSCALL=1",
	    NULL };
	struct daemon d;
	int status;
	char *log;

	if (no_hooks() || probes_skip())
		return;
	traced_start(&traced_d, NULL);
	traced_wait_serving(&traced_d);
	probes_start(&d, env);
	/* The worker dies of SIGSYS; the broker says so and fails. */
	status = daemon_wait(&d);
	log = slurp(d.log);
	ck_assert_msg(status != -1 && WIFEXITED(status) &&
	    WEXITSTATUS(status) != 0 && strstr(log, "signal 31") != NULL,
	    "status %#x, log:\n%s", status, log);
	free(log);
	daemon_stop_ok(&traced_d, "traced");
}
END_TEST

START_TEST(test_probes_debug)
{
	static const char *const env[] = { "FARO_TEST_FORBIDDEN_SYSCALL=1",
	    "FARO_SANDBOX_DEBUG=1", NULL };
	struct daemon d;

	if (no_hooks() || probes_skip())
		return;
	traced_start(&traced_d, NULL);
	traced_wait_serving(&traced_d);
	probes_start(&d, env);
	ck_assert_msg(wait_for_text(d.log, "denied syscall personality",
	    d.pid), "no denial logged");
	ck_assert_msg(wait_for_text(d.log, "connected to the tracing service",
	    d.pid), "worker never connected");
	daemon_stop_ok(&d, "traced_probes");
	daemon_stop_ok(&traced_d, "traced");
}
END_TEST

/* ---- trace_processor --httpd ---- */

static int
tp_has_httpd(void)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "%s/daemons/trace_processor/trace_processor"
	    " --help 2>&1 | grep -q -e --httpd", builddir());
	if (system(cmd) != 0) {
		fprintf(stderr, "check_sandbox: trace_processor built without "
		    "--httpd, skipped\n");
		return 0;
	}
	return 1;
}

static void
tp_start(struct daemon *d, const char *const *env, int debug_flag)
{
	char bin[512];
	const char *argv[] = { bin, "--httpd", "--http-port", "0",
	    debug_flag ? "--sandbox-debug" : NULL, NULL };

	snprintf(bin, sizeof(bin), "%s/daemons/trace_processor/trace_processor",
	    builddir());
	daemon_start(d, "trace_processor", argv, env);
}

/* The port from "[HTTP] Starting RPC server on ADDR:PORT". */
static int
tp_port(struct daemon *d)
{
	char *s, *p;
	int port = 0;

	ck_assert_msg(wait_for_text(d->log, "Starting RPC server on", d->pid),
	    "trace_processor never served");
	s = slurp(d->log);
	if ((p = strstr(s, "Starting RPC server on")) != NULL &&
	    (p = strchr(p, ':')) != NULL)
		port = atoi(p + 1);
	free(s);
	return port;
}

/* One HTTP request on the confined server: /status answers 200. */
static void
tp_http_ok(int port)
{
	static const char req[] = "GET /status HTTP/1.1\r\nHost: localhost\r\n"
	    "Connection: close\r\n\r\n";
	struct sockaddr_in sin;
	char buf[64] = { 0 };
	ssize_t n;
	int fd;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons((uint16_t)port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_ne((fd = socket(AF_INET, SOCK_STREAM, 0)), -1);
	ck_assert_int_eq(connect(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	ck_assert_int_eq(write(fd, req, sizeof(req) - 1),
	    (ssize_t)sizeof(req) - 1);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	ck_assert_msg(n > 12 && strncmp(buf, "HTTP/1.1 200", 12) == 0,
	    "answer: %s", buf);
}

START_TEST(test_tp_confined)
{
	struct daemon d;
	int port;

	if (!tp_has_httpd())
		return;
	tp_start(&d, NULL, 0);
	ck_assert_int_gt((port = tp_port(&d)), 0);
	check_confined("trace_processor", d.pid, "0000000000000000", "65534");
	tp_http_ok(port);
	daemon_stop_ok(&d, "trace_processor");
}
END_TEST

START_TEST(test_tp_sigsys)
{
	static const char *const env[] = { "FARO_TEST_FORBIDDEN_SYSCALL=1",
	    NULL };
	struct daemon d;

	if (no_hooks() || !tp_has_httpd())
		return;
	tp_start(&d, env, 0);
	daemon_expect_sigsys(&d, "trace_processor");
}
END_TEST

START_TEST(test_tp_debug)
{
	static const char *const env[] = { "FARO_TEST_FORBIDDEN_SYSCALL=1",
	    NULL };
	struct daemon d;
	int port;

	if (no_hooks() || !tp_has_httpd())
		return;
	/* The flag this time (traced's tests use the variable). */
	tp_start(&d, env, 1);
	ck_assert_msg(wait_for_text(d.log, "denied syscall personality",
	    d.pid), "no denial logged");
	ck_assert_int_gt((port = tp_port(&d)), 0);
	tp_http_ok(port);
	daemon_stop_ok(&d, "trace_processor");
}
END_TEST

/* ---- trace_processor's shell and one-shot modes ---- */

static void
tp_shell_argv(char *bin, size_t binlen, char *trace, size_t tracelen)
{
	const char *src = getenv("top_srcdir");

	snprintf(bin, binlen, "%s/daemons/trace_processor/trace_processor",
	    builddir());
	snprintf(trace, tracelen, "%s/tests/trace_processor/metrics/data/"
	    "linux.pb", src != NULL ? src : ".");
}

/* The prompt, waiting on a pipe: confined as the daemon, same user. */
START_TEST(test_tp_shell_confined)
{
	char bin[512], trace[512], uid[16];
	const char *argv[] = { bin, trace, NULL };
	struct daemon d;
	int in[2], status;

	tp_shell_argv(bin, sizeof(bin), trace, sizeof(trace));
	ck_assert_int_eq(pipe(in), 0);
	snprintf(d.log, sizeof(d.log), "%s/shell.log", dir);
	d.pid = fork();
	ck_assert_int_ne(d.pid, -1);
	if (d.pid == 0) {
		int fd = open(d.log, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		unsetenv("FARO_TEST_FORBIDDEN_SYSCALL");
		unsetenv("FARO_SANDBOX_DEBUG");
		dup2(in[0], 0);
		dup2(fd, 1);
		dup2(fd, 2);
		close(in[1]);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(in[0]);
	snprintf(uid, sizeof(uid), "%d", (int)geteuid());
	check_confined("trace_processor shell", d.pid, "0000000000000000",
	    uid);
	/* It still answers, and leaves at the end of its input. */
	ck_assert_int_eq(write(in[1], "select count(*) from sched;\n", 28),
	    28);
	close(in[1]);
	status = daemon_wait(&d);
	ck_assert_msg(status != -1 && WIFEXITED(status) &&
	    WEXITSTATUS(status) == 0, "shell: status %#x", status);
}
END_TEST

START_TEST(test_tp_shell_sigsys)
{
	static const char *const env[] = { "FARO_TEST_FORBIDDEN_SYSCALL=1",
	    NULL };
	char bin[512], trace[512];
	const char *argv[] = { bin, "-Q", "select 1", trace, NULL };
	struct daemon d;

	if (no_hooks())
		return;
	tp_shell_argv(bin, sizeof(bin), trace, sizeof(trace));
	daemon_start(&d, "trace_processor", argv, env);
	daemon_expect_sigsys(&d, "trace_processor -Q");
}
END_TEST

/* ---- fixture ---- */

static void
setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/check_sandbox.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	/* Confined daemons run as nobody: let them reach their sockets. */
	ck_assert_int_eq(chmod(dir, 0755), 0);
	snprintf(prod_sock, sizeof(prod_sock), "%s/producer.sock", dir);
	snprintf(cons_sock, sizeof(cons_sock), "%s/consumer.sock", dir);
	traced_d.pid = 0;
}

static void
teardown(void)
{
	char cmd[300];

	if (traced_d.pid > 0) {
		kill(traced_d.pid, SIGKILL);
		waitpid(traced_d.pid, NULL, 0);
	}
	if (getenv("CHECK_SANDBOX_KEEP") == NULL) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
		(void)!system(cmd);
	}
}

int
main(void)
{
	Suite *s = suite_create("sandbox");
	TCase *tc;
	SRunner *sr;
	int nfail;

	tc = tcase_create("traced");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 90);
	tcase_add_test(tc, test_traced_confined);
	tcase_add_test(tc, test_traced_sigsys);
	tcase_add_test(tc, test_traced_debug);
	tcase_add_test(tc, test_traced_debug_flag);
	suite_add_tcase(s, tc);

	tc = tcase_create("traced_probes");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 90);
	tcase_add_test(tc, test_probes_confined);
	tcase_add_test(tc, test_probes_sigsys);
	tcase_add_test(tc, test_probes_debug);
	suite_add_tcase(s, tc);

	tc = tcase_create("trace_processor");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 90);
	tcase_add_test(tc, test_tp_confined);
	tcase_add_test(tc, test_tp_sigsys);
	tcase_add_test(tc, test_tp_debug);
	tcase_add_test(tc, test_tp_shell_confined);
	tcase_add_test(tc, test_tp_shell_sigsys);
	suite_add_tcase(s, tc);

	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	nfail = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nfail == 0 ? 0 : 1;
}
