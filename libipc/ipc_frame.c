/*
 * Frame receiver and codec; the wire format is described in ipc_frame.h.
 *
 * The receive buffer grows on demand up to the frame cap (straight to the
 * cap once a header announces a larger frame), so a peer costs at most the
 * cap; it shrinks back to a few KiB after a small frame, so idle
 * connections stay small while a stream of large frames keeps its buffer.
 * Consumed bytes are only moved out when more space is asked for.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ipc_frame.h"

#define RX_INITIAL	4096
#define RX_KEEP		(16 * 1024)	/* kept across frames */

static uint32_t
rx_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24;
}

/* Closes the held descriptors that arrived before stream offset end. */
static void
rx_fds_close_before(struct ipc_frame_rx *rx, uint64_t end)
{
	size_t i, j;

	for (i = j = 0; i < rx->nfds; i++) {
		if (rx->fds[i].at < end) {
			close(rx->fds[i].fd);
			continue;
		}
		rx->fds[j++] = rx->fds[i];
	}
	rx->nfds = j;
}

void
ipc_frame_rx_init(struct ipc_frame_rx *rx, size_t max_frame)
{
	memset(rx, 0, sizeof(*rx));
	rx->max = max_frame != 0 ? max_frame : IPC_FRAME_MAX;
	if (rx->max < IPC_FRAME_HDR + 1)
		rx->max = IPC_FRAME_HDR + 1;
}

void
ipc_frame_rx_free(struct ipc_frame_rx *rx)
{
	rx_fds_close_before(rx, UINT64_MAX);
	free(rx->buf);
	rx->buf = NULL;
	rx->bufsz = rx->len = rx->off = 0;
}

void *
ipc_frame_rx_space(struct ipc_frame_rx *rx, size_t *avail)
{
	uint8_t *nbuf;
	size_t want, need;
	uint32_t size;

	/* Move the unconsumed tail to the front before growing. */
	if (rx->off > 0) {
		memmove(rx->buf, rx->buf + rx->off, rx->len - rx->off);
		rx->len -= rx->off;
		rx->pos += rx->off;
		rx->off = 0;
	}
	/*
	 * Give back what a large frame made us take once frames are small
	 * again; a stream of large frames keeps its buffer.
	 */
	if (rx->len == 0 && rx->bufsz > RX_KEEP && rx->last <= RX_KEEP / 2) {
		free(rx->buf);
		rx->buf = NULL;
		rx->bufsz = 0;
	}
	want = rx->bufsz != 0 ? rx->bufsz : RX_INITIAL;
	if (rx->len >= IPC_FRAME_HDR) {
		/*
		 * The header says this frame needs more: go straight to the
		 * cap. Large frames come in streams, and a buffer that holds
		 * more than one lets each read take several (measured: an
		 * exactly sized buffer halves stream throughput).
		 */
		size = rx_le32(rx->buf);
		need = (size_t)size + IPC_FRAME_HDR;
		if (size <= rx->max - IPC_FRAME_HDR && need > want)
			want = rx->max;
	}
	if (rx->len == want && want < rx->max)
		want *= 2;
	if (want > rx->max)
		want = rx->max;
	if (want > rx->bufsz) {
		if ((nbuf = realloc(rx->buf, want)) == NULL) {
			*avail = 0;
			return NULL;
		}
		rx->buf = nbuf;
		rx->bufsz = want;
	}
	*avail = rx->bufsz - rx->len;
	if (*avail == 0)
		return NULL;
	return rx->buf + rx->len;
}

int
ipc_frame_rx_commit(struct ipc_frame_rx *rx, size_t n, const int *fds,
    size_t nfds, const char **cause)
{
	uint64_t at;
	size_t i;

	if (n > rx->bufsz - rx->len)
		n = rx->bufsz - rx->len;	/* caller bug; never overrun */
	rx->len += n;
	/* The descriptors belong to the frame holding the last byte read. */
	at = rx->pos + rx->len - (n > 0 ? 1 : 0);
	for (i = 0; i < nfds; i++) {
		if (rx->nfds == IPC_RX_FDS_MAX) {
			for (; i < nfds; i++)
				close(fds[i]);
			*cause = "too many file descriptors";
			return -1;
		}
		rx->fds[rx->nfds].fd = fds[i];
		rx->fds[rx->nfds].at = at;
		rx->nfds++;
	}
	return 0;
}

ssize_t
ipc_frame_rx_feed(struct ipc_frame_rx *rx, const void *data, size_t len,
    const char **cause)
{
	size_t avail, n;
	void *dst;

	if (len == 0)
		return 0;
	if ((dst = ipc_frame_rx_space(rx, &avail)) == NULL) {
		if (rx->bufsz < rx->max) {
			*cause = "out of memory";
			return -1;
		}
		return 0;	/* full: pop frames first */
	}
	n = len < avail ? len : avail;
	memcpy(dst, data, n);
	if (ipc_frame_rx_commit(rx, n, NULL, 0, cause) == -1)
		return -1;
	return (ssize_t)n;
}

int
ipc_frame_rx_pop_untrusted(struct ipc_frame_rx *rx, struct ipc_frame_in *out,
    const char **cause)
{
	const uint8_t *p;
	uint64_t end;
	uint32_t size;
	size_t i, j;

	memset(out, 0, sizeof(*out));
	for (;;) {
		if (rx->len - rx->off < IPC_FRAME_HDR)
			return 0;
		p = rx->buf + rx->off;
		size = rx_le32(p);
		if (size > rx->max - IPC_FRAME_HDR) {
			*cause = "frame too large";
			return -1;
		}
		if (rx->len - rx->off < IPC_FRAME_HDR + (size_t)size)
			return 0;
		end = rx->pos + rx->off + IPC_FRAME_HDR + size;
		rx->off += IPC_FRAME_HDR + size;
		rx->last = IPC_FRAME_HDR + (size_t)size;
		if (size == 0) {
			/* Upstream skips empty frames; so do we. */
			rx_fds_close_before(rx, end);
			continue;
		}
		break;
	}

	/* Hand over the descriptors that arrived with this frame. */
	for (i = j = 0; i < rx->nfds; i++) {
		if (rx->fds[i].at >= end) {
			rx->fds[j++] = rx->fds[i];
			continue;
		}
		if (out->nfds == IPC_FRAME_FDS_MAX) {
			close(rx->fds[i].fd);
			for (i++; i < rx->nfds; i++)
				close(rx->fds[i].fd);
			rx->nfds = 0;
			ipc_frame_in_free(out);
			*cause = "too many file descriptors for one frame";
			return -1;
		}
		out->fds[out->nfds++] = rx->fds[i].fd;
	}
	rx->nfds = j;

	out->msg = ipc_frame_decode_untrusted(p + IPC_FRAME_HDR, size, cause);
	if (out->msg == NULL) {
		ipc_frame_in_free(out);
		return -1;
	}
	rx->frames++;
	return 1;
}

int
ipc_frame_in_take_fd(struct ipc_frame_in *in)
{
	size_t i;
	int fd;

	for (i = 0; i < in->nfds; i++) {
		if (in->fds[i] >= 0) {
			fd = in->fds[i];
			in->fds[i] = -1;
			return fd;
		}
	}
	return -1;
}

void
ipc_frame_in_free(struct ipc_frame_in *in)
{
	size_t i;

	for (i = 0; i < in->nfds; i++)
		if (in->fds[i] >= 0)
			close(in->fds[i]);
	in->nfds = 0;
	if (in->msg != NULL)
		ipc_frame_msg_free(in->msg);
	in->msg = NULL;
}

ipc_frame_t *
ipc_frame_decode_untrusted(const uint8_t *data, size_t len, const char **cause)
{
	ipc_frame_t *msg;

	/*
	 * protobuf-c bounds every read by len, skips unknown fields and
	 * takes varints of any length up to 10 bytes, padded ones included.
	 */
	msg = perfetto__protos__ipcframe__unpack(NULL, len, data);
	if (msg == NULL)
		*cause = "malformed IPCFrame";
	return msg;
}

void
ipc_frame_msg_free(ipc_frame_t *msg)
{
	perfetto__protos__ipcframe__free_unpacked(msg, NULL);
}

size_t
ipc_frame_encode(const ipc_frame_t *msg, uint8_t **out, const char **cause)
{
	size_t size;
	uint8_t *buf;

	*out = NULL;
	size = perfetto__protos__ipcframe__get_packed_size(msg);
	if (size > IPC_FRAME_MAX - IPC_FRAME_HDR) {
		*cause = "frame too large";
		return 0;
	}
	if ((buf = malloc(IPC_FRAME_HDR + size)) == NULL) {
		*cause = "out of memory";
		return 0;
	}
	buf[0] = size & 0xff;
	buf[1] = (size >> 8) & 0xff;
	buf[2] = (size >> 16) & 0xff;
	buf[3] = (size >> 24) & 0xff;
	perfetto__protos__ipcframe__pack(msg, buf + IPC_FRAME_HDR);
	*out = buf;
	return IPC_FRAME_HDR + size;
}
