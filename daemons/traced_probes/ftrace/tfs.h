/*
 * tfs: finding (or mounting) tracefs and small whole-file reads and writes
 * under a tracefs root (the top level or an instance directory).
 */
#ifndef FARO_TFS_H
#define FARO_TFS_H

#include <stddef.h>

#define TFS_PATH_MAX	512

/*
 * Finds the tracefs root: /sys/kernel/tracing, else the debugfs copy,
 * else mounts tracefs at /sys/kernel/tracing when mount_ok. Returns 0 and
 * fills root, or -1 with *cause.
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
/* Number of per_cpu/cpuN directories. */
int	tfs_ncpus(const char *root);

#endif
