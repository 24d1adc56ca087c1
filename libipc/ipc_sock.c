/*
 * UNIX socket addresses and the service's socket names; see ipc_sock.h
 * and ipc_sockname.h.
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ipc_sock.h"
#include "ipc_sockname.h"
#include "base/log.h"

int
ipc_sock_addr(const char *path, struct sockaddr_un *sun, socklen_t *len,
    const char **cause)
{
	size_t n = strlen(path);

	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	if (n == 0 || (path[0] == '@' && n == 1)) {
		*cause = "empty socket name";
		return -1;
	}
	if (n >= sizeof(sun->sun_path)) {
		*cause = "socket path too long";
		return -1;
	}
	memcpy(sun->sun_path, path, n);
	if (path[0] == '@') {
		/* Abstract: a leading NUL, and the length says where it ends. */
		sun->sun_path[0] = '\0';
		*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n);
	} else
		*len = (socklen_t)sizeof(*sun);
	return 0;
}

/* mkdir -p for the directory part of path (0755, existing ones kept). */
static int
sock_mkdir_parent(const char *path)
{
	char dir[PATH_MAX], *p;
	size_t n = strlen(path);

	if (n >= sizeof(dir))
		return -1;
	memcpy(dir, path, n + 1);
	if ((p = strrchr(dir, '/')) == NULL || p == dir)
		return 0;
	*p = '\0';
	for (p = dir + 1; *p != '\0'; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(dir, 0755) == -1 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(dir, 0755) == -1 && errno != EEXIST)
		return -1;
	return 0;
}

int
ipc_sock_prepare_path(const char *path, const char **cause)
{
	struct sockaddr_un sun;
	struct stat st;
	socklen_t len;
	int fd, r, saved;

	if (sock_mkdir_parent(path) == -1) {
		*cause = "cannot create the parent directory";
		return -1;
	}
	if (lstat(path, &st) == -1) {
		if (errno == ENOENT)
			return 0;
		*cause = "cannot stat the socket path";
		return -1;
	}
	if (!S_ISSOCK(st.st_mode)) {
		*cause = "a file that is not a socket is in the way";
		errno = EEXIST;
		return -1;
	}
	if (ipc_sock_addr(path, &sun, &len, cause) == -1)
		return -1;
	/* Someone still accepting there? Then it is not ours to take. */
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1) {
		*cause = "socket";
		return -1;
	}
	r = connect(fd, (struct sockaddr *)&sun, len);
	saved = errno;
	close(fd);
	if (r == 0 || saved == EAGAIN) {
		*cause = "another process is listening on this socket";
		errno = EADDRINUSE;
		return -1;
	}
	if (saved != ECONNREFUSED && saved != ENOENT) {
		*cause = "cannot probe the existing socket";
		errno = saved;
		return -1;
	}
	if (unlink(path) == -1 && errno != ENOENT) {
		*cause = "cannot remove the stale socket";
		return -1;
	}
	return 0;
}

/*
 * /run/perfetto/ wins when it can be searched; a directory that exists
 * but cannot be searched is worth a warning before falling back.
 */
static int
sock_run_dir_usable(void)
{
	if (access("/run/perfetto/", X_OK) == 0)
		return 1;
	if (errno != ENOENT)
		log_warn("%s: /run/perfetto/ exists but cannot be used, "
		    "falling back on /tmp", __func__);
	return 0;
}

const char *
ipc_sockname(enum ipc_port port)
{
	const char *env;

	if (port == IPC_PORT_CONSUMER) {
		if ((env = getenv("PERFETTO_CONSUMER_SOCK_NAME")) != NULL)
			return env;
		return sock_run_dir_usable() ?
		    "/run/perfetto/traced-consumer.sock" :
		    "/tmp/perfetto-consumer";
	}
	if ((env = getenv("PERFETTO_PRODUCER_SOCK_NAME")) != NULL)
		return env;
	return sock_run_dir_usable() ? "/run/perfetto/traced-producer.sock" :
	    "/tmp/perfetto-producer";
}

int
ipc_sockname_next(const char **list, char *buf, size_t len)
{
	const char *p = *list, *end;
	size_t n;

	if (p == NULL || *p == '\0')
		return -1;
	end = strchr(p, ',');
	n = end != NULL ? (size_t)(end - p) : strlen(p);
	if (n >= len) {
		*list = NULL;
		return -1;
	}
	memcpy(buf, p, n);
	buf[n] = '\0';
	*list = end != NULL ? end + 1 : p + n;
	return 0;
}
