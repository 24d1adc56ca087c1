/*
 * UNIX socket address helpers shared by the host, the client and the
 * readiness notifier (private to libipc). "@name" means the abstract
 * socket "name", as in upstream Perfetto and systemd.
 */
#ifndef FARO_IPC_SOCK_H
#define FARO_IPC_SOCK_H

#include <sys/socket.h>
#include <sys/un.h>

/* Fills sun and its length for path. Returns 0, or -1 with *cause. */
int	ipc_sock_addr(const char *path, struct sockaddr_un *sun,
	    socklen_t *len, const char **cause);
/*
 * Gets a filesystem path ready for bind(): creates the parent directory
 * if missing, removes a stale socket nobody accepts on. Refuses (-1,
 * *cause, errno) if a live socket or a non-socket file is in the way.
 */
int	ipc_sock_prepare_path(const char *path, const char **cause);

#endif
