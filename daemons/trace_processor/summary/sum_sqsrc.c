/*
 * The FROM part of a structured query, one builder per source kind, as
 * upstream's generator writes them (see sum_sqgen.c). Nested queries are
 * named through sqgen_nested(), which also queues them to be generated.
 */
#include "config.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sum_int.h"
#include "sum_sq.h"

/* The bytes of field id as a printf argument pair. */
#define SQ_ARG(m)	(int)(m).n, (const char *)(m).p

/* Skips a literal or comment at p (SQL text); returns where it ends. */
static const char *
sqsrc_skip(const char *p, const char *end)
{
	char q;

	if (*p == '\'' || *p == '"' || *p == '`' || *p == '[') {
		q = *p == '[' ? ']' : *p;
		for (p++; p < end; p++)
			if (*p == q) {
				if (q != ']' && p + 1 < end && p[1] == q) {
					p++;
					continue;
				}
				return p + 1;
			}
		return end;
	}
	if (*p == '-' && p + 1 < end && p[1] == '-') {
		while (p < end && *p != '\n')
			p++;
		return p;
	}
	if (*p == '/' && p + 1 < end && p[1] == '*') {
		for (p += 2; p + 1 < end; p++)
			if (p[0] == '*' && p[1] == '/')
				return p + 2;
		return end;
	}
	return NULL;
}

/* The next non-blank, non-comment character from p, or end. */
static const char *
sqsrc_token(const char *p, const char *end)
{
	const char *n;

	while (p < end) {
		if (isspace((unsigned char)*p)) {
			p++;
			continue;
		}
		if ((*p == '-' || *p == '/') && (n = sqsrc_skip(p, end)) !=
		    NULL) {
			p = n;
			continue;
		}
		break;
	}
	return p;
}

/* The ';' ending the statement at p, or end. */
static const char *
sqsrc_stmt_end(const char *p, const char *end)
{
	const char *n;

	while (p < end && *p != ';') {
		if ((n = sqsrc_skip(p, end)) != NULL)
			p = n;
		else
			p++;
	}
	return p;
}

/*
 * Splits SQL as upstream does: the statements before the last (from the
 * first statement up to the last one's start) and the last (up to its
 * ';' or the end).
 */
struct sqsrc_parts {
	const char	*pre;
	size_t		 pre_len;
	const char	*main;
	size_t		 main_len;
};

static void
sqsrc_split(const char *sql, size_t len, struct sqsrc_parts *sp)
{
	const char *end = sql + len, *first, *last, *e, *next;

	memset(sp, 0, sizeof(*sp));
	sp->pre = sp->main = sql;
	first = sqsrc_token(sql, end);
	while (first < end && *first == ';')
		first = sqsrc_token(first + 1, end);
	if (first >= end)
		return;
	last = first;
	for (;;) {
		e = sqsrc_stmt_end(last, end);
		if (e >= end)
			break;
		next = sqsrc_token(e + 1, end);
		while (next < end && *next == ';')
			next = sqsrc_token(next + 1, end);
		if (next >= end)
			break;
		last = next;
	}
	sp->pre = first;
	sp->pre_len = (size_t)(last - first);
	sp->main = last;
	sp->main_len = (size_t)(e - last);
}

/* $alias (or :alias, @alias) in SQL replaced by the dependency's table. */
static void
sqsrc_rewrite(const char *sql, size_t len, char *const *alias,
    char *const *table, size_t ndeps, struct pbbuf *w)
{
	const char *p = sql, *end = sql + len, *n, *v;
	size_t i, vl;

	while (p < end) {
		if ((n = sqsrc_skip(p, end)) != NULL) {
			sb_addn(w, p, (size_t)(n - p));
			p = n;
			continue;
		}
		if ((*p == '$' || *p == ':' || *p == '@') && p + 1 < end &&
		    (isalnum((unsigned char)p[1]) || p[1] == '_')) {
			for (v = p + 1; v < end &&
			    (isalnum((unsigned char)*v) || *v == '_'); v++)
				;
			vl = (size_t)(v - p - 1);
			for (i = 0; i < ndeps; i++)
				if (strlen(alias[i]) == vl &&
				    memcmp(alias[i], p + 1, vl) == 0)
					break;
			if (i < ndeps)
				sb_add(w, table[i]);
			else
				sb_addn(w, p, (size_t)(v - p));
			p = v;
			continue;
		}
		sb_addn(w, p++, 1);
	}
}

static int
sqsrc_sql(struct sqgen_run *r, struct sum_msg m, struct pbbuf *w,
    char **err)
{
	struct sum_msg sql = sum_bytes(m, SQL_SQL), pre;
	struct sqsrc_parts sp;
	struct sum_it it;
	struct pb_field f;
	struct pbbuf user, inner;
	char **alias = NULL, **table = NULL, *s;
	size_t n = 0, cols = 0, i;
	int rc = -1;

	if (sql.n == 0) {
		*err = strdup("Sql field must be specified");
		return -1;
	}
	sqsrc_split((const char *)sql.p, sql.n, &sp);
	if (sum_has(m, SQL_PREAMBLE)) {
		if (sp.pre_len > 0) {
			*err = strdup("Sql source specifies both `preamble` "
			    "and has multiple statements in the `sql` field. "
			    "This is not supported - please don't use "
			    "`preamble` and pass all the SQL you want to "
			    "execute in the `sql` field.");
			return -1;
		}
		pre = sum_bytes(m, SQL_PREAMBLE);
		sqgen_preamble(r, (const char *)pre.p, pre.n);
		sp.main = (const char *)sql.p;
		sp.main_len = sql.n;
	} else if (sp.pre_len > 0)
		sqgen_preamble(r, sp.pre, sp.pre_len);
	if (sp.main_len == 0) {
		*err = strdup("SQL source cannot be empty after processing "
		    "preamble");
		return -1;
	}
	sum_it_init(&it, m, SQL_DEPS);
	while (sum_it_next(&it, &f))
		n++;
	alias = calloc(n + 1, sizeof(*alias));
	table = calloc(n + 1, sizeof(*table));
	if (alias == NULL || table == NULL)
		goto oom;
	sum_it_init(&it, m, SQL_DEPS);
	for (i = 0; i < n && sum_it_next(&it, &f); i++) {
		alias[i] = sum_str(sum_field_msg(&f), DEP_ALIAS);
		if (alias[i] == NULL ||
		    (table[i] = strdup(sqgen_nested(r, sum_bytes(
		    sum_field_msg(&f), DEP_QUERY)))) == NULL)
			goto oom;
	}
	pbb_init(&user);
	pbb_init(&inner);
	sqsrc_rewrite(sp.main, sp.main_len, alias, table, n, &user);
	sb_add(&inner, "SELECT ");
	sum_it_init(&it, m, SQL_COLUMNS);
	while (sum_it_next(&it, &f)) {
		if (cols++ > 0)
			sb_add(&inner, ", ");
		sb_addn(&inner, f.data, f.len);
	}
	if (cols == 0)
		sb_add(&inner, "*");
	sb_add(&inner, "\nFROM (\n");
	if ((s = sb_take(&user)) == NULL) {
		pbb_free(&inner);
		goto oom;
	}
	sb_indent(&inner, s, 2);
	free(s);
	sb_add(&inner, "\n)");
	if ((s = sb_take(&inner)) == NULL)
		goto oom;
	sb_add(w, "(\n");
	sb_indent(w, s, 2);
	sb_add(w, ")");
	free(s);
	rc = 0;
	goto out;
oom:
	*err = strdup("out of memory");
out:
	for (i = 0; i < n; i++) {
		free(alias != NULL ? alias[i] : NULL);
		free(table != NULL ? table[i] : NULL);
	}
	free(alias);
	free(table);
	return rc;
}

static int
sqsrc_table(struct sqgen_run *r, struct sum_msg t, struct pbbuf *w,
    char **err)
{
	struct sum_msg name = sum_bytes(t, TBL_NAME);
	char *mod;

	if (name.n == 0) {
		*err = strdup("Table must specify a table name");
		return -1;
	}
	if (sum_bytes(t, TBL_MODULE).n > 0) {
		if ((mod = sum_str(t, TBL_MODULE)) != NULL)
			sqgen_module(r, mod);
		free(mod);
	}
	sb_addn(w, name.p, name.n);
	return 0;
}

static void
sqsrc_slices(struct sqgen_run *r, struct sum_msg s, struct pbbuf *w)
{
	static const struct {
		uint32_t	 id;
		const char	*col;
	} globs[] = {
		{ SS_SLICE, "slice_name" }, { SS_THREAD, "thread_name" },
		{ SS_PROCESS, "process_name" }, { SS_TRACK, "track_name" },
	};
	size_t i, n = 0;

	sqgen_module(r, "slices.with_context");
	sb_add(w, "(SELECT id, ts, dur, name AS slice_name, thread_name, "
	    "process_name, track_name FROM thread_or_process_slice");
	for (i = 0; i < sizeof(globs) / sizeof(globs[0]); i++)
		if (sum_has(s, globs[i].id))
			sb_printf(w, "%s%s GLOB '%.*s'", n++ == 0 ? " WHERE " :
			    " AND ", globs[i].col,
			    SQ_ARG(sum_bytes(s, globs[i].id)));
	sb_add(w, ")");
}

/* partition_columns: checked, in *cols (malloc'd array). */
static int
sqsrc_partitions(struct sum_msg m, uint32_t id, struct sum_strs *cols,
    char **err)
{
	struct sum_strs lower = { NULL, 0 };
	struct sum_it it;
	struct pb_field f;
	char *c;
	size_t i;

	sum_it_init(&it, m, id);
	while (sum_it_next(&it, &f)) {
		if ((c = sum_field_str(&f)) == NULL)
			goto oom;
		if (*c == '\0') {
			*err = strdup("Partition column cannot be empty");
			free(c);
			goto fail;
		}
		if (strcasecmp(c, "id") == 0 || strcasecmp(c, "ts") == 0 ||
		    strcasecmp(c, "dur") == 0) {
			*err = sum_printf("Partition column '%s' is reserved "
			    "and cannot be used for partitioning", c);
			free(c);
			goto fail;
		}
		if (sum_strs_add(cols, c, 0) == -1) {
			free(c);
			goto oom;
		}
		for (i = 0; c[i] != '\0'; i++)
			c[i] = (char)tolower((unsigned char)c[i]);
		if (sum_strs_find(&lower, c) != -1) {
			*err = sum_printf("Partition column '%s' is duplicated",
			    cols->v[cols->n - 1]);
			free(c);
			goto fail;
		}
		i = (size_t)sum_strs_add(&lower, c, 0);
		free(c);
		if (i == (size_t)-1)
			goto oom;
	}
	sum_strs_free(&lower);
	return 0;
oom:
	*err = strdup("out of memory");
fail:
	sum_strs_free(&lower);
	return -1;
}

static int
sqsrc_intersect(struct sqgen_run *r, struct sum_msg ii, struct pbbuf *w,
    char **err)
{
	struct sum_strs cols = { NULL, 0 };
	struct sum_it it;
	struct pb_field f;
	size_t i, k, n = 0;

	if (sum_bytes(ii, 1).n == 0) {
		*err = strdup("IntervalIntersect must specify a base query");
		return -1;
	}
	if (!sum_has(ii, 2)) {
		*err = strdup("IntervalIntersect must specify at least one "
		    "interval query");
		return -1;
	}
	sqgen_module(r, "intervals.intersect");
	if (sqsrc_partitions(ii, 3, &cols, err) == -1)
		return -1;
	sb_printf(w, "(WITH iibase AS (SELECT * FROM %s)",
	    sqgen_nested(r, sum_bytes(ii, 1)));
	sum_it_init(&it, ii, 2);
	while (sum_it_next(&it, &f))
		sb_printf(w, ", iisource%zu AS (SELECT * FROM %s)", n++,
		    sqgen_nested(r, sum_field_msg(&f)));
	sb_add(w, "\nSELECT ii.ts, ii.dur");
	for (i = 0; i < cols.n; i++)
		sb_printf(w, ", ii.%s", cols.v[i]);
	sb_add(w, ", base_0.id AS id_0, base_0.ts AS ts_0, base_0.dur AS "
	    "dur_0, base_0.*");
	for (k = 1; k <= n; k++)
		sb_printf(w, ", source_%zu.id AS id_%zu, source_%zu.ts AS "
		    "ts_%zu, source_%zu.dur AS dur_%zu, source_%zu.*", k, k, k,
		    k, k, k, k);
	sb_add(w, "\nFROM _interval_intersect!((iibase");
	for (k = 0; k < n; k++)
		sb_printf(w, ", iisource%zu", k);
	sb_add(w, "), (");
	for (i = 0; i < cols.n; i++)
		sb_printf(w, "%s%s", i > 0 ? ", " : "", cols.v[i]);
	sb_add(w, ")) ii\nJOIN iibase AS base_0 ON ii.id_0 = base_0.id");
	for (k = 1; k <= n; k++)
		sb_printf(w, "\nJOIN iisource%zu AS source_%zu ON ii.id_%zu = "
		    "source_%zu.id", k - 1, k, k, k);
	sb_add(w, ")");
	sum_strs_free(&cols);
	return 0;
}

static int
sqsrc_time_range(struct sum_msg t, struct pbbuf *w, char **err)
{
	uint64_t mode = sum_uint(t, 1);
	int has_ts = sum_has(t, 2), has_dur = sum_has(t, 3);

	if (!sum_has(t, 1)) {
		*err = strdup("ExperimentalTimeRange: mode field is required");
		return -1;
	}
	if (mode > 1) {
		*err = strdup("ExperimentalTimeRange: unknown mode value");
		return -1;
	}
	if (mode == 0 && (!has_ts || !has_dur)) {
		*err = sum_printf("ExperimentalTimeRange: %s is required for "
		    "STATIC mode", has_ts ? "dur" : "ts");
		return -1;
	}
	sb_add(w, "(SELECT 0 AS id, ");
	if (has_ts)
		sb_printf(w, "%" PRId64, (int64_t)sum_uint(t, 2));
	else
		sb_add(w, "trace_start()");
	sb_add(w, " AS ts, ");
	if (has_dur)
		sb_printf(w, "%" PRId64, (int64_t)sum_uint(t, 3));
	else
		sb_add(w, "trace_dur()");
	sb_add(w, " AS dur)");
	return 0;
}

static int
sqsrc_filter_in(struct sqgen_run *r, struct sum_msg m, struct pbbuf *w,
    char **err)
{
	static const char *const need[] = { "base query", "match_values query",
	    "base_column", "match_column" };
	const char *base, *match;
	uint32_t i;

	for (i = 1; i <= 4; i++)
		if (sum_bytes(m, i).n == 0) {
			*err = sum_printf("FilterIn must specify a %s",
			    need[i - 1]);
			return -1;
		}
	base = sqgen_nested(r, sum_bytes(m, 1));
	sb_printf(w, "(SELECT base.* FROM %s AS base WHERE base.%.*s IN ",
	    base, SQ_ARG(sum_bytes(m, 3)));
	match = sqgen_nested(r, sum_bytes(m, 2));
	sb_printf(w, "(SELECT %.*s FROM %s))", SQ_ARG(sum_bytes(m, 4)), match);
	return 0;
}

static int
sqsrc_counter_intervals(struct sqgen_run *r, struct sum_msg m,
    struct pbbuf *w, char **err)
{
	if (!sum_has(m, 1)) {
		*err = strdup("CounterIntervals must specify an input_query");
		return -1;
	}
	sqgen_module(r, "counters.intervals");
	sb_printf(w, "(SELECT * FROM counter_leading_intervals!(%s))",
	    sqgen_nested(r, sum_bytes(m, 1)));
	return 0;
}

static int
sqsrc_create_slices(struct sqgen_run *r, struct sum_msg m, struct pbbuf *w,
    char **err)
{
	struct sum_msg sc = sum_bytes(m, 3), ec = sum_bytes(m, 4);
	char *starts, *ends;

	if (!sum_has(m, 1) || !sum_has(m, 2)) {
		*err = sum_printf("CreateSlices must specify a%s",
		    !sum_has(m, 1) ? " starts_query" : "n ends_query");
		return -1;
	}
	starts = strdup(sqgen_nested(r, sum_bytes(m, 1)));
	ends = strdup(sqgen_nested(r, sum_bytes(m, 2)));
	sqgen_module(r, "intervals.create_intervals");
	sb_printf(w, "(SELECT * FROM _interval_create!((SELECT %.*s AS ts "
	    "FROM %s), (SELECT %.*s AS ts FROM %s)))",
	    sc.n ? (int)sc.n : 2, sc.n ? (const char *)sc.p : "ts",
	    starts ? starts : "", ec.n ? (int)ec.n : 2,
	    ec.n ? (const char *)ec.p : "ts", ends ? ends : "");
	free(starts);
	free(ends);
	return 0;
}

/* An equality or freeform condition (ExperimentalJoin's messages). */
static int
sqsrc_condition(struct sum_msg m, const char *who, struct sum_msg *l,
    struct sum_msg *rr, struct sum_msg *expr, int *freeform, char **err)
{
	struct sum_msg c;

	if (sum_has(m, 4)) {
		c = sum_bytes(m, 4);
		if (!sum_has(c, 1) || !sum_has(c, 2)) {
			*err = sum_printf("EqualityColumns must specify a %s "
			    "column", !sum_has(c, 1) ? "left" : "right");
			return -1;
		}
		*l = sum_bytes(c, 1);
		*rr = sum_bytes(c, 2);
		*freeform = 0;
		return 0;
	}
	if (!sum_has(m, 5)) {
		*err = sum_printf("%s must specify either equality_columns or "
		    "freeform_condition", who);
		return -1;
	}
	c = sum_bytes(m, 5);
	if (!sum_has(c, 1) || !sum_has(c, 2) || !sum_has(c, 3)) {
		*err = sum_printf("FreeformCondition must specify a %s",
		    !sum_has(c, 1) ? "left query alias" : !sum_has(c, 2) ?
		    "right query alias" : "sql expression");
		return -1;
	}
	*l = sum_bytes(c, 1);
	*rr = sum_bytes(c, 2);
	*expr = sum_bytes(c, 3);
	*freeform = 1;
	return 0;
}

static int
sqsrc_join(struct sqgen_run *r, struct sum_msg m, struct pbbuf *w,
    char **err)
{
	struct sum_msg l, rr, expr;
	const char *type = sum_uint(m, 1) == 1 ? "LEFT" : "INNER";
	char *lt, *rt;
	int ff;

	if (!sum_has(m, 2) || !sum_has(m, 3)) {
		*err = sum_printf("Join must specify a %s query",
		    !sum_has(m, 2) ? "left" : "right");
		return -1;
	}
	if (!sum_has(m, 4) && !sum_has(m, 5)) {
		*err = strdup("Join must specify either equality_columns or "
		    "freeform_condition");
		return -1;
	}
	lt = strdup(sqgen_nested(r, sum_bytes(m, 2)));
	rt = strdup(sqgen_nested(r, sum_bytes(m, 3)));
	if (lt == NULL || rt == NULL ||
	    sqsrc_condition(m, "Join", &l, &rr, &expr, &ff, err) == -1) {
		if (lt == NULL || rt == NULL)
			*err = strdup("out of memory");
		free(lt);
		free(rt);
		return -1;
	}
	if (ff)
		sb_printf(w, "(SELECT * FROM %s AS %.*s %s JOIN %s AS %.*s ON "
		    "%.*s)", lt, SQ_ARG(l), type, rt, SQ_ARG(rr), SQ_ARG(expr));
	else
		sb_printf(w, "(SELECT * FROM %s %s JOIN %s ON %s.%.*s = "
		    "%s.%.*s)", lt, type, rt, lt, SQ_ARG(l), rt, SQ_ARG(rr));
	free(lt);
	free(rt);
	return 0;
}

static int
sqsrc_add_columns(struct sqgen_run *r, struct sum_msg m, struct pbbuf *w,
    char **err)
{
	struct sum_msg l, rr, expr, c;
	struct sum_it it;
	struct pb_field f;
	struct pbbuf sel;
	char *core, *input, *s;
	int ff;

	if (!sum_has(m, 1) || !sum_has(m, 2)) {
		*err = sum_printf("AddColumns must specify a%s",
		    !sum_has(m, 1) ? " core query" : "n input query");
		return -1;
	}
	if (!sum_has(m, 4) && !sum_has(m, 5)) {
		*err = strdup("AddColumns must specify either equality_columns "
		    "or freeform_condition");
		return -1;
	}
	if (!sum_has(m, 3)) {
		*err = strdup("AddColumns must specify at least one input "
		    "column");
		return -1;
	}
	core = strdup(sqgen_nested(r, sum_bytes(m, 1)));
	input = strdup(sqgen_nested(r, sum_bytes(m, 2)));
	pbb_init(&sel);
	sb_add(&sel, "core.*");
	sum_it_init(&it, m, 3);
	while (sum_it_next(&it, &f)) {
		c = sum_field_msg(&f);
		if (!sum_has(c, SEL_EXPR)) {
			*err = strdup("SelectColumn must specify "
			    "column_name_or_expression");
			goto fail;
		}
		if (sum_bytes(c, SEL_EXPR).n == 0) {
			*err = strdup("Input column name cannot be empty");
			goto fail;
		}
		sb_printf(&sel, ", input.%.*s", SQ_ARG(sum_bytes(c,
		    SEL_EXPR)));
		if (sum_bytes(c, SEL_ALIAS).n > 0)
			sb_printf(&sel, " AS %.*s", SQ_ARG(sum_bytes(c,
			    SEL_ALIAS)));
	}
	if (sqsrc_condition(m, "AddColumns", &l, &rr, &expr, &ff, err) == -1)
		goto fail;
	if (ff && (l.n != 4 || memcmp(l.p, "core", 4) != 0)) {
		*err = sum_printf("FreeformCondition left_query_alias must be "
		    "'core', got '%.*s'", SQ_ARG(l));
		goto fail;
	}
	if (ff && (rr.n != 5 || memcmp(rr.p, "input", 5) != 0)) {
		*err = sum_printf("FreeformCondition right_query_alias must be "
		    "'input', got '%.*s'", SQ_ARG(rr));
		goto fail;
	}
	if ((s = sb_take(&sel)) == NULL || core == NULL || input == NULL) {
		free(s);
		*err = strdup("out of memory");
		goto fail;
	}
	sb_printf(w, "(SELECT %s FROM %s AS core LEFT JOIN %s AS input ON ", s,
	    core, input);
	if (ff)
		sb_printf(w, "%.*s)", SQ_ARG(expr));
	else
		sb_printf(w, "core.%.*s = input.%.*s)", SQ_ARG(l), SQ_ARG(rr));
	free(s);
	free(core);
	free(input);
	return 0;
fail:
	pbb_free(&sel);
	free(core);
	free(input);
	return -1;
}

/* The column names a union member selects (aliases first). */
static void
sqsrc_union_cols(struct sum_msg q, struct sum_strs *cols)
{
	struct sum_it it;
	struct pb_field f;
	struct sum_msg c, n;
	char *s;

	sum_it_init(&it, q, SQ_SELECT_COLUMNS);
	while (sum_it_next(&it, &f)) {
		c = sum_field_msg(&f);
		n = sum_has(c, SEL_ALIAS) ? sum_bytes(c, SEL_ALIAS) :
		    sum_has(c, SEL_EXPR) ? sum_bytes(c, SEL_EXPR) :
		    sum_bytes(c, SEL_NAME);
		if (n.n == 0 || (s = strndup((const char *)n.p, n.n)) == NULL)
			continue;
		(void)sum_strs_add(cols, s, 0);
		free(s);
	}
}

static int
sqsrc_same_set(const struct sum_strs *a, const struct sum_strs *b)
{
	size_t i;

	for (i = 0; i < a->n; i++)
		if (sum_strs_find(b, a->v[i]) == -1)
			return 0;
	for (i = 0; i < b->n; i++)
		if (sum_strs_find(a, b->v[i]) == -1)
			return 0;
	return 1;
}

static int
sqsrc_union(struct sqgen_run *r, struct sum_msg m, struct pbbuf *w,
    char **err)
{
	struct sum_strs first = { NULL, 0 }, cols;
	struct sum_it it;
	struct pb_field f;
	size_t n = 0, k;
	const char *kw = sum_uint(m, 2) ? "UNION ALL" : "UNION";

	if (!sum_has(m, 1)) {
		*err = strdup("Union must specify at least one query");
		return -1;
	}
	sum_it_init(&it, m, 1);
	while (sum_it_next(&it, &f)) {
		memset(&cols, 0, sizeof(cols));
		sqsrc_union_cols(sum_field_msg(&f), &cols);
		if (n == 0)
			first = cols;
		else if (first.n > 0 && cols.n > 0 && (cols.n != first.n ||
		    !sqsrc_same_set(&first, &cols))) {
			*err = sum_printf("Union queries have different column "
			    "%s (query %zu vs query 0)", cols.n != first.n ?
			    "counts" : "sets", n);
			sum_strs_free(&cols);
			sum_strs_free(&first);
			return -1;
		}
		if (n > 0)
			sum_strs_free(&cols);
		n++;
	}
	sum_strs_free(&first);
	if (n < 2) {
		*err = strdup("Union must specify at least two queries");
		return -1;
	}
	sb_add(w, "(\n  WITH ");
	sum_it_init(&it, m, 1);
	for (k = 0; sum_it_next(&it, &f); k++)
		sb_printf(w, "%sunion_query_%zu AS (\n  SELECT *\n  FROM %s)",
		    k > 0 ? ", " : "", k, sqgen_nested(r, sum_field_msg(&f)));
	sb_add(w, "\n  SELECT *\n  FROM union_query_0");
	for (k = 1; k < n; k++)
		sb_printf(w, "\n  %s\n  SELECT *\n  FROM union_query_%zu", kw,
		    k);
	sb_add(w, ")");
	return 0;
}

static int
sqsrc_filter_to_intervals(struct sqgen_run *r, struct sum_msg m,
    struct pbbuf *w, char **err)
{
	struct sum_strs cols = { NULL, 0 }, sel = { NULL, 0 };
	struct sum_it it;
	struct pb_field f;
	char *base, *ivs, *s;
	size_t i;
	int clip = sum_has(m, 4) ? sum_uint(m, 4) != 0 : 1;

	if (sum_bytes(m, 1).n == 0 || sum_bytes(m, 2).n == 0) {
		*err = sum_printf("FilterToIntervals must specify a%s query",
		    sum_bytes(m, 1).n == 0 ? " base" : "n intervals");
		return -1;
	}
	sqgen_module(r, "intervals.intersect");
	sqgen_module(r, "intervals.overlap");
	if (sqsrc_partitions(m, 3, &cols, err) == -1)
		return -1;
	sum_it_init(&it, m, 5);
	while (sum_it_next(&it, &f))
		if ((s = sum_field_str(&f)) != NULL) {
			(void)sum_strs_add(&sel, s, 0);
			free(s);
		}
	base = strdup(sqgen_nested(r, sum_bytes(m, 1)));
	ivs = strdup(sqgen_nested(r, sum_bytes(m, 2)));
	sb_printf(w, "(WITH fti_base AS (SELECT * FROM %s),\nfti_intervals_raw "
	    "AS (SELECT * FROM %s),\nfti_intervals AS (\n  SELECT\n    "
	    "ROW_NUMBER() OVER (ORDER BY ts) AS id,\n    ts,\n    dur",
	    base ? base : "", ivs ? ivs : "");
	if (cols.n == 0)
		sb_add(w, "\n  FROM interval_merge_overlapping!("
		    "fti_intervals_raw, 0)\n)");
	else {
		for (i = 0; i < cols.n; i++)
			sb_printf(w, ",\n    %s", cols.v[i]);
		sb_printf(w, "\n  FROM interval_merge_overlapping_partitioned!("
		    "fti_intervals_raw, (%s))\n)", cols.v[0]);
	}
	sb_add(w, "\nSELECT ");
	if (sel.n == 0)
		sb_add(w, clip ? "ii.ts, ii.dur, base_0.*" : "base_0.*");
	else if (clip) {
		sb_add(w, "ii.ts, ii.dur");
		for (i = 0; i < sel.n; i++)
			if (strcasecmp(sel.v[i], "ts") != 0 &&
			    strcasecmp(sel.v[i], "dur") != 0)
				sb_printf(w, ", base_0.%s", sel.v[i]);
		for (i = 0; i < sel.n; i++)
			if (strcasecmp(sel.v[i], "ts") == 0)
				sb_add(w, ", base_0.ts AS original_ts");
			else if (strcasecmp(sel.v[i], "dur") == 0)
				sb_add(w, ", base_0.dur AS original_dur");
	} else
		for (i = 0; i < sel.n; i++)
			sb_printf(w, "%sbase_0.%s", i > 0 ? ", " : "",
			    sel.v[i]);
	sb_add(w, "\nFROM _interval_intersect!((fti_base, fti_intervals), (");
	for (i = 0; i < cols.n; i++)
		sb_printf(w, "%s%s", i > 0 ? ", " : "", cols.v[i]);
	sb_add(w, ")) ii\nJOIN fti_base AS base_0 ON ii.id_0 = base_0.id)");
	free(base);
	free(ivs);
	sum_strs_free(&cols);
	sum_strs_free(&sel);
	return 0;
}

int
sqsrc_build(struct sqgen_run *r, struct sum_msg q, struct pbbuf *w,
    char **err)
{
	const char *t;
	char *id;

	if (sum_has(q, SQ_TABLE))
		return sqsrc_table(r, sum_bytes(q, SQ_TABLE), w, err);
	if (sum_has(q, SQ_TIME_RANGE))
		return sqsrc_time_range(sum_bytes(q, SQ_TIME_RANGE), w, err);
	if (sum_has(q, SQ_SIMPLE_SLICES)) {
		sqsrc_slices(r, sum_bytes(q, SQ_SIMPLE_SLICES), w);
		return 0;
	}
	if (sum_has(q, SQ_INTERVAL_INTERSECT))
		return sqsrc_intersect(r, sum_bytes(q, SQ_INTERVAL_INTERSECT),
		    w, err);
	if (sum_has(q, SQ_FILTER_TO_INTERVALS))
		return sqsrc_filter_to_intervals(r, sum_bytes(q,
		    SQ_FILTER_TO_INTERVALS), w, err);
	if (sum_has(q, SQ_JOIN))
		return sqsrc_join(r, sum_bytes(q, SQ_JOIN), w, err);
	if (sum_has(q, SQ_UNION))
		return sqsrc_union(r, sum_bytes(q, SQ_UNION), w, err);
	if (sum_has(q, SQ_ADD_COLUMNS))
		return sqsrc_add_columns(r, sum_bytes(q, SQ_ADD_COLUMNS), w,
		    err);
	if (sum_has(q, SQ_CREATE_SLICES))
		return sqsrc_create_slices(r, sum_bytes(q, SQ_CREATE_SLICES),
		    w, err);
	if (sum_has(q, SQ_COUNTER_INTERVALS))
		return sqsrc_counter_intervals(r, sum_bytes(q,
		    SQ_COUNTER_INTERVALS), w, err);
	if (sum_has(q, SQ_FILTER_IN))
		return sqsrc_filter_in(r, sum_bytes(q, SQ_FILTER_IN), w, err);
	if (sum_has(q, SQ_SQL))
		return sqsrc_sql(r, sum_bytes(q, SQ_SQL), w, err);
	if (sum_has(q, SQ_INNER_QUERY)) {
		sb_add(w, sqgen_nested(r, sum_bytes(q, SQ_INNER_QUERY)));
		return 0;
	}
	if (sum_has(q, SQ_INNER_QUERY_ID)) {
		if ((id = sum_str(q, SQ_INNER_QUERY_ID)) == NULL) {
			*err = strdup("out of memory");
			return -1;
		}
		t = sqgen_shared_id(r, id, err);
		free(id);
		if (t == NULL)
			return -1;
		sb_add(w, t);
		return 0;
	}
	*err = strdup("Query must specify a source");
	return -1;
}
