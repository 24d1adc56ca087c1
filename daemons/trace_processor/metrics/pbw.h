/*
 * A small protobuf writer into one growable buffer, for the replies the
 * RPC builds by hand (QueryResult batches carry NUL-separated strings that
 * protobuf-c cannot hold) and for metric protos built from SQL.
 *
 *   struct pbw w; pbw_init(&w);
 *   pbw_uint(&w, 1, 42);
 *   size_t m = pbw_begin(&w, 3); ... pbw_end(&w, m);   nested message
 *   if (w.oom) -> out of memory, the buffer is incomplete
 *   ... use w.buf, w.len; pbw_free(&w);
 *
 * Lengths are written minimal, so the output is what protoc would write.
 */
#ifndef FARO_TP_PBW_H
#define FARO_TP_PBW_H

#include <stddef.h>
#include <stdint.h>

struct pbw {
	uint8_t	*buf;
	size_t	 len;
	size_t	 cap;
	int	 oom;
};

void	pbw_init(struct pbw *);
void	pbw_free(struct pbw *);
/* Takes the buffer (malloc'd, may be NULL when empty); w is reset. */
uint8_t	*pbw_take(struct pbw *, size_t *len);

void	pbw_raw(struct pbw *, const void *, size_t);
void	pbw_varint(struct pbw *, uint64_t);
void	pbw_tag(struct pbw *, uint32_t field, int wire);
void	pbw_uint(struct pbw *, uint32_t field, uint64_t);
void	pbw_sint(struct pbw *, uint32_t field, int64_t);	/* zigzag */
void	pbw_fixed64(struct pbw *, uint32_t field, uint64_t);
void	pbw_fixed32(struct pbw *, uint32_t field, uint32_t);
void	pbw_double(struct pbw *, uint32_t field, double);
void	pbw_bytes(struct pbw *, uint32_t field, const void *, size_t);
void	pbw_string(struct pbw *, uint32_t field, const char *);

/* Opens a length-delimited field; returns a mark for pbw_end. */
size_t	pbw_begin(struct pbw *, uint32_t field);
void	pbw_end(struct pbw *, size_t mark);

#endif
