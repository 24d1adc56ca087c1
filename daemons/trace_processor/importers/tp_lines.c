/*
 * Text traces (ftrace text, strace) arrive in chunks that cut lines
 * anywhere: whole lines go to the importer as they complete, a part is
 * kept until the rest comes. A line beyond TP_MAX_LINE is dropped,
 * counted, rather than held without bound.
 */
#include <stdlib.h>
#include <string.h>

#include "tp_int.h"

int
tp_lines_feed(struct tp *tp, struct tp_lines *l, const uint8_t *buf,
    size_t len, tp_line_fn fn, enum tp_stat overlong)
{
	const char *p = (const char *)buf, *end = p + len, *nl;

	while (p < end) {
		size_t n;

		nl = memchr(p, '\n', (size_t)(end - p));
		n = (size_t)((nl ? nl : end) - p);
		if (l->len == 0 && nl != NULL && !l->skip) {
			fn(tp, p, n);	/* the whole line is here */
		} else if (!l->skip) {
			if (l->len + n > TP_MAX_LINE) {
				l->skip = 1;
				l->len = 0;
				tp_stat_inc(tp, overlong, 1);
			} else {
				if (l->len + n > l->cap) {
					size_t ncap = l->cap ? l->cap : 256;
					void *q;

					while (ncap < l->len + n)
						ncap *= 2;
					if ((q = realloc(l->line, ncap)) ==
					    NULL)
						return tp_seterr(tp, "%s: out of"
						    " memory", __func__);
					l->line = q;
					l->cap = ncap;
				}
				memcpy(l->line + l->len, p, n);
				l->len += n;
				if (nl != NULL) {
					fn(tp, l->line, l->len);
					l->len = 0;
				}
			}
		}
		if (nl != NULL) {
			l->skip = 0;
			p = nl + 1;
			tp_sorter_drain(tp, 0);
		} else {
			p = end;
		}
	}
	return 0;
}

int
tp_lines_rest(struct tp_lines *l, const char **s, size_t *len)
{
	int have = l->len > 0 && !l->skip;

	*s = l->line;
	*len = l->len;
	l->len = 0;
	return have;
}

void
tp_lines_free(struct tp_lines *l)
{
	free(l->line);
	memset(l, 0, sizeof(*l));
}
