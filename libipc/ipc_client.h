/*
 * IPC client: the calling side of a Perfetto-compatible IPC socket.
 *
 *   ipc_client_new(path) --connect--> on_event(IPC_CLIENT_CONNECTED)
 *   ipc_client_bind("ProducerPort") -> on_bind(binding)   ids by name
 *   ipc_client_invoke(sid, mid, args) -> on_reply(res) x N  (has_more)
 *   peer closes / protocol error  --> every pending on_reply gets a
 *                                     failed result, then
 *                                     on_event(IPC_CLIENT_DISCONNECTED)
 *
 * The client lives on one libevent base and every call must be made on
 * the thread running it: a daemon's main loop, or a background thread
 * with its own event_base (as libfaro does). The connect is non-blocking;
 * with IPC_CLIENT_RETRY a failed connect is retried with a growing delay
 * (up to 30 s), and at once when the socket's directory changes
 * (inotify), until it succeeds or the client is freed; without it the
 * failure is reported as IPC_CLIENT_DISCONNECTED.
 *
 * Requests may be issued before the connection is up: they are queued
 * and sent once it is (or failed if it never comes). A descriptor sent by
 * the host with a reply arrives in res->fd; take it with
 * ipc_result_take_fd or it is closed after the callback. Callbacks may
 * call any client function, ipc_client_free included.
 */
#ifndef FARO_IPC_CLIENT_H
#define FARO_IPC_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include <protobuf-c/protobuf-c.h>

struct event_base;
struct ipc_client;

#define IPC_CLIENT_RETRY	0x01	/* keep retrying the connect */

/* Invoke flags. */
#define IPC_INVOKE_DROP_REPLY	0x01	/* the host sends no reply */

enum ipc_client_event {
	IPC_CLIENT_CONNECTED,
	IPC_CLIENT_DISCONNECTED,	/* final: no more callbacks */
};

/* A bound service: its id and method table, as the host sent them. */
struct ipc_binding {
	const char	*service_name;
	uint32_t	 service_id;
	size_t		 nmethods;
	struct ipc_binding_method {
		uint32_t	 id;
		char		*name;
	}		*methods;
};

/* One reply (or the failure of a request); valid during the callback. */
struct ipc_result {
	int		 success;
	int		 has_more;	/* more replies follow */
	const uint8_t	*data;		/* serialized reply message */
	size_t		 len;
	int		 fd;		/* -1 if none */
	const char	*error;		/* why success = 0, or NULL */
};

typedef void ipc_client_event_fn(struct ipc_client *, enum ipc_client_event,
	    void *arg);
/*
 * binding is NULL when the service is unknown or the client went away;
 * otherwise it stays valid until ipc_client_free.
 */
typedef void ipc_bind_fn(struct ipc_client *,
	    const struct ipc_binding *binding, void *arg);
typedef void ipc_result_fn(struct ipc_client *, struct ipc_result *res,
	    void *arg);

/*
 * Connects to path ("@name" for an abstract socket). Returns NULL only on
 * out of memory or an unusable path; connection failures are reported
 * through on_event.
 */
struct ipc_client *ipc_client_new(struct event_base *, const char *path,
		    int flags, ipc_client_event_fn *on_event, void *arg);
/* Uses an already connected socket (no CONNECTED event); owns fd. */
struct ipc_client *ipc_client_adopt(struct event_base *, int fd,
		    ipc_client_event_fn *on_event, void *arg);
/* Closes the connection; pending callbacks are not called. */
void		 ipc_client_free(struct ipc_client *);
int		 ipc_client_connected(const struct ipc_client *);
/*
 * Why the connection failed or ended, e.g. "connect: No such file or
 * directory" or "peer closed the connection"; "" while all is well.
 */
const char	*ipc_client_strerror(const struct ipc_client *);

/* Binds a service by name; on_bind runs once. Returns 0 or -1. */
int		 ipc_client_bind(struct ipc_client *, const char *service,
		    ipc_bind_fn *on_bind, void *arg);
/* Method id by name in a binding, 0 if the host has no such method. */
uint32_t	 ipc_binding_method_id(const struct ipc_binding *,
		    const char *name);

/*
 * Invokes a method. fd >= 0 is sent with the request (duplicated: the
 * caller keeps its own). on_reply runs once per reply until one has
 * has_more = 0, or once with success = 0 if the request fails (host
 * error, disconnection). With IPC_INVOKE_DROP_REPLY on_reply is never
 * called and may be NULL. Returns a request id (> 0) usable with
 * ipc_client_cancel, or 0 with nothing queued (client closed, too large).
 */
uint64_t	 ipc_client_invoke(struct ipc_client *, uint32_t service_id,
		    uint32_t method_id, const void *args, size_t len, int fd,
		    int flags, ipc_result_fn *on_reply, void *arg);
/* Same, packing a protobuf-c message. */
uint64_t	 ipc_client_invoke_msg(struct ipc_client *, uint32_t service_id,
		    uint32_t method_id, const ProtobufCMessage *args, int fd,
		    int flags, ipc_result_fn *on_reply, void *arg);
/* Forgets a pending request: its callback will not run again. */
void		 ipc_client_cancel(struct ipc_client *, uint64_t request_id);
/* Takes ownership of the descriptor that came with a reply, or -1. */
int		 ipc_result_take_fd(struct ipc_result *);

#endif
