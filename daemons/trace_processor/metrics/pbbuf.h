/*
 * A small protobuf writer into one growable buffer, for the replies the
 * RPC builds by hand (QueryResult batches carry NUL-separated strings that
 * protobuf-c cannot hold) and for metric protos built from SQL.
 *
 *   struct pbbuf w; pbb_init(&w);
 *   pbb_uint(&w, 1, 42);
 *   size_t m = pbb_begin(&w, 3); ... pbb_end(&w, m);   nested message
 *   if (w.oom) -> out of memory, the buffer is incomplete
 *   ... use w.buf, w.len; pbb_free(&w);
 *
 * Lengths are written minimal, so the output is what protoc would write.
 * (libshm's pbw writes into fixed ranges and reserves 4-byte sizes for
 * shared memory chunks; replies here are unbounded heap buffers.)
 */
#ifndef FARO_TP_PBBUF_H
#define FARO_TP_PBBUF_H

#include <stddef.h>
#include <stdint.h>

struct pbbuf {
	uint8_t	*buf;
	size_t	 len;
	size_t	 cap;
	int	 oom;
};

void	pbb_init(struct pbbuf *);
void	pbb_free(struct pbbuf *);
/* Takes the buffer (malloc'd, may be NULL when empty); w is reset. */
uint8_t	*pbb_take(struct pbbuf *, size_t *len);

void	pbb_raw(struct pbbuf *, const void *, size_t);
void	pbb_varint(struct pbbuf *, uint64_t);
void	pbb_tag(struct pbbuf *, uint32_t field, int wire);
void	pbb_uint(struct pbbuf *, uint32_t field, uint64_t);
void	pbb_sint(struct pbbuf *, uint32_t field, int64_t);	/* zigzag */
void	pbb_fixed64(struct pbbuf *, uint32_t field, uint64_t);
void	pbb_fixed32(struct pbbuf *, uint32_t field, uint32_t);
void	pbb_double(struct pbbuf *, uint32_t field, double);
void	pbb_bytes(struct pbbuf *, uint32_t field, const void *, size_t);
void	pbb_string(struct pbbuf *, uint32_t field, const char *);

/* Opens a length-delimited field; returns a mark for pbb_end. */
size_t	pbb_begin(struct pbbuf *, uint32_t field);
void	pbb_end(struct pbbuf *, size_t mark);

#endif
