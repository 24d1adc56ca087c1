/*
 * A protobuf writer that lays bytes out as upstream's protozero
 * HeapBuffered does, so that summaries are byte-identical to upstream's:
 * a nested message's length is reserved as 4 bytes and, at its end,
 * shrunk to 1 byte when the message is at most 127 bytes and still in the
 * writer's current 4096-byte chunk; otherwise it stays a 4-byte redundant
 * varint. Chunks are virtual here: we track where protozero's would
 * begin and end in the stitched output.
 *
 *   struct pzw w; pzw_init(&w);
 *   pzw_begin(&w, 3); pbb_string(&w.b, 1, "x"); pzw_end(&w);
 *   ... w.b.buf, w.b.len; pzw_ok(&w) or it failed; pbb_free(&w.b)
 *
 * Fields are written with pbbuf.h on w.b: where chunks begin only matters
 * when a message begins or ends, so that is when it is worked out.
 */
#ifndef FARO_TP_SUM_PZW_H
#define FARO_TP_SUM_PZW_H

#include <stddef.h>
#include <stdint.h>

#include "metrics/pbbuf.h"

#define PZW_MAX_DEPTH	256

struct pzw {
	struct pbbuf	 b;
	size_t		 chunk_begin;	/* the current chunk, in b */
	size_t		 chunk_end;
	size_t		 open[PZW_MAX_DEPTH];	/* open messages' size fields */
	int		 depth;
	int		 depth_err;
};

void	pzw_init(struct pzw *);
/* A nested message: pzw_begin, its fields, pzw_end. */
void	pzw_begin(struct pzw *, uint32_t id);
void	pzw_end(struct pzw *);
/* A nested message whose bytes are given. */
void	pzw_message(struct pzw *, uint32_t id, const void *, size_t);
/* Did everything fit (memory, depth)? */
int	pzw_ok(const struct pzw *);

#endif
