/*
 * tracefs discovery and file access (see tfs.h).
 */
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tfs.h"

#ifndef TRACEFS_MAGIC
#define TRACEFS_MAGIC	0x74726163
#endif
#ifndef DEBUGFS_MAGIC
#define DEBUGFS_MAGIC	0x64626720
#endif

/* Files larger than this are not configuration (and not ours to read). */
#define TFS_READ_MAX	(16 * 1024 * 1024)

static int
is_tracefs(const char *dir)
{
	struct statfs sf;
	char path[TFS_PATH_MAX];

	if (statfs(dir, &sf) == -1 || sf.f_type != TRACEFS_MAGIC)
		return 0;
	snprintf(path, sizeof(path), "%s/trace", dir);
	return access(path, F_OK) == 0;
}

int
tfs_find(char *root, size_t rootsz, int mount_ok, const char **cause)
{
	static const char *dirs[] = { "/sys/kernel/tracing",
	    "/sys/kernel/debug/tracing" };

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		if (is_tracefs(dirs[i])) {
			snprintf(root, rootsz, "%s", dirs[i]);
			return 0;
		}
	}
	if (mount_ok && mount("nodev", dirs[0], "tracefs", 0, NULL) == 0 &&
	    is_tracefs(dirs[0])) {
		snprintf(root, rootsz, "%s", dirs[0]);
		return 0;
	}
	*cause = mount_ok ? "tracefs not mounted and cannot be mounted" :
	    "tracefs not mounted";
	return -1;
}

static int
tfs_path(char *path, size_t sz, const char *root, const char *rel)
{
	int n = snprintf(path, sz, "%s/%s", root, rel);

	if (n < 0 || (size_t)n >= sz) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

int
tfs_read(const char *root, const char *rel, char **bufp, size_t *lenp)
{
	char path[TFS_PATH_MAX], *buf = NULL, *nb;
	size_t len = 0, cap = 0;
	ssize_t n;
	int fd, saved;

	if (tfs_path(path, sizeof(path), root, rel) == -1)
		return -1;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	for (;;) {
		if (cap - len < 4096 + 1) {
			cap = cap ? cap * 2 : 8192;
			if (cap > TFS_READ_MAX || (nb = realloc(buf, cap)) ==
			    NULL) {
				errno = EFBIG;
				goto fail;
			}
			buf = nb;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			goto fail;
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (buf == NULL && (buf = malloc(1)) == NULL)
		return -1;
	buf[len] = '\0';
	*bufp = buf;
	if (lenp != NULL)
		*lenp = len;
	return 0;
fail:
	saved = errno;
	free(buf);
	close(fd);
	errno = saved;
	return -1;
}

int
tfs_read_line(const char *root, const char *rel, char *out, size_t outsz)
{
	char *buf, *nl;
	size_t len;

	if (tfs_read(root, rel, &buf, &len) == -1)
		return -1;
	if ((nl = strchr(buf, '\n')) != NULL)
		*nl = '\0';
	snprintf(out, outsz, "%s", buf);
	free(buf);
	return 0;
}

int
tfs_write(const char *root, const char *rel, const char *val, int append)
{
	char path[TFS_PATH_MAX];
	size_t len = strlen(val);
	ssize_t n;
	int fd, saved;

	if (tfs_path(path, sizeof(path), root, rel) == -1)
		return -1;
	fd = open(path, O_WRONLY | O_CLOEXEC | (append ? O_APPEND : O_TRUNC));
	if (fd == -1)
		return -1;
	do
		n = write(fd, val, len);
	while (n == -1 && errno == EINTR);
	saved = errno;
	close(fd);
	if (n == -1) {
		errno = saved;
		return -1;
	}
	if ((size_t)n != len) {
		errno = EIO;
		return -1;
	}
	return 0;
}

int
tfs_exists(const char *root, const char *rel)
{
	char path[TFS_PATH_MAX];

	if (tfs_path(path, sizeof(path), root, rel) == -1)
		return 0;
	return access(path, F_OK) == 0;
}

int
tfs_ncpus(const char *root)
{
	char path[TFS_PATH_MAX];
	struct dirent *de;
	DIR *d;
	int n = 0, c;

	if (tfs_path(path, sizeof(path), root, "per_cpu") == -1 ||
	    (d = opendir(path)) == NULL)
		return -1;
	while ((de = readdir(d)) != NULL)
		if (sscanf(de->d_name, "cpu%d", &c) == 1 && c + 1 > n)
			n = c + 1;
	closedir(d);
	return n;
}
