/*
 * Metrics to bundles: metrics sharing a bundle_id (or alone, under their
 * id) run one query; each row gives the dimensions, typed as the spec
 * says or as the values come, and one value per metric (a row whose
 * values are all NULL is left out). Bundles come out in the order of
 * upstream's hash map (sum_order.c), rows in the query's order. Errors
 * are upstream's, word for word.
 */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sum_int.h"
#include "sum_pzw.h"

/* SqlValue::Type numbers, as upstream's messages print them. */
enum { SV_NULL, SV_LONG, SV_DOUBLE, SV_STRING, SV_BYTES };

struct sum_dim {
	char		*name;
	int		 type;		/* enum sum_dim_type */
	int		 col;
};

/* A text cell; "" when SQLite could not make one (out of memory). */
static const char *
col_text(sqlite3_stmt *st, int col)
{
	const unsigned char *t = sqlite3_column_text(st, col);

	return t != NULL ? (const char *)t : "";
}

static int
sv_type(sqlite3_stmt *st, int col)
{
	switch (sqlite3_column_type(st, col)) {
	case SQLITE_INTEGER:
		return SV_LONG;
	case SQLITE_FLOAT:
		return SV_DOUBLE;
	case SQLITE_TEXT:
		return SV_STRING;
	case SQLITE_BLOB:
		return SV_BYTES;
	default:
		return SV_NULL;
	}
}

/* A value as set key bytes: its type, then its bytes (doubles as upstream
 * hashes them: -0 is 0, every NaN one NaN). */
static void
sv_key(sqlite3_stmt *st, int col, struct pbbuf *k)
{
	uint8_t t = (uint8_t)sv_type(st, col);
	int64_t l;
	double d;

	pbb_raw(k, &t, 1);
	switch (t) {
	case SV_LONG:
		l = sqlite3_column_int64(st, col);
		pbb_raw(k, &l, sizeof(l));
		break;
	case SV_DOUBLE:
		d = sqlite3_column_double(st, col);
		if (d == 0)
			d = 0;
		else if (isnan(d))
			d = NAN;
		pbb_raw(k, &d, sizeof(d));
		break;
	case SV_STRING:
		pbb_raw(k, col_text(st, col), strlen(col_text(st, col)) + 1);
		break;
	}
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
dims_free(struct sum_dim *d, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(d[i].name);
	free(d);
}

/* The spec's dimensions: dimensions_specs (typed) or dimensions. */
static int
dims_of(struct sum_msg spec, struct sum_dim **out, size_t *nout, char **err)
{
	struct sum_it it;
	struct pb_field f;
	struct sum_dim *d = NULL, *nd;
	size_t n = 0;
	int typed = sum_has(spec, MS_DIM_SPECS);
	struct sum_msg ds;
	char *id;

	*out = NULL;
	*nout = 0;
	if (typed && sum_has(spec, MS_DIMENSIONS)) {
		id = sum_str(spec, MS_ID);
		*err = sum_printf("Both dimensions and dimension_specs defined "
		    "for metric '%s'. Only one is allowed", id ? id : "");
		free(id);
		return -1;
	}
	sum_it_init(&it, spec, typed ? MS_DIM_SPECS : MS_DIMENSIONS);
	while (sum_it_next(&it, &f)) {
		if ((nd = reallocarray(d, n + 1, sizeof(*d))) == NULL)
			goto oom;
		d = nd;
		memset(&d[n], 0, sizeof(d[n]));
		ds = sum_field_msg(&f);
		d[n].name = typed ? sum_str(ds, DIM_NAME) : sum_field_str(&f);
		d[n].type = typed ? (int)sum_uint(ds, DIM_TYPE) :
		    DIM_UNSPECIFIED;
		if (d[n++].name == NULL)
			goto oom;
		if (typed && d[n - 1].type == DIM_UNSPECIFIED) {
			id = sum_str(spec, MS_ID);
			*err = sum_printf("Dimension '%s' in metric '%s' has "
			    "unspecified type", d[n - 1].name, id ? id : "");
			free(id);
			dims_free(d, n);
			return -1;
		}
	}
	*out = d;
	*nout = n;
	return 0;
oom:
	dims_free(d, n);
	*err = strdup("out of memory");
	return -1;
}

static int
col_index(sqlite3_stmt *st, const char *name)
{
	int i, n = st ? sqlite3_column_count(st) : 0;

	for (i = 0; i < n; i++)
		if (strcmp(sqlite3_column_name(st, i), name) == 0)
			return i;
	return -1;
}

/* One dimension of a row, checked against its type. */
static int
dim_write(const struct sum_dim *d, const char *bundle, sqlite3_stmt *st,
    struct pzw *w, char **err)
{
	int t = sv_type(st, d->col), want = -1;
	int64_t l;
	static const char *const tname[] = { NULL, "string", "int64",
	    "double", "bool" };

	pzw_begin(w, 2);
	if (t == SV_NULL) {
		pzw_begin(w, 4);
		pzw_end(w);
		pzw_end(w);
		return 0;
	}
	switch (d->type) {
	case DIM_STRING:
		want = SV_STRING;
		break;
	case DIM_INT64:
	case DIM_BOOLEAN:
		want = SV_LONG;
		break;
	case DIM_DOUBLE:
		want = SV_DOUBLE;
		break;
	default:
		if (t == SV_BYTES) {
			*err = sum_printf("Received bytes for dimension '%s' "
			    "in metric or bundle '%s': this is not supported",
			    d->name, bundle);
			return -1;
		}
		want = t;
		break;
	}
	if (t != want) {
		*err = sum_printf("Expected %s for dimension '%s' in metric or "
		    "bundle '%s', got %d", tname[d->type], d->name, bundle, t);
		return -1;
	}
	switch (t) {
	case SV_STRING:
		pbb_string(&w->b, 1, col_text(st, d->col));
		break;
	case SV_LONG:
		l = sqlite3_column_int64(st, d->col);
		if (d->type == DIM_BOOLEAN && l != 0 && l != 1) {
			*err = sum_printf("Expected bool 0 or 1 for dimension "
			    "'%s' in metric or bundle '%s', got %" PRId64,
			    d->name, bundle, l);
			return -1;
		}
		pbb_uint(&w->b, d->type == DIM_BOOLEAN ? 5 : 2, (uint64_t)l);
		break;
	default:
		pbb_double(&w->b, 3, sqlite3_column_double(st, d->col));
		break;
	}
	pzw_end(w);
	return 0;
}

/* All metrics of a bundle must agree with the first on what it runs. */
static int
bundle_check(const char *bundle, const struct sum_metric *const *m,
    size_t n, char **err)
{
	struct sum_dim *d0 = NULL, *d = NULL;
	size_t nd0 = 0, nd = 0, i, k;
	struct sum_msg b0, b;
	const char *what = NULL;
	int rc = -1;

	if (n <= 1)
		return 0;
	if (dims_of(m[0]->spec, &d0, &nd0, err) == -1)
		return -1;
	b0 = sum_bytes(m[0]->spec, MS_BUNDLE_ID);
	for (i = 0; i < n && what == NULL; i++) {
		b = sum_bytes(m[i]->spec, MS_BUNDLE_ID);
		if (b.n != b0.n || memcmp(b.p, b0.p, b.n) != 0) {
			*err = sum_printf("Metric '%s' in bundle '%s' has "
			    "different bundle_id than the first metric '%s': "
			    "this is not allowed", m[i]->id, bundle, m[0]->id);
			goto out;
		}
		if (sum_uint(m[i]->spec, MS_UNIQUENESS) !=
		    sum_uint(m[0]->spec, MS_UNIQUENESS))
			what = "dimension_uniqueness";
		else if (dims_of(m[i]->spec, &d, &nd, err) == -1)
			goto out;
		if (what == NULL) {
			int same = nd == nd0;

			for (k = 0; same && k < nd; k++)
				same = strcmp(d[k].name, d0[k].name) == 0 &&
				    d[k].type == d0[k].type;
			if (!same)
				what = "dimensions";
			else if ((m[0]->query == NULL) != (m[i]->query ==
			    NULL) || (m[0]->query != NULL &&
			    strcmp(m[0]->query, m[i]->query) != 0))
				what = "query";
		}
		dims_free(d, nd);
		d = NULL;
		if (what != NULL) {
			*err = sum_printf("Metric '%s' in bundle '%s' has "
			    "different %s than the first metric '%s': this is "
			    "not allowed", m[i]->id, bundle, what, m[0]->id);
			goto out;
		}
	}
	rc = 0;
out:
	dims_free(d0, nd0);
	return rc;
}

/* sql.column_names, when the query passes the SQL's columns through. */
static int
bundle_check_columns(const char *bundle, struct sum_msg spec,
    sqlite3_stmt *st, char **err)
{
	struct sum_msg q = sum_bytes(spec, MS_QUERY), sql;
	struct sum_strs want = { NULL, 0 }, have = { NULL, 0 };
	struct sum_it it;
	struct pb_field f;
	struct pbbuf a, b;
	char *s, *sa, *sb;
	size_t i;
	int n = st ? sqlite3_column_count(st) : 0, k, ok = 1;

	if (!sum_has(q, 3) || sum_has(q, 9) || sum_has(q, 10))
		return 0;
	sql = sum_bytes(q, 3);
	if (!sum_has(sql, 2))
		return 0;
	for (k = 0; k < n; k++)
		(void)sum_strs_add(&have, sqlite3_column_name(st, k), 1);
	sum_it_init(&it, sql, 2);
	while (sum_it_next(&it, &f))
		if ((s = sum_field_str(&f)) != NULL) {
			(void)sum_strs_add(&want, s, 1);
			free(s);
		}
	for (i = 0; i < want.n && ok; i++)
		ok = sum_strs_find(&have, want.v[i]) != -1;
	if (!ok) {
		/* Both lists sorted, as std::set prints them. */
		qsort(want.v, want.n, sizeof(*want.v), cmp_str);
		qsort(have.v, have.n, sizeof(*have.v), cmp_str);
		pbb_init(&a);
		pbb_init(&b);
		for (i = 0; i < want.n; i++)
			sb_printf(&a, "%s%s", i ? ", " : "", want.v[i]);
		for (i = 0; i < have.n; i++)
			sb_printf(&b, "%s%s", i ? ", " : "", have.v[i]);
		sa = sb_take(&a);
		sb = sb_take(&b);
		*err = sum_printf("Not all columns expected in metrics bundle "
		    "'%s' were found. Expected: [%s], Actual: [%s]", bundle,
		    sa ? sa : "", sb ? sb : "");
		free(sa);
		free(sb);
	}
	sum_strs_free(&want);
	sum_strs_free(&have);
	return ok ? 0 : -1;
}

/* An interned dimension's value, checked against its column's type. */
static int
interned_value(sqlite3_stmt *st, int col, int type, uint32_t field,
    struct pzw *w, char **err)
{
	static const int want[] = { -1, SV_STRING, SV_LONG, SV_DOUBLE,
	    SV_LONG };
	static const char *const tname[] = { NULL, "string", "int64",
	    "double", "bool" };
	int t = sv_type(st, col);
	int64_t l;

	pzw_begin(w, field);
	if (t == SV_NULL) {
		pzw_begin(w, 4);
		pzw_end(w);
	} else if (type < DIM_STRING || type > DIM_BOOLEAN) {
		*err = strdup("Unspecified type for interned dimension column");
		return -1;
	} else if (t != want[type]) {
		*err = sum_printf("Expected %s for interned dimension column",
		    tname[type]);
		return -1;
	} else if (type == DIM_STRING)
		pbb_string(&w->b, 1, col_text(st, col));
	else if (type == DIM_DOUBLE)
		pbb_double(&w->b, 3, sqlite3_column_double(st, col));
	else {
		l = sqlite3_column_int64(st, col);
		if (type == DIM_BOOLEAN && l != 0 && l != 1) {
			*err = sum_printf("Expected bool 0 or 1 for interned "
			    "dimension column, got %" PRId64, l);
			return -1;
		}
		pbb_uint(&w->b, type == DIM_BOOLEAN ? 5 : 2, (uint64_t)l);
	}
	pzw_end(w);
	return 0;
}

/* interned_dimension_specs: keys unique, among the dimensions. */
static int
interned_validate(struct sum_msg spec, char **err)
{
	struct sum_dim *d;
	struct sum_strs keys = { NULL, 0 }, cols = { NULL, 0 };
	struct sum_it it, dit;
	struct pb_field f, g;
	size_t nd, i;
	char *key = NULL, *c;
	int rc = -1, found;

	if (dims_of(spec, &d, &nd, err) == -1)
		return -1;
	sum_it_init(&it, spec, MS_INTERNED);
	while (sum_it_next(&it, &f)) {
		if (!sum_has(sum_field_msg(&f), IDS_KEY)) {
			*err = strdup("key_column_spec must be specified in "
			    "interned_dimension_specs");
			goto out;
		}
		key = sum_str(sum_bytes(sum_field_msg(&f), IDS_KEY),
		    DIM_NAME);
		if (key == NULL || sum_strs_add(&keys, key, 1) != 1) {
			*err = key ? sum_printf("Duplicate key column '%s' "
			    "found in interned_dimension_specs", key) : NULL;
			goto out;
		}
		for (found = 0, i = 0; i < nd && !found; i++)
			found = strcmp(d[i].name, key) == 0;
		if (!found) {
			*err = sum_printf("Key column '%s' in interned "
			    "dimension bundle not found in metric dimensions",
			    key);
			goto out;
		}
		sum_strs_free(&cols);
		(void)sum_strs_add(&cols, key, 1);
		sum_it_init(&dit, sum_field_msg(&f), IDS_DATA);
		while (sum_it_next(&dit, &g)) {
			c = sum_str(sum_field_msg(&g), DIM_NAME);
			if (c == NULL || sum_strs_add(&cols, c, 1) != 1) {
				*err = c ? sum_printf("Duplicate column name "
				    "'%s' found in interned dimension bundle",
				    c) : NULL;
				free(c);
				goto out;
			}
			free(c);
		}
		free(key);
		key = NULL;
	}
	rc = 0;
out:
	if (rc == -1 && *err == NULL)
		*err = strdup("out of memory");
	free(key);
	sum_strs_free(&keys);
	sum_strs_free(&cols);
	dims_free(d, nd);
	return rc;
}

/* The interned dimension bundles of a metric bundle, for keys it has. */
static int
interned_write(sqlite3 *db, const struct sum_metric *m,
    const struct sum_set *seen_keys, struct pzw *w, char **err)
{
	struct sum_it it, dit;
	struct pb_field f, g;
	struct sum_msg ids, cs;
	sqlite3_stmt *st = NULL;
	struct sum_set *seen = NULL;
	struct pbbuf k;
	char *key = NULL, *name, *e = NULL;
	int cols[64], types[64], ncols, rc = -1, step;
	size_t idx = 0;

	if (interned_validate(m->spec, err) == -1)
		return -1;
	sum_it_init(&it, m->spec, MS_INTERNED);
	while (sum_it_next(&it, &f) && idx < m->ninterned) {
		ids = sum_field_msg(&f);
		key = sum_str(sum_bytes(ids, IDS_KEY), DIM_NAME);
		pzw_begin(w, 4);
		if (sum_exec(db, m->interned[idx++], &st, &e) == -1) {
			*err = sum_printf("Error while executing query for "
			    "interned dimension bundle with key '%s': %s", key,
			    e);
			free(e);
			goto out;
		}
		/* The key column, then the data columns. */
		ncols = 0;
		cs = sum_bytes(ids, IDS_KEY);
		sum_it_init(&dit, ids, IDS_DATA);
		do {
			name = sum_str(cs, DIM_NAME);
			if (name == NULL || ncols >= 64)
				goto oom;
			if ((cols[ncols] = col_index(st, name)) == -1) {
				*err = sum_printf("Column '%s' not found in "
				    "the query result for interned dimension "
				    "bundle with key '%s'", name, key);
				free(name);
				goto out;
			}
			free(name);
			types[ncols++] = (int)sum_uint(cs, DIM_TYPE);
			if (!sum_it_next(&dit, &g))
				break;
			cs = sum_field_msg(&g);
		} while (1);
		sum_set_free(seen);
		if ((seen = sum_set_new()) == NULL)
			goto oom;
		while (st != NULL && (step = sqlite3_step(st)) == SQLITE_ROW) {
			pbb_init(&k);
			sb_add(&k, key);
			pbb_raw(&k, "", 1);
			sv_key(st, cols[0], &k);
			if (!sum_set_has(seen_keys, k.buf, k.len)) {
				pbb_free(&k);
				continue;
			}
			if (sum_set_add(seen, k.buf, k.len) != 1) {
				pbb_free(&k);
				*err = sum_printf("Duplicate key found in "
				    "interned dimension bundle with key column "
				    "'%s'", key);
				goto out;
			}
			pbb_free(&k);
			pzw_begin(w, 2);
			for (int c = 0; c < ncols; c++)
				if (interned_value(st, cols[c], types[c],
				    c == 0 ? 1 : 2, w, err) == -1)
					goto out;
			pzw_end(w);
		}
		if (st != NULL && step != SQLITE_DONE) {
			*err = strdup(sqlite3_errmsg(db));
			goto out;
		}
		sqlite3_finalize(st);
		st = NULL;
		pzw_end(w);
		free(key);
		key = NULL;
	}
	rc = 0;
	goto out;
oom:
	*err = strdup("out of memory");
out:
	sqlite3_finalize(st);
	sum_set_free(seen);
	free(key);
	return rc;
}

/* Runs one bundle and writes its rows. */
static int
bundle_run(sqlite3 *db, const char *bundle, const struct sum_metric *const *m,
    size_t n, struct pzw *w, char **err)
{
	struct sum_dim *d = NULL;
	struct sum_set *uniq = NULL, *keys = NULL;
	struct sum_strs interned_cols = { NULL, 0 };
	struct sum_it it;
	struct pb_field f;
	sqlite3_stmt *st = NULL;
	struct pbbuf k;
	size_t nd = 0, i, j;
	int *vcol = NULL, all_null, step, rc = -1, t;
	char *e = NULL, *s;
	int unique = sum_uint(m[0]->spec, MS_UNIQUENESS) == MS_UNIQUE;

	if (bundle_check(bundle, m, n, err) == -1)
		return -1;
	pzw_begin(w, OUT_BUNDLE);
	pbb_string(&w->b, 1, bundle);
	for (i = 0; i < n; i++)
		pzw_message(w, 3, m[i]->spec.p, m[i]->spec.n);
	sum_it_init(&it, m[0]->spec, MS_INTERNED);
	while (sum_it_next(&it, &f))
		if ((s = sum_str(sum_bytes(sum_field_msg(&f), IDS_KEY),
		    DIM_NAME)) != NULL) {
			(void)sum_strs_add(&interned_cols, s, 1);
			free(s);
		}
	if (sum_exec(db, m[0]->query ? m[0]->query : "", &st, &e) == -1) {
		*err = sum_printf("Error while executing query for metric "
		    "bundle '%s': %s", bundle, e);
		free(e);
		goto out;
	}
	if (bundle_check_columns(bundle, m[0]->spec, st, err) == -1 ||
	    dims_of(m[0]->spec, &d, &nd, err) == -1)
		goto out;
	for (i = 0; i < nd; i++)
		if ((d[i].col = col_index(st, d[i].name)) == -1) {
			*err = sum_printf("Dimensions column '%s' not found in "
			    "the query result for metric '%s'", d[i].name,
			    m[0]->id);
			goto out;
		}
	if ((vcol = calloc(n, sizeof(*vcol))) == NULL ||
	    (uniq = sum_set_new()) == NULL || (keys = sum_set_new()) == NULL)
		goto oom;
	for (i = 0; i < n; i++) {
		s = sum_str(m[i]->spec, MS_VALUE);
		if (s == NULL)
			goto oom;
		if ((vcol[i] = col_index(st, s)) == -1) {
			*err = sum_printf("Column '%s' not found in the query "
			    "result for metric '%s'", s, m[i]->id);
			free(s);
			goto out;
		}
		free(s);
	}
	while (st != NULL && (step = sqlite3_step(st)) == SQLITE_ROW) {
		for (all_null = 1, i = 0; i < n && all_null; i++)
			all_null = sv_type(st, vcol[i]) == SV_NULL;
		if (all_null)
			continue;
		pzw_begin(w, 2);
		pbb_init(&k);
		for (j = 0; j < nd; j++) {
			sv_key(st, d[j].col, &k);
			if (dim_write(&d[j], bundle, st, w, err) == -1) {
				pbb_free(&k);
				goto out;
			}
			if (sum_strs_find(&interned_cols, d[j].name) != -1) {
				struct pbbuf ik;

				pbb_init(&ik);
				sb_add(&ik, d[j].name);
				pbb_raw(&ik, "", 1);
				sv_key(st, d[j].col, &ik);
				t = sum_set_add(keys, ik.buf, ik.len);
				pbb_free(&ik);
				if (t == -1) {
					pbb_free(&k);
					goto oom;
				}
			}
		}
		t = unique ? sum_set_add(uniq, k.buf ? k.buf : (uint8_t *)"",
		    k.len) : 1;
		pbb_free(&k);
		if (t == 0) {
			*err = sum_printf("Duplicate dimensions found for "
			    "metric bundle '%s': this is not allowed", bundle);
			goto out;
		}
		if (t == -1)
			goto oom;
		for (i = 0; i < n; i++) {
			pzw_begin(w, 1);
			switch (sv_type(st, vcol[i])) {
			case SV_NULL:
				pzw_begin(w, 1);
				pzw_end(w);
				break;
			case SV_LONG:
				pbb_double(&w->b, 2, (double)
				    sqlite3_column_int64(st, vcol[i]));
				break;
			case SV_DOUBLE:
				pbb_double(&w->b, 2, sqlite3_column_double(st,
				    vcol[i]));
				break;
			default:
				*err = sum_printf("Received string/bytes for "
				    "value column in metric '%s': this is not "
				    "supported", m[i]->id);
				goto out;
			}
			pzw_end(w);
		}
		pzw_end(w);
	}
	if (st != NULL && step != SQLITE_DONE) {
		*err = strdup(sqlite3_errmsg(db));
		goto out;
	}
	sqlite3_finalize(st);
	st = NULL;
	if (m[0]->ninterned > 0 && interned_write(db, m[0], keys, w,
	    err) == -1)
		goto out;
	pzw_end(w);
	rc = 0;
	goto out;
oom:
	*err = strdup("out of memory");
out:
	sqlite3_finalize(st);
	free(vcol);
	dims_free(d, nd);
	sum_set_free(uniq);
	sum_set_free(keys);
	sum_strs_free(&interned_cols);
	return rc;
}

int
sum_metrics_compute(sqlite3 *db, const struct sum_metric *metrics, size_t n,
    struct pzw *w, char **err)
{
	struct sum_strs ids = { NULL, 0 };
	const struct sum_metric **members = NULL;
	size_t *order = NULL, i, b, k, nm;
	char *bid;
	int rc = -1;

	/* Bundles by id, in order of first appearance. */
	for (i = 0; i < n; i++) {
		bid = sum_str(metrics[i].spec, MS_BUNDLE_ID);
		if (bid == NULL || sum_strs_add(&ids, *bid ? bid :
		    metrics[i].id, 1) == -1) {
			free(bid);
			goto oom;
		}
		free(bid);
	}
	if ((order = calloc(ids.n + 1, sizeof(*order))) == NULL ||
	    (members = calloc(n + 1, sizeof(*members))) == NULL ||
	    sum_hash_order(ids.v, ids.n, order) == -1)
		goto oom;
	for (b = 0; b < ids.n; b++) {
		const char *id = ids.v[order[b]];

		for (nm = 0, k = 0; k < n; k++) {
			bid = sum_str(metrics[k].spec, MS_BUNDLE_ID);
			if (bid == NULL)
				goto oom;
			if (strcmp(*bid ? bid : metrics[k].id, id) == 0)
				members[nm++] = &metrics[k];
			free(bid);
		}
		if (bundle_run(db, id, members, nm, w, err) == -1)
			goto out;
	}
	rc = 0;
	goto out;
oom:
	*err = strdup("out of memory");
out:
	free(order);
	free(members);
	sum_strs_free(&ids);
	return rc;
}

int
sum_metadata(sqlite3 *db, const char *sql, struct pzw *w, char **err)
{
	sqlite3_stmt *st;
	int step;

	if (sum_exec(db, sql, &st, err) == -1)
		return -1;
	if (st == NULL || sqlite3_column_count(st) == 0) {
		sqlite3_finalize(st);
		return 0;
	}
	if (sqlite3_column_count(st) != 2 ||
	    strcmp(sqlite3_column_name(st, 0), "key") != 0 ||
	    strcmp(sqlite3_column_name(st, 1), "value") != 0) {
		sqlite3_finalize(st);
		*err = strdup("Metadata query did not match schema of (key, "
		    "value)");
		return -1;
	}
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		if (sv_type(st, 0) != SV_STRING) {
			*err = strdup("Key column in metadata query was not of "
			    "type string");
			break;
		}
		if (sv_type(st, 1) == SV_NULL)
			continue;
		if (sv_type(st, 1) != SV_STRING) {
			*err = strdup("Key column in metadata query was not of "
			    "type string or null");
			break;
		}
		pzw_begin(w, OUT_METADATA);
		pbb_string(&w->b, 1, col_text(st, 0));
		pbb_string(&w->b, 2, col_text(st, 1));
		pzw_end(w);
	}
	if (step != SQLITE_ROW && step != SQLITE_DONE)
		*err = strdup(sqlite3_errmsg(db));
	sqlite3_finalize(st);
	return *err != NULL ? -1 : 0;
}
