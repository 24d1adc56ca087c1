/*
 * pbw: see pbw.h.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "pbw.h"

/* Room left for a length when a nested message opens (5-byte varint). */
#define PBW_LEN_ROOM	5

void
pbw_init(struct pbw *w)
{
	memset(w, 0, sizeof(*w));
}

void
pbw_free(struct pbw *w)
{
	free(w->buf);
	pbw_init(w);
}

uint8_t *
pbw_take(struct pbw *w, size_t *len)
{
	uint8_t *b = w->buf;

	*len = w->len;
	pbw_init(w);
	return b;
}

static int
pbw_reserve(struct pbw *w, size_t n)
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
pbw_raw(struct pbw *w, const void *p, size_t n)
{
	if (n == 0 || pbw_reserve(w, n) == -1)
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
pbw_varint(struct pbw *w, uint64_t v)
{
	if (pbw_reserve(w, 10) == -1)
		return;
	w->len += varint_put(w->buf + w->len, v);
}

void
pbw_tag(struct pbw *w, uint32_t field, int wire)
{
	pbw_varint(w, ((uint64_t)field << 3) | (uint64_t)wire);
}

void
pbw_uint(struct pbw *w, uint32_t field, uint64_t v)
{
	pbw_tag(w, field, 0);
	pbw_varint(w, v);
}

void
pbw_sint(struct pbw *w, uint32_t field, int64_t v)
{
	pbw_uint(w, field, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

void
pbw_fixed64(struct pbw *w, uint32_t field, uint64_t v)
{
	uint8_t b[8];
	int i;

	for (i = 0; i < 8; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	pbw_tag(w, field, 1);
	pbw_raw(w, b, 8);
}

void
pbw_fixed32(struct pbw *w, uint32_t field, uint32_t v)
{
	uint8_t b[4];
	int i;

	for (i = 0; i < 4; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	pbw_tag(w, field, 5);
	pbw_raw(w, b, 4);
}

void
pbw_double(struct pbw *w, uint32_t field, double d)
{
	uint64_t u;

	memcpy(&u, &d, sizeof(u));
	pbw_fixed64(w, field, u);
}

void
pbw_bytes(struct pbw *w, uint32_t field, const void *p, size_t n)
{
	pbw_tag(w, field, 2);
	pbw_varint(w, n);
	pbw_raw(w, p, n);
}

void
pbw_string(struct pbw *w, uint32_t field, const char *s)
{
	pbw_bytes(w, field, s, strlen(s));
}

size_t
pbw_begin(struct pbw *w, uint32_t field)
{
	pbw_tag(w, field, 2);
	if (pbw_reserve(w, PBW_LEN_ROOM) == -1)
		return 0;
	w->len += PBW_LEN_ROOM;
	return w->len;
}

void
pbw_end(struct pbw *w, size_t mark)
{
	uint8_t lb[10];
	size_t body, n;

	if (w->oom || mark < PBW_LEN_ROOM || mark > w->len)
		return;
	body = w->len - mark;
	n = varint_put(lb, body);
	/* Shift the body back so the length is minimal. */
	memmove(w->buf + mark - PBW_LEN_ROOM + n, w->buf + mark, body);
	memcpy(w->buf + mark - PBW_LEN_ROOM, lb, n);
	w->len = mark - PBW_LEN_ROOM + n + body;
}
