/*
 * Logging for every faro process, in the style of OpenBSD's log.c.
 *
 * log_warn appends strerror(errno); log_warnx does not. fatal/fatalx log
 * and exit(1): use them only for setup failures, never for peer input.
 * Messages begin with the calling function's name by convention:
 *   log_warnx("%s: frame too large (%u bytes)", __func__, len);
 */
#ifndef FARO_LOG_H
#define FARO_LOG_H

#include <stdarg.h>

#define LOG_PRINTF(a, b) __attribute__((format(printf, a, b)))

/* dest: log to stderr when foreground, else syslog. verbose: 0 info, 1+ debug. */
void log_init(const char *progname, int foreground, int verbose);
void log_setverbose(int verbose);
int log_getverbose(void);

void log_warn(const char *fmt, ...) LOG_PRINTF(1, 2);
void log_warnx(const char *fmt, ...) LOG_PRINTF(1, 2);
void log_info(const char *fmt, ...) LOG_PRINTF(1, 2);
void log_debug(const char *fmt, ...) LOG_PRINTF(1, 2);
void vlog(int pri, const char *fmt, va_list ap) LOG_PRINTF(2, 0);
__attribute__((noreturn)) void fatal(const char *fmt, ...) LOG_PRINTF(1, 2);
__attribute__((noreturn)) void fatalx(const char *fmt, ...) LOG_PRINTF(1, 2);

#endif
