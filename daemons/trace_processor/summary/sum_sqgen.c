/*
 * PerfettoSqlStructuredQuery to SQL, as upstream's generator writes it:
 * each query becomes a common table expression named sq_<id> (or
 * sq_<index>), nested queries before the ones that use them, the root
 * last; shared queries (TraceSummarySpec.query, by inner_query_id) become
 * tables shared_sq_<id> the caller creates first. Filters, grouping,
 * selection, ordering and limits follow the source:
 *
 *   WITH sq_1 AS (
 *     SELECT ... FROM <source>
 *   ),
 *   sq_0 AS (
 *     SELECT a, SUM(b) AS c
 *     FROM sq_1
 *     WHERE x = 'y'
 *     GROUP BY a
 *   )
 *   SELECT *
 *   FROM sq_0
 *
 * Names and values are pasted into the SQL as given (upstream quotes
 * nothing either): a spec is a query, trusted as much as any query.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sum_int.h"
#include "sum_sq.h"

enum sq_kind { SQK_ROOT, SQK_SHARED, SQK_NESTED };

struct sq_state {
	enum sq_kind	 kind;
	struct sum_msg	 bytes;
	char		*id;		/* NULL: the query has no id */
	char		*table;
	ssize_t		 parent;
	char		*sql;
};

struct sqgen_run {
	struct sqgen	*g;
	struct sq_state	*st;
	size_t		 n;
	size_t		 cur;
	struct sum_strs	 used;		/* table names given */
	int		 oom;
};

/* Filter operators, aggregate ops (structured_query.proto). */
static const char *const sq_ops[] = {
	NULL, "=", "!=", "<", "<=", ">", ">=", "GLOB", "IS NULL",
	"IS NOT NULL",
};

void
sqgen_init(struct sqgen *g)
{
	memset(g, 0, sizeof(*g));
}

void
sqgen_free(struct sqgen *g)
{
	size_t i;

	for (i = 0; i < g->nqueries; i++) {
		free(g->queries[i].id);
		free(g->queries[i].table);
		free(g->queries[i].sql);
	}
	free(g->queries);
	free(g->protos);
	sum_strs_free(&g->proto_ids);
	sum_strs_free(&g->modules);
	sum_strs_free(&g->preambles);
	memset(g, 0, sizeof(*g));
}

void
sqgen_module(struct sqgen_run *r, const char *m)
{
	if (sum_strs_add(&r->g->modules, m, 1) == -1)
		r->oom = 1;
}

void
sqgen_preamble(struct sqgen_run *r, const char *s, size_t n)
{
	char *p = strndup(s, n);

	if (p == NULL || sum_strs_add(&r->g->preambles, p, 0) == -1)
		r->oom = 1;
	free(p);
}

/* A query's modules: referenced_modules, a table's module_name. */
static void
sqgen_modules_of(struct sqgen_run *r, struct sum_msg q, int table_too)
{
	struct sum_it it;
	struct pb_field f;
	struct sum_msg t;
	char *s;

	sum_it_init(&it, q, SQ_REFERENCED_MODULES);
	while (sum_it_next(&it, &f)) {
		if ((s = sum_field_str(&f)) == NULL)
			r->oom = 1;
		else
			sqgen_module(r, s);
		free(s);
	}
	if (!table_too || !sum_has(q, SQ_TABLE))
		return;
	t = sum_bytes(q, SQ_TABLE);
	if (sum_bytes(t, TBL_MODULE).n > 0) {
		if ((s = sum_str(t, TBL_MODULE)) == NULL)
			r->oom = 1;
		else
			sqgen_module(r, s);
		free(s);
	}
}

/* A new state; its table name is unique within this generation. */
static struct sq_state *
sqgen_push(struct sqgen_run *r, enum sq_kind kind, struct sum_msg bytes,
    ssize_t parent)
{
	struct sq_state *ns, *s;
	const char *prefix = kind == SQK_SHARED ? "shared_sq_" : "sq_";
	char *name, *cand;
	size_t suffix = 0;

	if ((ns = reallocarray(r->st, r->n + 1, sizeof(*ns))) == NULL) {
		r->oom = 1;
		return NULL;
	}
	r->st = ns;
	s = &ns[r->n];
	memset(s, 0, sizeof(*s));
	s->kind = kind;
	s->bytes = bytes;
	s->parent = parent;
	if (sum_has(bytes, SQ_ID)) {
		s->id = sum_str(bytes, SQ_ID);
		name = s->id ? sum_printf("%s%s", prefix, s->id) : NULL;
	} else
		name = sum_printf("%s%zu", prefix, r->n);
	if (name == NULL) {
		free(s->id);
		r->oom = 1;
		return NULL;
	}
	cand = strdup(name);
	while (cand != NULL && sum_strs_find(&r->used, cand) != -1) {
		free(cand);
		cand = sum_printf("%s_%zu", name, suffix++);
	}
	free(name);
	if (cand == NULL || sum_strs_add(&r->used, cand, 0) == -1) {
		free(cand);
		free(s->id);
		r->oom = 1;
		return NULL;
	}
	s->table = cand;
	r->n++;
	return s;
}

const char *
sqgen_nested(struct sqgen_run *r, struct sum_msg q)
{
	struct sq_state *s = sqgen_push(r, SQK_NESTED, q, (ssize_t)r->cur);

	return s != NULL ? s->table : "";
}

/* inner_query_id: a shared query, by id. */
static const char *
sqgen_shared(struct sqgen_run *r, const char *id, char **err)
{
	struct sq_state *s;
	ssize_t i, p;

	for (p = (ssize_t)r->cur; p != -1; p = r->st[p].parent)
		if (r->st[p].id != NULL && strcmp(r->st[p].id, id) == 0) {
			*err = sum_printf("Cycle detected in structured query "
			    "dependencies involving query with id '%s'", id);
			return NULL;
		}
	if ((i = sum_strs_find(&r->g->proto_ids, id)) == -1) {
		*err = sum_printf("Shared query with id '%s' not found", id);
		return NULL;
	}
	for (p = 0; p < (ssize_t)r->g->nqueries; p++)
		if (strcmp(r->g->queries[p].id, id) == 0)
			return r->g->queries[p].table;
	for (p = 0; p < (ssize_t)r->n; p++)
		if (r->st[p].kind == SQK_SHARED && r->st[p].id != NULL &&
		    strcmp(r->st[p].id, id) == 0)
			return r->st[p].table;
	s = sqgen_push(r, SQK_SHARED, r->g->protos[i], (ssize_t)r->cur);
	if (s == NULL) {
		*err = strdup("out of memory");
		return NULL;
	}
	return s->table;
}

/* One filter: "col op rhs", several right-hand sides ORed. */
static int
sqgen_filter(struct sum_msg f, struct pbbuf *w, char **err)
{
	struct sum_it it;
	struct pb_field x;
	struct sum_msg col = sum_bytes(f, 1);
	uint64_t op = sum_uint(f, 2);
	uint32_t kinds[] = { 3, 4, 5 }, kind = 0;
	size_t k, n = 0, mark;
	union { uint64_t u; double d; } c;

	if (op == 0 || op >= sizeof(sq_ops) / sizeof(sq_ops[0])) {
		*err = sum_printf("Invalid filter operator %d", (int)op);
		return -1;
	}
	if (op == 8 || op == 9) {
		sb_printf(w, "%.*s %s", (int)col.n, col.p, sq_ops[op]);
		return 0;
	}
	for (k = 0; k < 3 && kind == 0; k++)
		if (sum_has(f, kinds[k]))
			kind = kinds[k];
	if (kind == 0) {
		*err = strdup("Filter must specify a right-hand side");
		return -1;
	}
	mark = w->len;
	sum_it_init(&it, f, kind);
	while (sum_it_next(&it, &x)) {
		if (n++ > 0)
			sb_add(w, " OR ");
		sb_printf(w, "%.*s %s ", (int)col.n, col.p, sq_ops[op]);
		if (kind == 3)
			sb_printf(w, "'%.*s'", (int)x.len, x.data);
		else if (kind == 4) {
			c.u = x.u;
			sb_double(w, c.d);
		} else
			sb_printf(w, "%" PRId64, (int64_t)x.u);
	}
	if (n > 1) {
		/* The ORs in parentheses, so ANDs around bind looser. */
		pbb_raw(w, "))", 2);
		if (!w->oom) {
			memmove(w->buf + mark + 1, w->buf + mark,
			    w->len - mark - 2);
			w->buf[mark] = '(';
		}
	}
	return 0;
}

static int
sqgen_filters(struct sum_msg q, struct pbbuf *w, char **err)
{
	struct sum_it it;
	struct pb_field f;
	size_t n = 0;

	sum_it_init(&it, q, SQ_FILTERS);
	while (sum_it_next(&it, &f)) {
		if (n++ > 0)
			sb_add(w, " AND ");
		if (sqgen_filter(sum_field_msg(&f), w, err) == -1)
			return -1;
	}
	return 0;
}

/* ExperimentalFilterGroup: filters, groups, then SQL, joined by op. */
static int
sqgen_filter_group(struct sum_msg g, struct pbbuf *w, int depth, char **err)
{
	static const uint32_t parts[] = { 2, 3, 4 };
	uint64_t op = sum_uint(g, 1);
	const char *sep = op == 1 ? " AND " : op == 2 ? " OR " : "";
	struct sum_it it;
	struct pb_field f;
	size_t k, n = 0;

	if (op == 0) {
		*err = strdup("ExperimentalFilterGroup must specify an "
		    "operator (AND or OR)");
		return -1;
	}
	if (depth > 64) {
		*err = strdup("ExperimentalFilterGroup nested too deep");
		return -1;
	}
	for (k = 0; k < 3; k++) {
		sum_it_init(&it, g, parts[k]);
		while (sum_it_next(&it, &f)) {
			if (n++ > 0)
				sb_add(w, sep);
			if (parts[k] == 2 && sqgen_filter(sum_field_msg(&f), w,
			    err) == -1)
				return -1;
			if (parts[k] == 3) {
				sb_add(w, "(");
				if (sqgen_filter_group(sum_field_msg(&f), w,
				    depth + 1, err) == -1)
					return -1;
				sb_add(w, ")");
			}
			if (parts[k] == 4)
				sb_addn(w, f.data, f.len);
		}
	}
	if (n == 0) {
		*err = strdup("ExperimentalFilterGroup must have at least one "
		    "filter, group, or SQL expression");
		return -1;
	}
	return 0;
}

static int
sqgen_aggregate(struct sum_msg a, struct pbbuf *w, char **err)
{
	static const char *const fn[] = {
		NULL, "COUNT(", "SUM(", "MIN(", "MAX(", "AVG(", NULL, NULL,
		NULL, "COUNT(DISTINCT ",
	};
	uint64_t op = sum_uint(a, 2);
	struct sum_msg col = sum_bytes(a, 1);
	struct pb_field f;
	union { uint64_t u; double d; } c;

	if (op == 1 && !sum_has(a, 1)) {
		sb_add(w, "COUNT(*)");
		return 0;
	}
	if (op == 10) {
		if (!sum_get(a, 5, &f)) {
			*err = strdup("Custom SQL expression not specified for "
			    "CUSTOM aggregation");
			return -1;
		}
		sb_addn(w, f.data, f.len);
		return 0;
	}
	if (!sum_has(a, 1)) {
		*err = strdup("Column name not specified for aggregation");
		return -1;
	}
	if (op < sizeof(fn) / sizeof(fn[0]) && fn[op] != NULL)
		sb_printf(w, "%s%.*s)", fn[op], (int)col.n, col.p);
	else if (op == 6)
		sb_printf(w, "PERCENTILE(%.*s, 50)", (int)col.n, col.p);
	else if (op == 8) {
		if (!sum_get(a, 4, &f)) {
			*err = strdup("Percentile not specified for "
			    "aggregation");
			return -1;
		}
		c.u = f.u;
		sb_printf(w, "PERCENTILE(%.*s, ", (int)col.n, col.p);
		sb_double(w, c.d);
		sb_add(w, ")");
	} else if (op == 7)
		sb_printf(w, "SUM(cast_double!(%.*s * dur)) / "
		    "cast_double!(SUM(dur))", (int)col.n, col.p);
	else {
		*err = sum_printf("Invalid aggregate operator %d", (int)op);
		return -1;
	}
	return 0;
}

/* A SelectColumn's expression: column_name_or_expression, else the old
 * column_name. */
static struct sum_msg
sqgen_sel_expr(struct sum_msg s)
{
	return sum_has(s, SEL_EXPR) ? sum_bytes(s, SEL_EXPR) :
	    sum_bytes(s, SEL_NAME);
}

/*
 * With GROUP BY: the group columns then the aggregates, those that
 * select_columns keeps (all when it is empty), aliased as it says.
 */
static int
sqgen_select_grouped(struct sum_msg q, struct sum_msg gb, struct pbbuf *w,
    char **err)
{
	struct sum_it it, si;
	struct pb_field f, s;
	struct sum_msg name, sel, alias = { NULL, 0 };
	int all = !sum_has(q, SQ_SELECT_COLUMNS), found, aliased, pass;
	size_t n = 0;

	for (pass = 0; pass < 2; pass++) {
		sum_it_init(&it, gb, pass == 0 ? 1 : 2);
		while (sum_it_next(&it, &f)) {
			name = pass == 0 ? sum_field_msg(&f) :
			    sum_bytes(sum_field_msg(&f), 3);
			found = all;
			aliased = 0;
			/* The first select column of that name decides. */
			sum_it_init(&si, q, SQ_SELECT_COLUMNS);
			while (!found && sum_it_next(&si, &s)) {
				sel = sqgen_sel_expr(sum_field_msg(&s));
				if (sel.n != name.n ||
				    memcmp(sel.p, name.p, name.n) != 0)
					continue;
				found = 1;
				aliased = sum_has(sum_field_msg(&s),
				    SEL_ALIAS);
				alias = sum_bytes(sum_field_msg(&s),
				    SEL_ALIAS);
			}
			if (!found)
				continue;
			if (n++ > 0)
				sb_add(w, ", ");
			if (pass == 0)
				sb_addn(w, name.p, name.n);
			else if (sqgen_aggregate(sum_field_msg(&f), w,
			    err) == -1)
				return -1;
			if (aliased)
				sb_printf(w, " AS %.*s", (int)alias.n,
				    alias.p);
			else if (pass == 1)
				sb_printf(w, " AS %.*s", (int)name.n, name.p);
		}
	}
	return 0;
}

static void
sqgen_select_plain(struct sum_msg q, struct pbbuf *w)
{
	struct sum_it it;
	struct pb_field f;
	struct sum_msg e, a;
	size_t n = 0;

	sum_it_init(&it, q, SQ_SELECT_COLUMNS);
	while (sum_it_next(&it, &f)) {
		if (n++ > 0)
			sb_add(w, ", ");
		e = sqgen_sel_expr(sum_field_msg(&f));
		sb_addn(w, e.p, e.n);
		if (sum_has(sum_field_msg(&f), SEL_ALIAS)) {
			a = sum_bytes(sum_field_msg(&f), SEL_ALIAS);
			sb_printf(w, " AS %.*s", (int)a.n, a.p);
		}
	}
	if (n == 0)
		sb_add(w, "*");
}

static int
sqgen_order_by(struct sum_msg ob, struct pbbuf *w, char **err)
{
	struct sum_it it;
	struct pb_field f;
	struct sum_msg spec, col;
	size_t n = 0;
	uint64_t dir;

	sum_it_init(&it, ob, 1);
	while (sum_it_next(&it, &f)) {
		spec = sum_field_msg(&f);
		col = sum_bytes(spec, 1);
		sb_add(w, n++ == 0 ? "\nORDER BY " : ", ");
		if (col.n == 0) {
			*err = strdup("ORDER BY column_name cannot be empty");
			return -1;
		}
		sb_addn(w, col.p, col.n);
		dir = sum_uint(spec, 2);
		if (sum_has(spec, 2) && (dir == 1 || dir == 2))
			sb_add(w, dir == 1 ? " ASC" : " DESC");
	}
	if (n == 0) {
		*err = strdup("ORDER BY must specify at least one ordering "
		    "spec");
		return -1;
	}
	return 0;
}

/* The SELECT of state r->cur. */
static char *
sqgen_one(struct sqgen_run *r, char **err)
{
	struct sum_msg q = r->st[r->cur].bytes, gb;
	struct pbbuf src, filt, w;
	struct sum_it it;
	struct pb_field f;
	int64_t v;
	size_t n = 0;

	sqgen_modules_of(r, q, 0);
	pbb_init(&src);
	pbb_init(&filt);
	pbb_init(&w);
	if (sqsrc_build(r, q, &src, err) == -1)
		goto fail;
	if (sum_has(q, SQ_FILTER_GROUP)) {
		if (sqgen_filter_group(sum_bytes(q, SQ_FILTER_GROUP), &filt, 0,
		    err) == -1)
			goto fail;
	} else if (sqgen_filters(q, &filt, err) == -1)
		goto fail;
	sb_add(&w, "SELECT ");
	if (sum_has(q, SQ_GROUP_BY)) {
		gb = sum_bytes(q, SQ_GROUP_BY);
		if (sqgen_select_grouped(q, gb, &w, err) == -1)
			goto fail;
	} else
		sqgen_select_plain(q, &w);
	sb_add(&w, "\nFROM ");
	sb_addn(&w, src.buf, src.len);
	if (filt.len > 0) {
		sb_add(&w, "\nWHERE ");
		sb_addn(&w, filt.buf, filt.len);
	}
	if (sum_has(q, SQ_GROUP_BY)) {
		sum_it_init(&it, gb, 1);
		while (sum_it_next(&it, &f)) {
			sb_add(&w, n++ == 0 ? "\nGROUP BY " : ", ");
			sb_addn(&w, f.data, f.len);
		}
	}
	if (sum_has(q, SQ_ORDER_BY) && sqgen_order_by(sum_bytes(q,
	    SQ_ORDER_BY), &w, err) == -1)
		goto fail;
	if (sum_has(q, SQ_OFFSET) && !sum_has(q, SQ_LIMIT)) {
		*err = strdup("OFFSET requires LIMIT to be specified");
		goto fail;
	}
	if (sum_has(q, SQ_LIMIT)) {
		if ((v = (int64_t)sum_uint(q, SQ_LIMIT)) < 0) {
			*err = sum_printf("LIMIT must be non-negative, got %"
			    PRId64, v);
			goto fail;
		}
		sb_printf(&w, "\nLIMIT %" PRId64, v);
	}
	if (sum_has(q, SQ_OFFSET)) {
		if ((v = (int64_t)sum_uint(q, SQ_OFFSET)) < 0) {
			*err = sum_printf("OFFSET must be non-negative, got %"
			    PRId64, v);
			goto fail;
		}
		sb_printf(&w, "\nOFFSET %" PRId64, v);
	}
	pbb_free(&src);
	pbb_free(&filt);
	return sb_take(&w);
fail:
	pbb_free(&src);
	pbb_free(&filt);
	pbb_free(&w);
	return NULL;
}

/* Is the root only an inner query with ordering and limits around it? */
static int
sqgen_root_wraps(struct sum_msg q)
{
	static const uint32_t other[] = {
		SQ_TABLE, SQ_TIME_RANGE, SQ_SIMPLE_SLICES,
		SQ_INTERVAL_INTERSECT, SQ_FILTER_TO_INTERVALS, SQ_JOIN,
		SQ_UNION, SQ_SQL, SQ_INNER_QUERY_ID, SQ_FILTERS,
		SQ_FILTER_GROUP, SQ_GROUP_BY, SQ_SELECT_COLUMNS,
		SQ_ADD_COLUMNS, SQ_CREATE_SLICES, SQ_COUNTER_INTERVALS,
		SQ_FILTER_IN,
	};
	size_t i;

	if (!sum_has(q, SQ_INNER_QUERY))
		return 0;
	for (i = 0; i < sizeof(other) / sizeof(other[0]); i++)
		if (sum_has(q, other[i]))
			return 0;
	return 1;
}

static void
sqgen_run_free(struct sqgen_run *r)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		free(r->st[i].id);
		free(r->st[i].table);
		free(r->st[i].sql);
	}
	free(r->st);
	sum_strs_free(&r->used);
}

/* Keeps a shared query for the caller to create as a table. */
static int
sqgen_keep_shared(struct sqgen *g, struct sq_state *s)
{
	struct sum_shared *nq;

	if ((nq = reallocarray(g->queries, g->nqueries + 1,
	    sizeof(*nq))) == NULL)
		return -1;
	g->queries = nq;
	nq[g->nqueries].id = s->id;
	nq[g->nqueries].table = s->table;
	nq[g->nqueries].sql = s->sql;
	s->id = s->table = s->sql = NULL;
	g->nqueries++;
	return 0;
}

char *
sqgen_generate(struct sqgen *g, struct sum_msg q, char **err)
{
	struct sqgen_run r;
	struct pbbuf w;
	struct sq_state *s;
	char *sql, *e = NULL;
	size_t i, ctes = 0;
	int wraps = sqgen_root_wraps(q);

	memset(&r, 0, sizeof(r));
	r.g = g;
	pbb_init(&w);
	if (sqgen_push(&r, SQK_ROOT, q, -1) == NULL)
		goto oom;
	for (r.cur = 0; r.cur < r.n; r.cur++) {
		if ((sql = sqgen_one(&r, &e)) == NULL) {
			if (r.oom || e == NULL)
				goto oom;
			*err = sum_printf("Failed to generate SQL for query "
			    "(id=%s, idx=%zu): %s", r.st[r.cur].id ?
			    r.st[r.cur].id : "unknown", r.cur, e);
			free(e);
			sqgen_run_free(&r);
			return NULL;
		}
		r.st[r.cur].sql = sql;
	}
	if (r.oom)
		goto oom;
	sb_add(&w, "WITH ");
	for (i = r.n; i-- > 0;) {
		s = &r.st[i];
		if (s->kind == SQK_SHARED) {
			if (sqgen_keep_shared(g, s) == -1)
				goto oom;
			continue;
		}
		if (i == 0 && wraps)
			continue;
		if (ctes++ > 0)
			sb_add(&w, ",\n");
		sb_printf(&w, "%s AS (\n", s->table);
		sb_indent(&w, s->sql, 2);
		sb_add(&w, "\n)");
	}
	if (wraps)
		sb_printf(&w, "\n%s", r.st[0].sql);
	else
		sb_printf(&w, "\nSELECT *\nFROM %s", r.st[0].table);
	sqgen_run_free(&r);
	if ((sql = sb_take(&w)) == NULL)
		*err = strdup("out of memory");
	return sql;
oom:
	sqgen_run_free(&r);
	pbb_free(&w);
	*err = strdup("out of memory");
	return NULL;
}

char *
sqgen_generate_by_id(struct sqgen *g, const char *id, char **err)
{
	ssize_t i = sum_strs_find(&g->proto_ids, id);

	if (i == -1) {
		*err = sum_printf("Query with id %s not found", id);
		return NULL;
	}
	return sqgen_generate(g, g->protos[i], err);
}

int
sqgen_add_query(struct sqgen *g, struct sum_msg q, char **err)
{
	struct sqgen_run r;
	struct sum_msg *np;
	char *id;
	int rc;

	if (!sum_has(q, SQ_ID)) {
		*err = strdup("Unable to find id for shared query: all shared "
		    "queries must have an id specified");
		return -1;
	}
	memset(&r, 0, sizeof(r));
	r.g = g;
	sqgen_modules_of(&r, q, 1);
	if ((id = sum_str(q, SQ_ID)) == NULL || r.oom)
		goto oom;
	if (sum_strs_find(&g->proto_ids, id) != -1) {
		*err = sum_printf("Multiple shared queries specified with the "
		    "ids %s", id);
		free(id);
		return -1;
	}
	np = reallocarray(g->protos, g->proto_ids.n + 1, sizeof(*np));
	if (np == NULL)
		goto oom;
	g->protos = np;
	np[g->proto_ids.n] = q;
	rc = sum_strs_add(&g->proto_ids, id, 0);
	free(id);
	if (rc == -1)
		goto oom;
	return 0;
oom:
	free(id);
	*err = strdup("out of memory");
	return -1;
}

const char *
sqgen_shared_id(struct sqgen_run *r, const char *id, char **err)
{
	return sqgen_shared(r, id, err);
}
