/*
 * Wire bytes of a message as protobuf text format, named by a protobuf-c
 * descriptor: the inverse of textproto.c, laid out as upstream's
 * trace processor prints a trace's config (metadata trace_config_pbtxt):
 *
 *   - fields in wire order, one per line, nested messages as
 *     "name {" ... "}" indented by two spaces;
 *   - enums by name, bools as true/false, floats as "%f";
 *   - strings and bytes quoted, with C escapes and \ooo octal for bytes
 *     outside printable ASCII;
 *   - packed repeated scalars one "name: value" line per element;
 *   - a field the descriptor does not know (or an enum value it does not
 *     name) by its number: varints as signed decimal, fixed as 0x%08x or
 *     0x%016llx, length-delimited as a quoted string;
 *   - what does not parse as fields ends the output with "# Extra bytes:".
 *
 * The input is untrusted (a trace's config): every length is checked and
 * nesting is bounded.
 */
#include "config.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "textproto.h"

#define PRINT_DEPTH_MAX	64

struct out {
	char	*s;
	size_t	 len, cap;
	int	 oom;
};

static void
out_add(struct out *o, const char *p, size_t n)
{
	char *ns;
	size_t cap;

	if (o->oom)
		return;
	if (o->len + n + 1 > o->cap) {
		cap = o->cap ? o->cap : 512;
		while (cap < o->len + n + 1)
			cap *= 2;
		if ((ns = realloc(o->s, cap)) == NULL) {
			o->oom = 1;
			return;
		}
		o->s = ns;
		o->cap = cap;
	}
	memcpy(o->s + o->len, p, n);
	o->len += n;
	o->s[o->len] = '\0';
}

static void
out_fmt(struct out *o, const char *fmt, ...)
{
	char buf[128];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > 0)
		out_add(o, buf, (size_t)n < sizeof(buf) ? (size_t)n :
		    sizeof(buf) - 1);
}

static void
out_quoted(struct out *o, const uint8_t *p, size_t n)
{
	static const char esc[] = "\a\b\f\n\r\t\v\\'\"";
	static const char name[] = "abfnrtv\\'\"";
	const char *e;
	size_t i;

	out_add(o, "\"", 1);
	for (i = 0; i < n; i++) {
		if (p[i] != '\0' && (e = strchr(esc, p[i])) != NULL)
			out_fmt(o, "\\%c", name[e - esc]);
		else if (p[i] >= 0x20 && p[i] <= 0x7e)
			out_add(o, (const char *)&p[i], 1);
		else
			out_fmt(o, "\\%o%o%o", p[i] >> 6 & 3, p[i] >> 3 & 7,
			    p[i] & 7);
	}
	out_add(o, "\"", 1);
}

/* A varint at *p (before end): 0, or -1 when cut short or too long. */
static int
varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	unsigned shift;

	*v = 0;
	for (shift = 0; *p < end && shift < 64; shift += 7) {
		*v |= (uint64_t)(**p & 0x7f) << shift;
		if (*(*p)++ < 0x80)
			return 0;
	}
	return -1;
}

static const char *
enum_name(const ProtobufCFieldDescriptor *f, int32_t v)
{
	const ProtobufCEnumDescriptor *ed = f->descriptor;
	unsigned i;

	for (i = 0; ed != NULL && i < ed->n_values; i++)
		if (ed->values[i].value == v)
			return ed->values[i].name;
	return NULL;
}

/* One varint value of field f (NULL: unknown), as "name: value". */
static void
print_varint(struct out *o, const ProtobufCFieldDescriptor *f, uint32_t id,
    uint64_t v)
{
	const char *en;

	switch (f != NULL ? f->type : (ProtobufCType)-1) {
	case PROTOBUF_C_TYPE_INT32:
		out_fmt(o, "%s: %" PRId32, f->name, (int32_t)v);
		return;
	case PROTOBUF_C_TYPE_SINT32:
		out_fmt(o, "%s: %" PRId32, f->name,
		    (int32_t)((uint32_t)v >> 1 ^ -(uint32_t)(v & 1)));
		return;
	case PROTOBUF_C_TYPE_UINT32:
		out_fmt(o, "%s: %" PRIu32, f->name, (uint32_t)v);
		return;
	case PROTOBUF_C_TYPE_INT64:
		out_fmt(o, "%s: %" PRId64, f->name, (int64_t)v);
		return;
	case PROTOBUF_C_TYPE_SINT64:
		out_fmt(o, "%s: %" PRId64, f->name,
		    (int64_t)(v >> 1 ^ -(v & 1)));
		return;
	case PROTOBUF_C_TYPE_UINT64:
		out_fmt(o, "%s: %" PRIu64, f->name, v);
		return;
	case PROTOBUF_C_TYPE_BOOL:
		out_fmt(o, "%s: %s", f->name, v ? "true" : "false");
		return;
	case PROTOBUF_C_TYPE_ENUM:
		if ((en = enum_name(f, (int32_t)v)) != NULL) {
			out_fmt(o, "%s: %s", f->name, en);
			return;
		}
		out_fmt(o, "%" PRIu32 ": %" PRId32, id, (int32_t)v);
		return;
	default:
		out_fmt(o, "%" PRIu32 ": %" PRId64, id, (int64_t)v);
		return;
	}
}

static void
print_fixed(struct out *o, const ProtobufCFieldDescriptor *f, uint32_t id,
    uint64_t v, int wide)
{
	union { uint32_t u; float f; } c32;
	union { uint64_t u; double d; } c64;

	switch (f != NULL ? f->type : (ProtobufCType)-1) {
	case PROTOBUF_C_TYPE_SFIXED32:
		out_fmt(o, "%s: %" PRId32, f->name, (int32_t)v);
		return;
	case PROTOBUF_C_TYPE_FIXED32:
		out_fmt(o, "%s: %" PRIu32, f->name, (uint32_t)v);
		return;
	case PROTOBUF_C_TYPE_FLOAT:
		c32.u = (uint32_t)v;
		out_fmt(o, "%s: %f", f->name, (double)c32.f);
		return;
	case PROTOBUF_C_TYPE_SFIXED64:
		out_fmt(o, "%s: %" PRId64, f->name, (int64_t)v);
		return;
	case PROTOBUF_C_TYPE_FIXED64:
		out_fmt(o, "%s: %" PRIu64, f->name, v);
		return;
	case PROTOBUF_C_TYPE_DOUBLE:
		c64.u = v;
		out_fmt(o, "%s: %f", f->name, c64.d);
		return;
	default:
		if (wide)
			out_fmt(o, "%" PRIu32 ": 0x%016" PRIx64, id, v);
		else
			out_fmt(o, "%" PRIu32 ": 0x%08" PRIx32, id, (uint32_t)v);
		return;
	}
}

static void	print_message(struct out *, const ProtobufCMessageDescriptor *,
		    const uint8_t *, size_t, int, int);

static void
newline(struct out *o, int depth)
{
	int i;

	out_add(o, "\n", 1);
	for (i = 0; i < depth; i++)
		out_add(o, "  ", 2);
}

/* A packed repeated scalar: each element on its own line. */
static void
print_packed(struct out *o, const ProtobufCFieldDescriptor *f, uint32_t id,
    const uint8_t *p, size_t n, int depth)
{
	const uint8_t *end = p + n;
	uint64_t v;
	int first = 1, fixed = 0;

	if (f->type == PROTOBUF_C_TYPE_FIXED64 ||
	    f->type == PROTOBUF_C_TYPE_SFIXED64 ||
	    f->type == PROTOBUF_C_TYPE_DOUBLE)
		fixed = 8;
	else if (f->type == PROTOBUF_C_TYPE_FIXED32 ||
	    f->type == PROTOBUF_C_TYPE_SFIXED32 ||
	    f->type == PROTOBUF_C_TYPE_FLOAT)
		fixed = 4;
	while (p < end) {
		if (!first)
			newline(o, depth);
		first = 0;
		if (fixed != 0) {
			if ((size_t)(end - p) < (size_t)fixed)
				goto bad;
			v = 0;
			memcpy(&v, p, (size_t)fixed);	/* little endian */
			p += fixed;
			print_fixed(o, f, id, v, fixed == 8);
		} else if (varint(&p, end, &v) == 0)
			print_varint(o, f, id, v);
		else
			goto bad;
	}
	return;
bad:
	out_fmt(o, "# Packed decoding failure for field %s\n", f->name);
}

static void
print_len(struct out *o, const ProtobufCFieldDescriptor *f, uint32_t id,
    const uint8_t *p, size_t n, int depth)
{
	switch (f != NULL ? f->type : (ProtobufCType)-1) {
	case PROTOBUF_C_TYPE_STRING:
	case PROTOBUF_C_TYPE_BYTES:
		out_fmt(o, "%s: ", f->name);
		out_quoted(o, p, n);
		return;
	case PROTOBUF_C_TYPE_MESSAGE:
		out_fmt(o, "%s {", f->name);
		print_message(o, f->descriptor, p, n, depth + 1, 1);
		newline(o, depth);
		out_add(o, "}", 1);
		return;
	case PROTOBUF_C_TYPE_BOOL:
	case PROTOBUF_C_TYPE_SINT32:
	case PROTOBUF_C_TYPE_SINT64:
		/* As upstream: it cannot print these packed. */
		out_fmt(o, "# Packed type %d not supported. Printing raw"
		    " string.", f->type == PROTOBUF_C_TYPE_BOOL ? 8 :
		    f->type == PROTOBUF_C_TYPE_SINT32 ? 17 : 18);
		newline(o, depth);
		break;
	default:
		if (f != NULL) {
			print_packed(o, f, id, p, n, depth);
			return;
		}
		break;
	}
	out_fmt(o, "%" PRIu32 ": ", id);
	out_quoted(o, p, n);
}

static void
print_message(struct out *o, const ProtobufCMessageDescriptor *d,
    const uint8_t *p, size_t n, int depth, int nested)
{
	const ProtobufCFieldDescriptor *f;
	const uint8_t *end = p + n, *start;
	uint64_t key, v, l = 0;
	uint32_t id;

	while (p < end) {
		start = p;
		if (varint(&p, end, &key) == -1 || key >> 3 == 0 ||
		    key >> 3 > UINT32_MAX)
			goto extra;
		id = (uint32_t)(key >> 3);
		f = d != NULL ? protobuf_c_message_descriptor_get_field(d, id) :
		    NULL;
		switch (key & 7) {
		case 0:
			if (varint(&p, end, &v) == -1)
				goto extra;
			break;
		case 1:
		case 5:
			if ((size_t)(end - p) < ((key & 7) == 1 ? 8u : 4u))
				goto extra;
			v = 0;
			memcpy(&v, p, (key & 7) == 1 ? 8 : 4);
			p += (key & 7) == 1 ? 8 : 4;
			break;
		case 2:
			if (varint(&p, end, &l) == -1 ||
			    l > (uint64_t)(end - p))
				goto extra;
			break;
		default:
			goto extra;
		}
		if (o->len > 0 || nested)
			newline(o, depth);
		if ((key & 7) == 0)
			print_varint(o, f, id, v);
		else if ((key & 7) == 2 && depth < PRINT_DEPTH_MAX)
			print_len(o, f, id, p, (size_t)l, depth);
		else if ((key & 7) == 2)
			print_len(o, NULL, id, p, (size_t)l, depth);
		else
			print_fixed(o, f, id, v, (key & 7) == 1);
		if ((key & 7) == 2)
			p += l;
	}
	return;
extra:
	if (o->len > 0 || nested)
		newline(o, depth);
	out_add(o, "# Extra bytes: ", 15);
	out_quoted(o, start, (size_t)(end - start));
	out_add(o, "\n", 1);
}

char *
textproto_print(const ProtobufCMessageDescriptor *d, const uint8_t *buf,
    size_t len)
{
	struct out o = { NULL, 0, 0, 0 };

	print_message(&o, d, buf, len, 0, 0);
	if (o.oom) {
		free(o.s);
		return NULL;
	}
	return o.s != NULL ? o.s : strdup("");
}
