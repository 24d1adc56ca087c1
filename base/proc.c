/* Process plumbing: signals, readiness, daemonising; see proc.h. */
#include "config.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "libipc/ipc_sock.h"
#include "log.h"
#include "proc.h"

struct proc_signals {
	struct event_base	*base;
	struct event		*ev_int;
	struct event		*ev_term;
	struct event		*ev_hup;
	proc_signal_fn		*on_term;
	proc_signal_fn		*on_hup;
	void			*arg;
};

static void
proc_on_signal(evutil_socket_t sig, short ev, void *arg)
{
	struct proc_signals *ps = arg;

	if (sig == SIGHUP) {
		if (ps->on_hup != NULL)
			ps->on_hup((int)sig, ps->arg);
		return;
	}
	log_debug("%s: signal %d", __func__, (int)sig);
	if (ps->on_term != NULL)
		ps->on_term((int)sig, ps->arg);
	else
		event_base_loopbreak(ps->base);
}

struct proc_signals *
proc_signals_new(struct event_base *base, proc_signal_fn *on_term,
    proc_signal_fn *on_hup, void *arg)
{
	struct proc_signals *ps;

	if ((ps = calloc(1, sizeof(*ps))) == NULL)
		return NULL;
	ps->base = base;
	ps->on_term = on_term;
	ps->on_hup = on_hup;
	ps->arg = arg;
	/* A peer that goes away must cost us EPIPE, not the process. */
	signal(SIGPIPE, SIG_IGN);
	ps->ev_int = evsignal_new(base, SIGINT, proc_on_signal, ps);
	ps->ev_term = evsignal_new(base, SIGTERM, proc_on_signal, ps);
	ps->ev_hup = evsignal_new(base, SIGHUP, proc_on_signal, ps);
	if (ps->ev_int == NULL || ps->ev_term == NULL || ps->ev_hup == NULL ||
	    evsignal_add(ps->ev_int, NULL) == -1 ||
	    evsignal_add(ps->ev_term, NULL) == -1 ||
	    evsignal_add(ps->ev_hup, NULL) == -1) {
		proc_signals_free(ps);
		return NULL;
	}
	return ps;
}

void
proc_signals_free(struct proc_signals *ps)
{
	if (ps == NULL)
		return;
	if (ps->ev_int)
		event_free(ps->ev_int);
	if (ps->ev_term)
		event_free(ps->ev_term);
	if (ps->ev_hup)
		event_free(ps->ev_hup);
	free(ps);
}

int
proc_notify(const char *state)
{
	struct sockaddr_un sun;
	const char *path, *cause;
	socklen_t len;
	ssize_t n;
	int fd;

	if ((path = getenv("NOTIFY_SOCKET")) == NULL || path[0] == '\0')
		return 0;
	if (path[0] != '/' && path[0] != '@') {
		log_warnx("%s: NOTIFY_SOCKET %s: not a UNIX socket", __func__,
		    path);
		return -1;
	}
	if (ipc_sock_addr(path, &sun, &len, &cause) == -1) {
		log_warnx("%s: NOTIFY_SOCKET %s: %s", __func__, path, cause);
		return -1;
	}
	if ((fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) == -1) {
		log_warn("%s: socket", __func__);
		return -1;
	}
	n = sendto(fd, state, strlen(state), MSG_NOSIGNAL,
	    (struct sockaddr *)&sun, len);
	if (n == -1)
		log_warn("%s: sendto %s", __func__, path);
	close(fd);
	return n == -1 ? -1 : 1;
}

int
proc_notify_ready(void)
{
	return proc_notify("READY=1");
}

int
proc_daemonize(void)
{
	int p[2], fd, status;
	char c;
	pid_t pid;

	/* The parent waits for the child's new session before exiting. */
	if (pipe2(p, O_CLOEXEC) == -1) {
		log_warn("%s: pipe", __func__);
		return -1;
	}
	switch ((pid = fork())) {
	case -1:
		log_warn("%s: fork", __func__);
		close(p[0]);
		close(p[1]);
		return -1;
	case 0:
		break;
	default:
		close(p[1]);
		if (read(p[0], &c, 1) != 1) {
			waitpid(pid, &status, 0);
			_exit(1);
		}
		_exit(0);
	}
	close(p[0]);
	if (setsid() == -1)
		_exit(1);
	if (chdir("/") == -1)
		_exit(1);
	if ((fd = open("/dev/null", O_RDWR)) != -1) {
		dup2(fd, STDIN_FILENO);
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		if (fd > STDERR_FILENO)
			close(fd);
	}
	c = 1;
	if (write(p[1], &c, 1) != 1)
		_exit(1);
	close(p[1]);
	return 0;
}
