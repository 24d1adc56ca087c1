/*
 * Trace summaries: see summary.h. The steps are upstream's, in its order
 * (errors reported along the way depend on it): specs decoded, shared
 * queries registered, metric specs gathered (templates expanded after the
 * plain ones), the asked-for metrics' SQL generated, preambles run,
 * modules included, shared queries created as tables, bundles computed,
 * metadata added, shared tables dropped.
 */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "metrics/mproto.h"
#include "summary.h"
#include "sum_int.h"
#include "sum_pzw.h"

int
summary_spec_is_text(const char *path, const uint8_t *data, size_t len)
{
	size_t n = strlen(path), i;

	if (n >= 3 && strcmp(path + n - 3, ".pb") == 0)
		return 0;
	if (n >= 10 && strcmp(path + n - 10, ".textproto") == 0)
		return 1;
	for (i = 0; i < len && i < 128; i++)
		if (!isspace(data[i]) && !isprint(data[i]))
			return 0;
	return 1;
}

struct sum_run {
	sqlite3			*db;
	struct mp_pool		*pool;
	struct sqgen		 gen;
	struct sum_msg		*specs;
	struct pbbuf		*text_specs;	/* encoded text specs */
	size_t			 nspecs;
	struct sum_msg		*mspecs;	/* every metric spec */
	size_t			 nmspecs;
	struct pbbuf		*expanded;	/* from templates */
	size_t			 nexpanded;
	struct sum_metric	*metrics;
	size_t			 nmetrics;
	char			*metadata_sql;
};

static void
run_free(struct sum_run *r)
{
	size_t i, k;

	sqgen_free(&r->gen);
	sum_protos_free(r->pool);
	for (i = 0; i < r->nspecs; i++)
		pbb_free(&r->text_specs[i]);
	for (i = 0; i < r->nexpanded; i++)
		pbb_free(&r->expanded[i]);
	for (i = 0; i < r->nmetrics; i++) {
		free(r->metrics[i].id);
		free(r->metrics[i].query);
		for (k = 0; k < r->metrics[i].ninterned; k++)
			free(r->metrics[i].interned[k]);
		free(r->metrics[i].interned);
	}
	free(r->specs);
	free(r->text_specs);
	free(r->expanded);
	free(r->mspecs);
	free(r->metrics);
	free(r->metadata_sql);
}

static int
run_add_mspec(struct sum_run *r, struct sum_msg m)
{
	struct sum_msg *n;

	if ((n = reallocarray(r->mspecs, r->nmspecs + 1, sizeof(*n))) == NULL)
		return -1;
	r->mspecs = n;
	n[r->nmspecs++] = m;
	return 0;
}

static int
run_add_metric(struct sum_run *r, const char *id)
{
	struct sum_metric *n;

	if ((n = reallocarray(r->metrics, r->nmetrics + 1, sizeof(*n))) ==
	    NULL)
		return -1;
	r->metrics = n;
	memset(&n[r->nmetrics], 0, sizeof(*n));
	n[r->nmetrics].spec.p = (const uint8_t *)"";
	if ((n[r->nmetrics].id = strdup(id)) == NULL)
		return -1;
	r->nmetrics++;
	return 0;
}

/* Decodes the specs, registers shared queries, gathers metric specs. */
static int
run_specs(struct sum_run *r, const struct summary_req *req, char **err)
{
	struct sum_it it;
	struct pb_field f;
	size_t i;

	r->nspecs = req->nspecs;
	r->specs = calloc(req->nspecs + 1, sizeof(*r->specs));
	r->text_specs = calloc(req->nspecs + 1, sizeof(*r->text_specs));
	if (r->specs == NULL || r->text_specs == NULL)
		goto oom;
	for (i = 0; i < req->nspecs; i++) {
		pbb_init(&r->text_specs[i]);
		r->specs[i].p = req->specs[i].data;
		r->specs[i].n = req->specs[i].len;
		if (!req->specs[i].text)
			continue;
		if (r->pool == NULL && (r->pool = sum_protos_load(err)) ==
		    NULL)
			return -1;
		if (sum_pbtxt_untrusted(r->pool,
		    (const char *)req->specs[i].data,
		    req->specs[i].len, "-", &r->text_specs[i], err) == -1)
			return -1;
		r->specs[i].p = r->text_specs[i].buf ? r->text_specs[i].buf :
		    (const uint8_t *)"";
		r->specs[i].n = r->text_specs[i].len;
	}
	for (i = 0; i < r->nspecs; i++) {
		sum_it_init(&it, r->specs[i], SPEC_QUERY);
		while (sum_it_next(&it, &f))
			if (sqgen_add_query(&r->gen, sum_field_msg(&f),
			    err) == -1)
				return -1;
	}
	for (i = 0; i < r->nspecs; i++) {
		sum_it_init(&it, r->specs[i], SPEC_METRIC);
		while (sum_it_next(&it, &f))
			if (run_add_mspec(r, sum_field_msg(&f)) == -1)
				goto oom;
	}
	if (sum_expand_templates(r->specs, r->nspecs, &r->expanded,
	    &r->nexpanded, err) == -1)
		return -1;
	for (i = 0; i < r->nexpanded; i++) {
		struct sum_msg m = { r->expanded[i].buf, r->expanded[i].len };

		if (run_add_mspec(r, m) == -1)
			goto oom;
	}
	return 0;
oom:
	*err = strdup("out of memory");
	return -1;
}

/* The metrics asked for, with their SQL. */
static int
run_metrics(struct sum_run *r, const struct summary_req *req, char **err)
{
	struct sum_it it;
	struct pb_field f;
	struct sum_metric *m;
	size_t i, k;
	char *id, *e = NULL, **ni;

	for (i = 0; i < (req->all_metrics ? r->nmspecs : req->nids); i++) {
		id = req->all_metrics ? sum_str(r->mspecs[i], MS_ID) :
		    strdup(req->ids[i]);
		if (id == NULL)
			goto oom;
		if (strcasecmp(id, "all") == 0) {
			free(id);
			*err = strdup("Metric has id 'all' which is not "
			    "allowed as this is a reserved name. Please use a "
			    "different id for your metric");
			return -1;
		}
		k = (size_t)run_add_metric(r, id);
		free(id);
		if (k == (size_t)-1)
			goto oom;
	}
	for (i = 0; i < r->nmspecs; i++) {
		if (sum_bytes(r->mspecs[i], MS_ID).n == 0) {
			*err = strdup("Metric with empty id field: this is not "
			    "allowed");
			return -1;
		}
		/* The first metric asked for under this id gets it. */
		for (m = NULL, k = 0; k < r->nmetrics && m == NULL; k++)
			if (sum_str_eq(r->mspecs[i], MS_ID, r->metrics[k].id))
				m = &r->metrics[k];
		if (m == NULL)
			continue;
		if (m->query != NULL) {
			*err = sum_printf("Duplicate definitions for metric "
			    "'%s' received: this is not allowed", m->id);
			return -1;
		}
		if ((m->query = sqgen_generate(&r->gen, sum_bytes(r->mspecs[i],
		    MS_QUERY), &e)) == NULL) {
			*err = sum_printf("Unable to build query for metric "
			    "'%s': %s", m->id, e);
			free(e);
			return -1;
		}
		m->spec = r->mspecs[i];
		sum_it_init(&it, m->spec, MS_INTERNED);
		while (sum_it_next(&it, &f)) {
			ni = reallocarray(m->interned, m->ninterned + 1,
			    sizeof(*ni));
			if (ni == NULL)
				goto oom;
			m->interned = ni;
			if ((ni[m->ninterned] = sqgen_generate(&r->gen,
			    sum_bytes(sum_field_msg(&f), IDS_QUERY), &e)) ==
			    NULL) {
				*err = sum_printf("Unable to build interned "
				    "dimension query for metric '%s': %s",
				    m->id, e);
				free(e);
				return -1;
			}
			m->ninterned++;
		}
	}
	if (req->metadata_query != NULL && (r->metadata_sql =
	    sqgen_generate_by_id(&r->gen, req->metadata_query, err)) == NULL)
		return -1;
	return 0;
oom:
	*err = strdup("out of memory");
	return -1;
}

/* SQL run for its effect: 0, or -1 with *err (rows are an error when
 * no_rows). */
static int
run_sql(sqlite3 *db, const char *sql, int no_rows, char **err)
{
	sqlite3_stmt *st;
	int rc;

	if (sum_exec(db, sql, &st, err) == -1)
		return -1;
	if (st == NULL)
		return 0;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && no_rows) {
		sqlite3_finalize(st);
		*err = strdup("Preamble query returned results. Preambles "
		    "must not return. Only the last statement of the `sql` "
		    "field can return results.");
		return -1;
	}
	while (rc == SQLITE_ROW)
		rc = sqlite3_step(st);
	if (rc != SQLITE_DONE)
		*err = strdup(sqlite3_errmsg(db));
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* Preambles, modules, shared tables, then the summary itself. */
static int
run_compute(struct sum_run *r, const struct summary_req *req,
    struct pbbuf *out, char **err)
{
	struct sqgen *g = &r->gen;
	struct pzw w;
	size_t i, *order;
	char *sql, *e = NULL, *txt;
	int rc = -1;

	for (i = 0; i < g->preambles.n; i++)
		if (run_sql(r->db, g->preambles.v[i], 1, err) == -1)
			return -1;
	if ((order = calloc(g->modules.n + 1, sizeof(*order))) == NULL ||
	    sum_hash_order(g->modules.v, g->modules.n, order) == -1) {
		free(order);
		*err = strdup("out of memory");
		return -1;
	}
	for (i = 0; i < g->modules.n; i++) {
		sql = sum_printf("INCLUDE PERFETTO MODULE %s",
		    g->modules.v[order[i]]);
		if (sql == NULL || run_sql(r->db, sql, 0, err) == -1) {
			if (sql == NULL)
				*err = strdup("out of memory");
			free(sql);
			free(order);
			return -1;
		}
		free(sql);
	}
	free(order);
	pzw_init(&w);
	for (i = 0; i < g->nqueries; i++) {
		sql = sum_printf("CREATE PERFETTO TABLE %s AS %s",
		    g->queries[i].table, g->queries[i].sql);
		if (sql == NULL || run_sql(r->db, sql, 0, &e) == -1) {
			*err = sum_printf("Error while executing shared query "
			    "%s: %s", g->queries[i].id,
			    e ? e : "out of memory");
			free(e);
			free(sql);
			goto out;
		}
		free(sql);
	}
	if (sum_metrics_compute(r->db, r->metrics, r->nmetrics, &w, err) == -1)
		goto out;
	if (r->metadata_sql != NULL && sum_metadata(r->db, r->metadata_sql, &w,
	    err) == -1)
		goto out;
	if (!pzw_ok(&w)) {
		*err = strdup("out of memory");
		goto out;
	}
	if (req->text) {
		if (r->pool == NULL && (r->pool = sum_protos_load(err)) ==
		    NULL)
			goto out;
		txt = sum_print(r->pool, "perfetto.protos.TraceSummary",
		    w.b.buf, w.b.len);
		if (txt == NULL) {
			*err = strdup("out of memory");
			goto out;
		}
		pbb_raw(out, txt, strlen(txt));
		free(txt);
	} else
		pbb_raw(out, w.b.buf, w.b.len);
	rc = 0;
out:
	pbb_free(&w.b);
	/* The shared tables go, whatever happened. */
	for (i = 0; i < g->nqueries; i++) {
		sql = sum_printf("DROP TABLE IF EXISTS %s",
		    g->queries[i].table);
		if (sql != NULL && run_sql(r->db, sql, 0, &e) == -1) {
			free(e);
			e = NULL;
		}
		free(sql);
	}
	return rc;
}

int
summary_compute(sqlite3 *db, const struct summary_req *req,
    struct pbbuf *out, char **err)
{
	struct sum_run r;
	int rc;

	*err = NULL;
	memset(&r, 0, sizeof(r));
	r.db = db;
	sqgen_init(&r.gen);
	rc = run_specs(&r, req, err);
	if (rc == 0)
		rc = run_metrics(&r, req, err);
	if (rc == 0)
		rc = run_compute(&r, req, out, err);
	if (rc == -1 && *err == NULL)
		*err = strdup("out of memory");
	run_free(&r);
	return rc;
}
