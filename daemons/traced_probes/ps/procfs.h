/*
 * procfs: bounded reads of /proc and /sys text files, and the small
 * tokenizers every probe parser shares. The kernel's text is treated as
 * untrusted input: a file can vanish between the directory scan and the
 * open, be truncated by our buffer, or (in tests and fuzzing) hold
 * anything at all. Nothing here allocates.
 */
#ifndef FARO_PROCFS_H
#define FARO_PROCFS_H

#include <sys/types.h>

#include <dirent.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Reads path into buf (open, read to EOF or buf full, close) and
 * NUL-terminates it. When the file does not fit, the text is cut after
 * its last complete line (a half line would parse as a wrong value) and
 * *truncated is set (truncated may be NULL). Returns the length, or -1
 * with errno (ENOENT when the process went away).
 */
ssize_t	procfs_read(const char *path, char *buf, size_t size, int *truncated);
/* The same, the path built with printf rules. */
ssize_t	procfs_readf(char *buf, size_t size, int *truncated,
	    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Reads a one-number file (sysfs): 0 and *v, or -1. */
int	procfs_read_u64(const char *path, uint64_t *v);

/* Next numeric entry of a /proc-style directory, 0 at the end. */
int32_t	procfs_next_pid(DIR *);

/*
 * Line and word cursors over [*p, end). Each returns 1 with the token in
 * (*tok, *len) and advances *p, or 0 at the end. Words are separated by
 * spaces and tabs; a line excludes its '\n'.
 */
int	procfs_line(const char **p, const char *end, const char **tok,
	    size_t *len);
int	procfs_word(const char **p, const char *end, const char **tok,
	    size_t *len);

/* Strict decimal: digits only (one leading '-' for the signed form). */
int	procfs_u64(const char *s, size_t len, uint64_t *v);
int	procfs_i64(const char *s, size_t len, int64_t *v);

/*
 * "Key: value" files (/proc/PID/status, /proc/meminfo): the value of the
 * first line that starts with key (key includes the ':'), leading blanks
 * skipped, up to the end of the line; NULL if absent.
 */
const char *procfs_field(const char *text, size_t len, const char *key,
	    size_t *vlen);

/* CLOCK_BOOTTIME in ns: the default clock of trace packets. */
uint64_t procfs_boottime_ns(void);

#endif
