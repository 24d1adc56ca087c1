/*
 * IPC host: the service side of a Perfetto-compatible IPC socket.
 *
 *   client                                   host
 *     | BindService{name}  ------------------> |  look up the service
 *     | <-------- BindServiceReply{id, methods}|  (method ids 1-based,
 *     |                                        |   declaration order)
 *     | InvokeMethod{sid, mid, args} [+fds] -> |  handler(call)
 *     | <--- InvokeMethodReply{has_more=1}     |  ipc_reply_send(.., 1, ..)
 *     | <--- InvokeMethodReply{has_more=0}     |  ipc_reply_send(.., 0, ..)
 *
 * A host listens on one UNIX stream socket (or adopts a listening one,
 * e.g. from systemd) on a libevent base, and serves any number of named
 * services. Each service is a method table; a method handler gets the
 * serialized arguments, the caller's identity from SO_PEERCRED (never
 * from the peer's own words) and a reply handle.
 *
 * Reply handles: the handler owns call->reply. It may answer at once or
 * keep the handle and answer later (from any callback on the same event
 * base), once or as a stream (has_more = 1 until the last reply). A final
 * reply (has_more = 0), ipc_reply_fail() or ipc_reply_free() releases the
 * handle. If the client goes away first, sends on its handles become
 * harmless no-ops returning -1, and the service's on_disconnect callback
 * runs from a fresh event loop iteration (never from inside a send), so
 * the service can drop its state and free the handles it kept. When the
 * caller asked for drop_reply, sends are accepted and discarded.
 *
 * Unknown services (BindService) get success = false; unknown service or
 * method ids (InvokeMethod) get InvokeMethodReply{success = false}, which
 * is what upstream clients expect; a frame with no known request gets
 * RequestError. Descriptors received with a request may be taken by the
 * handler (ipc_call_take_fd); any not taken are closed after it returns.
 *
 * Back-pressure: each connection's unsent output is capped
 * (ipc_host_set_outq_max); a client that stops reading and lets its
 * backlog pass the cap is disconnected and logged. Services that stream
 * a lot can pace themselves with ipc_reply_backlog().
 *
 * All functions must be called on the thread running the host's base.
 */
#ifndef FARO_IPC_HOST_H
#define FARO_IPC_HOST_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <protobuf-c/protobuf-c.h>

struct event_base;
struct ipc_host;
struct ipc_reply;

/* Default cap on a connection's unsent output. */
#define IPC_HOST_OUTQ_MAX	(8 * 1024 * 1024)
/* Default cap on simultaneous connections. */
#define IPC_HOST_CONNS_MAX	1024

/* Who is calling, as the kernel says. */
struct ipc_peer {
	uint64_t	 conn_id;	/* unique per host, never reused */
	uid_t		 uid;
	gid_t		 gid;
	pid_t		 pid;
};

/*
 * One method invocation; valid only during the handler call. args are
 * the peer's bytes: decode them as untrusted and answer ipc_reply_fail()
 * if they do not decode (what upstream does).
 */
struct ipc_call {
	const struct ipc_peer	*peer;
	uint32_t		 service_id;
	uint32_t		 method_id;
	const uint8_t		*args;		/* serialized request message */
	size_t			 args_len;
	int			 drop_reply;	/* the client wants no reply */
	struct ipc_reply	*reply;		/* owned by the handler */
	struct ipc_frame_in	*in;		/* private */
};

typedef void ipc_method_fn(struct ipc_call *call, void *arg);
typedef void ipc_disconnect_fn(const struct ipc_peer *peer, void *arg);

struct ipc_method {
	const char	*name;
	ipc_method_fn	*fn;		/* NULL: replies success = false */
};

struct ipc_host	*ipc_host_new(struct event_base *);
/*
 * Closes every connection (without calling on_disconnect) and frees.
 * Never from inside a handler. Reply handles kept by services become
 * inert; the services still free them.
 */
void		 ipc_host_free(struct ipc_host *);
/* Last error message of a call that returned -1. */
const char	*ipc_host_strerror(const struct ipc_host *);

/*
 * Listens on path ("@name" for an abstract socket). Creates the parent
 * directory (0755) if missing, replaces a stale socket, refuses to take
 * over a socket someone still accepts on or a file that is not a socket.
 * mode (e.g. 0666) and group (NULL: leave) are applied to the socket
 * file before anyone can connect (the umask is changed for a moment:
 * call during setup). Returns 0 or -1 (see ipc_host_strerror).
 */
int		 ipc_host_listen(struct ipc_host *, const char *path,
		    mode_t mode, const char *group);
/*
 * Serves an already listening socket (socket activation); owns fd once
 * this succeeds, the caller keeps it on failure.
 */
int		 ipc_host_adopt(struct ipc_host *, int listen_fd);
void		 ipc_host_set_outq_max(struct ipc_host *, size_t bytes);
void		 ipc_host_set_conns_max(struct ipc_host *, size_t n);
size_t		 ipc_host_nconns(const struct ipc_host *);

/* Counters since the host was created (drops are counted, not hidden). */
struct ipc_host_stats {
	uint64_t	 conns_accepted;
	uint64_t	 conns_refused;		/* over the connection cap */
	uint64_t	 protocol_errors;	/* dropped: bad frame, fds */
	uint64_t	 backlog_drops;		/* dropped: not reading replies */
	uint64_t	 requests;		/* frames dispatched */
	uint64_t	 unknown_requests;	/* no such service/method/type */
};
void		 ipc_host_stats(const struct ipc_host *,
		    struct ipc_host_stats *);
/*
 * Drops a client (e.g. one that broke the service's rules); the
 * services' on_disconnect follows from the event loop as usual. Returns
 * 0, or -1 if no such connection.
 */
int		 ipc_host_disconnect(struct ipc_host *, uint64_t conn_id,
		    const char *why);

/*
 * Declares a service. methods[i] gets method id i + 1. The table and name
 * must outlive the host. Returns the service id (> 0) or -1 (duplicate
 * name, too many services).
 */
int		 ipc_host_add_service(struct ipc_host *, const char *name,
		    const struct ipc_method *methods, size_t nmethods,
		    ipc_disconnect_fn *on_disconnect, void *arg);
/*
 * Same, from a protobuf-c service descriptor: the service is named by the
 * descriptor's short name (e.g. "ProducerPort", as upstream) and
 * handlers[i] serves desc->methods[i] (declaration order); handlers has
 * desc->n_methods entries, NULL for methods not implemented. The table is
 * copied.
 */
int		 ipc_host_add_service_pbc(struct ipc_host *,
		    const ProtobufCServiceDescriptor *desc,
		    ipc_method_fn *const *handlers,
		    ipc_disconnect_fn *on_disconnect, void *arg);
/*
 * Same, with handlers given by method name: each method of desc gets the
 * fn of the entry in methods[0..n) with its name. Methods without an
 * entry are logged and reply success = false. methods is not kept.
 */
int		 ipc_host_add_service_named(struct ipc_host *,
		    const ProtobufCServiceDescriptor *desc,
		    const struct ipc_method *methods, size_t n,
		    ipc_disconnect_fn *on_disconnect, void *arg);

/*
 * Decodes the request arguments as a d message. On malformed input it
 * logs, fails the call (the reply handle is released) and returns NULL,
 * so NULL means "already replied". Free the result with
 * protobuf_c_message_free_unpacked().
 */
void		*ipc_call_args_untrusted(struct ipc_call *,
		    const ProtobufCMessageDescriptor *d);

/* Takes the next descriptor that came with the request, or -1. */
int		 ipc_call_take_fd(struct ipc_call *);

/*
 * Sends one reply: data is the serialized reply message. has_more = 1
 * keeps the handle for more replies, 0 releases it (even on error).
 * fd >= 0 is sent with the reply (duplicated: the caller keeps its own).
 * Returns 0, or -1 if the client is gone or the reply was too large.
 */
int		 ipc_reply_send(struct ipc_reply *, const void *data,
		    size_t len, int has_more, int fd);
/* Same, packing a protobuf-c message. */
int		 ipc_reply_send_msg(struct ipc_reply *,
		    const ProtobufCMessage *msg, int has_more, int fd);
/*
 * Final reply carrying an empty d message (one declared without fields;
 * any other d fails the call and returns -1).
 */
int		 ipc_reply_send_empty(struct ipc_reply *,
		    const ProtobufCMessageDescriptor *d);
/* Final reply with success = false; releases the handle. */
int		 ipc_reply_fail(struct ipc_reply *);
/* Releases the handle without replying (e.g. on client disconnect). */
void		 ipc_reply_free(struct ipc_reply *);
/* 1 while the client is still connected. */
int		 ipc_reply_alive(const struct ipc_reply *);
/* The caller's identity; stays valid until the handle is released. */
const struct ipc_peer *ipc_reply_peer(const struct ipc_reply *);
/*
 * Holds what is sent on the reply's connection until the matching
 * ipc_reply_hold(r, 0), within one callback (ipc_conn_hold): messages
 * sent together then reach the client in one read.
 */
void		 ipc_reply_hold(struct ipc_reply *, int on);
/* Bytes queued but not yet sent on the reply's connection (0 if gone). */
size_t		 ipc_reply_backlog(const struct ipc_reply *);

#endif
