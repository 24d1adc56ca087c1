/*
 * Metric templates: one TraceMetricV2Spec per value column, with id
 * "<id_prefix>_<column>", the template's dimensions, query, uniqueness
 * and interned dimensions, bundled under id_prefix unless
 * disable_auto_bundling. Written field by field in upstream's order and
 * layout, since the expanded specs are echoed into the summary.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sum_int.h"
#include "sum_pzw.h"

/* Copies each field id of m into the spec being written, as field to. */
static void
tmpl_copy(struct pzw *w, struct sum_msg m, uint32_t id, uint32_t to, int msg)
{
	struct sum_it it;
	struct pb_field f;

	sum_it_init(&it, m, id);
	while (sum_it_next(&it, &f))
		if (msg)
			pzw_message(w, to, f.data, f.len);
		else
			pbb_bytes(&w->b, to, f.data, f.len);
}

static int
tmpl_expand_one(struct sum_msg t, struct sum_msg vcs, int from_specs,
    const struct pb_field *name_f, struct pbbuf *out)
{
	struct sum_msg prefix = sum_bytes(t, TS_ID_PREFIX), name, q;
	struct pzw w;

	name = from_specs ? sum_bytes(vcs, VCS_NAME) : sum_field_msg(name_f);
	pzw_init(&w);
	/* id, value, unit, custom_unit, polarity */
	pbb_tag(&w.b, MS_ID, 2);
	pbb_varint(&w.b, prefix.n + 1 + name.n);
	pbb_raw(&w.b, prefix.p, prefix.n);
	pbb_raw(&w.b, "_", 1);
	pbb_raw(&w.b, name.p, name.n);
	pbb_bytes(&w.b, MS_VALUE, name.p, name.n);
	if (from_specs && sum_has(vcs, VCS_UNIT))
		pbb_uint(&w.b, MS_UNIT, sum_uint(vcs, VCS_UNIT));
	if (from_specs && sum_bytes(vcs, VCS_CUSTOM_UNIT).n > 0)
		pbb_bytes(&w.b, MS_CUSTOM_UNIT, sum_bytes(vcs,
		    VCS_CUSTOM_UNIT).p, sum_bytes(vcs, VCS_CUSTOM_UNIT).n);
	if (from_specs && sum_has(vcs, VCS_POLARITY))
		pbb_uint(&w.b, MS_POLARITY, sum_uint(vcs, VCS_POLARITY));
	tmpl_copy(&w, t, TS_DIMENSIONS, MS_DIMENSIONS, 0);
	tmpl_copy(&w, t, TS_DIM_SPECS, MS_DIM_SPECS, 1);
	if (sum_has(t, TS_QUERY)) {
		q = sum_bytes(t, TS_QUERY);
		pzw_message(&w, MS_QUERY, q.p, q.n);
	}
	if (!sum_uint(t, TS_NO_BUNDLING))
		pbb_bytes(&w.b, MS_BUNDLE_ID, prefix.p, prefix.n);
	if (sum_has(t, TS_UNIQUENESS))
		pbb_uint(&w.b, MS_UNIQUENESS, sum_uint(t, TS_UNIQUENESS));
	tmpl_copy(&w, t, TS_INTERNED, MS_INTERNED, 1);
	if (!pzw_ok(&w)) {
		pbb_free(&w.b);
		return -1;
	}
	*out = w.b;
	return 0;
}

/* Appends one expanded spec to the list. */
static int
tmpl_push(struct pbbuf **out, size_t *nout, struct pbbuf *b)
{
	struct pbbuf *n;

	if ((n = reallocarray(*out, *nout + 1, sizeof(*n))) == NULL) {
		pbb_free(b);
		return -1;
	}
	*out = n;
	n[(*nout)++] = *b;
	return 0;
}

int
sum_expand_templates(const struct sum_msg *specs, size_t nspecs,
    struct pbbuf **out, size_t *nout, char **err)
{
	struct sum_it it, vit;
	struct pb_field f, v;
	struct sum_msg t;
	struct pbbuf b;
	size_t i;
	int from_specs;

	for (i = 0; i < nspecs; i++) {
		sum_it_init(&it, specs[i], SPEC_TEMPLATE);
		while (sum_it_next(&it, &f)) {
			t = sum_field_msg(&f);
			if (sum_bytes(t, TS_ID_PREFIX).n == 0) {
				*err = strdup("Metric template with empty "
				    "id_prefix field: this is not allowed");
				return -1;
			}
			if (sum_has(t, TS_VALUE_COLUMNS) &&
			    sum_has(t, TS_VALUE_SPECS)) {
				*err = strdup("Metric template has both "
				    "value_columns and value_column_specs "
				    "defined: this is not allowed");
				return -1;
			}
			from_specs = !sum_has(t, TS_VALUE_COLUMNS);
			sum_it_init(&vit, t, from_specs ? TS_VALUE_SPECS :
			    TS_VALUE_COLUMNS);
			while (sum_it_next(&vit, &v)) {
				if (tmpl_expand_one(t, sum_field_msg(&v),
				    from_specs, &v, &b) == -1 ||
				    tmpl_push(out, nout, &b) == -1) {
					*err = strdup("out of memory");
					return -1;
				}
			}
		}
	}
	return 0;
}
