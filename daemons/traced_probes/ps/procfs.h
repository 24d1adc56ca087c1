/*
 * procfs: bounded reads of /proc and /sys text files, and the small
 * tokenizers every probe parser shares. The kernel's text is treated as
 * untrusted input: a file can vanish between the directory scan and the
 * open, be truncated by our buffer, or (in tests and fuzzing) hold
 * anything at all. Nothing here allocates but the pid lists.
 *
 * Other processes' files (/proc/PID/...) and the pid lists go through
 * procfs_pid_*: directly by default, or, when /proc is mounted with
 * hidepid= and the caller cannot see everyone, through the ops the daemon
 * installs (traced_probes' broker, ftrace/tfs.h).
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
/* The same from an open descriptor (read from where it is, not closed). */
ssize_t	procfs_read_fd(int fd, char *buf, size_t size, int *truncated);
/* The same, the path built with printf rules. */
ssize_t	procfs_readf(char *buf, size_t size, int *truncated,
	    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Reads a one-number file (sysfs): 0 and *v, or -1. */
int	procfs_read_u64(const char *path, uint64_t *v);

/* Next numeric entry of a /proc-style directory, 0 at the end. */
int32_t	procfs_next_pid(DIR *);

/* ---- other processes ---- */

/* How per-process files are opened and pid directories listed. */
struct procfs_pid_ops {
	/* Opens a /proc/PID/... file read-only: a descriptor or -1. */
	int	(*open)(const char *path);
	/* The pids under "/proc" or the tids under "/proc/PID/task":
	 * 0 and a malloc'd array, or -1. */
	int	(*list)(const char *path, int32_t **pids, size_t *n);
};

/* From now on, use ops (NULL: the direct system calls). */
void	procfs_use_pid_ops(const struct procfs_pid_ops *ops);
/* procfs_readf for a per-process file, through the ops. */
ssize_t	procfs_pid_readf(char *buf, size_t size, int *truncated,
	    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* The pids of /proc (pid 0) or the tids of pid's task/, through the ops:
 * 0 and a malloc'd array (free it), or -1 with errno. */
int	procfs_pid_list(int32_t pid, int32_t **pids, size_t *n);

/*
 * Does /proc hide other processes from a process with no capabilities
 * whose group is gid? Reads /proc/self/mountinfo: the top "proc" mount
 * on /proc and its hidepid= (any value but 0/off hides, except from the
 * mount's gid=, group 0 when not given, and ptraceable hides from every
 * group; subset=pid hides no pid). Returns 1 and the option's text in
 * mode, 0 when nothing is hidden, -1 when it cannot tell (then nothing
 * is assumed hidden: the direct path, as before).
 */
int	procfs_pids_hidden(uint32_t gid, char *mode, size_t modesz);
/* The same on mountinfo text (untrusted input, for the tests). */
int	procfs_pids_hidden_untrusted(const char *text, size_t len,
	    uint32_t gid, char *mode, size_t modesz);

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
