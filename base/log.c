/* Logging to stderr or syslog; see log.h. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "log.h"

static const char *log_procname = "faro";
static int log_foreground = 1;
static int log_verbose;

void
log_init(const char *progname, int foreground, int verbose)
{
	if (progname != NULL)
		log_procname = progname;
	log_foreground = foreground;
	log_verbose = verbose;
	if (!foreground)
		openlog(log_procname, LOG_PID | LOG_NDELAY, LOG_DAEMON);
}

void
log_setverbose(int verbose)
{
	log_verbose = verbose;
}

int
log_getverbose(void)
{
	return log_verbose;
}

void
vlog(int pri, const char *fmt, va_list ap)
{
	int saved_errno = errno;
	char buf[1024];

	if (pri == LOG_DEBUG && log_verbose < 1)
		return;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	if (log_foreground) {
		/* One write per line so lines of concurrent processes do not mix. */
		fprintf(stderr, "%s: %s\n", log_procname, buf);
		fflush(stderr);
	} else {
		syslog(pri, "%s", buf);
	}
	errno = saved_errno;
}

static void	vlog_errno(int, int, const char *, va_list)
		    __attribute__((format(printf, 3, 0)));

/* Formats fmt and appends ": strerror(errnum)". */
static void
vlog_errno(int pri, int errnum, const char *fmt, va_list ap)
{
	char buf[768];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	if (log_foreground) {
		fprintf(stderr, "%s: %s: %s\n", log_procname, buf, strerror(errnum));
		fflush(stderr);
	} else {
		syslog(pri, "%s: %s", buf, strerror(errnum));
	}
	errno = errnum;
}

void
log_warn(const char *fmt, ...)
{
	va_list ap;
	int errnum = errno;

	va_start(ap, fmt);
	vlog_errno(LOG_WARNING, errnum, fmt, ap);
	va_end(ap);
}

void
log_warnx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(LOG_WARNING, fmt, ap);
	va_end(ap);
}

void
log_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(LOG_INFO, fmt, ap);
	va_end(ap);
}

void
log_debug(const char *fmt, ...)
{
	va_list ap;

	if (log_verbose < 1)
		return;
	va_start(ap, fmt);
	vlog(LOG_DEBUG, fmt, ap);
	va_end(ap);
}

void
fatal(const char *fmt, ...)
{
	va_list ap;
	int errnum = errno;

	va_start(ap, fmt);
	vlog_errno(LOG_CRIT, errnum, fmt, ap);
	va_end(ap);
	exit(1);
}

void
fatalx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(LOG_CRIT, fmt, ap);
	va_end(ap);
	exit(1);
}
