/*
 * Decompression (tp_unpack.c): compressed packets (TracePacket fields 50,
 * deflate, and 133, zstd) and whole gzip'd files; when a trace is read
 * from a file, done ahead of the tokenizer on a second thread.
 */
#ifndef TP_UNPACK_H
#define TP_UNPACK_H

#include <stddef.h>
#include <stdint.h>

#include <zlib.h>

struct tp;

#define TP_UNPACK_DEFLATE	50
#define TP_UNPACK_ZSTD		133

/* The payload of field 50 or 133 decompressed into a malloc'd *out of *n
 * bytes; -1 when it was corrupt or cut short (*out keeps what came). */
int	 tp_unpack(uint32_t field, const uint8_t *, size_t, uint8_t **out,
	    size_t *n);

/*
 * A gzip'd file's next len bytes inflated through z (inflateInit2 with
 * 16 + 15), in pieces of at most TP_GUNZIP_PIECE bytes (into out, reused)
 * each handed to fn in order; *done set at the stream's end, after which
 * nothing more is inflated. 0; -1 at corrupt data (*msg its cause; the
 * piece of that step is not handed); -2 when fn returned -1.
 */
#define TP_GUNZIP_PIECE		(1u << 20)
/* What tp_load_fd reads at a time; the thread's gzip chunks are as long. */
#define TP_READ_BLOCK		(1u << 20)
int	 tp_gunzip_run(z_stream *z, uint8_t *out, const uint8_t *, size_t,
	    int *done, int (*fn)(void *, const uint8_t *, size_t), void *arg,
	    const char **msg);

/*
 * A file read and decompressed ahead (tp_load_fd): its compressed
 * packets, or, for a gzip'd file, the file itself in chunks as read(2)
 * gives them, each with what it inflates to.
 */
void	 tp_unpack_ahead_start(struct tp *, int fd);
void	 tp_unpack_ahead_stop(struct tp *);
/* The packet at stream offset off if the thread decompressed it: 1, and
 * tp_unpack's results; 0 when it did not (decompress it here). */
int	 tp_unpack_ahead_take(struct tp *, uint64_t off, uint32_t field,
	    size_t len, uint8_t **out, size_t *n, int *rc);

struct tp_gz_chunk {
	uint8_t		*in;		/* the file's bytes, as read */
	size_t		 inlen;
	int		 read_errno;	/* the read failed */
	uint8_t		*out;		/* what they inflate to, */
	size_t		*pieces;	/* in pieces of these lengths */
	size_t		 npieces, outlen, cap, piecescap;
	int		 nomem;
	char		*corrupt;	/* the cause, past the pieces */
};
/* Whether the thread reads a gzip'd file ahead. */
int	 tp_unpack_ahead_gzip(const struct tp *);
/* Its next chunk (free with tp_gz_chunk_free); NULL at the file's end
 * (*eof) or when the thread ran out of memory. */
struct tp_gz_chunk *tp_unpack_ahead_chunk(struct tp *, int *eof);
void	 tp_gz_chunk_free(struct tp_gz_chunk *);

#endif
