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

/* After bytes were appended: a chunk that filled up is followed by more. */
static void
pzw_advance(struct pzw *w)
{
	while (w->b.len > w->chunk_end) {
		w->chunk_begin = w->chunk_end;
		w->chunk_end = w->chunk_begin + PZW_CHUNK;
	}
}

void
pzw_raw(struct pzw *w, const void *p, size_t n)
{
	pbb_raw(&w->b, p, n);
	pzw_advance(w);
}

void
pzw_varint(struct pzw *w, uint32_t id, uint64_t v)
{
	pbb_uint(&w->b, id, v);
	pzw_advance(w);
}

void
pzw_fixed64(struct pzw *w, uint32_t id, uint64_t v)
{
	pbb_fixed64(&w->b, id, v);
	pzw_advance(w);
}

void
pzw_fixed32(struct pzw *w, uint32_t id, uint32_t v)
{
	pbb_fixed32(&w->b, id, v);
	pzw_advance(w);
}

void
pzw_double(struct pzw *w, uint32_t id, double d)
{
	pbb_double(&w->b, id, d);
	pzw_advance(w);
}

void
pzw_bytes(struct pzw *w, uint32_t id, const void *p, size_t n)
{
	pbb_bytes(&w->b, id, p, n);
	pzw_advance(w);
}

void
pzw_string(struct pzw *w, uint32_t id, const char *s)
{
	pzw_bytes(w, id, s, strlen(s));
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
	pzw_raw(w, zero, sizeof(zero));
}

void
pzw_end(struct pzw *w)
{
	size_t field, size;
	uint8_t *p;

	if (w->depth_err || w->depth == 0 || w->b.oom)
		return;
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
	pzw_raw(w, p, n);
	pzw_end(w);
}

int
pzw_ok(const struct pzw *w)
{
	return !w->b.oom && !w->depth_err;
}
