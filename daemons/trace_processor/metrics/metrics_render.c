/*
 * Printing metric protos as text proto (protobuf's text format, two
 * spaces per level) or JSON, by walking the bytes with the descriptors.
 * The bytes are ours (built by the SQL builders) but are decoded with the
 * checked reader all the same; a field the descriptors do not know is
 * printed by number.
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "mproto.h"
#include "pbdec.h"
#include "pbbuf.h"

#define RENDER_MAX_DEPTH	64

struct out {
	struct pbbuf	 b;	/* used as a byte buffer */
};

static void
out_s(struct out *o, const char *s)
{
	pbb_raw(&o->b, s, strlen(s));
}

static void
out_indent(struct out *o, int n)
{
	while (n-- > 0)
		out_s(o, "  ");
}

/* Shortest text that reads back as the same double. */
static void
fmt_double(char *buf, size_t len, double d, int is_float)
{
	int prec;

	if (isnan(d)) {
		snprintf(buf, len, "nan");
		return;
	}
	if (isinf(d)) {
		snprintf(buf, len, d > 0 ? "inf" : "-inf");
		return;
	}
	for (prec = 1; prec <= 17; prec++) {
		snprintf(buf, len, "%.*g", prec, d);
		if (is_float ? (float)strtod(buf, NULL) == (float)d :
		    strtod(buf, NULL) == d)
			return;
	}
}

static void
out_quoted(struct out *o, const uint8_t *p, size_t n, int json)
{
	char esc[8];
	size_t i;

	out_s(o, "\"");
	for (i = 0; i < n; i++) {
		uint8_t c = p[i];

		if (c == '"')
			out_s(o, "\\\"");
		else if (c == '\\')
			out_s(o, "\\\\");
		else if (c == '\n')
			out_s(o, "\\n");
		else if (c == '\r')
			out_s(o, "\\r");
		else if (c == '\t')
			out_s(o, "\\t");
		else if (c < 0x20 || c == 0x7f || (!json && c >= 0x80)) {
			if (json)
				snprintf(esc, sizeof(esc), "\\u%04x", c);
			else
				snprintf(esc, sizeof(esc), "\\%03o", c);
			out_s(o, esc);
		} else
			pbb_raw(&o->b, &c, 1);
	}
	out_s(o, "\"");
}

/* A scalar's text (not strings, bytes or messages). */
static void
fmt_scalar(char *buf, size_t len, const struct mp_field *f, uint64_t u,
    int json)
{
	const char *en;
	float fl;
	double d;
	uint32_t u32;

	switch (f ? f->type : MP_UINT64) {
	case MP_DOUBLE:
		memcpy(&d, &u, sizeof(d));
		fmt_double(buf, len, d, 0);
		if (json && (isnan(d) || isinf(d)))
			snprintf(buf, len, "\"%s\"", isnan(d) ? "NaN" :
			    d > 0 ? "Infinity" : "-Infinity");
		break;
	case MP_FLOAT:
		u32 = (uint32_t)u;
		memcpy(&fl, &u32, sizeof(fl));
		fmt_double(buf, len, fl, 1);
		break;
	case MP_INT64:
	case MP_SFIXED64:
		snprintf(buf, len, "%lld", (long long)(int64_t)u);
		break;
	case MP_INT32:
	case MP_SFIXED32:
		snprintf(buf, len, "%d", (int32_t)u);
		break;
	case MP_SINT32:
	case MP_SINT64:
		snprintf(buf, len, "%lld", (long long)pb_zigzag(u));
		break;
	case MP_BOOL:
		snprintf(buf, len, "%s", u ? "true" : "false");
		break;
	case MP_UINT32:
	case MP_FIXED32:
		snprintf(buf, len, "%u", (uint32_t)u);
		break;
	case MP_ENUM:
		if ((en = mp_enum_name(f->en, (int32_t)u)) != NULL)
			snprintf(buf, len, json ? "\"%s\"" : "%s", en);
		else
			snprintf(buf, len, "%d", (int32_t)u);
		break;
	default:
		snprintf(buf, len, "%llu", (unsigned long long)u);
		break;
	}
}

static void
field_label(char *buf, size_t len, const struct mp_field *f, uint32_t id)
{
	if (f == NULL)
		snprintf(buf, len, "%u", id);
	else if (f->ext_name != NULL)
		snprintf(buf, len, "[%s]", f->ext_name);
	else
		snprintf(buf, len, "%s", f->name);
}

static int	render_text(struct out *, const struct mp_msg *,
		    const uint8_t *, size_t, int);
static int	render_json(struct out *, const struct mp_msg *,
		    const uint8_t *, size_t, int);

/* Packed scalars are split into single values for printing. */
static int
is_packable(const struct mp_field *f)
{
	return f != NULL && f->repeated && mp_wire_type(f->type) != 2;
}

struct val_iter {
	struct pb_field		 fld;
	struct pb_packed	 pk;
	int			 packed;
	int			 done;
};

static void
vi_init(struct val_iter *vi, const struct mp_field *f,
    const struct pb_field *fld)
{
	memset(vi, 0, sizeof(*vi));
	vi->fld = *fld;
	if (fld->wire == PB_LEN && is_packable(f)) {
		vi->packed = 1;
		pb_packed_init(&vi->pk, fld);
	}
}

/* Next scalar value of a (possibly packed) field; 0 when none left. */
static int
vi_next(struct val_iter *vi, const struct mp_field *f, uint64_t *u)
{
	if (!vi->packed) {
		if (vi->done)
			return 0;
		vi->done = 1;
		*u = vi->fld.u;
		return 1;
	}
	switch (mp_wire_type(f->type)) {
	case 1:
		return pb_packed_fixed64_untrusted(&vi->pk, u) == 1;
	case 5:
		if (vi->pk.end - vi->pk.p < 4)
			return 0;
		*u = (uint64_t)vi->pk.p[0] | (uint64_t)vi->pk.p[1] << 8 |
		    (uint64_t)vi->pk.p[2] << 16 | (uint64_t)vi->pk.p[3] << 24;
		vi->pk.p += 4;
		return 1;
	default:
		return pb_packed_varint_untrusted(&vi->pk, u) == 1;
	}
}

static int
render_text(struct out *o, const struct mp_msg *m, const uint8_t *p,
    size_t n, int depth)
{
	struct pb it;
	struct pb_field fld;
	const struct mp_field *f;
	struct val_iter vi;
	char label[300], val[64];
	uint64_t u;

	if (depth > RENDER_MAX_DEPTH)
		return -1;
	pb_init(&it, p, n);
	while (pb_next_untrusted(&it, &fld) == 1) {
		f = m ? mp_field_by_number(m, fld.id) : NULL;
		field_label(label, sizeof(label), f, fld.id);
		if (fld.wire == PB_LEN && (f == NULL || f->type == MP_MESSAGE)) {
			if (f == NULL && 0)
				continue;
			if (f != NULL) {
				out_indent(o, depth);
				out_s(o, label);
				out_s(o, " {\n");
				if (render_text(o, f->msg, fld.data, fld.len,
				    depth + 1) == -1)
					return -1;
				out_indent(o, depth);
				out_s(o, "}\n");
				continue;
			}
		}
		if (fld.wire == PB_LEN && (f == NULL ||
		    f->type == MP_STRING || f->type == MP_BYTES)) {
			out_indent(o, depth);
			out_s(o, label);
			out_s(o, ": ");
			out_quoted(o, fld.data, fld.len, 0);
			out_s(o, "\n");
			continue;
		}
		vi_init(&vi, f, &fld);
		while (vi_next(&vi, f, &u)) {
			fmt_scalar(val, sizeof(val), f, u, 0);
			out_indent(o, depth);
			out_s(o, label);
			out_s(o, ": ");
			out_s(o, val);
			out_s(o, "\n");
		}
	}
	return it.err ? -1 : 0;
}

/* One value of field id (the occurrence fld) as JSON. */
static int
json_value(struct out *o, const struct mp_field *f, const struct pb_field *fld,
    int depth, int *first)
{
	struct val_iter vi;
	char val[64];
	uint64_t u;

	if (fld->wire == PB_LEN && f != NULL && f->type == MP_MESSAGE) {
		if (!*first)
			out_s(o, ", ");
		*first = 0;
		return render_json(o, f->msg, fld->data, fld->len, depth + 1);
	}
	if (fld->wire == PB_LEN && (f == NULL || !is_packable(f))) {
		if (!*first)
			out_s(o, ", ");
		*first = 0;
		out_quoted(o, fld->data, fld->len, 1);
		return 0;
	}
	vi_init(&vi, f, fld);
	while (vi_next(&vi, f, &u)) {
		if (!*first)
			out_s(o, ", ");
		*first = 0;
		fmt_scalar(val, sizeof(val), f, u, 1);
		out_s(o, val);
	}
	return 0;
}

static int
render_json(struct out *o, const struct mp_msg *m, const uint8_t *p,
    size_t n, int depth)
{
	struct pb it, it2;
	struct pb_field fld, fld2;
	const struct mp_field *f;
	uint32_t seen[512];
	size_t nseen = 0, i;
	int first_field = 1, first;
	char label[300];

	if (depth > RENDER_MAX_DEPTH)
		return -1;
	out_s(o, "{");
	pb_init(&it, p, n);
	while (pb_next_untrusted(&it, &fld) == 1) {
		for (i = 0; i < nseen; i++)
			if (seen[i] == fld.id)
				break;
		if (i < nseen)
			continue;
		if (nseen < sizeof(seen) / sizeof(seen[0]))
			seen[nseen++] = fld.id;
		f = m ? mp_field_by_number(m, fld.id) : NULL;
		field_label(label, sizeof(label), f, fld.id);
		out_s(o, first_field ? "\n" : ",\n");
		first_field = 0;
		out_indent(o, depth + 1);
		out_quoted(o, (const uint8_t *)label, strlen(label), 1);
		out_s(o, ": ");
		first = 1;
		if (f != NULL && f->repeated && f->type == MP_MESSAGE) {
			/* One object per line, indented under the key. */
			out_s(o, "[");
			pb_init(&it2, p, n);
			while (pb_next_untrusted(&it2, &fld2) == 1) {
				if (fld2.id != fld.id || fld2.wire != PB_LEN)
					continue;
				out_s(o, first ? "\n" : ",\n");
				first = 0;
				out_indent(o, depth + 2);
				if (render_json(o, f->msg, fld2.data, fld2.len,
				    depth + 2) == -1)
					return -1;
			}
			out_s(o, "\n");
			out_indent(o, depth + 1);
			out_s(o, "]");
		} else if (f != NULL && f->repeated) {
			out_s(o, "[");
			pb_init(&it2, p, n);
			while (pb_next_untrusted(&it2, &fld2) == 1)
				if (fld2.id == fld.id && json_value(o, f, &fld2,
				    depth + 1, &first) == -1)
					return -1;
			out_s(o, "]");
		} else {
			/* The last occurrence wins, as protobuf merges. */
			struct pb_field last = fld;

			pb_init(&it2, p, n);
			while (pb_next_untrusted(&it2, &fld2) == 1)
				if (fld2.id == fld.id)
					last = fld2;
			if (json_value(o, f, &last, depth, &first) == -1)
				return -1;
		}
	}
	if (!first_field) {
		out_s(o, "\n");
		out_indent(o, depth);
	}
	out_s(o, "}");
	return it.err ? -1 : 0;
}

char *
metrics_render(struct metrics *mx, const void *pb, size_t len,
    enum metrics_format fmt, size_t *outlen, char **err)
{
	const struct mp_msg *tm;
	struct out o;
	int rc;

	*err = NULL;
	tm = mp_find_msg(metrics_pool(mx), "perfetto.protos.TraceMetrics");
	pbb_init(&o.b);
	if (fmt == METRICS_BINARY) {
		pbb_raw(&o.b, pb, len);
		rc = 0;
	} else if (fmt == METRICS_TEXT)
		rc = render_text(&o, tm, pb, len, 0);
	else {
		rc = render_json(&o, tm, pb, len, 0);
		out_s(&o, "\n");
	}
	pbb_raw(&o.b, "", 1);
	if (rc == -1 || o.b.oom) {
		pbb_free(&o.b);
		*err = strdup(rc == -1 ? "malformed metric proto" :
		    "out of memory");
		return NULL;
	}
	*outlen = o.b.len - 1;
	return (char *)pbb_take(&o.b, &len);
}
