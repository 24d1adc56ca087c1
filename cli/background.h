/*
 * -d / -D: faro forks once the config and output file are ready. The
 * parent prints the child's PID and exits (with -D only after the child
 * reports that every data source started, up to 30 s); the child goes on
 * in a new session with stdio on /dev/null.
 */
#ifndef FARO_CLI_BACKGROUND_H
#define FARO_CLI_BACKGROUND_H

#include "cli/consumer.h"

/*
 * Returns 0 in the child (with n->bg_fd set for -D), or -1 on error in
 * the original process. The parent exits inside.
 */
int	background_start(int wait, struct consumer_notify *n);

/* The parent's side of -D: the exit code for the status read from fd. */
int	background_wait_status(int fd, int timeout_ms);

#endif
