/*
 * The protozero-shaped writer: see sum_pzw.h.
 */
#include "config.h"

#include <string.h>

#include "sum_pzw.h"

#define PZW_CHUNK	4096u
#define PZW_LEN_FIELD	4u
#define PZW_ONE_BYTE	127u

void
pzw_init(struct pzw *w)
{
	memset(w, 0, sizeof(*w));
	pbb_init(&w->b);
	w->chunk_end = PZW_CHUNK;
}

/*
 * Catches up with the bytes appended since: each chunk that filled up was
 * followed by a new one (appends only grow the buffer between two calls,
 * so working this out late gives what working it out on each write would).
 */
static void
pzw_advance(struct pzw *w)
{
	while (w->b.len > w->chunk_end) {
		w->chunk_begin = w->chunk_end;
		w->chunk_end = w->chunk_begin + PZW_CHUNK;
	}
}

void
pzw_begin(struct pzw *w, uint32_t id)
{
	static const uint8_t zero[PZW_LEN_FIELD];

	pbb_tag(&w->b, id, 2);
	pzw_advance(w);
	/* The length field never straddles chunks: a new one starts. */
	if (w->chunk_end - w->b.len < PZW_LEN_FIELD) {
		w->chunk_begin = w->b.len;
		w->chunk_end = w->b.len + PZW_CHUNK;
	}
	if (w->depth >= PZW_MAX_DEPTH) {
		w->depth_err = 1;
		return;
	}
	w->open[w->depth++] = w->b.len;
	pbb_raw(&w->b, zero, sizeof(zero));
}

void
pzw_end(struct pzw *w)
{
	size_t field, size;
	uint8_t *p;

	if (w->depth_err || w->depth == 0 || w->b.oom)
		return;
	pzw_advance(w);
	field = w->open[--w->depth];
	size = w->b.len - field - PZW_LEN_FIELD;
	p = w->b.buf + field;
	if (size <= PZW_ONE_BYTE && field >= w->chunk_begin) {
		memmove(p + 1, p + PZW_LEN_FIELD, size);
		p[0] = (uint8_t)size;
		w->b.len -= PZW_LEN_FIELD - 1;
		return;
	}
	p[0] = (uint8_t)((size & 0x7f) | 0x80);
	p[1] = (uint8_t)(((size >> 7) & 0x7f) | 0x80);
	p[2] = (uint8_t)(((size >> 14) & 0x7f) | 0x80);
	p[3] = (uint8_t)((size >> 21) & 0x7f);
}

void
pzw_message(struct pzw *w, uint32_t id, const void *p, size_t n)
{
	pzw_begin(w, id);
	pbb_raw(&w->b, p, n);
	pzw_end(w);
}

int
pzw_ok(const struct pzw *w)
{
	return !w->b.oom && !w->depth_err;
}
