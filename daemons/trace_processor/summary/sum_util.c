/*
 * Trace summaries: reading spec messages as wire bytes, building strings,
 * lists of strings (see sum_int.h).
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sum_int.h"

int
sum_get(struct sum_msg m, uint32_t id, struct pb_field *f)
{
	struct pb it;
	struct pb_field x;
	int found = 0;

	pb_init(&it, m.p, m.n);
	while (pb_next_untrusted(&it, &x) == 1)
		if (x.id == id) {
			*f = x;
			found = 1;
		}
	return found;
}

int
sum_has(struct sum_msg m, uint32_t id)
{
	struct pb_field f;

	return sum_get(m, id, &f);
}

struct sum_msg
sum_field_msg(const struct pb_field *f)
{
	struct sum_msg m = { (const uint8_t *)"", 0 };

	if (f->wire == PB_LEN) {
		m.p = f->data;
		m.n = f->len;
	}
	return m;
}

struct sum_msg
sum_bytes(struct sum_msg m, uint32_t id)
{
	struct pb_field f;
	struct sum_msg none = { (const uint8_t *)"", 0 };

	if (!sum_get(m, id, &f))
		return none;
	return sum_field_msg(&f);
}

char *
sum_field_str(const struct pb_field *f)
{
	struct sum_msg m = sum_field_msg(f);

	return strndup((const char *)m.p, m.n);
}

char *
sum_str(struct sum_msg m, uint32_t id)
{
	struct sum_msg b = sum_bytes(m, id);

	return strndup((const char *)b.p, b.n);
}

int
sum_str_eq(struct sum_msg m, uint32_t id, const char *s)
{
	struct sum_msg b = sum_bytes(m, id);

	return b.n == strlen(s) && memcmp(b.p, s, b.n) == 0;
}

uint64_t
sum_uint(struct sum_msg m, uint32_t id)
{
	struct pb_field f;

	return sum_get(m, id, &f) && f.wire != PB_LEN ? f.u : 0;
}

void
sum_it_init(struct sum_it *it, struct sum_msg m, uint32_t id)
{
	pb_init(&it->pb, m.p, m.n);
	it->id = id;
}

int
sum_it_next(struct sum_it *it, struct pb_field *f)
{
	while (pb_next_untrusted(&it->pb, f) == 1)
		if (f->id == it->id)
			return 1;
	return 0;
}

void
sb_addn(struct pbbuf *w, const void *p, size_t n)
{
	pbb_raw(w, p, n);
}

void
sb_add(struct pbbuf *w, const char *s)
{
	pbb_raw(w, s, strlen(s));
}

static void
sb_vprintf(struct pbbuf *w, const char *fmt, va_list ap)
{
	char *s;
	int n;

	if ((n = vasprintf(&s, fmt, ap)) < 0) {
		w->oom = 1;
		return;
	}
	pbb_raw(w, s, (size_t)n);
	free(s);
}

void
sb_printf(struct pbbuf *w, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	sb_vprintf(w, fmt, ap);
	va_end(ap);
}

void
sb_double(struct pbbuf *w, double d)
{
	sb_printf(w, "%f", d);
}

void
sb_indent(struct pbbuf *w, const char *s, size_t n)
{
	const char *nl;
	size_t i;

	while (*s != '\0') {
		nl = strchr(s, '\n');
		for (i = 0; i < n; i++)
			pbb_raw(w, " ", 1);
		if (nl == NULL) {
			sb_add(w, s);
			return;
		}
		pbb_raw(w, s, (size_t)(nl - s) + 1);
		s = nl + 1;
	}
}

char *
sb_take(struct pbbuf *w)
{
	size_t len;
	char *s;

	pbb_raw(w, "", 1);
	if (w->oom) {
		pbb_free(w);
		return NULL;
	}
	s = (char *)pbb_take(w, &len);
	return s;
}

char *
sum_printf(const char *fmt, ...)
{
	struct pbbuf w;
	va_list ap;

	pbb_init(&w);
	va_start(ap, fmt);
	sb_vprintf(&w, fmt, ap);
	va_end(ap);
	return sb_take(&w);
}

ssize_t
sum_strs_find(const struct sum_strs *l, const char *s)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (strcmp(l->v[i], s) == 0)
			return (ssize_t)i;
	return -1;
}

int
sum_strs_add(struct sum_strs *l, const char *s, int uniq)
{
	char **nv;

	if (uniq && sum_strs_find(l, s) != -1)
		return 0;
	if ((nv = reallocarray(l->v, l->n + 1, sizeof(*nv))) == NULL)
		return -1;
	l->v = nv;
	if ((nv[l->n] = strdup(s)) == NULL)
		return -1;
	l->n++;
	return 1;
}

void
sum_strs_free(struct sum_strs *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}
