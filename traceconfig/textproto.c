/*
 * Text-format protobuf parser: a hand-written lexer and a recursive
 * descent over protobuf-c descriptors. See textproto.h for the syntax.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "traceconfig/textproto.h"

enum tok_type {
	TOK_EOF,
	TOK_IDENT,	/* name, enum value, true/false, inf/nan */
	TOK_NUMBER,	/* starts with a digit or '.' */
	TOK_STRING,	/* quoted, escapes still encoded */
	TOK_PUNCT	/* one of { } < > [ ] : , ; - */
};

struct tok {
	enum tok_type	 type;
	const char	*p;
	size_t		 len;
	unsigned	 line;
	unsigned	 col;
};

struct tp {
	const char	*buf;
	const char	*end;
	const char	*cur;
	unsigned	 line;
	const char	*linestart;
	struct tok	 tok;		/* lookahead */
	const char	*fname;
	int		 flags;
	char		*err;
	size_t		 errlen;
	int		 failed;
	int		 depth;
};

/* Growable byte buffer for decoded strings. */
struct sbuf {
	char	*p;
	size_t	 len;
	size_t	 cap;
};

static void	tp_next(struct tp *);
static int	tp_message_untrusted(struct tp *, ProtobufCMessage *, char);
static int	tp_skip_value_untrusted(struct tp *);

static const char *
tok_type_name(enum tok_type t)
{
	switch (t) {
	case TOK_EOF:
		return "end of input";
	case TOK_IDENT:
		return "identifier";
	case TOK_NUMBER:
		return "number";
	case TOK_STRING:
		return "string";
	case TOK_PUNCT:
		return "punctuation";
	}
	return "token";
}

/* Describes the lookahead for "found ..." in messages. */
static void
tok_describe(const struct tok *t, char *out, size_t outlen)
{
	if (t->type == TOK_EOF) {
		snprintf(out, outlen, "end of input");
		return;
	}
	snprintf(out, outlen, "%s '%.*s'", tok_type_name(t->type),
	    (int)(t->len > 40 ? 40 : t->len), t->p);
}

/*
 * Records the first error at line:col with the offending source line and a
 * caret. Later errors are ignored: the first one is the cause.
 */
static void
tp_error_at(struct tp *tp, unsigned line, unsigned col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void
tp_error_at(struct tp *tp, unsigned line, unsigned col, const char *fmt, ...)
{
	va_list ap;
	char msg[512], guide[256];
	const char *ls, *le;
	unsigned l;
	size_t i, n;

	if (tp->failed)
		return;
	tp->failed = 1;
	if (tp->errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);

	/* Find the source line to quote. */
	ls = tp->buf;
	for (l = 1; l < line && ls < tp->end; ls++)
		if (*ls == '\n')
			l++;
	le = ls;
	while (le < tp->end && *le != '\n')
		le++;
	n = (size_t)(le - ls);
	if (n > 200)
		n = 200;
	/* Keep tabs in the guide so the caret lines up. */
	for (i = 0; i + 1 < col && i < n && i < sizeof(guide) - 2; i++)
		guide[i] = ls[i] == '\t' ? '\t' : ' ';
	guide[i++] = '^';
	guide[i] = '\0';
	snprintf(tp->err, tp->errlen, "%s:%u:%u: error: %s\n%.*s\n%s",
	    tp->fname, line, col, msg, (int)n, ls, guide);
}

static void
tp_error_tok(struct tp *tp, const struct tok *t, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
tp_error_tok(struct tp *tp, const struct tok *t, const char *fmt, ...)
{
	va_list ap;
	char msg[512];

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	tp_error_at(tp, t->line, t->col, "%s", msg);
}

/* "expected X, found Y" at the lookahead. */
static int
tp_expected(struct tp *tp, const char *what)
{
	char found[80];

	tok_describe(&tp->tok, found, sizeof(found));
	tp_error_tok(tp, &tp->tok, "expected %s, found %s", what, found);
	return -1;
}

static int
is_punct(const struct tok *t, char c)
{
	return t->type == TOK_PUNCT && t->p[0] == c;
}

/* Skips blanks and comments, counting lines. */
static void
tp_skip_space(struct tp *tp)
{
	while (tp->cur < tp->end) {
		char c = *tp->cur;

		if (c == '\n') {
			tp->cur++;
			tp->line++;
			tp->linestart = tp->cur;
		} else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' ||
		    c == '\v') {
			tp->cur++;
		} else if (c == '#') {
			while (tp->cur < tp->end && *tp->cur != '\n')
				tp->cur++;
		} else
			break;
	}
}

static int
is_ident_start(int c)
{
	return isalpha(c) || c == '_';
}

static int
is_ident_char(int c)
{
	return isalnum(c) || c == '_';
}

/* Reads the next token into tp->tok; a lexical error yields TOK_EOF. */
static void
tp_next(struct tp *tp)
{
	struct tok *t = &tp->tok;
	const char *s;
	unsigned char c;

	tp_skip_space(tp);
	t->p = tp->cur;
	t->line = tp->line;
	t->col = (unsigned)(tp->cur - tp->linestart) + 1;
	t->len = 0;
	if (tp->failed || tp->cur >= tp->end) {
		t->type = TOK_EOF;
		return;
	}
	s = tp->cur;
	c = (unsigned char)*s;
	if (is_ident_start(c)) {
		while (s < tp->end && is_ident_char((unsigned char)*s))
			s++;
		t->type = TOK_IDENT;
	} else if (isdigit(c) || (c == '.' && s + 1 < tp->end &&
	    isdigit((unsigned char)s[1]))) {
		/* Take the widest run; conversion validates it later. */
		int hex = c == '0' && s + 1 < tp->end &&
		    (s[1] == 'x' || s[1] == 'X');

		s++;
		while (s < tp->end) {
			unsigned char d = (unsigned char)*s;

			if (isalnum(d) || d == '.' || d == '_')
				s++;
			else if ((d == '-' || d == '+') && !hex &&
			    (s[-1] == 'e' || s[-1] == 'E'))
				s++;
			else
				break;
		}
		t->type = TOK_NUMBER;
	} else if (c == '"' || c == '\'') {
		s++;
		while (s < tp->end && *s != (char)c && *s != '\n') {
			if (*s == '\\' && s + 1 < tp->end && s[1] != '\n')
				s++;
			s++;
		}
		if (s >= tp->end || *s != (char)c) {
			tp_error_at(tp, t->line, t->col,
			    "unterminated string: expected closing %c before "
			    "end of line", c);
			t->type = TOK_EOF;
			return;
		}
		s++;
		t->type = TOK_STRING;
	} else if (strchr("{}<>[]:,;-", c) != NULL) {
		s++;
		t->type = TOK_PUNCT;
	} else {
		if (isprint(c))
			tp_error_at(tp, t->line, t->col,
			    "unexpected character '%c'", c);
		else
			tp_error_at(tp, t->line, t->col,
			    "unexpected byte 0x%02x", c);
		t->type = TOK_EOF;
		return;
	}
	t->len = (size_t)(s - tp->cur);
	tp->cur = s;
}

static int
sbuf_add(struct sbuf *sb, const void *p, size_t n)
{
	if (sb->len + n + 1 > sb->cap) {
		size_t ncap = sb->cap ? sb->cap : 32;
		char *np;

		while (ncap < sb->len + n + 1)
			ncap *= 2;
		if ((np = realloc(sb->p, ncap)) == NULL)
			return -1;
		sb->p = np;
		sb->cap = ncap;
	}
	memcpy(sb->p + sb->len, p, n);
	sb->len += n;
	sb->p[sb->len] = '\0';
	return 0;
}

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Encodes a code point as UTF-8; returns the length or 0 if invalid. */
static size_t
utf8_encode(uint32_t cp, char out[4])
{
	if (cp >= 0xd800 && cp <= 0xdfff)
		return 0;
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	if (cp <= 0x10ffff) {
		out[0] = (char)(0xf0 | (cp >> 18));
		out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[3] = (char)(0x80 | (cp & 0x3f));
		return 4;
	}
	return 0;
}

/* Decodes one quoted string token (escapes included) onto sb. */
static int
tp_decode_string_untrusted(struct tp *tp, const struct tok *t, struct sbuf *sb)
{
	const char *s = t->p + 1, *e = t->p + t->len - 1;

	while (s < e) {
		const char *esc = s;
		char out[4];
		size_t n;
		uint32_t v;
		int i, d, ndig;

		if (*s != '\\') {
			const char *run = s;

			while (s < e && *s != '\\')
				s++;
			if (sbuf_add(sb, run, (size_t)(s - run)) == -1)
				goto nomem;
			continue;
		}
		s++;	/* the lexer guarantees a character follows */
		switch (*s) {
		case 'n': out[0] = '\n'; n = 1; s++; break;
		case 't': out[0] = '\t'; n = 1; s++; break;
		case 'r': out[0] = '\r'; n = 1; s++; break;
		case 'a': out[0] = '\a'; n = 1; s++; break;
		case 'b': out[0] = '\b'; n = 1; s++; break;
		case 'f': out[0] = '\f'; n = 1; s++; break;
		case 'v': out[0] = '\v'; n = 1; s++; break;
		case '\\': out[0] = '\\'; n = 1; s++; break;
		case '\'': out[0] = '\''; n = 1; s++; break;
		case '"': out[0] = '"'; n = 1; s++; break;
		case '?': out[0] = '?'; n = 1; s++; break;
		case 'x':
		case 'X':
			s++;
			v = 0;
			for (i = 0; i < 2 && s < e && (d = hexval(*s)) >= 0;
			    i++, s++)
				v = v * 16 + (uint32_t)d;
			if (i == 0) {
				tp_error_at(tp, t->line,
				    t->col + (unsigned)(esc - t->p),
				    "expected hex digits after \\x");
				return -1;
			}
			out[0] = (char)v;
			n = 1;
			break;
		case 'u':
		case 'U':
			ndig = *s == 'u' ? 4 : 8;
			s++;
			v = 0;
			for (i = 0; i < ndig; i++, s++) {
				if (s >= e || (d = hexval(*s)) < 0) {
					tp_error_at(tp, t->line,
					    t->col + (unsigned)(esc - t->p),
					    "expected %d hex digits after \\%c",
					    ndig, esc[1]);
					return -1;
				}
				v = v * 16 + (uint32_t)d;
			}
			if ((n = utf8_encode(v, out)) == 0) {
				tp_error_at(tp, t->line,
				    t->col + (unsigned)(esc - t->p),
				    "\\%c%.*s is not a valid Unicode code point",
				    esc[1], ndig, esc + 2);
				return -1;
			}
			break;
		default:
			if (*s >= '0' && *s <= '7') {
				v = 0;
				for (i = 0; i < 3 && s < e && *s >= '0' &&
				    *s <= '7'; i++, s++)
					v = v * 8 + (uint32_t)(*s - '0');
				if (v > 0xff) {
					tp_error_at(tp, t->line,
					    t->col + (unsigned)(esc - t->p),
					    "octal escape \\%.3s is above "
					    "\\377", esc + 1);
					return -1;
				}
				out[0] = (char)v;
				n = 1;
				break;
			}
			tp_error_at(tp, t->line, t->col + (unsigned)(esc - t->p),
			    "unknown escape \\%c in string", isprint(
			    (unsigned char)*s) ? *s : '?');
			return -1;
		}
		if (sbuf_add(sb, out, n) == -1)
			goto nomem;
	}
	if (sb->p == NULL && sbuf_add(sb, "", 0) == -1)
		goto nomem;
	return 0;
nomem:
	tp_error_tok(tp, t, "out of memory decoding string");
	return -1;
}

/* Reads one or more adjacent string literals, concatenated. */
static int
tp_strings_untrusted(struct tp *tp, struct sbuf *sb)
{
	if (tp->tok.type != TOK_STRING)
		return tp_expected(tp, "a quoted string");
	while (tp->tok.type == TOK_STRING) {
		if (tp_decode_string_untrusted(tp, &tp->tok, sb) == -1)
			return -1;
		tp_next(tp);
	}
	return tp->failed ? -1 : 0;
}

size_t
textproto_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	size_t *row, prev, tmp, best;

	if (la == 0)
		return lb;
	if (lb == 0)
		return la;
	if ((row = calloc(lb + 1, sizeof(*row))) == NULL)
		return SIZE_MAX;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		prev = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			tmp = row[j];
			best = prev + (a[i - 1] == b[j - 1] ? 0 : 1);
			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			prev = tmp;
		}
	}
	best = row[lb];
	free(row);
	return best;
}

/* Close enough to be a typo: at most a third of the name, 1 to 3 edits. */
static int
is_near(const char *want, size_t d)
{
	size_t lim = strlen(want) / 3;

	if (lim < 1)
		lim = 1;
	if (lim > 3)
		lim = 3;
	return d <= lim;
}

/* Keeps cand in *best when it is nearer to name than *best (at *bestd). */
static void
keep_nearest(const char *name, const char *cand, const char **best,
    size_t *bestd)
{
	size_t d = textproto_edit_distance(name, cand);

	if (d < *bestd) {
		*bestd = d;
		*best = cand;
	}
}

static const char *
closest_field(const ProtobufCMessageDescriptor *desc, const char *name)
{
	const char *best = NULL;
	size_t bestd = SIZE_MAX;
	unsigned i;

	for (i = 0; i < desc->n_fields; i++)
		keep_nearest(name, desc->fields[i].name, &best, &bestd);
	if (best != NULL && is_near(name, bestd))
		return best;
	/* A unit suffix left out ("duration" for "duration_ms"). */
	best = NULL;
	for (i = 0; i < desc->n_fields && strlen(name) >= 4; i++)
		if (strncmp(desc->fields[i].name, name, strlen(name)) == 0 &&
		    (best == NULL || strlen(desc->fields[i].name) < strlen(best)))
			best = desc->fields[i].name;
	return best;
}

static const char *
closest_enum(const ProtobufCEnumDescriptor *ed, const char *name)
{
	const char *best = NULL;
	size_t bestd = SIZE_MAX;
	unsigned i;

	for (i = 0; i < ed->n_values; i++)
		keep_nearest(name, ed->values[i].name, &best, &bestd);
	return best != NULL && is_near(name, bestd) ? best : NULL;
}

/* Copies an identifier token into a NUL-terminated buffer. */
static void
tok_copy(const struct tok *t, char *out, size_t outlen)
{
	size_t n = t->len < outlen - 1 ? t->len : outlen - 1;

	memcpy(out, t->p, n);
	out[n] = '\0';
}

/*
 * Integer literal to magnitude: decimal, 0x hex or 0-prefixed octal.
 * Returns -1 for a malformed literal, -2 for overflow of 64 bits.
 */
static int
parse_uint_literal(const struct tok *t, uint64_t *out)
{
	const char *s = t->p, *e = t->p + t->len;
	unsigned base = 10;
	uint64_t v = 0;
	int d;

	if (t->type != TOK_NUMBER)
		return -1;
	if (e - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	} else if (e - s > 1 && s[0] == '0')
		base = 8;
	for (; s < e; s++) {
		d = hexval((unsigned char)*s);
		if (d < 0 || (unsigned)d >= base)
			return -1;
		if (v > (UINT64_MAX - (uint64_t)d) / base)
			return -2;
		v = v * base + (uint64_t)d;
	}
	*out = v;
	return 0;
}

static const char *
field_type_name(ProtobufCType type)
{
	switch (type) {
	case PROTOBUF_C_TYPE_INT32: return "int32";
	case PROTOBUF_C_TYPE_SINT32: return "sint32";
	case PROTOBUF_C_TYPE_SFIXED32: return "sfixed32";
	case PROTOBUF_C_TYPE_INT64: return "int64";
	case PROTOBUF_C_TYPE_SINT64: return "sint64";
	case PROTOBUF_C_TYPE_SFIXED64: return "sfixed64";
	case PROTOBUF_C_TYPE_UINT32: return "uint32";
	case PROTOBUF_C_TYPE_FIXED32: return "fixed32";
	case PROTOBUF_C_TYPE_UINT64: return "uint64";
	case PROTOBUF_C_TYPE_FIXED64: return "fixed64";
	case PROTOBUF_C_TYPE_FLOAT: return "float";
	case PROTOBUF_C_TYPE_DOUBLE: return "double";
	case PROTOBUF_C_TYPE_BOOL: return "bool";
	case PROTOBUF_C_TYPE_ENUM: return "enum";
	case PROTOBUF_C_TYPE_STRING: return "string";
	case PROTOBUF_C_TYPE_BYTES: return "bytes";
	case PROTOBUF_C_TYPE_MESSAGE: return "message";
	}
	return "unknown";
}

/* One decoded scalar, in the representation protobuf-c stores. */
union scalar {
	int32_t			 i32;
	uint32_t		 u32;
	int64_t			 i64;
	uint64_t		 u64;
	float			 f;
	double			 d;
	protobuf_c_boolean	 b;
	char			*str;
	ProtobufCBinaryData	 bytes;
};

static size_t
scalar_size(ProtobufCType type)
{
	switch (type) {
	case PROTOBUF_C_TYPE_INT32:
	case PROTOBUF_C_TYPE_SINT32:
	case PROTOBUF_C_TYPE_SFIXED32:
	case PROTOBUF_C_TYPE_UINT32:
	case PROTOBUF_C_TYPE_FIXED32:
	case PROTOBUF_C_TYPE_ENUM:
		return 4;
	case PROTOBUF_C_TYPE_INT64:
	case PROTOBUF_C_TYPE_SINT64:
	case PROTOBUF_C_TYPE_SFIXED64:
	case PROTOBUF_C_TYPE_UINT64:
	case PROTOBUF_C_TYPE_FIXED64:
		return 8;
	case PROTOBUF_C_TYPE_FLOAT:
		return sizeof(float);
	case PROTOBUF_C_TYPE_DOUBLE:
		return sizeof(double);
	case PROTOBUF_C_TYPE_BOOL:
		return sizeof(protobuf_c_boolean);
	case PROTOBUF_C_TYPE_STRING:
		return sizeof(char *);
	case PROTOBUF_C_TYPE_BYTES:
		return sizeof(ProtobufCBinaryData);
	case PROTOBUF_C_TYPE_MESSAGE:
		return sizeof(ProtobufCMessage *);
	}
	return 0;
}

static int
tp_integer_untrusted(struct tp *tp, const ProtobufCFieldDescriptor *fd,
    int neg, const struct tok *t, union scalar *v)
{
	uint64_t mag;
	int r;
	int is_signed = 0, is64 = 0;

	switch (fd->type) {
	case PROTOBUF_C_TYPE_INT32:
	case PROTOBUF_C_TYPE_SINT32:
	case PROTOBUF_C_TYPE_SFIXED32:
		is_signed = 1;
		break;
	case PROTOBUF_C_TYPE_INT64:
	case PROTOBUF_C_TYPE_SINT64:
	case PROTOBUF_C_TYPE_SFIXED64:
		is_signed = is64 = 1;
		break;
	case PROTOBUF_C_TYPE_UINT64:
	case PROTOBUF_C_TYPE_FIXED64:
		is64 = 1;
		break;
	default:
		break;
	}
	if ((r = parse_uint_literal(t, &mag)) == -1) {
		char found[80];

		tok_describe(t, found, sizeof(found));
		tp_error_tok(tp, t, "expected an integer (%s) for field '%s', "
		    "found %s", field_type_name(fd->type), fd->name, found);
		return -1;
	}
	if (r == -2)
		goto range;
	if (neg && mag != 0 && !is_signed) {
		tp_error_tok(tp, t, "field '%s' is %s: negative value not "
		    "allowed", fd->name, field_type_name(fd->type));
		return -1;
	}
	if (is_signed && is64) {
		if (neg ? mag > (uint64_t)INT64_MAX + 1 : mag > INT64_MAX)
			goto range;
		v->i64 = neg ? (int64_t)(0 - mag) : (int64_t)mag;
	} else if (is_signed) {
		if (neg ? mag > (uint64_t)INT32_MAX + 1 : mag > INT32_MAX)
			goto range;
		v->i32 = neg ? (int32_t)(0 - (uint32_t)mag) : (int32_t)mag;
	} else if (is64) {
		v->u64 = mag;
	} else {
		if (mag > UINT32_MAX)
			goto range;
		v->u32 = (uint32_t)mag;
	}
	return 0;
range:
	tp_error_tok(tp, t, "value %s%.*s is out of range for field '%s' (%s)",
	    neg ? "-" : "", (int)t->len, t->p, fd->name,
	    field_type_name(fd->type));
	return -1;
}

static int
tp_float_untrusted(struct tp *tp, const ProtobufCFieldDescriptor *fd,
    int neg, const struct tok *t, union scalar *v)
{
	char buf[128], *endp;
	double d;
	size_t n;

	if (t->type == TOK_IDENT) {
		char id[16];

		tok_copy(t, id, sizeof(id));
		if (t->len < sizeof(id) && (strcasecmp(id, "inf") == 0 ||
		    strcasecmp(id, "infinity") == 0))
			d = INFINITY;
		else if (t->len < sizeof(id) && strcasecmp(id, "nan") == 0)
			d = NAN;
		else
			goto bad;
	} else if (t->type == TOK_NUMBER && t->len < sizeof(buf)) {
		n = t->len;
		if (n > 1 && (t->p[n - 1] == 'f' || t->p[n - 1] == 'F'))
			n--;
		memcpy(buf, t->p, n);
		buf[n] = '\0';
		/* strtod would take hex floats and "infinity"; text format does not. */
		if (strpbrk(buf, "xXnN") != NULL)
			goto bad;
		errno = 0;
		d = strtod(buf, &endp);
		if (*endp != '\0' || endp == buf)
			goto bad;
		if (errno == ERANGE && fabs(d) > 1.0)
			goto range;
	} else
		goto bad;
	if (neg)
		d = -d;
	if (fd->type == PROTOBUF_C_TYPE_FLOAT) {
		if (isfinite(d) && fabs(d) > FLT_MAX)
			goto range;
		v->f = (float)d;
	} else
		v->d = d;
	return 0;
bad:
	{
		char found[80];

		tok_describe(t, found, sizeof(found));
		tp_error_tok(tp, t, "expected a number (%s) for field '%s', "
		    "found %s", field_type_name(fd->type), fd->name, found);
	}
	return -1;
range:
	tp_error_tok(tp, t, "value %.*s is out of range for field '%s' (%s)",
	    (int)t->len, t->p, fd->name, field_type_name(fd->type));
	return -1;
}

static int
tp_bool_untrusted(struct tp *tp, const ProtobufCFieldDescriptor *fd,
    const struct tok *t, union scalar *v)
{
	static const char *yes[] = { "true", "True", "t", "1" };
	static const char *no[] = { "false", "False", "f", "0" };
	size_t i;

	if (t->type == TOK_IDENT || t->type == TOK_NUMBER) {
		for (i = 0; i < 4; i++) {
			if (t->len == strlen(yes[i]) &&
			    memcmp(t->p, yes[i], t->len) == 0) {
				v->b = 1;
				return 0;
			}
			if (t->len == strlen(no[i]) &&
			    memcmp(t->p, no[i], t->len) == 0) {
				v->b = 0;
				return 0;
			}
		}
	}
	{
		char found[80];

		tok_describe(t, found, sizeof(found));
		tp_error_tok(tp, t, "expected true or false for field '%s', "
		    "found %s", fd->name, found);
	}
	return -1;
}

static int
tp_enum_untrusted(struct tp *tp, const ProtobufCFieldDescriptor *fd,
    int neg, const struct tok *t, union scalar *v)
{
	const ProtobufCEnumDescriptor *ed = fd->descriptor;
	const ProtobufCEnumValue *ev;
	char name[128];
	const char *near;

	if (t->type == TOK_IDENT && !neg) {
		tok_copy(t, name, sizeof(name));
		if (t->len < sizeof(name) &&
		    (ev = protobuf_c_enum_descriptor_get_value_by_name(ed,
		    name)) != NULL) {
			v->i32 = ev->value;
			return 0;
		}
		/* Lossy: a value from a newer .proto is dropped, not fatal. */
		if (tp->flags & TEXTPROTO_SKIP_UNKNOWN)
			return 1;
		if ((near = closest_enum(ed, name)) != NULL)
			tp_error_tok(tp, t, "unknown value '%s' for enum %s of "
			    "field '%s' (did you mean '%s'?)", name, ed->name,
			    fd->name, near);
		else
			tp_error_tok(tp, t, "unknown value '%s' for enum %s of "
			    "field '%s'", name, ed->name, fd->name);
		return -1;
	}
	if (t->type == TOK_NUMBER) {
		const ProtobufCFieldDescriptor as_int = {
			.name = fd->name, .type = PROTOBUF_C_TYPE_INT32
		};
		union scalar n;

		if (tp_integer_untrusted(tp, &as_int, neg, t, &n) == -1)
			return -1;
		if (protobuf_c_enum_descriptor_get_value(ed, n.i32) == NULL) {
			if (tp->flags & TEXTPROTO_SKIP_UNKNOWN)
				return 1;
			tp_error_tok(tp, t, "%d is not a value of enum %s of "
			    "field '%s'", n.i32, ed->name, fd->name);
			return -1;
		}
		v->i32 = n.i32;
		return 0;
	}
	{
		char found[80];

		tok_describe(t, found, sizeof(found));
		tp_error_tok(tp, t, "expected a value name of enum %s for field "
		    "'%s', found %s", ed->name, fd->name, found);
	}
	return -1;
}

/*
 * Reads one scalar value (not a message) for fd into v. Returns 0, -1 on
 * error, or 1 for a value to drop (unknown enum value when lossy).
 */
static int
tp_scalar_untrusted(struct tp *tp, const ProtobufCFieldDescriptor *fd,
    union scalar *v)
{
	struct tok t, minus;
	struct sbuf sb = { NULL, 0, 0 };
	int neg = 0, skip = 0;

	memset(v, 0, sizeof(*v));
	if (fd->type == PROTOBUF_C_TYPE_STRING ||
	    fd->type == PROTOBUF_C_TYPE_BYTES) {
		if (tp->tok.type != TOK_STRING) {
			char what[160];

			snprintf(what, sizeof(what), "a quoted string for %s "
			    "field '%s'", field_type_name(fd->type), fd->name);
			return tp_expected(tp, what);
		}
		t = tp->tok;
		if (tp_strings_untrusted(tp, &sb) == -1) {
			free(sb.p);
			return -1;
		}
		if (fd->type == PROTOBUF_C_TYPE_STRING) {
			if (strlen(sb.p) != sb.len) {
				tp_error_tok(tp, &t, "string field '%s' cannot "
				    "hold a NUL byte", fd->name);
				free(sb.p);
				return -1;
			}
			v->str = sb.p;
		} else {
			v->bytes.data = (uint8_t *)sb.p;
			v->bytes.len = sb.len;
		}
		return 0;
	}

	if (is_punct(&tp->tok, '-')) {
		minus = tp->tok;
		neg = 1;
		tp_next(tp);
		if (tp->failed)
			return -1;
		(void)minus;
	}
	t = tp->tok;
	if (t.type != TOK_NUMBER && t.type != TOK_IDENT) {
		char what[160];

		snprintf(what, sizeof(what), "a value for %s field '%s'",
		    field_type_name(fd->type), fd->name);
		return tp_expected(tp, what);
	}
	switch (fd->type) {
	case PROTOBUF_C_TYPE_FLOAT:
	case PROTOBUF_C_TYPE_DOUBLE:
		if (tp_float_untrusted(tp, fd, neg, &t, v) == -1)
			return -1;
		break;
	case PROTOBUF_C_TYPE_BOOL:
		if (neg) {
			tp_error_tok(tp, &t, "expected true or false for field "
			    "'%s', found a negative value", fd->name);
			return -1;
		}
		if (tp_bool_untrusted(tp, fd, &t, v) == -1)
			return -1;
		break;
	case PROTOBUF_C_TYPE_ENUM:
		if ((skip = tp_enum_untrusted(tp, fd, neg, &t, v)) == -1)
			return -1;
		break;
	default:
		if (tp_integer_untrusted(tp, fd, neg, &t, v) == -1)
			return -1;
		break;
	}
	tp_next(tp);
	return tp->failed ? -1 : skip;
}

static void *
member_ptr(ProtobufCMessage *msg, unsigned offset)
{
	return (char *)msg + offset;
}

/* Frees what a singular string, bytes or message member owns. */
static void
member_release(const ProtobufCFieldDescriptor *fd, void *slot)
{
	switch (fd->type) {
	case PROTOBUF_C_TYPE_STRING: {
		char **s = slot;

		if (*s != NULL && *s != (const char *)fd->default_value)
			free(*s);
		*s = NULL;
		break;
	}
	case PROTOBUF_C_TYPE_BYTES: {
		ProtobufCBinaryData *b = slot;
		const ProtobufCBinaryData *def = fd->default_value;

		if (b->data != NULL && (def == NULL || b->data != def->data))
			free(b->data);
		b->data = NULL;
		b->len = 0;
		break;
	}
	case PROTOBUF_C_TYPE_MESSAGE: {
		ProtobufCMessage **m = slot;

		if (*m != NULL)
			protobuf_c_message_free_unpacked(*m, NULL);
		*m = NULL;
		break;
	}
	default:
		break;
	}
}

/*
 * Marks fd present. In a oneof, a different member that was set before is
 * released first: the last one given wins, as in the binary format.
 */
static void
field_set_present(ProtobufCMessage *msg, const ProtobufCFieldDescriptor *fd)
{
	if (fd->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) {
		uint32_t *cs = member_ptr(msg, fd->quantifier_offset);

		if (*cs != 0 && *cs != fd->id) {
			const ProtobufCFieldDescriptor *old =
			    protobuf_c_message_descriptor_get_field(
			    msg->descriptor, *cs);

			if (old != NULL)
				member_release(old, member_ptr(msg,
				    old->offset));
			memset(member_ptr(msg, fd->offset), 0,
			    scalar_size(fd->type));
		}
		*cs = fd->id;
	} else if (fd->label == PROTOBUF_C_LABEL_OPTIONAL &&
	    fd->quantifier_offset != 0) {
		*(protobuf_c_boolean *)member_ptr(msg, fd->quantifier_offset) = 1;
	}
}

/* Appends room for one element to a repeated field; returns its slot. */
static void *
repeated_grow(struct tp *tp, ProtobufCMessage *msg,
    const ProtobufCFieldDescriptor *fd)
{
	size_t *n = member_ptr(msg, fd->quantifier_offset);
	char **arr = member_ptr(msg, fd->offset);
	size_t esz = scalar_size(fd->type), ncap;
	char *na;

	/* Capacity is implicit: grow at 0 and at each power of two from 4. */
	if (*n == 0 || (*n >= 4 && (*n & (*n - 1)) == 0)) {
		ncap = *n == 0 ? 4 : *n * 2;
		if (ncap > SIZE_MAX / esz ||
		    (na = realloc(*arr, ncap * esz)) == NULL) {
			tp_error_tok(tp, &tp->tok, "out of memory");
			return NULL;
		}
		*arr = na;
	}
	memset(*arr + *n * esz, 0, esz);
	return *arr + (*n)++ * esz;
}

static ProtobufCMessage *
message_new(const ProtobufCMessageDescriptor *desc)
{
	ProtobufCMessage *m;

	if ((m = calloc(1, desc->sizeof_message)) == NULL)
		return NULL;
	protobuf_c_message_init(desc, m);
	return m;
}

/* Parses '{...}' or '<...>' into *slot, creating or merging the message. */
static int
tp_submessage_untrusted(struct tp *tp, const ProtobufCFieldDescriptor *fd,
    ProtobufCMessage **slot)
{
	char close;

	if (is_punct(&tp->tok, '{'))
		close = '}';
	else if (is_punct(&tp->tok, '<'))
		close = '>';
	else {
		char what[160];

		snprintf(what, sizeof(what), "'{' or '<' to open message "
		    "field '%s'", fd->name);
		return tp_expected(tp, what);
	}
	if (tp->depth >= TEXTPROTO_MAX_DEPTH) {
		tp_error_tok(tp, &tp->tok, "messages nested deeper than %d",
		    TEXTPROTO_MAX_DEPTH);
		return -1;
	}
	if (*slot == NULL &&
	    (*slot = message_new(fd->descriptor)) == NULL) {
		tp_error_tok(tp, &tp->tok, "out of memory");
		return -1;
	}
	tp_next(tp);
	tp->depth++;
	if (tp_message_untrusted(tp, *slot, close) == -1)
		return -1;
	tp->depth--;
	return 0;
}

/* Stores one scalar into a singular field, releasing what it replaces. */
static void
store_singular(ProtobufCMessage *msg, const ProtobufCFieldDescriptor *fd,
    const union scalar *v)
{
	void *slot;

	field_set_present(msg, fd);
	slot = member_ptr(msg, fd->offset);
	member_release(fd, slot);
	memcpy(slot, v, scalar_size(fd->type));
}

static void
scalar_release(const ProtobufCFieldDescriptor *fd, union scalar *v)
{
	if (fd->type == PROTOBUF_C_TYPE_STRING)
		free(v->str);
	else if (fd->type == PROTOBUF_C_TYPE_BYTES)
		free(v->bytes.data);
}

/* One value (scalar or message) for fd, appended if fd is repeated. */
static int
tp_one_value_untrusted(struct tp *tp, ProtobufCMessage *msg,
    const ProtobufCFieldDescriptor *fd)
{
	union scalar v;
	void *slot;
	int r;

	if (fd->type == PROTOBUF_C_TYPE_MESSAGE) {
		/* Check the opening first: no empty element on error. */
		if (!is_punct(&tp->tok, '{') && !is_punct(&tp->tok, '<')) {
			char what[160];

			snprintf(what, sizeof(what), "'{' or '<' to open "
			    "message field '%s'", fd->name);
			return tp_expected(tp, what);
		}
		if (fd->label == PROTOBUF_C_LABEL_REPEATED) {
			if ((slot = repeated_grow(tp, msg, fd)) == NULL)
				return -1;
		} else {
			if ((fd->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) &&
			    *(uint32_t *)member_ptr(msg,
			    fd->quantifier_offset) != fd->id)
				field_set_present(msg, fd);
			slot = member_ptr(msg, fd->offset);
		}
		return tp_submessage_untrusted(tp, fd, slot);
	}
	if ((r = tp_scalar_untrusted(tp, fd, &v)) == -1)
		return -1;
	if (r == 1)	/* unknown enum value, skipped */
		return 0;
	if (fd->label == PROTOBUF_C_LABEL_REPEATED) {
		if ((slot = repeated_grow(tp, msg, fd)) == NULL) {
			scalar_release(fd, &v);
			return -1;
		}
		memcpy(slot, &v, scalar_size(fd->type));
	} else
		store_singular(msg, fd, &v);
	return 0;
}

/* The value part of "name: value", "name {..}" or "name: [a, b]". */
static int
tp_field_value_untrusted(struct tp *tp, ProtobufCMessage *msg,
    const ProtobufCFieldDescriptor *fd, const struct tok *name)
{
	int colon = 0;

	if (is_punct(&tp->tok, ':')) {
		colon = 1;
		tp_next(tp);
	}
	if (tp->failed)
		return -1;
	if (is_punct(&tp->tok, '[')) {
		if (fd->label != PROTOBUF_C_LABEL_REPEATED) {
			tp_error_tok(tp, &tp->tok, "field '%s' is not repeated: "
			    "a [...] list needs a repeated field", fd->name);
			return -1;
		}
		if (!colon && fd->type != PROTOBUF_C_TYPE_MESSAGE)
			return tp_expected(tp, "':' before the list");
		tp_next(tp);
		if (is_punct(&tp->tok, ']')) {
			tp_next(tp);
			return tp->failed ? -1 : 0;
		}
		for (;;) {
			if (tp_one_value_untrusted(tp, msg, fd) == -1)
				return -1;
			if (is_punct(&tp->tok, ']'))
				break;
			if (!is_punct(&tp->tok, ','))
				return tp_expected(tp, "',' or ']' in the list");
			tp_next(tp);
		}
		tp_next(tp);
		return tp->failed ? -1 : 0;
	}
	if (!colon && fd->type != PROTOBUF_C_TYPE_MESSAGE) {
		char what[160];

		snprintf(what, sizeof(what), "':' after field name '%s'",
		    fd->name);
		return tp_expected(tp, what);
	}
	(void)name;
	return tp_one_value_untrusted(tp, msg, fd);
}

/* Skips one scalar: an optional '-' then a token, or adjacent strings. */
static int
tp_skip_scalar_untrusted(struct tp *tp)
{
	if (tp->tok.type == TOK_STRING) {
		while (tp->tok.type == TOK_STRING)
			tp_next(tp);
		return tp->failed ? -1 : 0;
	}
	if (is_punct(&tp->tok, '-'))
		tp_next(tp);
	if (tp->tok.type != TOK_NUMBER && tp->tok.type != TOK_IDENT)
		return tp_expected(tp, "a value");
	tp_next(tp);
	return tp->failed ? -1 : 0;
}

/* Skips '{...}' or '<...>' of an unknown field, checking its syntax. */
static int
tp_skip_message_untrusted(struct tp *tp)
{
	char close = is_punct(&tp->tok, '{') ? '}' : '>';

	if (tp->depth >= TEXTPROTO_MAX_DEPTH) {
		tp_error_tok(tp, &tp->tok, "messages nested deeper than %d",
		    TEXTPROTO_MAX_DEPTH);
		return -1;
	}
	tp->depth++;
	tp_next(tp);
	while (!is_punct(&tp->tok, close)) {
		if (tp->tok.type != TOK_IDENT) {
			char what[32];

			snprintf(what, sizeof(what), "a field name or '%c'",
			    close);
			return tp_expected(tp, what);
		}
		tp_next(tp);
		if (tp_skip_value_untrusted(tp) == -1)
			return -1;
		if (is_punct(&tp->tok, ',') || is_punct(&tp->tok, ';'))
			tp_next(tp);
	}
	tp->depth--;
	tp_next(tp);
	return tp->failed ? -1 : 0;
}

static int
tp_skip_element_untrusted(struct tp *tp)
{
	if (is_punct(&tp->tok, '{') || is_punct(&tp->tok, '<'))
		return tp_skip_message_untrusted(tp);
	return tp_skip_scalar_untrusted(tp);
}

/* Skips the value of an unknown field, whatever its shape. */
static int
tp_skip_value_untrusted(struct tp *tp)
{
	int colon = 0;

	if (is_punct(&tp->tok, ':')) {
		colon = 1;
		tp_next(tp);
	}
	if (is_punct(&tp->tok, '[')) {
		tp_next(tp);
		if (is_punct(&tp->tok, ']')) {
			tp_next(tp);
			return tp->failed ? -1 : 0;
		}
		for (;;) {
			if (tp_skip_element_untrusted(tp) == -1)
				return -1;
			if (is_punct(&tp->tok, ']'))
				break;
			if (!is_punct(&tp->tok, ','))
				return tp_expected(tp, "',' or ']' in the list");
			tp_next(tp);
		}
		tp_next(tp);
		return tp->failed ? -1 : 0;
	}
	if (is_punct(&tp->tok, '{') || is_punct(&tp->tok, '<'))
		return tp_skip_message_untrusted(tp);
	if (!colon)
		return tp_expected(tp, "':', '{' or '<' after the field name");
	return tp_skip_scalar_untrusted(tp);
}

/*
 * Fields up to the closing character (close, or '\0' for end of input).
 * The closing token itself is consumed.
 */
static int
tp_message_untrusted(struct tp *tp, ProtobufCMessage *msg, char close)
{
	const ProtobufCMessageDescriptor *desc = msg->descriptor;
	const ProtobufCFieldDescriptor *fd;
	struct tok name;
	char nbuf[128];
	const char *near;

	for (;;) {
		if (tp->failed)
			return -1;
		if (close == '\0' && tp->tok.type == TOK_EOF)
			return 0;
		if (close != '\0' && is_punct(&tp->tok, close)) {
			tp_next(tp);
			return tp->failed ? -1 : 0;
		}
		if (tp->tok.type != TOK_IDENT) {
			char what[64];

			if (close == '\0')
				snprintf(what, sizeof(what), "a field name");
			else
				snprintf(what, sizeof(what), "a field name or "
				    "'%c' to close %s", close, desc->short_name);
			return tp_expected(tp, what);
		}
		name = tp->tok;
		tok_copy(&name, nbuf, sizeof(nbuf));
		fd = name.len < sizeof(nbuf) ?
		    protobuf_c_message_descriptor_get_field_by_name(desc, nbuf) :
		    NULL;
		tp_next(tp);
		if (fd == NULL) {
			if (tp->flags & TEXTPROTO_SKIP_UNKNOWN) {
				if (tp_skip_value_untrusted(tp) == -1)
					return -1;
			} else {
				if ((near = closest_field(desc, nbuf)) != NULL)
					tp_error_tok(tp, &name, "unknown field "
					    "'%s' in %s (did you mean '%s'?)",
					    nbuf, desc->name, near);
				else
					tp_error_tok(tp, &name, "unknown field "
					    "'%s' in %s", nbuf, desc->name);
				return -1;
			}
		} else if (tp_field_value_untrusted(tp, msg, fd, &name) == -1)
			return -1;
		if (is_punct(&tp->tok, ',') || is_punct(&tp->tok, ';'))
			tp_next(tp);
	}
}

ProtobufCMessage *
textproto_parse_untrusted(const ProtobufCMessageDescriptor *desc,
    const char *text, size_t len, const char *fname, int flags,
    char *err, size_t errlen)
{
	struct tp tp;
	ProtobufCMessage *msg;

	if (errlen > 0)
		err[0] = '\0';
	memset(&tp, 0, sizeof(tp));
	tp.buf = tp.cur = tp.linestart = text;
	tp.end = text + len;
	tp.line = 1;
	tp.fname = fname != NULL ? fname : "<input>";
	tp.flags = flags;
	tp.err = err;
	tp.errlen = errlen;
	if ((msg = message_new(desc)) == NULL) {
		snprintf(err, errlen, "%s: out of memory", tp.fname);
		return NULL;
	}
	tp_next(&tp);
	if (tp_message_untrusted(&tp, msg, '\0') == -1 || tp.failed) {
		protobuf_c_message_free_unpacked(msg, NULL);
		return NULL;
	}
	return msg;
}
