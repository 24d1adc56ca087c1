/*
 * Starting and stopping a real traced for a test, in a private directory.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "traced_test.h"

int
tt_traced_start(struct tt_traced *t, const char *const *extra_argv)
{
	const char	*top = getenv("top_builddir");
	char		 bin[512], fdbuf[16], c;
	const char	*argv[16];
	struct pollfd	 pfd;
	int		 pipefd[2], n = 0, logfd;

	memset(t, 0, sizeof(*t));
	snprintf(t->dir, sizeof(t->dir), "/tmp/tt-traced.XXXXXX");
	if (mkdtemp(t->dir) == NULL)
		return -1;
	snprintf(t->producer_sock, sizeof(t->producer_sock), "%s/producer",
	    t->dir);
	snprintf(t->consumer_sock, sizeof(t->consumer_sock), "%s/consumer",
	    t->dir);
	snprintf(t->log, sizeof(t->log), "%s/traced.log", t->dir);
	snprintf(bin, sizeof(bin), "%s/daemons/traced/traced",
	    top != NULL ? top : ".");
	if (pipe(pipefd) == -1)
		return -1;
	argv[n++] = bin;
	argv[n++] = "-v";
	for (int i = 0; extra_argv != NULL && extra_argv[i] != NULL &&
	    n < 14; i++)
		argv[n++] = extra_argv[i];
	argv[n] = NULL;
	if ((t->pid = fork()) == -1)
		return -1;
	if (t->pid == 0) {
		close(pipefd[0]);
		snprintf(fdbuf, sizeof(fdbuf), "%d", pipefd[1]);
		setenv("TRACED_NOTIFY_FD", fdbuf, 1);
		setenv("PERFETTO_PRODUCER_SOCK_NAME", t->producer_sock, 1);
		setenv("PERFETTO_CONSUMER_SOCK_NAME", t->consumer_sock, 1);
		unsetenv("NOTIFY_SOCKET");
		unsetenv("LISTEN_FDS");
		unsetenv("LISTEN_PID");
		if ((logfd = open(t->log, O_WRONLY | O_CREAT | O_TRUNC,
		    0644)) != -1) {
			dup2(logfd, 2);
			close(logfd);
		}
		execv(bin, (char *const *)argv);
		_exit(127);
	}
	close(pipefd[1]);
	pfd.fd = pipefd[0];
	pfd.events = POLLIN;
	if (poll(&pfd, 1, 20000) != 1 || read(pipefd[0], &c, 1) != 1 ||
	    c != '1') {
		close(pipefd[0]);
		tt_traced_stop(t);
		return -1;
	}
	close(pipefd[0]);
	return 0;
}

int
tt_traced_alive(struct tt_traced *t)
{
	int	status;

	if (t->pid <= 0)
		return 0;
	if (waitpid(t->pid, &status, WNOHANG) == t->pid) {
		t->pid = -1;
		return 0;
	}
	return 1;
}

int
tt_traced_stop(struct tt_traced *t)
{
	int	status = -1, i;
	char	cmd[600];

	if (t->pid > 0) {
		kill(t->pid, SIGTERM);
		for (i = 0; i < 500; i++) {
			if (waitpid(t->pid, &status, WNOHANG) == t->pid)
				break;
			usleep(10000);
		}
		if (i == 500) {
			kill(t->pid, SIGKILL);
			waitpid(t->pid, &status, 0);
			status = -1;
		}
		t->pid = -1;
	}
	if (getenv("TT_KEEP") == NULL && t->dir[0] != '\0') {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", t->dir);
		if (system(cmd) != 0)
			fprintf(stderr, "tt_traced_stop: cannot remove %s\n",
			    t->dir);
	}
	if (status == -1)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 +
	    WTERMSIG(status);
}

static void
tt_timeout_cb(evutil_socket_t fd, short ev, void *arg)
{
	int	*expired = arg;

	(void)fd; (void)ev;
	*expired = 1;
}

int
tt_wait(struct event_base *base, const int *flag, int timeout_ms)
{
	struct event	*ev;
	struct timeval	 tv;
	int		 expired = 0;

	if (*flag)
		return 0;
	ev = evtimer_new(base, tt_timeout_cb, &expired);
	tv.tv_sec = timeout_ms / 1000;
	tv.tv_usec = (timeout_ms % 1000) * 1000;
	evtimer_add(ev, &tv);
	while (!*flag && !expired)
		event_base_loop(base, EVLOOP_ONCE);
	event_free(ev);
	return *flag ? 0 : -1;
}

void
tt_spin(struct event_base *base, int ms)
{
	int	never = 0;

	tt_wait(base, &never, ms);
}

int
tt_read_file(const char *path, uint8_t **data, size_t *len)
{
	struct stat	 st;
	uint8_t		*buf;
	ssize_t		 n;
	size_t		 off = 0;
	int		 fd;

	if ((fd = open(path, O_RDONLY)) == -1)
		return -1;
	if (fstat(fd, &st) == -1 || (buf = malloc(st.st_size + 1)) == NULL) {
		close(fd);
		return -1;
	}
	while (off < (size_t)st.st_size &&
	    (n = read(fd, buf + off, st.st_size - off)) > 0)
		off += (size_t)n;
	close(fd);
	*data = buf;
	*len = off;
	return 0;
}

long
tt_proc_rss_kb(pid_t pid)
{
	char	 path[64], line[256];
	FILE	*f;
	long	 kb = -1;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "VmRSS: %ld", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

double
tt_proc_cpu_s(pid_t pid)
{
	char		 path[64];
	FILE		*f;
	unsigned long	 utime, stime;
	int		 n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((f = fopen(path, "r")) == NULL)
		return -1;
	n = fscanf(f, "%*d %*s %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u "
	    "%lu %lu", &utime, &stime);
	fclose(f);
	if (n != 2)
		return -1;
	return (double)(utime + stime) / (double)sysconf(_SC_CLK_TCK);
}
