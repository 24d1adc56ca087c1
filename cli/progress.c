/* Progress line on a terminal; see progress.h. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/progress.h"

void
progress_init(struct progress *p, int fd, uint32_t duration_ms)
{
	memset(p, 0, sizeof(*p));
	p->fd = fd >= 0 && isatty(fd) ? fd : -1;
	p->duration_ms = duration_ms;
	clock_gettime(CLOCK_MONOTONIC, &p->start);
}

static void
human_bytes(uint64_t b, char *buf, size_t len)
{
	if (b < 1024)
		snprintf(buf, len, "%" PRIu64 " B", b);
	else if (b < 1024 * 1024)
		snprintf(buf, len, "%.1f KiB", (double)b / 1024);
	else if (b < 1024ull * 1024 * 1024)
		snprintf(buf, len, "%.1f MiB", (double)b / (1024 * 1024));
	else
		snprintf(buf, len, "%.2f GiB", (double)b / (1024.0 * 1024 *
		    1024));
}

int
progress_format(const struct progress *p, uint64_t elapsed_ms, char *buf,
    size_t len)
{
	char bytes[32], total[32];

	human_bytes(p->bytes, bytes, sizeof(bytes));
	if (p->duration_ms != 0)
		snprintf(total, sizeof(total), " / %" PRIu32 "s",
		    (p->duration_ms + 999) / 1000);
	else
		total[0] = '\0';
	return snprintf(buf, len, "tracing: %" PRIu64 "s%s, %s, %u data "
	    "source%s started", elapsed_ms / 1000, total, bytes,
	    p->ds_started, p->ds_started == 1 ? "" : "s");
}

void
progress_draw(struct progress *p)
{
	struct timespec now;
	uint64_t ms;
	int64_t d;
	char line[160];
	int n;

	if (p->fd == -1)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	d = (int64_t)(now.tv_sec - p->start.tv_sec) * 1000 +
	    (now.tv_nsec - p->start.tv_nsec) / 1000000;
	ms = d < 0 ? 0 : (uint64_t)d;
	n = progress_format(p, ms, line, sizeof(line));
	/* Carriage return, text, erase to end of line. */
	dprintf(p->fd, "\r%.*s\033[K", n, line);
	p->drawn = 1;
}

void
progress_clear(struct progress *p)
{
	if (p->fd == -1 || !p->drawn)
		return;
	dprintf(p->fd, "\r\033[K");
	p->drawn = 0;
}
