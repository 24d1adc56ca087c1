/* Pipe ping-pong load shared by the ftrace benchmarks (see pingpong.h). */
#include "config.h"

#include <sys/wait.h>

#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "pingpong.h"

static pid_t	loaders[2 * PINGPONG_PAIRS_MAX];
static int	nloaders;

/* One side of a pair: reads then writes (or the reverse) until a pipe dies. */
static void
pingpong_run(int rfd, int wfd, int reader_first)
{
	char c = 0;

	for (;;) {
		if (reader_first ?
		    read(rfd, &c, 1) != 1 || write(wfd, &c, 1) != 1 :
		    write(wfd, &c, 1) != 1 || read(rfd, &c, 1) != 1)
			_exit(0);
	}
}

void
pingpong_start(int pairs)
{
	for (int i = 0; i < pairs &&
	    nloaders + 2 <= 2 * PINGPONG_PAIRS_MAX; i++) {
		int ab[2], ba[2];
		pid_t p;

		if (pipe(ab) == -1 || pipe(ba) == -1)
			exit(1);
		if ((p = fork()) == 0)
			pingpong_run(ab[0], ba[1], 1);
		loaders[nloaders++] = p;
		if ((p = fork()) == 0)
			pingpong_run(ba[0], ab[1], 0);
		loaders[nloaders++] = p;
		close(ab[0]);
		close(ab[1]);
		close(ba[0]);
		close(ba[1]);
	}
}

void
pingpong_stop(void)
{
	for (int i = 0; i < nloaders; i++)
		kill(loaders[i], SIGKILL);
	for (int i = 0; i < nloaders; i++)
		waitpid(loaders[i], NULL, 0);
	nloaders = 0;
}
