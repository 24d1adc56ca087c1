/* Daemonizing for -d / -D; see background.h. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/log.h"
#include "cli/background.h"

int
background_wait_status(int fd, int timeout_ms)
{
	struct pollfd pfd = { fd, POLLIN, 0 };
	uint8_t st;
	ssize_t n;
	int r;

	do
		r = poll(&pfd, 1, timeout_ms);
	while (r == -1 && errno == EINTR);
	if (r == -1) {
		log_warn("background_wait_status: poll");
		return CONSUMER_WAIT_ERROR;
	}
	if (r == 0) {
		log_warnx("Timeout waiting for all data sources to start");
		return CONSUMER_WAIT_TIMEOUT;
	}
	do
		n = read(fd, &st, 1);
	while (n == -1 && errno == EINTR);
	if (n != 1) {
		log_warnx("Background process didn't report anything");
		return CONSUMER_WAIT_ERROR;
	}
	if (st != CONSUMER_WAIT_OK)
		log_warnx("Background process failed, status %d", st);
	return st;
}

int
background_start(int wait, struct consumer_notify *n)
{
	int ready[2], status[2] = { -1, -1 }, null;
	pid_t pid;
	char one;

	if (pipe2(ready, O_CLOEXEC) == -1 ||
	    (wait && pipe2(status, O_CLOEXEC) == -1)) {
		log_warn("background_start: pipe");
		return -1;
	}
	fflush(stdout);
	fflush(stderr);
	switch ((pid = fork())) {
	case -1:
		log_warn("background_start: fork");
		return -1;
	case 0:
		close(ready[0]);
		if (wait)
			close(status[0]);
		if (setsid() == -1)
			log_warn("background_start: setsid");
		if (chdir("/") == -1)
			log_warn("background_start: chdir");
		if ((null = open("/dev/null", O_RDWR)) != -1) {
			dup2(null, STDIN_FILENO);
			dup2(null, STDOUT_FILENO);
			dup2(null, STDERR_FILENO);
			if (null > STDERR_FILENO)
				close(null);
		}
		/* Tell the parent the terminal can go away now. */
		if (write(ready[1], "1", 1) != 1)
			_exit(1);
		close(ready[1]);
		n->bg_fd = wait ? status[1] : -1;
		return 0;
	default:
		break;
	}
	close(ready[1]);
	if (wait)
		close(status[1]);
	if (read(ready[0], &one, 1) != 1) {
		log_warnx("background process died before it started");
		exit(1);
	}
	printf("%d\n", (int)pid);
	fflush(stdout);
	exit(wait ? background_wait_status(status[0], 30000) : 0);
}
