/*
 * A TraceSummarySpec in text format to its wire bytes, accepting what
 * upstream's text-to-proto parser accepts and writing the fields in the
 * text's order with protozero's layout (sum_pzw.h): the spec is echoed
 * into the summary as it was encoded, so order and length encoding show.
 *
 *   key: value   key value   key { ... }   # comment
 *   values: "str" "concatenated", 123, -1.5, IDENT (enum or true/false)
 *
 * Field names, types and enums come from the .proto files read at runtime
 * (sum_protos.c). Errors are listed as upstream lists
 * them ("FILE:ROW:COL error: ...", the line, a caret); parsing goes on
 * after a bad field and stops at a bad character, as there.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/mproto.h"
#include "sum_int.h"
#include "sum_pzw.h"

enum tt_state {
	TT_WAIT_KEY, TT_KEY, TT_EXT_KEY, TT_WAIT_VALUE, TT_STR_CONT, TT_STR,
	TT_STR_ESC, TT_NUM, TT_IDENT,
};

struct tt_tok {
	size_t		 off, len;
	size_t		 row, col;
	int		 ext;
};

/* One open message: its descriptor and the names already seen. */
struct tt_ctx {
	const struct mp_msg *desc;
	const char	*name;		/* its last name component */
	uint8_t		*seen;		/* per field index */
};

struct tt {
	const char	*in;
	size_t		 len;
	const char	*fname;
	struct pzw	 w;
	struct pbbuf	 err;		/* the errors, as text */
	int		 failed;
	int		 cut;		/* later errors are not shown */
	struct tt_ctx	 ctx[PZW_MAX_DEPTH + 1];
	int		 depth;
};

static int
tt_ident_start(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

/* A blank, or a '#' starting a comment, where one may come: consumed. */
static int
tt_blank(char c, int *comment)
{
	if (c == '#')
		*comment = 1;
	return c == '#' || isspace((unsigned char)c);
}

static int
tt_ident_body(char c)
{
	return tt_ident_start(c) || (c >= '0' && c <= '9');
}

static const char *
tt_last_name(const char *full)
{
	const char *dot = strrchr(full, '.');

	return dot != NULL ? dot + 1 : full;
}

/* Adds "FILE:ROW:COL error: MSG", the line and a caret under len chars. */
static void
tt_error(struct tt *t, size_t row, size_t col, size_t len, const char *msg)
{
	const char *line = t->in, *e;
	size_t i, r;

	t->failed = 1;
	if (t->cut)
		return;
	row = row > 0 ? row - 1 : 0;
	col = col > 0 ? col - 1 : 0;
	for (r = 0; r < row && line < t->in + t->len; r++) {
		e = memchr(line, '\n', (size_t)(t->in + t->len - line));
		line = e != NULL ? e + 1 : t->in + t->len;
	}
	e = memchr(line, '\n', (size_t)(t->in + t->len - line));
	if (e == NULL) {
		/*
		 * The last line: upstream quotes it with the NUL that ends
		 * its input, which cuts its message there. So does ours.
		 */
		sb_printf(&t->err, "%s:%zu:%zu error: %s\n%.*s", t->fname,
		    row + 1, col + 1, msg, (int)(t->in + t->len - line), line);
		t->cut = 1;
		return;
	}
	sb_printf(&t->err, "%s:%zu:%zu error: %s\n%.*s\n", t->fname, row + 1,
	    col + 1, msg, (int)(e - line), line);
	for (i = 0; i < col + len; i++)
		sb_add(&t->err, i < col ? " " : i == col ? "^" : "~");
	sb_add(&t->err, "\n");
}

static void
tt_error_tok(struct tt *t, const struct tt_tok *k, const char *msg)
{
	tt_error(t, k->row, k->col, k->len, msg);
}

static const char *
tt_type_name(enum mp_type type)
{
	static const char *const names[] = {
		[MP_DOUBLE] = "double", [MP_FLOAT] = "float",
		[MP_INT64] = "int64", [MP_UINT64] = "uint64",
		[MP_INT32] = "int32", [MP_FIXED64] = "fixed64",
		[MP_FIXED32] = "fixed32", [MP_BOOL] = "bool",
		[MP_STRING] = "string", [MP_BYTES] = "bytes",
		[MP_UINT32] = "uint32", [MP_SFIXED32] = "sfixed32",
		[MP_SFIXED64] = "sfixed64", [MP_SINT32] = "sint32",
		[MP_SINT64] = "sint64", [MP_ENUM] = "enum",
		[MP_MESSAGE] = "message",
	};

	return (size_t)type < sizeof(names) / sizeof(names[0]) &&
	    names[type] != NULL ? names[type] : "?";
}

/* What kind of value a field takes, as the lexer sees values. */
enum tt_kind { TK_NUM, TK_STR, TK_IDENT, TK_MSG };

static int
tt_kind_ok(enum mp_type type, enum tt_kind k)
{
	switch (type) {
	case MP_STRING:
	case MP_BYTES:
		return k == TK_STR;
	case MP_BOOL:
	case MP_ENUM:
		return k == TK_IDENT;
	case MP_MESSAGE:
		return k == TK_MSG;
	default:
		return k == TK_NUM;
	}
}

/*
 * The field named by key in the current message, checked for its kind
 * and for being given twice; NULL after an error.
 */
static const struct mp_field *
tt_field(struct tt *t, const struct tt_tok *key, const struct tt_tok *val,
    enum tt_kind kind)
{
	struct tt_ctx *c = &t->ctx[t->depth];
	const struct mp_field *f;
	char name[256], *msg;
	size_t idx;

	snprintf(name, sizeof(name), "%.*s", (int)key->len, t->in + key->off);
	if (key->ext) {
		msg = sum_printf("No extension named \"%s\" registered", name);
		tt_error_tok(t, key, msg ? msg : "?");
		free(msg);
		return NULL;
	}
	f = mp_field_by_name(c->desc, name);
	if (f == NULL) {
		msg = sum_printf("No field named \"%s\" in proto %s", name,
		    c->name);
		tt_error_tok(t, key, msg ? msg : "?");
		free(msg);
		return NULL;
	}
	idx = (size_t)(f - c->desc->fields);
	if (c->seen[idx] && !f->repeated) {
		msg = sum_printf("Saw non-repeating field '%s' more than once",
		    name);
		tt_error_tok(t, key, msg ? msg : "?");
		free(msg);
	}
	c->seen[idx] = 1;
	if (!tt_kind_ok(f->type, kind)) {
		msg = sum_printf("Expected value of type %s for field %s in "
		    "proto %s instead saw '%.*s'", tt_type_name(f->type), name,
		    c->name, (int)val->len, t->in + val->off);
		tt_error_tok(t, val, msg ? msg : "?");
		free(msg);
		return NULL;
	}
	return f;
}

static void
tt_number(struct tt *t, const struct tt_tok *key, const struct tt_tok *val)
{
	const struct mp_field *f;
	char buf[128], *ep;
	unsigned long long n;
	uint64_t max;
	double d;
	float fl;
	uint32_t u32;

	if ((f = tt_field(t, key, val, TK_NUM)) == NULL)
		return;
	snprintf(buf, sizeof(buf), "%.*s", (int)val->len, t->in + val->off);
	if (f->type == MP_DOUBLE ||
	    f->type == MP_FLOAT) {
		d = strtod(buf, &ep);
		if (ep == buf)
			d = 0;
		if (f->type == MP_DOUBLE)
			pbb_double(&t->w.b, f->number, d);
		else {
			fl = (float)d;
			memcpy(&u32, &fl, sizeof(u32));
			pbb_fixed32(&t->w.b, f->number, u32);
		}
		return;
	}
	/* Integers are read as unsigned decimal (upstream aborts on the
	 * rest; we say so). */
	switch (f->type) {
	case MP_UINT32:
	case MP_FIXED32:
		max = UINT32_MAX;
		break;
	case MP_INT32:
	case MP_SINT32:
	case MP_SFIXED32:
		max = INT32_MAX;
		break;
	case MP_UINT64:
	case MP_FIXED64:
		max = UINT64_MAX;
		break;
	default:
		max = INT64_MAX;
		break;
	}
	errno = 0;
	n = strtoull(buf, &ep, 10);
	if (buf[0] == '-' || ep == buf || errno != 0 || n > max) {
		tt_error_tok(t, val, "Expected a non-negative integer in "
		    "range for this field");
		return;
	}
	switch (f->type) {
	case MP_SINT32:
	case MP_SINT64:
		pbb_uint(&t->w.b, f->number, (uint64_t)n << 1);
		break;
	case MP_FIXED32:
	case MP_SFIXED32:
		pbb_fixed32(&t->w.b, f->number, (uint32_t)n);
		break;
	case MP_FIXED64:
	case MP_SFIXED64:
		pbb_fixed64(&t->w.b, f->number, (uint64_t)n);
		break;
	default:
		pbb_uint(&t->w.b, f->number, (uint64_t)n);
		break;
	}
}

/* The string's bytes: escapes decoded, adjacent literals joined. */
static void
tt_string(struct tt *t, const struct tt_tok *key, const struct tt_tok *val)
{
	const struct mp_field *f;
	const char *s = t->in + val->off;
	struct pbbuf b;
	size_t i, n = val->len;
	char c, *msg;
	static const char from[] = "\\'\"?abfnrtv";
	static const char to[] = "\\'\"?\a\b\f\n\r\t\v";
	const char *e;

	if ((f = tt_field(t, key, val, TK_STR)) == NULL)
		return;
	pbb_init(&b);
	for (i = 0; i < n; i++) {
		c = s[i];
		if (c == '"') {
			/* Skip to the next literal's opening quote. */
			for (i++; i < n && s[i] != '"'; i++)
				if (s[i] == '#')
					while (i < n && s[i] != '\n')
						i++;
			continue;
		}
		if (c != '\\' || i + 1 >= n) {
			pbb_raw(&b, &c, 1);
			continue;
		}
		c = s[++i];
		if (c != '\0' && (e = strchr(from, c)) != NULL) {
			c = to[e - from];
			pbb_raw(&b, &c, 1);
		} else if (c >= '0' && c <= '9') {
			if (i + 2 < n && c <= '7' && s[i + 1] >= '0' &&
			    s[i + 1] <= '7' && s[i + 2] >= '0' &&
			    s[i + 2] <= '7' && c <= '3') {
				c = (char)((c - '0') << 6 |
				    (s[i + 1] - '0') << 3 | (s[i + 2] - '0'));
				pbb_raw(&b, &c, 1);
				i += 2;
			} else {
				msg = sum_printf("Malformed string escape in "
				    "%.*s in proto %s on '%.*s'. \\NNN escapes "
				    "must be exactly three octal digits <= "
				    "\\377 (0xff).", (int)key->len,
				    t->in + key->off,
				    t->ctx[t->depth].name,
				    (int)val->len, s);
				tt_error_tok(t, val, msg ? msg : "?");
				free(msg);
			}
		} else {
			msg = sum_printf("Unknown string escape in %.*s in "
			    "proto %s: '%.*s'", (int)key->len, t->in + key->off,
			    t->ctx[t->depth].name, (int)val->len, s);
			tt_error_tok(t, val, msg ? msg : "?");
			free(msg);
			pbb_free(&b);
			return;
		}
	}
	pbb_bytes(&t->w.b, f->number, b.buf != NULL ? b.buf :
	    (const uint8_t *)"", b.len);
	if (b.oom)
		t->w.b.oom = 1;
	pbb_free(&b);
}

static void
tt_ident(struct tt *t, const struct tt_tok *key, const struct tt_tok *val)
{
	const struct mp_field *f;
	int32_t ev;
	char name[256], *msg;

	if ((f = tt_field(t, key, val, TK_IDENT)) == NULL)
		return;
	snprintf(name, sizeof(name), "%.*s", (int)val->len, t->in + val->off);
	if (f->type == MP_BOOL) {
		if (strcmp(name, "true") != 0 && strcmp(name, "false") != 0) {
			msg = sum_printf("Expected 'true' or 'false' for "
			    "boolean field %.*s in proto %s instead saw '%s'",
			    (int)key->len, t->in + key->off,
			    t->ctx[t->depth].name, name);
			tt_error_tok(t, val, msg ? msg : "?");
			free(msg);
			return;
		}
		pbb_uint(&t->w.b, f->number, strcmp(name, "true") == 0);
		return;
	}
	if (f->en == NULL || mp_enum_value(f->en, name, &ev) == -1) {
		msg = sum_printf("Unexpected value '%s' for enum field %.*s in "
		    "proto %s", name, (int)key->len, t->in + key->off,
		    t->ctx[t->depth].name);
		tt_error_tok(t, val, msg ? msg : "?");
		free(msg);
		return;
	}
	pbb_uint(&t->w.b, f->number, (uint64_t)(int64_t)ev);
}

/* '{' after key: 0, or -1 to stop parsing. */
static int
tt_open(struct tt *t, const struct tt_tok *key, const struct tt_tok *val)
{
	const struct mp_field *f;
	const struct mp_msg *d;
	struct tt_ctx *c;

	if ((f = tt_field(t, key, val, TK_MSG)) == NULL)
		return -1;
	if (t->depth >= PZW_MAX_DEPTH) {
		tt_error_tok(t, key, "Nested too deep");
		return -1;
	}
	d = f->msg;
	c = &t->ctx[++t->depth];
	c->desc = d;
	c->name = tt_last_name(d->full_name);
	if ((c->seen = calloc(d->nfields + 1, 1)) == NULL) {
		t->w.b.oom = 1;
		return -1;
	}
	pzw_begin(&t->w, f->number);
	return 0;
}

static void
tt_close(struct tt *t)
{
	free(t->ctx[t->depth].seen);
	t->ctx[t->depth].seen = NULL;
	t->depth--;
	pzw_end(&t->w);
}

/* The string value that ended at str_end (its last closing quote). */
static void
tt_emit_string(struct tt *t, const struct tt_tok *key, struct tt_tok *val,
    size_t str_end)
{
	val->col++;
	val->off++;
	val->len = str_end - val->off;
	tt_string(t, key, val);
}

static void
tt_parse(struct tt *t)
{
	enum tt_state st = TT_WAIT_KEY;
	struct tt_tok key = { 0 }, val = { 0 };
	size_t i, row = 1, col = 0, depth = 0, str_end = 0;
	int colon = 0, semi = 1, comment = 0, last;
	char c, msg[64];

	for (i = 0; i < t->len; i++, col++) {
		c = t->in[i];
		last = i + 1 == t->len;
		if (c == '\n') {
			col = 0;
			row++;
			if (comment) {
				comment = 0;
				continue;
			}
		}
		if (comment)
			continue;
		switch (st) {
		case TT_WAIT_KEY:
			if (tt_blank(c, &comment))
				continue;
			if (c == '}') {
				if (depth == 0) {
					tt_error(t, row, col, 0,
					    "Unmatched closing brace");
					return;
				}
				semi = 0;
				depth--;
				tt_close(t);
				continue;
			}
			if (!semi && c == ';') {
				semi = 1;
				continue;
			}
			if (tt_ident_start(c) || c == '[') {
				colon = 0;
				st = c == '[' ? TT_EXT_KEY : TT_KEY;
				key.off = c == '[' ? i + 1 : i;
				key.row = row;
				key.col = col;
				key.ext = c == '[';
				continue;
			}
			break;
		case TT_KEY:
			if (tt_ident_body(c))
				continue;
			key.len = i - key.off;
			st = TT_WAIT_VALUE;
			if (c == '#')
				comment = 1;
			continue;
		case TT_EXT_KEY:
			if (tt_ident_body(c) || c == '.')
				continue;
			if (c == ']') {
				if (i == key.off) {
					tt_error(t, row, col, 0,
					    "Empty extension name");
					return;
				}
				key.len = i - key.off;
				st = TT_WAIT_VALUE;
				continue;
			}
			break;
		case TT_WAIT_VALUE:
			if (tt_blank(c, &comment))
				continue;
			val.off = i;
			val.row = row;
			val.col = col;
			if (c == ':' && !colon) {
				colon = 1;
				continue;
			}
			if (c == '"') {
				st = TT_STR;
				continue;
			}
			if (c == '-' || (c >= '0' && c <= '9') || c == '.') {
				st = TT_NUM;
				continue;
			}
			if (tt_ident_start(c)) {
				st = TT_IDENT;
				continue;
			}
			if (c == '{') {
				st = TT_WAIT_KEY;
				depth++;
				val.len = 1;
				if (tt_open(t, &key, &val) == -1)
					return;
				continue;
			}
			break;
		case TT_STR_CONT:
			if (tt_blank(c, &comment))
				continue;
			if (c == '"') {
				st = TT_STR;
				continue;
			}
			semi = 0;
			st = TT_WAIT_KEY;
			tt_emit_string(t, &key, &val, str_end);
			i--;	/* this character starts the next field */
			col--;
			continue;
		case TT_NUM:
			if (isspace((unsigned char)c) || c == ';' || last) {
				val.len = i - val.off + (last &&
				    !isspace((unsigned char)c) && c != ';');
				semi = c == ';';
				st = TT_WAIT_KEY;
				tt_number(t, &key, &val);
				continue;
			}
			if ((c >= '0' && c <= '9') || c == '.')
				continue;
			break;
		case TT_STR:
			if (c == '\\')
				st = TT_STR_ESC;
			else if (c == '"') {
				str_end = i;
				st = TT_STR_CONT;
				if (last) {
					semi = 0;
					st = TT_WAIT_KEY;
					tt_emit_string(t, &key, &val, str_end);
				}
			}
			continue;
		case TT_STR_ESC:
			st = TT_STR;
			continue;
		case TT_IDENT:
			if (isspace((unsigned char)c) || c == ';' || c == '#' ||
			    last) {
				val.len = i - val.off + (last &&
				    !isspace((unsigned char)c) && c != ';' &&
				    c != '#');
				comment = c == '#';
				semi = c == ';';
				st = TT_WAIT_KEY;
				tt_ident(t, &key, &val);
				continue;
			}
			if (tt_ident_body(c))
				continue;
			break;
		}
		snprintf(msg, sizeof(msg), "Unexpected character '%c'", c);
		tt_error(t, row, col, 0, msg);
		return;
	}
	if (st == TT_STR_CONT) {
		st = TT_WAIT_KEY;
		tt_emit_string(t, &key, &val, str_end);
	}
	if (depth > 0)
		tt_error(t, row, col, 0, "Nested message not closed");
	if (st != TT_WAIT_KEY)
		tt_error(t, row, col, 0, "Unexpected end of input");
}

int
sum_pbtxt_untrusted(const struct mp_pool *pool, const char *text, size_t len,
    const char *fname, struct pbbuf *out, char **err)
{
	const struct mp_msg *root =
	    mp_find_msg(pool, "perfetto.protos.TraceSummarySpec");
	struct tt t;
	int rc = 0;

	if (root == NULL) {
		*err = strdup("TraceSummarySpec is not known");
		return -1;
	}
	memset(&t, 0, sizeof(t));
	t.in = text;
	t.len = len;
	t.fname = fname;
	pzw_init(&t.w);
	pbb_init(&t.err);
	t.ctx[0].desc = root;
	t.ctx[0].name = tt_last_name(root->full_name);
	if ((t.ctx[0].seen = calloc(root->nfields + 1, 1)) == NULL)
		t.w.b.oom = 1;
	else
		tt_parse(&t);
	while (t.depth > 0) {
		free(t.ctx[t.depth].seen);
		t.depth--;
	}
	free(t.ctx[0].seen);
	if (t.failed) {
		*err = sb_take(&t.err);
		/* upstream's message ends with the caret line's newline */
		rc = -1;
	} else if (!pzw_ok(&t.w)) {
		*err = strdup("out of memory");
		rc = -1;
	} else
		pbb_raw(out, t.w.b.buf, t.w.b.len);
	pbb_free(&t.err);
	pbb_free(&t.w.b);
	return rc;
}
