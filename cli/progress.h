/*
 * The progress line: elapsed time, bytes and data sources started, redrawn
 * in place on a terminal and silent otherwise (pipes, files, --background).
 */
#ifndef FARO_CLI_PROGRESS_H
#define FARO_CLI_PROGRESS_H

#include <stdint.h>
#include <time.h>

struct progress {
	int		 fd;		/* -1: disabled */
	struct timespec	 start;
	uint32_t	 duration_ms;	/* 0: open-ended */
	uint64_t	 bytes;
	unsigned	 ds_started;
	int		 drawn;
};

/* Enabled only when fd is a terminal. */
void	progress_init(struct progress *, int fd, uint32_t duration_ms);
/* Formats the line for the current state; returns its length. */
int	progress_format(const struct progress *, uint64_t elapsed_ms,
	    char *buf, size_t len);
void	progress_draw(struct progress *);
/* Erases the line so that log messages start on a clean line. */
void	progress_clear(struct progress *);

#endif
