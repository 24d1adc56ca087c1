/*
 * One framed IPC connection on libevent, shared by host and client
 * (private to libipc).
 *
 * Input: recvmsg() into the frame receiver, descriptors included; each
 * complete frame goes to on_frame. Output: frames are queued in one
 * evbuffer and written with sendmsg() as the socket accepts them; a frame
 * that carries descriptors is written by a sendmsg() that starts at its
 * first byte and stops at its end, so the receiver can tell which frame
 * they belong to. Unsent output is capped: passing the cap closes the
 * connection.
 *
 * Closing never happens inside a caller's stack: ipc_conn_shutdown()
 * marks the connection dead and on_close runs from a fresh event loop
 * iteration. ipc_conn_free() may be called from any callback, on_frame
 * included.
 */
#ifndef FARO_IPC_CONN_H
#define FARO_IPC_CONN_H

#include <stddef.h>
#include <stdint.h>

#include "ipc_frame.h"

struct event_base;
struct ipc_conn;

/* in is owned by the callee; free it with ipc_frame_in_free. */
typedef void ipc_conn_frame_fn(struct ipc_conn *, struct ipc_frame_in *in,
	    void *arg);
typedef void ipc_conn_close_fn(struct ipc_conn *, const char *why, void *arg);

/* fd may be -1: frames queue until ipc_conn_set_fd. */
struct ipc_conn	*ipc_conn_new(struct event_base *, int fd, size_t outq_max,
		    ipc_conn_frame_fn *, ipc_conn_close_fn *, void *arg);
/* Starts I/O on a connected socket; owns fd. */
int		 ipc_conn_set_fd(struct ipc_conn *, int fd);
/* Closes the socket and frees; safe from inside on_frame. */
void		 ipc_conn_free(struct ipc_conn *);
/*
 * Queues one frame; fds are duplicated. Returns 0, or -1 with *cause set
 * (frame too large: nothing queued, the connection lives on; over the
 * output cap or dead: the connection is shut down).
 */
int		 ipc_conn_send(struct ipc_conn *, const ipc_frame_t *msg,
		    const int *fds, size_t nfds, const char **cause);
/*
 * Holds output (on = 1) or lets it go (on = 0; holds nest): frames sent
 * while held queue and leave together when the last hold ends, so the
 * peer reads them at once. Only within one callback: a hold must not
 * outlast it.
 */
void		 ipc_conn_hold(struct ipc_conn *, int on);
/* Marks the connection dead; on_close(why) follows from the loop. */
void		 ipc_conn_shutdown(struct ipc_conn *, const char *why);
int		 ipc_conn_dead(const struct ipc_conn *);
/* How a dead connection ended, for counters. */
enum ipc_conn_end {
	IPC_CONN_OPEN,
	IPC_CONN_CLOSED,	/* orderly: EOF or closed by us */
	IPC_CONN_PROTOCOL,	/* bad frame, too many descriptors */
	IPC_CONN_BACKLOG,	/* output over the cap */
	IPC_CONN_IO,		/* read or write error */
};
enum ipc_conn_end ipc_conn_end(const struct ipc_conn *);
size_t		 ipc_conn_backlog(const struct ipc_conn *);
int		 ipc_conn_fd(const struct ipc_conn *);

#endif
