/*
 * A small JSON parser into a tree of nodes, for documents held whole in
 * memory: strings are not copied, objects and arrays keep their text
 * (raw) for args that want it verbatim. Depth and node count are bounded.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tp_jdom.h"

#define MAX_JDEPTH	64

static void
ws(struct tp_jdom *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' ||
	    *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

static int
node_new(struct tp_jdom *j)
{
	if (j->n >= (j->max_nodes ? j->max_nodes : TP_JDOM_MAX_NODES)) {
		j->err = 1;
		return -1;
	}
	if (j->n == j->cap) {
		size_t ncap = j->cap ? j->cap * 2 : 256;
		void *p = realloc(j->nodes, ncap * sizeof(*j->nodes));

		if (p == NULL) {
			j->err = 1;
			return -1;
		}
		j->nodes = p;
		j->cap = ncap;
	}
	memset(&j->nodes[j->n], 0, sizeof(j->nodes[0]));
	j->nodes[j->n].child = j->nodes[j->n].next = -1;
	return (int)j->n++;
}

static void
put_utf8(char *out, size_t *o, unsigned cp)
{
	if (cp < 0x80) {
		out[(*o)++] = (char)cp;
	} else if (cp < 0x800) {
		out[(*o)++] = (char)(0xc0 | (cp >> 6));
		out[(*o)++] = (char)(0x80 | (cp & 0x3f));
	} else {
		out[(*o)++] = (char)(0xe0 | (cp >> 12));
		out[(*o)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[(*o)++] = (char)(0x80 | (cp & 0x3f));
	}
}

/* A string at j->p (after the quote); unescaped into scratch if needed. */
static int
parse_string(struct tp_jdom *j, const char **s, size_t *len)
{
	const char *start = j->p;
	size_t o;

	while (j->p < j->end && *j->p != '"' && *j->p != '\\')
		j->p++;
	if (j->p < j->end && *j->p == '"') {
		*s = start;
		*len = (size_t)(j->p - start);
		j->p++;
		return 0;
	}
	/* Escapes: the unescaped form is never longer than the source. */
	o = j->slen;
	if (j->scap - j->slen < (size_t)(j->end - start) + 1) {
		j->err = 1;
		return -1;
	}
	j->p = start;
	while (j->p < j->end && *j->p != '"') {
		char c = *j->p++;

		if (c != '\\') {
			j->scratch[o++] = c;
			continue;
		}
		if (j->p >= j->end)
			break;
		c = *j->p++;
		switch (c) {
		case 'n': j->scratch[o++] = '\n'; break;
		case 't': j->scratch[o++] = '\t'; break;
		case 'r': j->scratch[o++] = '\r'; break;
		case 'b': j->scratch[o++] = '\b'; break;
		case 'f': j->scratch[o++] = '\f'; break;
		case 'u': {
			unsigned cp = 0;
			int k;

			for (k = 0; k < 4 && j->p < j->end; k++, j->p++) {
				char h = *j->p;

				cp <<= 4;
				if (h >= '0' && h <= '9')
					cp |= (unsigned)(h - '0');
				else if (h >= 'a' && h <= 'f')
					cp |= (unsigned)(h - 'a' + 10);
				else if (h >= 'A' && h <= 'F')
					cp |= (unsigned)(h - 'A' + 10);
				else
					break;
			}
			if (k != 4) {
				j->err = 1;
				return -1;
			}
			/* Surrogates are kept as they are (3 bytes each). */
			put_utf8(j->scratch, &o, cp);
			break;
		}
		default:
			j->scratch[o++] = c;
			break;
		}
	}
	if (j->p >= j->end) {
		j->err = 1;
		return -1;
	}
	j->p++;
	*s = j->scratch + j->slen;
	*len = o - j->slen;
	j->slen = o;
	return 0;
}

static int parse_value(struct tp_jdom *, int depth);

static int
parse_value(struct tp_jdom *j, int depth)
{
	int id, prev = -1, c;

	ws(j);
	if (j->p >= j->end || depth > MAX_JDEPTH) {
		j->err = 1;
		return -1;
	}
	if ((id = node_new(j)) < 0)
		return -1;
	switch (*j->p) {
	case '"':
		j->p++;
		j->nodes[id].type = J_STR;
		if (parse_string(j, &j->nodes[id].s, &j->nodes[id].slen) == -1)
			return -1;
		return id;
	case '{':
	case '[': {
		int obj = *j->p == '{';
		char close = obj ? '}' : ']';

		j->nodes[id].type = obj ? J_OBJ : J_ARR;
		j->nodes[id].raw = j->p;
		j->p++;
		ws(j);
		if (j->p < j->end && *j->p == close) {
			j->p++;
			j->nodes[id].rawlen = (size_t)(j->p -
			    j->nodes[id].raw);
			return id;
		}
		for (;;) {
			const char *k = NULL;
			size_t klen = 0;

			ws(j);
			if (obj) {
				if (j->p >= j->end || *j->p != '"') {
					j->err = 1;
					return -1;
				}
				j->p++;
				if (parse_string(j, &k, &klen) == -1)
					return -1;
				ws(j);
				if (j->p >= j->end || *j->p != ':') {
					j->err = 1;
					return -1;
				}
				j->p++;
			}
			if ((c = parse_value(j, depth + 1)) < 0)
				return -1;
			j->nodes[c].key = k;
			j->nodes[c].keylen = klen;
			if (prev < 0)
				j->nodes[id].child = c;
			else
				j->nodes[prev].next = c;
			prev = c;
			ws(j);
			if (j->p < j->end && *j->p == ',') {
				j->p++;
				/* A trailing comma, as upstream's parser takes. */
				ws(j);
				if (j->p < j->end && *j->p == close) {
					j->p++;
					j->nodes[id].rawlen = (size_t)(j->p -
					    j->nodes[id].raw);
					return id;
				}
				continue;
			}
			if (j->p < j->end && *j->p == close) {
				j->p++;
				j->nodes[id].rawlen = (size_t)(j->p -
				    j->nodes[id].raw);
				return id;
			}
			j->err = 1;
			return -1;
		}
	}
	default:
		break;
	}
	if (j->end - j->p >= 4 && memcmp(j->p, "true", 4) == 0) {
		j->nodes[id].type = J_TRUE;
		j->p += 4;
	} else if (j->end - j->p >= 5 && memcmp(j->p, "false", 5) == 0) {
		j->nodes[id].type = J_FALSE;
		j->p += 5;
	} else if (j->end - j->p >= 4 && memcmp(j->p, "null", 4) == 0) {
		j->nodes[id].type = J_NULL;
		j->p += 4;
	} else {
		const char *s = j->p;

		while (j->p < j->end && (strchr("+-.eE", *j->p) != NULL ||
		    (*j->p >= '0' && *j->p <= '9')))
			j->p++;
		if (j->p == s) {
			j->err = 1;
			return -1;
		}
		j->nodes[id].type = J_NUM;
		j->nodes[id].s = s;
		j->nodes[id].slen = (size_t)(j->p - s);
	}
	return id;
}

int
tp_jdom_parse(struct tp_jdom *j, const char *buf, size_t len)
{
	j->p = buf;
	j->end = buf + len;
	j->n = 0;
	j->slen = 0;
	j->err = 0;
	if (j->scap < len + 1) {
		void *p = realloc(j->scratch, len + 1);

		if (p == NULL)
			return -1;
		j->scratch = p;
		j->scap = len + 1;
	}
	if (parse_value(j, 0) != 0 || j->err)
		return -1;
	return 0;
}

const struct tp_jnode *
tp_jdom_get(const struct tp_jdom *j, const struct tp_jnode *obj,
    const char *key)
{
	size_t kl = strlen(key);
	int c;

	if (obj == NULL || obj->type != J_OBJ)
		return NULL;
	for (c = obj->child; c >= 0; c = j->nodes[c].next)
		if (j->nodes[c].keylen == kl &&
		    memcmp(j->nodes[c].key, key, kl) == 0)
			return &j->nodes[c];
	return NULL;
}

int
tp_jdom_int(const struct tp_jnode *n, int64_t *v)
{
	char buf[64];
	char *end;
	long long x;

	if (n == NULL || n->slen == 0 || n->slen >= sizeof(buf))
		return -1;
	memcpy(buf, n->s, n->slen);
	buf[n->slen] = '\0';
	x = strtoll(buf, &end, 10);
	if (*end != '\0') {
		double d = strtod(buf, &end);

		if (*end != '\0' || !isfinite(d) || fabs(d) > 9e18)
			return -1;
		x = (long long)d;
	}
	*v = x;
	return 0;
}


void
tp_jdom_free(struct tp_jdom *j)
{
	free(j->nodes);
	free(j->scratch);
	memset(j, 0, sizeof(*j));
}
