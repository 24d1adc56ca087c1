/*
 * Reading a session out: service packets first, then each central buffer
 * in config order, packet by packet. A producer packet is copied out of
 * the buffer, checked (packet_validate_untrusted) and followed by the
 * trusted fields the service vouches for. Packets go to a sink: the
 * consumer's ReadBuffers stream or the session's output file.
 *
 * A read stops after about 'budget' bytes so that one big buffer cannot
 * hold the event loop; the caller comes back for the rest.
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>

#include "base/log.h"
#include "traced.h"
#include "libshm/pbw.h"
#include "libshm/trace_buffer.h"

/* Scratch space for one packet, reused across reads. */
static uint8_t	*readback_buf;
static size_t	 readback_cap;

static const uint8_t *
readback_gather(const struct trace_buffer_packet *pk)
{
	size_t	off = 0, i, cap;
	uint8_t	*n;

	if (pk->nslices == 1)
		return pk->slices[0].data;
	if (pk->size > readback_cap) {
		cap = pk->size < 65536 ? 65536 : pk->size;
		if ((n = realloc(readback_buf, cap)) == NULL)
			return NULL;
		readback_buf = n;
		readback_cap = cap;
	}
	for (i = 0; i < pk->nslices; i++) {
		memcpy(readback_buf + off, pk->slices[i].data,
		    pk->slices[i].len);
		off += pk->slices[i].len;
	}
	return readback_buf;
}

/*
 * The trace filter stage (TraceConfig.trace_filter), between the reader
 * and the compressor as upstream: each packet is replaced by its filtered
 * form, an empty packet when it is malformed (counted), so that packet
 * counts stay comparable.
 */
#define READBACK_FILTER_SAMPLE	16	/* packets per timed one */

struct readback_filter {
	struct tsession	*s;
	packet_sink_fn	*sink;
	void		*arg;
	ssize_t		 buffer;	/* index in the config, -1: service */
};

static int
readback_filter_sink(void *arg, const uint8_t *body, size_t blen,
    const uint8_t *trailer, size_t tlen)
{
	static const uint8_t		 empty[1];
	struct readback_filter		*f = arg;
	struct trace_filter_stats	*st = &f->s->filter_stats;
	const uint8_t			*out;
	uint64_t			 t0;
	ssize_t				 n;

	/* Timed on one packet in READBACK_FILTER_SAMPLE: two clock reads
	 * per packet would cost a fifth of the filter's own time. */
	if (st->input_packets % READBACK_FILTER_SAMPLE == 0) {
		t0 = session_now_ns(CLOCK_MONOTONIC);
		n = trace_filter_packet_untrusted(f->s->filter, body, blen,
		    trailer, tlen, &out);
		st->time_taken_ns += (session_now_ns(CLOCK_MONOTONIC) - t0) *
		    READBACK_FILTER_SAMPLE;
	} else
		n = trace_filter_packet_untrusted(f->s->filter, body, blen,
		    trailer, tlen, &out);
	st->input_packets++;
	st->input_bytes += blen + tlen;
	if (n == -1) {
		st->errors++;
		return f->sink(f->arg, empty, 0, NULL, 0);
	}
	st->output_bytes += (uint64_t)n;
	if (f->buffer >= 0)
		st->discarded[f->buffer] += blen + tlen - (size_t)n;
	return f->sink(f->arg, n > 0 ? out : empty, (size_t)n, NULL, 0);
}

static int	readback_plain(struct tsession *, size_t, packet_sink_fn *,
		    void *, ssize_t *, int *);

/*
 * Reads through the filter and the compressor when the config asks for
 * them. TraceStats goes out after the filter, as upstream (it is counted
 * as passed through whole).
 */
int
readback_session(struct tsession *s, size_t budget, packet_sink_fn *sink,
    void *arg, int *has_more)
{
	struct readback_filter	 f = { s, sink, arg, -1 };
	struct compress_sink	*c = NULL;
	size_t			 bytes = 0, before;
	int			 rc;

	if (compress_wanted(s) && (c = compress_begin(s)) != NULL) {
		f.sink = compress_sink;
		f.arg = c;
	}
	if (s->filter != NULL)
		rc = readback_plain(s, budget, readback_filter_sink, &f,
		    &f.buffer, has_more);
	else
		rc = readback_plain(s, budget, f.sink, f.arg, NULL, has_more);
	if (rc == 0 && !*has_more && !session_waiting_for_trigger(s)) {
		before = bytes;
		rc = service_packets_emit_stats(s, f.sink, f.arg, &bytes);
		if (s->filter != NULL && bytes > before) {
			s->filter_stats.input_packets++;
			s->filter_stats.input_bytes += bytes - before;
			s->filter_stats.output_bytes += bytes - before;
		}
	}
	if (c != NULL && compress_end(c, sink, arg) == -1)
		rc = -1;
	return rc;
}

static int
readback_plain(struct tsession *s, size_t budget, packet_sink_fn *sink,
    void *arg, ssize_t *cur_buffer, int *has_more)
{
	struct traced			*svc = s->svc;
	struct trace_buffer_packet	 pk;
	struct trace_buffer		*tb;
	struct tproducer		*p;
	uint8_t				 trailer[PBW_PACKET_TRAILER_MAX];
	const uint8_t			*body;
	size_t				 bytes = 0, i, tlen;

	*has_more = 0;
	if (session_waiting_for_trigger(s))
		return 0;
	if (service_packets_emit_head(s, sink, arg, &bytes) == -1)
		return -1;
	for (i = 0; i < s->nbuffers; i++) {
		if ((tb = svc->buffers[s->buffers[i]]) == NULL)
			continue;
		if (cur_buffer != NULL)
			*cur_buffer = (ssize_t)i;
		trace_buffer_begin_read(tb);
		while (bytes < budget && trace_buffer_read_next(tb, &pk) == 1) {
			if (pk.size == 0)
				continue;
			if ((body = readback_gather(&pk)) == NULL ||
			    packet_validate_untrusted(body, pk.size) == -1) {
				s->invalid_packets++;
				continue;
			}
			p = service_producer_by_id(svc, pk.producer_id);
			tlen = pbw_packet_trailer(trailer, (int32_t)pk.uid,
			    session_seq_id(s, pk.producer_id, pk.writer_id),
			    p != NULL && p->uid == pk.uid ? (int32_t)p->pid : 0,
			    pk.previous_packet_dropped ? 1 : 0);
			bytes += pk.size + tlen;
			s->packets_read++;
			s->bytes_read += pk.size + tlen;
			if (sink(arg, body, pk.size, trailer, tlen) == -1)
				return -1;
		}
		if (bytes >= budget) {
			*has_more = 1;
			return 0;
		}
	}
	if (cur_buffer != NULL)
		*cur_buffer = -1;
	return service_packets_emit_tail(s, sink, arg, &bytes);
}

static int
readback_file_sink(void *arg, const uint8_t *body, size_t blen,
    const uint8_t *trailer, size_t tlen)
{
	struct tsession	*s = arg;

	return trace_file_append(&s->file, body, blen, trailer, tlen);
}

/*
 * Drains everything readable now into the session's file. -1 once the
 * file is closed (cap reached or write error).
 */
int
readback_to_file(struct tsession *s)
{
	int	more;

	if (s->file.closed)
		return -1;
	do {
		if (readback_session(s, 1024 * 1024, readback_file_sink, s,
		    &more) == -1)
			return -1;
	} while (more);
	return trace_file_flush(&s->file);
}
