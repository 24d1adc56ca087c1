/*
 * Where the tracing service's sockets live, resolved the way upstream
 * Perfetto resolves them, so our programs and upstream's meet:
 *
 *   PERFETTO_PRODUCER_SOCK_NAME / PERFETTO_CONSUMER_SOCK_NAME   if set
 *   /run/perfetto/traced-{producer,consumer}.sock   if /run/perfetto/
 *                                                   can be searched
 *   /tmp/perfetto-{producer,consumer}               otherwise
 *
 * The producer variable may hold a comma-separated list (the service
 * listens on each name; a producer uses the first): split it with
 * ipc_sockname_next.
 */
#ifndef FARO_IPC_SOCKNAME_H
#define FARO_IPC_SOCKNAME_H

#include <stddef.h>

enum ipc_port {
	IPC_PORT_PRODUCER,
	IPC_PORT_CONSUMER,
};

/* The configured name (or list) for a port; never NULL. */
const char	*ipc_sockname(enum ipc_port);
/*
 * Copies the next name of a comma-separated list into buf and advances
 * *list past it. Returns 0, or -1 at the end of the list or if a name
 * does not fit (then the rest of the list is skipped).
 */
int		 ipc_sockname_next(const char **list, char *buf, size_t len);

#endif
