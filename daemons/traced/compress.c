/*
 * Optional compression of what a read returns, as upstream's current
 * service: TraceConfig.compression with deflate or zstd (zstd wins when
 * both are set), or the older compression_type = DEFLATE. The packets of
 * one read go, each framed as Trace.packet, into one zlib stream or zstd
 * frame, and the read yields a single TracePacket{compressed_packets}
 * (deflate) or TracePacket{zstd_compressed_packets}. Readers
 * (trace_processor) decompress it back into packets.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <zlib.h>
#include <zstd.h>

#include "base/log.h"
#include "libshm/pbw.h"
#include "traced.h"

struct compress_sink {
	int		 zstd;		/* else deflate */
	z_stream	 zs;
	ZSTD_CStream	*zc;
	uint8_t		*out;
	size_t		 cap;
	size_t		 used;		/* compressed bytes in out */
	uint64_t	 total_in;
	int		 failed;
};

int
compress_wanted(const struct tsession *s)
{
	const Perfetto__Protos__TraceConfig *cfg = s->cfg;

	if (cfg->compression != NULL && (cfg->compression->deflate != NULL ||
	    cfg->compression->zstd != NULL))
		return 1;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
	return cfg->has_compression_type && cfg->compression_type ==
	    PERFETTO__PROTOS__TRACE_CONFIG__COMPRESSION_TYPE__COMPRESSION_TYPE_DEFLATE;
#pragma GCC diagnostic pop
}

/* zstd wins over deflate when both are set (the higher field number). */
struct compress_sink *
compress_begin(const struct tsession *s)
{
	const Perfetto__Protos__TraceConfig__CompressionConfig *cc =
	    s->cfg->compression;
	struct compress_sink	*c;

	if ((c = calloc(1, sizeof(*c))) == NULL)
		return NULL;
	if (cc != NULL && cc->zstd != NULL) {
		c->zstd = 1;
		/* zstd takes any int: 0 is its default, the rest clamped. */
		if ((c->zc = ZSTD_createCStream()) == NULL ||
		    ZSTD_isError(ZSTD_CCtx_setParameter(c->zc,
		    ZSTD_c_compressionLevel, cc->zstd->has_level ?
		    cc->zstd->level : 0))) {
			ZSTD_freeCStream(c->zc);
			free(c);
			return NULL;
		}
		return c;
	}
	if (deflateInit(&c->zs, 6) != Z_OK) {
		free(c);
		return NULL;
	}
	return c;
}

/* Room for at least one more output byte. */
static int
compress_grow(struct compress_sink *c)
{
	uint8_t	*n;
	size_t	 cap;

	if (c->used < c->cap)
		return 0;
	cap = c->cap ? c->cap * 2 : 65536;
	if ((n = realloc(c->out, cap)) == NULL) {
		c->failed = 1;
		return -1;
	}
	c->out = n;
	c->cap = cap;
	return 0;
}

/* One codec step on [p, p + len); 1 when the stream is complete. */
static int
compress_step(struct compress_sink *c, const uint8_t *p, size_t len,
    size_t *consumed, int finish)
{
	size_t	rc;
	int	zrc;

	if (c->zstd) {
		ZSTD_inBuffer	in = { p, len, 0 };
		ZSTD_outBuffer	out = { c->out, c->cap, c->used };

		rc = ZSTD_compressStream2(c->zc, &out, &in,
		    finish ? ZSTD_e_end : ZSTD_e_continue);
		*consumed = in.pos;
		c->used = out.pos;
		if (ZSTD_isError(rc))
			return -1;
		return finish && rc == 0;
	}
	c->zs.next_in = (Bytef *)(uintptr_t)p;
	c->zs.avail_in = (uInt)len;
	c->zs.next_out = c->out + c->used;
	c->zs.avail_out = (uInt)(c->cap - c->used);
	zrc = deflate(&c->zs, finish ? Z_FINISH : Z_NO_FLUSH);
	*consumed = len - c->zs.avail_in;
	c->used = c->cap - c->zs.avail_out;
	if (zrc == Z_STREAM_END)
		return 1;
	if (zrc != Z_OK && zrc != Z_BUF_ERROR)
		return -1;
	return 0;
}

static int
compress_push(struct compress_sink *c, const uint8_t *p, size_t len,
    int finish)
{
	size_t	n;
	int	rc;

	c->total_in += len;
	for (;;) {
		if (compress_grow(c) == -1)
			return -1;
		if ((rc = compress_step(c, p, len, &n, finish)) == -1) {
			c->failed = 1;
			return -1;
		}
		p += n;
		len -= n;
		if (rc == 1 || (!finish && len == 0))
			return 0;
	}
}

/* The packet_sink_fn that feeds the stream. */
int
compress_sink(void *arg, const uint8_t *body, size_t blen,
    const uint8_t *trailer, size_t tlen)
{
	struct compress_sink	*c = arg;
	uint8_t			 hdr[PBW_PACKET_HDR_MAX];
	size_t			 h;

	if (c->failed)
		return -1;
	h = pbw_trace_packet_header(hdr, blen + tlen);
	if (compress_push(c, hdr, h, 0) == -1 ||
	    compress_push(c, body, blen, 0) == -1 ||
	    (tlen > 0 && compress_push(c, trailer, tlen, 0) == -1))
		return -1;
	return 0;
}

/*
 * Ends the stream and hands one TracePacket{compressed_packets} (deflate)
 * or TracePacket{zstd_compressed_packets} to sink (nothing if nothing was
 * pushed). Frees c.
 */
int
compress_end(struct compress_sink *c, packet_sink_fn *sink, void *arg)
{
	uint8_t	 hdr[12], *n;
	size_t	 h, clen;
	int	 rc = 0;

	if (c->total_in > 0 && !c->failed &&
	    compress_push(c, NULL, 0, 1) == 0) {
		clen = c->used;
		/* field 133 or 50, length-delimited */
		h = (size_t)(pbw_put_varint(hdr, c->zstd ? (133 << 3 | 2) :
		    (50 << 3 | 2)) - hdr);
		h = (size_t)(pbw_put_varint(hdr + h, clen) - hdr);
		/* The header goes in front of the payload: one contiguous body. */
		if (c->cap - clen < h) {
			if ((n = realloc(c->out, clen + h)) == NULL)
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
	if (c->zstd)
		ZSTD_freeCStream(c->zc);
	else
		deflateEnd(&c->zs);
	free(c->out);
	free(c);
	return rc;
}
