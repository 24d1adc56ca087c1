/*
 * tfs: every access traced_probes makes to tracefs, in one place.
 *
 * Direct mode (tests, or a daemon that keeps its privileges): plain
 * system calls. Broker mode (the daemon): the worker that parses kernel
 * data runs without privileges and asks a privileged broker process, over
 * a socket, to do each access for it; the broker checks every path
 * against what traced_probes legitimately touches and passes back data or
 * descriptors (trace_pipe_raw):
 *
 *   worker (no privileges)                broker (root, small)
 *     tfs_read/write/list/...  --req-->   path allowed?  do it
 *                              <--rep--   rc, errno, data [, fd]
 *
 * Paths are absolute (a root, then a relative path under it); roots are
 * the tracefs mount or one of its instances.
 *
 * The broker also opens the few /proc files an unprivileged worker may
 * not see: /proc/kallsyms (the kernel shows real addresses only to an
 * opener with CAP_SYSLOG) and the per-process files of the ps probes
 * when /proc is mounted with hidepid=. Under hidepid a readdir of /proc
 * is filtered by the reader's credentials, not the opener's, so pids are
 * listed by the broker and sent back as data, not as a descriptor.
 */
#ifndef FARO_TFS_H
#define FARO_TFS_H

#include <stddef.h>
#include <stdint.h>

#define TFS_PATH_MAX	512

/*
 * Finds the tracefs root: /sys/kernel/tracing, else the debugfs copy,
 * else mounts tracefs at /sys/kernel/tracing when mount_ok. Returns 0 and
 * fills root, or -1 with *cause. (Direct only: the broker's job.)
 */
int	tfs_find(char *root, size_t rootsz, int mount_ok, const char **cause);

/* Reads root/rel into a NUL-terminated malloc'd buffer. */
int	tfs_read(const char *root, const char *rel, char **buf, size_t *len);
/* Reads the first line of root/rel, without its newline. */
int	tfs_read_line(const char *root, const char *rel, char *buf,
	    size_t bufsz);
/* Writes val to root/rel, truncating, or appending when append. */
int	tfs_write(const char *root, const char *rel, const char *val,
	    int append);
int	tfs_exists(const char *root, const char *rel);
/*
 * Many reads, writes or existence checks under one root in one broker
 * round trip (as many as fit; the rest in the next ones). Each access
 * is checked and done on its own, in order, as if made alone: io[i].rc
 * is 0 or -1 with io[i].err; a read's data is malloc'd and
 * NUL-terminated (free it). Returns 0, or -1 with errno when the broker
 * could not be asked (the accesses not done then say so in err).
 */
enum tfs_io_kind { TFS_IO_READ = 1, TFS_IO_WRITE, TFS_IO_EXISTS };
struct tfs_io {
	enum tfs_io_kind	 kind;
	const char		*rel;
	const char		*val;	/* TFS_IO_WRITE */
	int			 rc;
	int			 err;
	char			*data;	/* TFS_IO_READ */
	size_t			 len;
};
int	tfs_batch(const char *root, struct tfs_io *io, size_t n);
/* Names of the subdirectories of root/rel (malloc'd, free with tfs_list_free). */
int	tfs_list(const char *root, const char *rel, char ***names, size_t *n);
void	tfs_list_free(char **names, size_t n);
/* Number of per_cpu/cpuN directories. */
int	tfs_ncpus(const char *root);
/* root/per_cpu/cpuN/trace_pipe_raw, read-only and non-blocking. */
int	tfs_open_raw(const char *root, int cpu);
/* Creates or removes an instance directory (a full path). */
int	tfs_mkdir(const char *path);
int	tfs_rmdir(const char *path);

/*
 * Opens, read-only, one of the /proc files traced_probes reads: exactly
 * /proc/kallsyms, /proc/PID/{status,cmdline,oom_score_adj} or
 * /proc/PID/task/TID/comm (PID and TID decimal, no leading zero).
 * Returns the descriptor, or -1 with errno (EPERM: not such a path).
 */
int	tfs_open_proc(const char *path);
/*
 * The pids under "/proc", or the tids under "/proc/PID/task", in
 * ascending order, as seen by the broker: *pids is malloc'd (free it),
 * *n may be 0. Returns 0, or -1 with errno (EPERM: another path).
 */
int	tfs_list_proc(const char *path, int32_t **pids, size_t *n);

/* From now on, send every access to the broker at the other end of fd
 * (-1: back to direct access). */
void	tfs_use_broker(int fd);
/* Requests made so far: accesses in direct mode, round trips to the
 * broker (a batch is one) in broker mode. */
uint64_t tfs_calls(void);
/* The broker's side: see daemons/traced_probes/broker.h. */

#endif
