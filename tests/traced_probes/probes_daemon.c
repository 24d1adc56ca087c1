/*
 * The real traced_probes for test suites (probes_daemon.h).
 */
#include "config.h"

#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "protos/perfetto/ipc/consumer_port.pb-c.h"

#include "probes_daemon.h"
#include "traced_test.h"

pid_t
probes_daemon_start(const struct tt_traced *td, const char *run_dir,
    const char *user, const char *log, int (*prep)(void *), void *arg)
{
	const char *top = getenv("top_builddir");
	char prog[512];
	pid_t pid;
	int fd;

	snprintf(prog, sizeof(prog), "%s/daemons/traced_probes/traced_probes",
	    top ? top : ".");
	if ((pid = fork()) != 0)
		return pid;
	if (log != NULL && ((fd = open(log, O_WRONLY | O_CREAT | O_TRUNC,
	    0644)) == -1 || dup2(fd, 2) == -1))
		_exit(126);
	if (prep != NULL && prep(arg) == -1)
		_exit(126);
	setenv("PERFETTO_PRODUCER_SOCK_NAME", td->producer_sock, 1);
	if (user != NULL)
		execl(prog, "traced_probes", "--run-dir", run_dir, "--user",
		    user, (char *)NULL);
	else	/* the daemon's own default user */
		execl(prog, "traced_probes", "--run-dir", run_dir,
		    (char *)NULL);
	_exit(127);
}

int
probes_daemon_stop(pid_t pid)
{
	int status;

	kill(pid, SIGTERM);
	while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
		;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* Flush, at the end DisableTracing, then ReadBuffers. */
static int
session_read(struct event_base *base, struct tt_consumer *c, int end,
    uint8_t **data, size_t *len, struct tt_trace *t)
{
	Perfetto__Protos__FlushRequest fr = PERFETTO__PROTOS__FLUSH_REQUEST__INIT;

	fr.has_timeout_ms = 1;
	fr.timeout_ms = 5000;
	if (tt_consumer_call(c, CM_FLUSH, &fr.base, -1, NULL, 10000) == -1 ||
	    (end && (tt_consumer_call(c, CM_DISABLE, NULL, -1, NULL, 0) ==
	    -1 || tt_wait(base, &c->enable_done, 10000) == -1)) ||
	    tt_consumer_read(c, data, len) == -1)
		return -1;
	if (tt_trace_parse(t, *data, *len) == -1) {
		free(*data);
		return -1;
	}
	return 0;
}

int
probes_session_read(struct event_base *base, struct tt_consumer *c,
    uint8_t **data, size_t *len, struct tt_trace *t)
{
	return session_read(base, c, 0, data, len, t);
}

int
probes_session_end(struct event_base *base, struct tt_consumer *c,
    uint8_t **data, size_t *len, struct tt_trace *t)
{
	return session_read(base, c, 1, data, len, t);
}
