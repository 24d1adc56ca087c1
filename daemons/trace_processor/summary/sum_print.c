/*
 * A summary as text, laid out exactly as upstream's protozero_to_text
 * prints it (the shell's default output): fields in wire order, one a
 * line, two spaces per level, "name {" ... "}" for messages, enums by
 * name, doubles and floats as "%f", strings with C escapes and \ooo for
 * bytes outside printable ASCII, unknown fields by number, no newline at
 * the end. Packed repeated numbers print one "name: value" a line.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/mproto.h"
#include "sum_int.h"

#define PRINT_MAX_DEPTH	128

static void
pr_quote(struct pbbuf *w, const uint8_t *p, size_t n)
{
	static const char esc[] = "\a\b\f\n\r\t\v\\'\"";
	static const char name[] = "abfnrtv\\'\"";
	const char *e;
	size_t i;

	sb_add(w, "\"");
	for (i = 0; i < n; i++) {
		if (p[i] != '\0' && (e = strchr(esc, p[i])) != NULL)
			sb_printf(w, "\\%c", name[e - esc]);
		else if (p[i] >= 0x20 && p[i] <= 0x7e)
			sb_addn(w, &p[i], 1);
		else
			sb_printf(w, "\\%o%o%o", p[i] >> 6 & 3, p[i] >> 3 & 7,
			    p[i] & 7);
	}
	sb_add(w, "\"");
}

/* One varint-typed value as "name: value" (enum by name). */
static void
pr_varint(struct pbbuf *w, const struct mp_field *f, uint32_t id, uint64_t v)
{
	const char *en;

	switch (f != NULL ? f->type : MP_UNRESOLVED) {
	case MP_INT32:
		sb_printf(w, "%s: %" PRId32, f->name, (int32_t)v);
		return;
	case MP_SINT32:
		sb_printf(w, "%s: %" PRId32, f->name,
		    (int32_t)((uint32_t)v >> 1 ^ -((uint32_t)v & 1)));
		return;
	case MP_UINT32:
		sb_printf(w, "%s: %" PRIu32, f->name, (uint32_t)v);
		return;
	case MP_INT64:
		sb_printf(w, "%s: %" PRId64, f->name, (int64_t)v);
		return;
	case MP_SINT64:
		sb_printf(w, "%s: %" PRId64, f->name, pb_zigzag(v));
		return;
	case MP_UINT64:
		sb_printf(w, "%s: %" PRIu64, f->name, v);
		return;
	case MP_BOOL:
		sb_printf(w, "%s: %s", f->name, v ? "true" : "false");
		return;
	case MP_ENUM:
		if ((en = mp_enum_name(f->en, (int32_t)v)) != NULL) {
			sb_printf(w, "%s: %s", f->name, en);
			return;
		}
		sb_printf(w, "%u: %" PRId64, id, (int64_t)(int32_t)v);
		return;
	default:
		sb_printf(w, "%u: %" PRId64, id, (int64_t)v);
		return;
	}
}

static void
pr_fixed64(struct pbbuf *w, const struct mp_field *f, uint32_t id, uint64_t v)
{
	union { uint64_t u; double d; } c = { v };

	switch (f != NULL ? f->type : MP_UNRESOLVED) {
	case MP_SFIXED64:
		sb_printf(w, "%s: %" PRId64, f->name, (int64_t)v);
		break;
	case MP_FIXED64:
		sb_printf(w, "%s: %" PRIu64, f->name, v);
		break;
	case MP_DOUBLE:
		sb_printf(w, "%s: %f", f->name, c.d);
		break;
	default:
		sb_printf(w, "%u: 0x%016" PRIx64, id, v);
		break;
	}
}

static void
pr_fixed32(struct pbbuf *w, const struct mp_field *f, uint32_t id, uint32_t v)
{
	union { uint32_t u; float f; } c = { v };

	switch (f != NULL ? f->type : MP_UNRESOLVED) {
	case MP_SFIXED32:
		sb_printf(w, "%s: %" PRId32, f->name, (int32_t)v);
		break;
	case MP_FIXED32:
		sb_printf(w, "%s: %" PRIu32, f->name, v);
		break;
	case MP_FLOAT:
		sb_printf(w, "%s: %f", f->name, (double)c.f);
		break;
	default:
		sb_printf(w, "%u: 0x%08" PRIx32, id, v);
		break;
	}
}

/* Packed numbers: one "name: value" per element, a line each. */
static int
pr_packed(struct pbbuf *w, const struct mp_field *f, const uint8_t *p,
    size_t n, const char *indent)
{
	const uint8_t *end = p + n;
	uint64_t v;
	int first = 1, fixed = 0;

	switch (f->type) {
	case MP_DOUBLE: case MP_FIXED64: case MP_SFIXED64:
		fixed = 8;
		break;
	case MP_FLOAT: case MP_FIXED32: case MP_SFIXED32:
		fixed = 4;
		break;
	case MP_INT64: case MP_UINT64: case MP_INT32: case MP_UINT32:
	case MP_ENUM:
		break;
	default:
		return -1;
	}
	while (p < end) {
		if (!first)
			sb_printf(w, "\n%s", indent);
		first = 0;
		if (fixed != 0) {
			if ((size_t)(end - p) < (size_t)fixed)
				break;
			v = 0;
			memcpy(&v, p, (size_t)fixed);
			p += fixed;
		} else if ((p = pb_varint_untrusted(p, end, &v)) == NULL)
			break;
		if (fixed == 8 && f->type == MP_DOUBLE)
			pr_fixed64(w, f, f->number, v);
		else if (fixed == 4 && f->type == MP_FLOAT)
			pr_fixed32(w, f, f->number, (uint32_t)v);
		else if (f->type == MP_ENUM)
			pr_varint(w, f, f->number, v);
		else if (f->type == MP_INT32)
			sb_printf(w, "%s: %" PRId32, f->name, (int32_t)v);
		else if (f->type == MP_UINT32 || f->type == MP_FIXED32)
			sb_printf(w, "%s: %" PRIu32, f->name, (uint32_t)v);
		else if (f->type == MP_UINT64 || f->type == MP_FIXED64)
			sb_printf(w, "%s: %" PRIu64, f->name, v);
		else if (f->type == MP_SFIXED32)
			sb_printf(w, "%s: %" PRId32, f->name, (int32_t)v);
		else
			sb_printf(w, "%s: %" PRId64, f->name, (int64_t)v);
	}
	if (p == NULL || p < end) {
		if (!first)
			sb_printf(w, "\n%s", indent);
		sb_printf(w, "# Packed decoding failure for field %s\n",
		    f->name);
	}
	return 0;
}

static void
pr_msg(struct pbbuf *w, const struct mp_msg *m, const uint8_t *p, size_t n,
    char *indent, size_t depth)
{
	struct pb it;
	struct pb_field f;
	const struct mp_field *fd;

	pb_init(&it, p, n);
	while (pb_next_untrusted(&it, &f) == 1) {
		if (w->len > 0)
			sb_printf(w, "\n%s", indent);
		else
			sb_add(w, indent);
		fd = m != NULL ? mp_field_by_number(m, f.id) : NULL;
		switch (f.wire) {
		case PB_VARINT:
			pr_varint(w, fd, f.id, f.u);
			continue;
		case PB_FIXED64:
			pr_fixed64(w, fd, f.id, f.u);
			continue;
		case PB_FIXED32:
			pr_fixed32(w, fd, f.id, (uint32_t)f.u);
			continue;
		}
		if (fd != NULL && (fd->type == MP_STRING ||
		    fd->type == MP_BYTES)) {
			sb_printf(w, "%s: ", fd->name);
			pr_quote(w, f.data, f.len);
			continue;
		}
		if (fd != NULL && fd->type == MP_MESSAGE &&
		    depth < PRINT_MAX_DEPTH) {
			sb_printf(w, "%s {", fd->name);
			strcat(indent, "  ");
			pr_msg(w, fd->msg, f.data, f.len, indent, depth + 1);
			indent[strlen(indent) - 2] = '\0';
			sb_printf(w, "\n%s}", indent);
			continue;
		}
		if (fd != NULL && fd->type != MP_MESSAGE) {
			if (pr_packed(w, fd, f.data, f.len, indent) == 0)
				continue;
			sb_printf(w, "# Packed type %d not supported. Printing "
			    "raw string.\n%s", (int)fd->type, indent);
		}
		sb_printf(w, "%u: ", f.id);
		pr_quote(w, f.data, f.len);
	}
	if (it.err && it.p < it.end) {
		if (w->len > 0)
			sb_printf(w, "\n%s", indent);
		sb_add(w, "# Extra bytes: ");
		pr_quote(w, it.p, (size_t)(it.end - it.p));
		sb_add(w, "\n");
	}
}

char *
sum_print(const struct mp_pool *pool, const char *type, const uint8_t *p,
    size_t n)
{
	struct pbbuf w;
	char indent[2 * PRINT_MAX_DEPTH + 3] = "";

	pbb_init(&w);
	pr_msg(&w, mp_find_msg(pool, type), p, n, indent, 0);
	return sb_take(&w);
}
