/*
 * Scans over a graph (the graphs.scan module): values flow from start
 * nodes along the edges, a query computing each node's values from what
 * reaches it.
 *
 *   __intrinsic_graph_scan(edges, inits, step, columns, aggregating)
 *       -> (c0, c1, ... c7): c0 the node id, then the scan columns
 *
 * edges: rows (source, dest) from __intrinsic_int_rows; inits: rows (id,
 * values...) from __intrinsic_value_rows; step: the text of a query that
 * reads the rows reaching some nodes from the table "$table" (columns id
 * and the scan columns) and returns rows (id, values...); columns: the
 * scan column names, "(a, b)". Every row returned (the inits included) is
 * part of the result and is copied along each edge leaving its node.
 *
 * Plain (aggregating = 0): the step query runs on the rows sent in the
 * last round until none are sent, so a node gets one run per path to it;
 * a loop in the graph is an error once the rounds outnumber the nodes.
 * Aggregating: a node is run once, after every node that can reach it:
 * nodes are taken by their height (longest path to a node without edges)
 * from the greatest down, so the query sees all a node's inputs together
 * (and should group by id). A loop among the nodes reached is an error.
 *
 * "$table" is replaced by a subquery over __intrinsic_graph_scan_rows(h),
 * a table function returning the rows of the running scan numbered h.
 */
#include "config.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "ops_int.h"
#include "ops_graph.h"

#define SCAN_COLS	8		/* id and up to 7 scan columns */
#define VROWS_MAGIC	0x31525646u	/* "FVR1" */
/* Most values held by one scan (result and rows in flight together). */
#define SCAN_MAX_VALUES	((size_t)1 << 23)

/* One SQL value owned by the scan. */
struct sval {
	int		 type;		/* SQLITE_INTEGER, _FLOAT, _TEXT, _NULL */
	int		 len;		/* of s */
	union {
		int64_t	 i;
		double	 d;
		char	*s;
	};
};

/* Rows of ncols values. */
struct srows {
	struct sval	*v;
	size_t		 n, ncols, cap;
};

/* The scans running on a connection, for __intrinsic_graph_scan_rows. */
struct scan_live {
	int64_t		  handle;
	const struct srows *rows;
	struct scan_live *next;
};
struct scan_reg {
	struct scan_live *live;
	int64_t		  next_handle;
};

static void
srows_free(struct srows *r)
{
	size_t	 i;

	for (i = 0; i < r->n * r->ncols; i++)
		if (r->v[i].type == SQLITE_TEXT)
			free(r->v[i].s);
	free(r->v);
	r->v = NULL;
	r->n = r->cap = 0;
}

/* Room for one more row; returns it (zeroed as NULLs) or NULL. */
static struct sval *
srows_add(struct srows *r, size_t *budget, char **err)
{
	struct sval	*nv, *row;
	size_t		 ncap, i;

	if (*budget < r->ncols) {
		ops_seterr(err, "more than %llu values in flight",
		    (unsigned long long)SCAN_MAX_VALUES);
		return NULL;
	}
	if ((r->n + 1) * r->ncols > r->cap) {
		ncap = r->cap ? r->cap * 2 : 64 * r->ncols;
		if ((nv = realloc(r->v, ncap * sizeof(*nv))) == NULL) {
			ops_seterr(err, "out of memory");
			return NULL;
		}
		r->v = nv;
		r->cap = ncap;
	}
	*budget -= r->ncols;
	row = r->v + r->n++ * r->ncols;
	for (i = 0; i < r->ncols; i++) {
		memset(&row[i], 0, sizeof(row[i]));
		row[i].type = SQLITE_NULL;
	}
	return row;
}

static int
sval_copy(struct sval *dst, const struct sval *src, char **err)
{
	*dst = *src;
	if (src->type != SQLITE_TEXT)
		return 0;
	if ((dst->s = malloc((size_t)src->len + 1)) == NULL) {
		dst->type = SQLITE_NULL;
		ops_seterr(err, "out of memory");
		return -1;
	}
	memcpy(dst->s, src->s, (size_t)src->len + 1);
	return 0;
}

static int
sval_from(struct sval *dst, sqlite3_value *v, char **err)
{
	const unsigned char *t;

	memset(dst, 0, sizeof(*dst));
	switch ((dst->type = sqlite3_value_type(v))) {
	case SQLITE_INTEGER:
		dst->i = sqlite3_value_int64(v);
		return 0;
	case SQLITE_FLOAT:
		dst->d = sqlite3_value_double(v);
		return 0;
	case SQLITE_NULL:
		return 0;
	case SQLITE_TEXT:
		t = sqlite3_value_text(v);
		dst->len = sqlite3_value_bytes(v);
		if ((dst->s = malloc((size_t)dst->len + 1)) == NULL) {
			dst->type = SQLITE_NULL;
			ops_seterr(err, "out of memory");
			return -1;
		}
		memcpy(dst->s, t, (size_t)dst->len);
		dst->s[dst->len] = '\0';
		return 0;
	default:
		dst->type = SQLITE_NULL;
		ops_seterr(err, "BLOB values cannot be scanned");
		return -1;
	}
}

static void
sval_result(sqlite3_context *ctx, const struct sval *v)
{
	switch (v->type) {
	case SQLITE_INTEGER:
		sqlite3_result_int64(ctx, v->i);
		break;
	case SQLITE_FLOAT:
		sqlite3_result_double(ctx, v->d);
		break;
	case SQLITE_TEXT:
		sqlite3_result_text(ctx, v->s, v->len, SQLITE_TRANSIENT);
		break;
	default:
		sqlite3_result_null(ctx);
	}
}

/* ---- __intrinsic_value_rows: rows of any values packed in a BLOB ---- */

struct vrows_agg {
	struct srows	 rows;
	size_t		 budget;
	size_t		 bytes;		/* packed size */
	int		 failed;
};

static void
vrows_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct vrows_agg *a;
	struct sval	*row;
	char		*err = NULL, *msg;
	int		 i;

	if ((a = sqlite3_aggregate_context(ctx, sizeof(*a))) == NULL) {
		sqlite3_result_error_nomem(ctx);
		return;
	}
	if (a->failed)
		return;
	if (a->rows.ncols == 0) {
		if (argc < 1 || argc > SCAN_COLS) {
			sqlite3_result_error(ctx, "__intrinsic_value_rows: "
			    "1 to 8 columns", -1);
			a->failed = 1;
			return;
		}
		a->rows.ncols = (size_t)argc;
		a->budget = SCAN_MAX_VALUES;
	}
	if ((row = srows_add(&a->rows, &a->budget, &err)) == NULL)
		goto fail;
	for (i = 0; i < argc; i++) {
		if (sval_from(&row[i], argv[i], &err) == -1)
			goto fail;
		a->bytes += 1 + (row[i].type == SQLITE_TEXT ?
		    4 + (size_t)row[i].len : row[i].type == SQLITE_NULL ? 0 : 8);
	}
	return;
fail:
	msg = sqlite3_mprintf("graph scan: %s", err != NULL ? err : "failed");
	sqlite3_result_error(ctx, msg != NULL ? msg : "graph scan: failed", -1);
	sqlite3_free(msg);
	sqlite3_free(err);
	a->failed = 1;
}

static void
vrows_final(sqlite3_context *ctx)
{
	struct vrows_agg *a;
	unsigned char	*b, *p;
	uint32_t	 h[2], len;
	size_t		 i;
	const struct sval *v;

	a = sqlite3_aggregate_context(ctx, 0);
	if (a == NULL || a->failed || a->rows.n == 0) {
		if (a == NULL || !a->failed)
			sqlite3_result_zeroblob(ctx, 0);
		if (a != NULL)
			srows_free(&a->rows);
		return;
	}
	if ((b = sqlite3_malloc64(sizeof(h) + a->bytes)) == NULL) {
		srows_free(&a->rows);
		sqlite3_result_error_nomem(ctx);
		return;
	}
	h[0] = VROWS_MAGIC;
	h[1] = (uint32_t)a->rows.ncols;
	memcpy(b, h, sizeof(h));
	p = b + sizeof(h);
	for (i = 0; i < a->rows.n * a->rows.ncols; i++) {
		v = &a->rows.v[i];
		*p++ = (unsigned char)v->type;
		if (v->type == SQLITE_INTEGER) {
			memcpy(p, &v->i, 8);
			p += 8;
		} else if (v->type == SQLITE_FLOAT) {
			memcpy(p, &v->d, 8);
			p += 8;
		} else if (v->type == SQLITE_TEXT) {
			len = (uint32_t)v->len;
			memcpy(p, &len, 4);
			memcpy(p + 4, v->s, len);
			p += 4 + len;
		}
	}
	srows_free(&a->rows);
	sqlite3_result_blob64(ctx, b, sizeof(h) + a->bytes, sqlite3_free);
}

/* Unpacks a BLOB of __intrinsic_value_rows; NULL or empty: no rows. */
static int
vrows_decode(sqlite3_value *bv, struct srows *out, size_t *budget,
    char **err)
{
	const unsigned char *p, *end;
	struct sval	*row;
	uint32_t	 h[2], len;
	size_t		 i;

	out->ncols = 0;
	if (sqlite3_value_type(bv) == SQLITE_NULL ||
	    (sqlite3_value_type(bv) == SQLITE_BLOB &&
	    sqlite3_value_bytes(bv) == 0))
		return 0;
	if (sqlite3_value_type(bv) != SQLITE_BLOB ||
	    (size_t)sqlite3_value_bytes(bv) < sizeof(h))
		goto bad;
	p = sqlite3_value_blob(bv);
	end = p + sqlite3_value_bytes(bv);
	memcpy(h, p, sizeof(h));
	p += sizeof(h);
	if (h[0] != VROWS_MAGIC || h[1] < 1 || h[1] > SCAN_COLS)
		goto bad;
	out->ncols = h[1];
	while (p < end) {
		if ((row = srows_add(out, budget, err)) == NULL)
			return -1;
		for (i = 0; i < out->ncols; i++) {
			if (p >= end)
				goto bad;
			row[i].type = *p++;
			switch (row[i].type) {
			case SQLITE_INTEGER:
			case SQLITE_FLOAT:
				if (end - p < 8)
					goto bad;
				memcpy(row[i].type == SQLITE_INTEGER ?
				    (void *)&row[i].i : (void *)&row[i].d, p,
				    8);
				p += 8;
				break;
			case SQLITE_NULL:
				break;
			case SQLITE_TEXT:
				if (end - p < 4)
					goto bad;
				memcpy(&len, p, 4);
				p += 4;
				if ((size_t)(end - p) < len || len > INT32_MAX)
					goto bad;
				if ((row[i].s = malloc((size_t)len + 1)) ==
				    NULL) {
					row[i].type = SQLITE_NULL;
					ops_seterr(err, "out of memory");
					return -1;
				}
				memcpy(row[i].s, p, len);
				row[i].s[len] = '\0';
				row[i].len = (int)len;
				p += len;
				break;
			default:
				row[i].type = SQLITE_NULL;
				goto bad;
			}
		}
	}
	return 0;
bad:
	ops_seterr(err, "start rows must come from __intrinsic_value_rows");
	return -1;
}

/* ---- __intrinsic_graph_scan_rows(h): the rows a step query reads ---- */

static const char *const scan_cols[SCAN_COLS + 1] = {
	"c0", "c1", "c2", "c3", "c4", "c5", "c6", "c7", NULL
};

/* A cell of rows (an struct srows, owned or not). */
static void
srows_cell(const void *res, size_t row, size_t col, sqlite3_context *ctx)
{
	const struct srows *r = res;

	if (row < r->n && col < r->ncols)
		sval_result(ctx, &r->v[row * r->ncols + col]);
}

/* The rows of running scan h, borrowed from it. */
static int
rows_run(void *aux, sqlite3 *db, sqlite3_value **argv, void **res,
    size_t *nrows, char **err)
{
	struct scan_reg	*reg = aux;
	struct scan_live *l;
	int64_t		 h;

	(void)db;
	if (sqlite3_value_type(argv[0]) == SQLITE_INTEGER) {
		h = sqlite3_value_int64(argv[0]);
		for (l = reg->live; l != NULL; l = l->next)
			if (l->handle == h) {
				*res = (void *)(uintptr_t)l->rows;
				*nrows = l->rows->n;
				return 0;
			}
	}
	ops_seterr(err, "no running scan with that handle");
	return -1;
}

static const char *const rows_args[] = { "handle", NULL };
static const struct ops_rowfn rows_fn = {
	.name = "__intrinsic_graph_scan_rows",
	.cols = scan_cols,
	.args = rows_args,
	.run_values = rows_run,
	.cell = srows_cell,
};

/* ---- the scan ---- */

struct scan {
	sqlite3		*db;
	struct scan_reg	*reg;
	struct ops_graph g;
	size_t		 ncols;
	size_t		 budget;
	sqlite3_stmt	*step;
	struct scan_live live;
	struct srows	*out;
	uint32_t	*height;	/* aggregating: by dense node */
	struct srows	*by_height;	/* aggregating: rows waiting */
	uint32_t	 max_height;
};

/* Parses "(a, b)" into the step statement's text around "$table". */
static int
scan_prepare(struct scan *s, const char *step, const char *cols, char **err)
{
	sqlite3_str	*sub, *q;
	const char	*p, *at;
	size_t		 n = 0, len;
	int		 rc;

	sub = sqlite3_str_new(s->db);
	sqlite3_str_appendall(sub, "(SELECT c0 AS id");
	for (p = cols; isspace((unsigned char)*p) || *p == '('; p++)
		;
	for (;;) {
		for (len = 0; isalnum((unsigned char)p[len]) || p[len] == '_';
		    len++)
			;
		if (len == 0 || ++n >= SCAN_COLS)
			break;
		sqlite3_str_appendf(sub, ", c%u AS \"%.*w\"", (unsigned)n,
		    (int)len, p);
		for (p += len; isspace((unsigned char)*p); p++)
			;
		if (*p != ',')
			break;
		for (p++; isspace((unsigned char)*p); p++)
			;
	}
	while (isspace((unsigned char)*p) || *p == ')')
		p++;
	if (*p != '\0' || n == 0 || n >= SCAN_COLS) {
		sqlite3_free(sqlite3_str_finish(sub));
		ops_seterr(err, "columns must be a list of 1 to %d names, "
		    "not '%s'", SCAN_COLS - 1, cols);
		return -1;
	}
	s->ncols = n + 1;
	sqlite3_str_appendf(sub, " FROM __intrinsic_graph_scan_rows(%lld))",
	    (long long)s->live.handle);

	q = sqlite3_str_new(s->db);
	sqlite3_str_appendall(q, "SELECT * FROM ");
	for (p = step; (at = strstr(p, "$table")) != NULL; p = at + 6) {
		sqlite3_str_append(q, p, (int)(at - p));
		sqlite3_str_appendall(q, sqlite3_str_value(sub));
	}
	sqlite3_str_appendall(q, p);
	sqlite3_free(sqlite3_str_finish(sub));
	rc = sqlite3_prepare_v2(s->db, sqlite3_str_value(q), -1, &s->step,
	    NULL);
	sqlite3_free(sqlite3_str_finish(q));
	if (rc != SQLITE_OK) {
		ops_seterr(err, "step query: %s", sqlite3_errmsg(s->db));
		return -1;
	}
	if ((size_t)sqlite3_column_count(s->step) != s->ncols) {
		ops_seterr(err, "step query must return id and the %u scan "
		    "columns", (unsigned)(s->ncols - 1));
		return -1;
	}
	return 0;
}

/* Where rows leaving node id go: the rows of round or of height. */
static struct srows *
scan_dest(struct scan *s, struct srows *next, uint32_t d)
{
	return s->by_height != NULL ? &s->by_height[s->height[d]] : next;
}

/* Keeps row as a result and sends a copy along each edge leaving it. */
static int
scan_emit(struct scan *s, const struct sval *row, struct srows *next,
    char **err)
{
	struct sval	*o;
	struct srows	*to;
	int64_t		 n;
	size_t		 i, k;

	if (row[0].type != SQLITE_INTEGER) {
		ops_seterr(err, "step query returned a non-integer id");
		return -1;
	}
	if ((o = srows_add(s->out, &s->budget, err)) == NULL)
		return -1;
	for (i = 0; i < s->ncols; i++)
		if (sval_copy(&o[i], &row[i], err) == -1)
			return -1;
	if ((n = ops_graph_find(&s->g, row[0].i)) == -1)
		return 0;
	for (k = s->g.off[n]; k < s->g.off[n + 1]; k++) {
		to = scan_dest(s, next, s->g.adj[k]);
		if ((o = srows_add(to, &s->budget, err)) == NULL)
			return -1;
		o[0].type = SQLITE_INTEGER;
		o[0].i = s->g.ids[s->g.adj[k]];
		for (i = 1; i < s->ncols; i++)
			if (sval_copy(&o[i], &row[i], err) == -1)
				return -1;
	}
	return 0;
}

/* Runs the step query over in; its rows are emitted into next. */
static int
scan_run_step(struct scan *s, const struct srows *in, struct srows *next,
    char **err)
{
	struct sval	 row[SCAN_COLS];
	size_t		 i;
	int		 rc;

	s->live.rows = in;
	sqlite3_reset(s->step);
	while ((rc = sqlite3_step(s->step)) == SQLITE_ROW) {
		for (i = 0; i < s->ncols; i++)
			if (sval_from(&row[i], sqlite3_column_value(s->step,
			    (int)i), err) == -1)
				break;
		rc = i == s->ncols ? scan_emit(s, row, next, err) : -1;
		while (i > 0)
			if (row[--i].type == SQLITE_TEXT)
				free(row[i].s);
		if (rc == -1)
			return -1;
	}
	if (rc != SQLITE_DONE) {
		ops_seterr(err, "step query: %s", sqlite3_errmsg(s->db));
		return -1;
	}
	sqlite3_reset(s->step);
	return 0;
}

/*
 * Heights of the nodes reachable from the inits: 0 without out-edges,
 * else one more than the greatest of its successors. Iterative: a node
 * is entered (state 1) and finished (2) after all its successors.
 */
static int
scan_heights(struct scan *s, const struct srows *inits, char **err)
{
	unsigned char	*state;
	uint32_t	*stack, v, d;
	size_t		 sp = 0, i, k, cap;
	int64_t		 n;

	cap = s->g.m + inits->n + 1;
	state = calloc(s->g.n + 1, 1);
	stack = malloc(cap * sizeof(*stack));
	s->height = calloc(s->g.n + 1, sizeof(*s->height));
	if (state == NULL || stack == NULL || s->height == NULL) {
		free(state);
		free(stack);
		ops_seterr(err, "out of memory");
		return -1;
	}
	for (i = 0; i < inits->n; i++)
		if ((n = ops_graph_find(&s->g, inits->v[i * inits->ncols].i)) !=
		    -1 && state[n] == 0)
			stack[sp++] = (uint32_t)n;
	while (sp > 0) {
		v = stack[sp - 1];
		if (state[v] == 2) {
			sp--;
			continue;
		}
		if (state[v] == 1) {
			sp--;
			state[v] = 2;
			for (k = s->g.off[v]; k < s->g.off[v + 1]; k++)
				if (s->height[s->g.adj[k]] + 1 > s->height[v])
					s->height[v] = s->height[s->g.adj[k]] +
					    1;
			if (s->height[v] > s->max_height)
				s->max_height = s->height[v];
			continue;
		}
		state[v] = 1;
		for (k = s->g.off[v]; k < s->g.off[v + 1]; k++) {
			d = s->g.adj[k];
			if (state[d] == 1) {
				free(state);
				free(stack);
				ops_seterr(err, "the graph has a loop");
				return -1;
			}
			/* Each edge is pushed at most once per entered node. */
			if (state[d] == 0)
				stack[sp++] = d;
		}
	}
	free(state);
	free(stack);
	return 0;
}

static int
scan_run(struct scan *s, struct srows *inits, int aggregating, char **err)
{
	struct srows	 cur = { 0 }, next = { 0 };
	size_t		 i, rounds = 0, h;
	int		 rc = -1;

	cur.ncols = next.ncols = s->ncols;
	if (aggregating) {
		if (scan_heights(s, inits, err) == -1)
			return -1;
		if ((s->by_height = calloc((size_t)s->max_height + 1,
		    sizeof(*s->by_height))) == NULL) {
			ops_seterr(err, "out of memory");
			return -1;
		}
		for (h = 0; h <= s->max_height; h++)
			s->by_height[h].ncols = s->ncols;
	}
	for (i = 0; i < inits->n; i++)
		if (scan_emit(s, inits->v + i * inits->ncols, &next, err) ==
		    -1)
			goto out;
	if (aggregating) {
		for (h = s->max_height + 1; h-- > 0;) {
			if (s->by_height[h].n == 0)
				continue;
			cur = s->by_height[h];
			memset(&s->by_height[h], 0, sizeof(s->by_height[h]));
			s->by_height[h].ncols = s->ncols;
			if (scan_run_step(s, &cur, NULL, err) == -1)
				goto out;
			s->budget += cur.n * cur.ncols;
			srows_free(&cur);
		}
	} else {
		while (next.n > 0) {
			if (++rounds > s->g.n + 1) {
				ops_seterr(err, "the graph has a loop");
				goto out;
			}
			srows_free(&cur);
			cur = next;
			memset(&next, 0, sizeof(next));
			next.ncols = s->ncols;
			if (scan_run_step(s, &cur, &next, err) == -1)
				goto out;
			s->budget += cur.n * cur.ncols;
		}
	}
	rc = 0;
out:
	srows_free(&cur);
	srows_free(&next);
	return rc;
}

/* ---- __intrinsic_graph_scan: the table function ---- */

enum { ARG_EDGES, ARG_INITS, ARG_STEP, ARG_COLUMNS, ARG_AGG };

static void
scan_fini(struct scan *s)
{
	struct scan_live **l;
	size_t		 h;

	for (l = &s->reg->live; *l != NULL; l = &(*l)->next)
		if (*l == &s->live) {
			*l = s->live.next;
			break;
		}
	sqlite3_finalize(s->step);
	ops_graph_free(&s->g);
	if (s->by_height != NULL)
		for (h = 0; h <= s->max_height; h++)
			srows_free(&s->by_height[h]);
	free(s->by_height);
	free(s->height);
}

static void
srows_drop(void *res)
{
	srows_free(res);
	free(res);
}

/* One scan: its result rows, owned. */
static int
scan_fn_run(void *aux, sqlite3 *db, sqlite3_value **argv, void **res,
    size_t *nrows, char **err)
{
	struct scan_reg	*reg = aux;
	struct scan	 s;
	struct ops_grows e;
	struct srows	 inits = { 0 }, *out;
	int		 rc = -1;

	if ((out = calloc(1, sizeof(*out))) == NULL) {
		ops_seterr(err, "out of memory");
		return -1;
	}
	memset(&s, 0, sizeof(s));
	s.db = db;
	s.reg = reg;
	s.budget = SCAN_MAX_VALUES;
	s.out = out;
	if (sqlite3_value_type(argv[ARG_STEP]) != SQLITE_TEXT ||
	    sqlite3_value_type(argv[ARG_COLUMNS]) != SQLITE_TEXT) {
		ops_seterr(err, "the step query and columns must be text");
		goto out;
	}
	/* Registered first so the step query can find its rows. */
	s.live.handle = ++reg->next_handle;
	s.live.next = reg->live;
	reg->live = &s.live;
	if (scan_prepare(&s, (const char *)sqlite3_value_text(
	    argv[ARG_STEP]), (const char *)sqlite3_value_text(
	    argv[ARG_COLUMNS]), err) == -1)
		goto out;
	out->ncols = s.ncols;
	if (vrows_decode(argv[ARG_INITS], &inits, &s.budget, err) == -1)
		goto out;
	if (inits.n > 0 && inits.ncols != s.ncols) {
		ops_seterr(err, "start rows must have id and the %u scan "
		    "columns", (unsigned)(s.ncols - 1));
		goto out;
	}
	if (ops_grows_decode(argv[ARG_EDGES], 2, &e, err) == -1)
		goto out;
	rc = ops_graph_build(&s.g, &e, 0, NULL, 0, err);
	ops_grows_free(&e);
	if (rc == -1)
		goto out;
	rc = scan_run(&s, &inits, sqlite3_value_int64(argv[ARG_AGG]) != 0,
	    err);
out:
	srows_free(&inits);
	scan_fini(&s);
	if (rc == -1) {
		srows_drop(out);
		return -1;
	}
	*res = out;
	*nrows = out->n;
	return 0;
}

static const char *const scan_args[] = {
	"edges", "inits", "step", "columns", "aggregating", NULL
};
static const struct ops_rowfn scan_fn = {
	.name = "__intrinsic_graph_scan",
	.cols = scan_cols,
	.args = scan_args,
	.runs_sql = 1,			/* the step query */
	.run_values = scan_fn_run,
	.cell = srows_cell,
	.drop = srows_drop,
};

int
ops_graph_scan_register(sqlite3 *db, char **err)
{
	struct scan_reg	*reg;

	if ((reg = sqlite3_malloc(sizeof(*reg))) == NULL) {
		ops_seterr(err, "out of memory");
		return -1;
	}
	memset(reg, 0, sizeof(*reg));
	/* The scan function owns reg (freed with the db); the rows one
	 * borrows it. */
	if (ops_rowfn_register(db, &scan_fn, reg, sqlite3_free, err) == -1 ||
	    ops_rowfn_register(db, &rows_fn, reg, NULL, err) == -1)
		return -1;
	if (sqlite3_create_function_v2(db, "__intrinsic_value_rows", -1,
	    SQLITE_UTF8 | SQLITE_INNOCUOUS, NULL, NULL, vrows_step,
	    vrows_final, NULL) != SQLITE_OK) {
		ops_seterr(err, "graph scan: %s", sqlite3_errmsg(db));
		return -1;
	}
	return 0;
}
