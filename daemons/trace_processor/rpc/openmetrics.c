/*
 * Metric protos as OpenMetrics text (Prometheus' exposition format): see
 * live.h. Every sample of a family must come together, so samples are
 * collected first, then sorted by family and printed.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/buffer.h>

#include "live.h"
#include "metrics/metrics.h"
#include "metrics/mproto.h"
#include "pbdec.h"

#define OM_MAX_DEPTH	16
#define OM_MAX_LABELS	16

struct om_sample {
	char	*family;
	char	*labels;	/* k="v",k="v" or "" */
	char	 value[64];
	size_t	 order;
};

struct om {
	struct om_sample	*s;
	size_t			 n, cap;
	int			 oom;
};

struct om_label {
	char	key[64];
	char	val[256];
};

/* Integer fields that identify rather than measure. */
static int
is_id_field(const char *name)
{
	static const char *const ids[] = { "pid", "tid", "dev", "major",
	    "minor", "idx", "cpu", "uid" };
	size_t i;

	for (i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		if (strcmp(name, ids[i]) == 0)
			return 1;
	return 0;
}

static void
sanitize(char *s)
{
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		    (*s >= '0' && *s <= '9') || *s == '_'))
			*s = '_';
}

static void
om_add(struct om *om, const char *family, const struct om_label *l,
    size_t nl, const char *value)
{
	struct om_sample *ns;
	char buf[4096];
	size_t off = 0, i, j;

	if (om->oom)
		return;
	if (om->n == om->cap) {
		size_t cap = om->cap ? om->cap * 2 : 64;

		if ((ns = reallocarray(om->s, cap, sizeof(*ns))) == NULL) {
			om->oom = 1;
			return;
		}
		om->s = ns;
		om->cap = cap;
	}
	buf[0] = '\0';
	for (i = 0; i < nl && off + 8 < sizeof(buf); i++) {
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%s=\"",
		    i ? "," : "", l[i].key);
		for (j = 0; l[i].val[j] && off + 4 < sizeof(buf); j++) {
			char c = l[i].val[j];

			if (c == '\\' || c == '"') {
				buf[off++] = '\\';
				buf[off++] = c;
			} else if (c == '\n') {
				buf[off++] = '\\';
				buf[off++] = 'n';
			} else
				buf[off++] = c;
		}
		if (off + 2 < sizeof(buf))
			buf[off++] = '"';
		buf[off] = '\0';
	}
	ns = &om->s[om->n];
	ns->family = strdup(family);
	ns->labels = strdup(buf);
	snprintf(ns->value, sizeof(ns->value), "%s", value);
	ns->order = om->n;
	if (ns->family == NULL || ns->labels == NULL) {
		free(ns->family);
		free(ns->labels);
		om->oom = 1;
		return;
	}
	om->n++;
}

static int
field_value(const struct mp_field *f, uint64_t u, char *buf, size_t len)
{
	switch (f->type) {
	case MP_DOUBLE: {
		double d;

		memcpy(&d, &u, sizeof(d));
		snprintf(buf, len, "%.17g", d);
		return 0;
	}
	case MP_FLOAT: {
		uint32_t u32 = (uint32_t)u;
		float fl;

		memcpy(&fl, &u32, sizeof(fl));
		snprintf(buf, len, "%.9g", (double)fl);
		return 0;
	}
	case MP_INT64:
	case MP_SFIXED64:
		snprintf(buf, len, "%lld", (long long)(int64_t)u);
		return 0;
	case MP_INT32:
	case MP_SFIXED32:
		snprintf(buf, len, "%d", (int32_t)u);
		return 0;
	case MP_SINT32:
	case MP_SINT64:
		snprintf(buf, len, "%lld", (long long)pb_zigzag(u));
		return 0;
	case MP_BOOL:
		snprintf(buf, len, "%d", u != 0);
		return 0;
	case MP_UINT32:
	case MP_FIXED32:
		snprintf(buf, len, "%u", (uint32_t)u);
		return 0;
	case MP_UINT64:
	case MP_FIXED64:
		snprintf(buf, len, "%llu", (unsigned long long)u);
		return 0;
	default:
		return -1;
	}
}

static void
om_label_add(struct om_label *l, size_t *nl, const char *owner,
    const char *key, const char *val, size_t vlen)
{
	size_t i;
	char k[64];

	if (*nl >= OM_MAX_LABELS)
		return;
	snprintf(k, sizeof(k), "%s", key);
	/* A nested message's "name" must not hide its parent's. */
	for (i = 0; i < *nl; i++)
		if (strcmp(l[i].key, k) == 0) {
			snprintf(k, sizeof(k), "%s_%s", owner, key);
			break;
		}
	sanitize(k);
	snprintf(l[*nl].key, sizeof(l[*nl].key), "%s", k);
	snprintf(l[*nl].val, sizeof(l[*nl].val), "%.*s", (int)vlen, val);
	(*nl)++;
}

static int
om_walk(struct om *om, const struct mp_msg *m, const uint8_t *p, size_t n,
    const char *family, const char *owner, const struct om_label *parent,
    size_t nparent, int depth)
{
	struct om_label l[OM_MAX_LABELS];
	struct pb it;
	struct pb_field f;
	const struct mp_field *fd;
	size_t nl = nparent;
	char fam[512], val[64];

	if (depth > OM_MAX_DEPTH)
		return -1;
	if (nparent > 0)
		memcpy(l, parent, nparent * sizeof(*l));
	/* Labels first: they apply to every number of this message. */
	pb_init(&it, p, n);
	while (pb_next_untrusted(&it, &f) == 1) {
		if ((fd = mp_field_by_number(m, f.id)) == NULL || fd->repeated)
			continue;
		if (fd->type == MP_STRING && f.wire == PB_LEN)
			om_label_add(l, &nl, owner, fd->name,
			    (const char *)f.data, f.len);
		else if (fd->type == MP_ENUM && f.wire == PB_VARINT) {
			const char *en = mp_enum_name(fd->en, (int32_t)f.u);

			snprintf(val, sizeof(val), "%s", en ? en : "?");
			om_label_add(l, &nl, owner, fd->name, val,
			    strlen(val));
		} else if (f.wire != PB_LEN && is_id_field(fd->name) &&
		    field_value(fd, f.u, val, sizeof(val)) == 0)
			om_label_add(l, &nl, owner, fd->name, val,
			    strlen(val));
	}
	if (it.err)
		return -1;
	pb_init(&it, p, n);
	while (pb_next_untrusted(&it, &f) == 1) {
		if ((fd = mp_field_by_number(m, f.id)) == NULL)
			continue;
		snprintf(fam, sizeof(fam), "%s_%s", family, fd->name);
		sanitize(fam);
		if (fd->type == MP_MESSAGE && f.wire == PB_LEN) {
			if (om_walk(om, fd->msg, f.data, f.len, fam, fd->name,
			    l, nl, depth + 1) == -1)
				return -1;
		} else if (f.wire != PB_LEN && !is_id_field(fd->name) &&
		    fd->type != MP_ENUM &&
		    field_value(fd, f.u, val, sizeof(val)) == 0)
			om_add(om, fam, l, nl, val);
	}
	return it.err ? -1 : 0;
}

static int
sample_cmp(const void *a, const void *b)
{
	const struct om_sample *x = a, *y = b;
	int c = strcmp(x->family, y->family);

	if (c != 0)
		return c;
	return (x->order > y->order) - (x->order < y->order);
}

int
openmetrics_render(struct metrics *mx, const void *pb, size_t len,
    const char *prefix, struct evbuffer *out)
{
	const struct mp_msg *tm;
	struct om om = { 0 };
	size_t i;
	int rc;

	tm = mp_find_msg(metrics_pool(mx), "perfetto.protos.TraceMetrics");
	if (tm == NULL)
		return -1;
	rc = om_walk(&om, tm, pb, len, prefix, "", NULL, 0, 0);
	if (om.oom)
		rc = -1;
	if (rc == 0 && om.n > 0) {
		qsort(om.s, om.n, sizeof(*om.s), sample_cmp);
		for (i = 0; i < om.n; i++) {
			if (i == 0 || strcmp(om.s[i].family,
			    om.s[i - 1].family) != 0)
				evbuffer_add_printf(out, "# TYPE %s gauge\n",
				    om.s[i].family);
			evbuffer_add_printf(out, "%s%s%s%s %s\n",
			    om.s[i].family, *om.s[i].labels ? "{" : "",
			    om.s[i].labels, *om.s[i].labels ? "}" : "",
			    om.s[i].value);
		}
	}
	for (i = 0; i < om.n; i++) {
		free(om.s[i].family);
		free(om.s[i].labels);
	}
	free(om.s);
	return rc;
}
