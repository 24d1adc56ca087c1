/*
 * Streaming a session into the file descriptor its consumer passed
 * (write_into_file). The file is a Trace message: each packet goes out as
 * field 1 (tag 0x0a, varint length, bytes). Packets are staged in a fixed
 * buffer and written with one write per fill, so a long trace costs
 * bounded memory whatever its length.
 *
 * max_file_size_bytes is a hard cap: the packet that would reach it is not
 * written and the file is closed for good (the session then stops, as
 * upstream does). A write error closes it too: the session must never
 * block or spin on a broken file. The file is then cut back to the end of
 * the last packet it holds whole, so that what was written stays a valid
 * trace (a full disk takes a write in the middle of a packet), and the
 * failure is kept for the consumer.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "libshm/pbw.h"
#include "traced.h"

#define TRACE_FILE_STAGE	(256 * 1024)

int
trace_file_open(struct trace_file *tf, int fd, uint64_t max_bytes)
{
	memset(tf, 0, sizeof(*tf));
	if ((tf->stage = malloc(TRACE_FILE_STAGE)) == NULL)
		return -1;
	tf->fd = fd;
	tf->max_bytes = max_bytes;
	tf->origin = lseek(fd, 0, SEEK_CUR);
	return 0;
}

static const char *
trace_file_errname(int e)
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 32)
	const char	*n = strerrorname_np(e);

	if (n != NULL)
		return n;
#endif
	(void)e;
	return "errno";
}

/* A write failed with errno e: keep whole packets only, remember why. */
static void
trace_file_fail(struct trace_file *tf, int e)
{
	tf->closed = 1;
	tf->error = e != 0 ? e : EIO;
	snprintf(tf->why, sizeof(tf->why), "writing the trace file failed "
	    "after %llu bytes: %s (%s)", (unsigned long long)tf->whole,
	    strerror(tf->error), trace_file_errname(tf->error));
	if (tf->origin != -1 && tf->whole < tf->written &&
	    ftruncate(tf->fd, tf->origin + (off_t)tf->whole) == 0)
		tf->written = tf->whole;
}

int
trace_file_flush(struct trace_file *tf)
{
	size_t	off = 0;
	ssize_t	n;

	while (off < tf->used && !tf->closed) {
		n = write(tf->fd, tf->stage + off, tf->used - off);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0) {
			log_warn("%s: write", __func__);
			trace_file_fail(tf, n == 0 ? ENOSPC : errno);
			break;
		}
		off += (size_t)n;
		tf->written += (uint64_t)n;
	}
	if (!tf->closed && tf->packet_end <= tf->written)
		tf->whole = tf->packet_end;
	tf->used = 0;
	return tf->closed ? -1 : 0;
}

static int
trace_file_put(struct trace_file *tf, const uint8_t *p, size_t len)
{
	size_t	n;

	while (len > 0) {
		if (tf->used == TRACE_FILE_STAGE &&
		    trace_file_flush(tf) == -1)
			return -1;
		n = TRACE_FILE_STAGE - tf->used;
		if (n > len)
			n = len;
		memcpy(tf->stage + tf->used, p, n);
		tf->used += n;
		p += n;
		len -= n;
	}
	return 0;
}

/*
 * Append one packet made of a body and an optional trailer (the trusted
 * fields). Returns 0, or -1 once the file is closed (cap reached or a
 * write failed).
 */
int
trace_file_append(struct trace_file *tf, const uint8_t *body, size_t blen,
    const uint8_t *trailer, size_t tlen)
{
	uint8_t		hdr[PBW_PACKET_HDR_MAX];
	size_t		hlen;
	uint64_t	total;

	if (tf->closed)
		return -1;
	hlen = pbw_trace_packet_header(hdr, blen + tlen);
	total = tf->written + tf->used + hlen + blen + tlen;
	if (tf->max_bytes != 0 && total >= tf->max_bytes) {
		tf->full = 1;
		trace_file_flush(tf);
		tf->closed = 1;
		return -1;
	}
	if (trace_file_put(tf, hdr, hlen) == -1 ||
	    trace_file_put(tf, body, blen) == -1 ||
	    (tlen && trace_file_put(tf, trailer, tlen) == -1))
		return -1;
	tf->packet_end = tf->written + tf->used;
	return 0;
}

/* Flush what is staged and give the descriptor back to the system. */
void
trace_file_close(struct trace_file *tf)
{
	if (tf->stage == NULL)
		return;
	if (!tf->closed)
		trace_file_flush(tf);
	if (tf->fd != -1) {
		fsync(tf->fd);
		close(tf->fd);
	}
	tf->fd = -1;
	tf->closed = 1;
	free(tf->stage);
	tf->stage = NULL;
}
