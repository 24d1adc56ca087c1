/*
 * IPC frames: the unit exchanged on every faro / Perfetto IPC socket.
 *
 * Wire format (compatible with upstream Perfetto's IPC layer):
 *
 *   +-------------------+--------------------------------------+
 *   | u32 LE  length N  |  N bytes: perfetto.protos.IPCFrame   |
 *   +-------------------+--------------------------------------+
 *   |<----------- at most IPC_FRAME_MAX bytes in all --------->|
 *
 * The stream is a plain SOCK_STREAM byte stream, so a frame may arrive in
 * any number of pieces and one read may carry many frames. File
 * descriptors (SCM_RIGHTS) travel in the control data of the sendmsg()
 * that carries the first bytes of their frame; the receiver gives each
 * descriptor to the frame that contains the last byte of the read that
 * delivered it, which is that same frame.
 *
 * Frames of length 0 are skipped, as upstream does. A length that would
 * make the frame larger than the cap, or a payload that does not decode
 * as an IPCFrame, is a protocol error: the caller drops the connection.
 *
 * The receiver never trusts the peer: it only ever touches bytes it has
 * been given, and its memory is bounded by the cap.
 */
#ifndef FARO_IPC_FRAME_H
#define FARO_IPC_FRAME_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "protos/perfetto/ipc/wire_protocol.pb-c.h"

/* Header plus payload, the same cap as upstream's kIPCBufferSize. */
#define IPC_FRAME_MAX		(128 * 1024)
#define IPC_FRAME_HDR		4
/* Descriptors one frame may carry; more is a protocol error. */
#define IPC_FRAME_FDS_MAX	8
/* Descriptors a receiver holds while their frame is still incomplete. */
#define IPC_RX_FDS_MAX		16

typedef Perfetto__Protos__IPCFrame ipc_frame_t;

/* One complete frame taken from a receiver. */
struct ipc_frame_in {
	ipc_frame_t	*msg;
	int		 fds[IPC_FRAME_FDS_MAX];	/* -1 once taken */
	size_t		 nfds;
};

/* Incremental receiver; treat the members as private. */
struct ipc_frame_rx {
	uint8_t		*buf;
	size_t		 bufsz;		/* allocated */
	size_t		 len;		/* valid bytes in buf */
	size_t		 off;		/* bytes of buf already consumed */
	size_t		 max;		/* frame cap, header included */
	uint64_t	 pos;		/* stream offset of buf[0] */
	struct {
		int		fd;
		uint64_t	at;	/* stream offset it arrived with */
	}		 fds[IPC_RX_FDS_MAX];
	size_t		 nfds;
	uint64_t	 frames;	/* frames popped, for statistics */
	size_t		 last;		/* size of the last frame popped */
};

/* max_frame 0 means IPC_FRAME_MAX. */
void	 ipc_frame_rx_init(struct ipc_frame_rx *, size_t max_frame);
/* Frees the buffer and closes every descriptor still held. */
void	 ipc_frame_rx_free(struct ipc_frame_rx *);
/*
 * Returns where the next read may write and how much (always > 0 unless
 * out of memory, then NULL). Follow with ipc_frame_rx_commit().
 */
void	*ipc_frame_rx_space(struct ipc_frame_rx *, size_t *avail);
/*
 * Accounts n bytes just read into the space, and the descriptors that
 * came with them (the receiver owns them from here on, even on error).
 * Returns 0, or -1 with *cause set (too many descriptors held).
 */
int	 ipc_frame_rx_commit(struct ipc_frame_rx *, size_t n, const int *fds,
	    size_t nfds, const char **cause);
/*
 * Copies bytes in (tests, fuzzing, non-socket transports): returns how
 * many were taken (0 when the buffer is full: pop frames, then feed the
 * rest) or -1 with *cause set.
 */
ssize_t	 ipc_frame_rx_feed(struct ipc_frame_rx *, const void *data, size_t len,
	    const char **cause);
/*
 * Takes the next complete frame. Returns 1 with *out filled (release it
 * with ipc_frame_in_free), 0 when more bytes are needed, or -1 with
 * *cause set on a protocol error (the connection must be dropped).
 */
int	 ipc_frame_rx_pop_untrusted(struct ipc_frame_rx *,
	    struct ipc_frame_in *out, const char **cause);
/* Takes ownership of the first descriptor not yet taken, or -1. */
int	 ipc_frame_in_take_fd(struct ipc_frame_in *);
/* Frees the message and closes every descriptor not taken. */
void	 ipc_frame_in_free(struct ipc_frame_in *);

/*
 * Decodes one IPCFrame payload (no header). Accepts non-minimal varints
 * and skips unknown fields. Returns NULL with *cause set if malformed.
 * Free with ipc_frame_msg_free().
 */
ipc_frame_t *ipc_frame_decode_untrusted(const uint8_t *data, size_t len,
	    const char **cause);
void	 ipc_frame_msg_free(ipc_frame_t *);

/*
 * Serialises msg with its header into a new buffer (free()). Returns the
 * total length, or 0 with *cause set if it would exceed IPC_FRAME_MAX or
 * memory ran out.
 */
size_t	 ipc_frame_encode(const ipc_frame_t *msg, uint8_t **out,
	    const char **cause);

#endif
