/*
 * Optional compression of what a read returns (TraceConfig.compression
 * with deflate, or the older compression_type = DEFLATE): the packets of
 * one read go, each framed as Trace.packet, into one zlib stream, and the
 * read yields a single TracePacket{compressed_packets}, as upstream does.
 * Readers (trace_processor) inflate it back into packets.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "log.h"
#include "pbw.h"
#include "traced.h"

struct compress_sink {
	z_stream	 zs;
	uint8_t		*out;
	size_t		 cap;
	int		 failed;
};

int
compress_wanted(const struct tsession *s)
{
	const Perfetto__Protos__TraceConfig *cfg = s->cfg;

	if (cfg->compression != NULL && cfg->compression->deflate != NULL)
		return 1;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
	return cfg->has_compression_type && cfg->compression_type ==
	    PERFETTO__PROTOS__TRACE_CONFIG__COMPRESSION_TYPE__COMPRESSION_TYPE_DEFLATE;
#pragma GCC diagnostic pop
}

struct compress_sink *
compress_begin(void)
{
	struct compress_sink	*c;

	if ((c = calloc(1, sizeof(*c))) == NULL)
		return NULL;
	if (deflateInit(&c->zs, 6) != Z_OK) {
		free(c);
		return NULL;
	}
	return c;
}

static int
compress_push(struct compress_sink *c, const uint8_t *p, size_t len,
    int flush)
{
	uint8_t	*n;
	size_t	 cap;
	int	 rc;

	c->zs.next_in = (Bytef *)(uintptr_t)p;
	c->zs.avail_in = (uInt)len;
	for (;;) {
		if (c->zs.avail_out == 0) {
			cap = c->cap ? c->cap * 2 : 65536;
			if ((n = realloc(c->out, cap)) == NULL) {
				c->failed = 1;
				return -1;
			}
			c->out = n;
			c->zs.next_out = n + c->cap;
			c->zs.avail_out = (uInt)(cap - c->cap);
			c->cap = cap;
		}
		rc = deflate(&c->zs, flush);
		if (rc == Z_STREAM_END)
			return 0;
		if (rc != Z_OK && rc != Z_BUF_ERROR) {
			c->failed = 1;
			return -1;
		}
		if (flush == Z_NO_FLUSH && c->zs.avail_in == 0)
			return 0;
	}
}

/* The packet_sink_fn that feeds the stream. */
int
compress_sink(void *arg, const uint8_t *body, size_t blen,
    const uint8_t *trailer, size_t tlen)
{
	struct compress_sink	*c = arg;
	uint8_t			 hdr[11];
	size_t			 h;

	if (c->failed)
		return -1;
	hdr[0] = 0x0a;		/* Trace.packet */
	h = (size_t)(pbw_put_varint(hdr + 1, blen + tlen) - hdr);
	if (compress_push(c, hdr, h, Z_NO_FLUSH) == -1 ||
	    compress_push(c, body, blen, Z_NO_FLUSH) == -1 ||
	    (tlen > 0 && compress_push(c, trailer, tlen, Z_NO_FLUSH) == -1))
		return -1;
	return 0;
}

/*
 * Ends the stream and hands one TracePacket{compressed_packets} to sink
 * (nothing if nothing was pushed). Frees c.
 */
int
compress_end(struct compress_sink *c, packet_sink_fn *sink, void *arg)
{
	uint8_t	 hdr[12];
	size_t	 h, clen;
	int	 rc = 0;

	if (c->zs.total_in > 0 && !c->failed &&
	    compress_push(c, NULL, 0, Z_FINISH) == 0) {
		clen = c->zs.total_out;
		hdr[0] = 0x92;	/* field 50, length-delimited */
		hdr[1] = 0x03;
		h = (size_t)(pbw_put_varint(hdr + 2, clen) - hdr);
		/* The header goes in front of the payload: one contiguous body. */
		if (c->cap - clen < h) {
			uint8_t *n = realloc(c->out, clen + h);

			if (n == NULL)
				rc = -1;
			else {
				c->out = n;
				c->cap = clen + h;
			}
		}
		if (rc == 0) {
			memmove(c->out + h, c->out, clen);
			memcpy(c->out, hdr, h);
			rc = sink(arg, c->out, clen + h, NULL, 0);
		}
	} else if (c->failed)
		log_warnx("%s: compression failed, packets lost", __func__);
	deflateEnd(&c->zs);
	free(c->out);
	free(c);
	return rc;
}
