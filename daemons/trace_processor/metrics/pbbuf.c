/*
 * pbbuf: see pbbuf.h.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "pbbuf.h"

/* Room left for a length when a nested message opens (5-byte varint). */
#define PBB_LEN_ROOM	5

void
pbb_init(struct pbbuf *w)
{
	memset(w, 0, sizeof(*w));
}

void
pbb_free(struct pbbuf *w)
{
	free(w->buf);
	pbb_init(w);
}

uint8_t *
pbb_take(struct pbbuf *w, size_t *len)
{
	uint8_t *b = w->buf;

	*len = w->len;
	pbb_init(w);
	return b;
}

static int
pbb_reserve(struct pbbuf *w, size_t n)
{
	size_t cap;
	uint8_t *nb;

	if (w->oom)
		return -1;
	if (w->cap - w->len >= n)
		return 0;
	cap = w->cap ? w->cap : 256;
	while (cap - w->len < n) {
		if (cap > SIZE_MAX / 2) {
			w->oom = 1;
			return -1;
		}
		cap *= 2;
	}
	if ((nb = realloc(w->buf, cap)) == NULL) {
		w->oom = 1;
		return -1;
	}
	w->buf = nb;
	w->cap = cap;
	return 0;
}

void
pbb_raw(struct pbbuf *w, const void *p, size_t n)
{
	if (n == 0 || pbb_reserve(w, n) == -1)
		return;
	memcpy(w->buf + w->len, p, n);
	w->len += n;
}

static size_t
varint_put(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

void
pbb_varint(struct pbbuf *w, uint64_t v)
{
	if (pbb_reserve(w, 10) == -1)
		return;
	w->len += varint_put(w->buf + w->len, v);
}

void
pbb_tag(struct pbbuf *w, uint32_t field, int wire)
{
	pbb_varint(w, ((uint64_t)field << 3) | (uint64_t)wire);
}

void
pbb_uint(struct pbbuf *w, uint32_t field, uint64_t v)
{
	pbb_tag(w, field, 0);
	pbb_varint(w, v);
}

void
pbb_sint(struct pbbuf *w, uint32_t field, int64_t v)
{
	pbb_uint(w, field, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

void
pbb_fixed64(struct pbbuf *w, uint32_t field, uint64_t v)
{
	uint8_t b[8];
	int i;

	for (i = 0; i < 8; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	pbb_tag(w, field, 1);
	pbb_raw(w, b, 8);
}

void
pbb_fixed32(struct pbbuf *w, uint32_t field, uint32_t v)
{
	uint8_t b[4];
	int i;

	for (i = 0; i < 4; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	pbb_tag(w, field, 5);
	pbb_raw(w, b, 4);
}

void
pbb_double(struct pbbuf *w, uint32_t field, double d)
{
	uint64_t u;

	memcpy(&u, &d, sizeof(u));
	pbb_fixed64(w, field, u);
}

void
pbb_bytes(struct pbbuf *w, uint32_t field, const void *p, size_t n)
{
	pbb_tag(w, field, 2);
	pbb_varint(w, n);
	pbb_raw(w, p, n);
}

void
pbb_string(struct pbbuf *w, uint32_t field, const char *s)
{
	pbb_bytes(w, field, s, strlen(s));
}

size_t
pbb_begin(struct pbbuf *w, uint32_t field)
{
	pbb_tag(w, field, 2);
	if (pbb_reserve(w, PBB_LEN_ROOM) == -1)
		return 0;
	w->len += PBB_LEN_ROOM;
	return w->len;
}

void
pbb_end(struct pbbuf *w, size_t mark)
{
	uint8_t lb[10];
	size_t body, n;

	if (w->oom || mark < PBB_LEN_ROOM || mark > w->len)
		return;
	body = w->len - mark;
	n = varint_put(lb, body);
	/* Shift the body back so the length is minimal. */
	memmove(w->buf + mark - PBB_LEN_ROOM + n, w->buf + mark, body);
	memcpy(w->buf + mark - PBB_LEN_ROOM, lb, n);
	w->len = mark - PBB_LEN_ROOM + n + body;
}
