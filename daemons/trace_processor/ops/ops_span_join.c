/*
 * SPAN_JOIN, SPAN_LEFT_JOIN and SPAN_OUTER_JOIN: the intersection in time
 * of the spans (rows with ts and dur) of two tables or views.
 *
 *   CREATE VIRTUAL TABLE sp USING SPAN_JOIN(t1 PARTITIONED cpu,
 *                                           t2 PARTITIONED cpu);
 *
 * Columns: ts, dur, then the partition column (BIGINT) if either side is
 * partitioned, then every other column of t1, then of t2, in table order.
 * A name other than ts, dur and the partition may appear in one table only.
 * A table without dur is read as zero-length spans; one of the two needs it.
 *
 * Within one partition, the spans of one table must not overlap. Each
 * table is then a sequence of segments along time: its real spans, the
 * gaps between them ([0, first ts) before the first, [end, INT64_MAX)
 * after the last), and for a partition the table lacks altogether, one
 * gap covering all time ("missing partition", here a void). SPAN_JOIN
 * emits the intersection of each overlapping pair of real spans;
 * SPAN_LEFT_JOIN also pairs t1's spans with t2's gaps and voids (t2's
 * columns NULL); SPAN_OUTER_JOIN does that both ways. Empty segments are
 * never used. With one side partitioned and the other not ("mixed"), the
 * unpartitioned table is replayed against every partition of the other,
 * and the gaps of the partitioned side are only used inside partitions it
 * has, so an empty partitioned table yields nothing.
 *
 * The join is a sweep: keep one current segment per table, emit when they
 * overlap, then advance the table whose segment ends first (ordering by
 * partition, then end, then gap before real span; on a full tie the second
 * table). Spans are [ts, ts + dur); one with dur = -1 (unfinished) counts
 * as ending at its ts for overlap and ordering, while the emitted dur is
 * computed from the raw ends. Two real spans starting together always
 * overlap, which is how zero-length spans join. Rows with a NULL partition
 * are skipped; a partition that is not an integer is an error.
 *
 * Constraints on columns of a side that emits no gaps are pushed into its
 * query (SQLite checks them again); ts is pushed only as an upper bound.
 * SOURCE_GEQ(col, x) asks for col >= x to be applied to the inputs.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "ops_int.h"

enum sj_kind { SJ_INNER, SJ_LEFT, SJ_OUTER };
enum sj_parting { SJ_PART_NONE, SJ_PART_SAME, SJ_PART_MIXED };
/* Which non-real segments a side contributes. */
enum sj_shadow { SH_NONE, SH_GAPS, SH_ALL };
enum sj_seg { SEG_REAL, SEG_GAP, SEG_VOID, SEG_EOF };

/* Fixed output columns. */
#define COL_TS		0
#define COL_DUR		1
#define COL_PART	2

/* Our constraint op for SOURCE_GEQ(col, value). */
#define OP_SOURCE_GEQ	(SQLITE_INDEX_CONSTRAINT_FUNCTION + 1)

struct sj_side {
	char		*table;		/* as written; may be "fn(args)" */
	char		*part;		/* partition column, NULL if none */
	int		 ncols;
	char		**col;
	int		 ts_idx, dur_idx, part_idx;	/* -1 if absent */
	enum sj_shadow	 shadow;
	int		 void_if_empty;	/* an empty table is one void */
};

/* Where an output column comes from: side < 0 for ts, dur, partition. */
struct sj_out {
	int		 side, idx;
};

struct sj_vtab {
	sqlite3_vtab	 base;
	sqlite3		*db;
	enum sj_kind	 kind;
	enum sj_parting	 parting;
	struct sj_side	 s[2];
	int		 nout;
	struct sj_out	*out;
};

struct sj_stream {
	const struct sj_side *side;
	sqlite3_stmt	*stmt;
	int		 have_row;	/* stmt is on a row */
	enum sj_seg	 kind;
	int64_t		 ts, end;	/* segment [ts, end) */
	int64_t		 part;		/* REAL, GAP */
	int64_t		 void_lo, void_hi;	/* VOID: partitions [lo, hi) */
};

struct sj_cursor {
	sqlite3_vtab_cursor base;
	struct sj_stream s[2];
	struct sj_stream *adv;		/* the one to advance next */
	int64_t		 mixed_part;	/* partition being replayed */
	sqlite3_int64	 rowid;
	char		*plan;		/* idxStr the statements were built for */
};

static int64_t
sat_add(int64_t a, int64_t b)
{
	int64_t	 r;

	if (__builtin_add_overflow(a, b, &r))
		return b > 0 ? INT64_MAX : INT64_MIN;
	return r;
}

static int64_t
sat_sub(int64_t a, int64_t b)
{
	int64_t	 r;

	if (__builtin_sub_overflow(a, b, &r))
		return b < 0 ? INT64_MAX : INT64_MIN;
	return r;
}

/* ---- schema ---------------------------------------------------------- */

static void
side_free(struct sj_side *sd)
{
	int	 i;

	for (i = 0; i < sd->ncols; i++)
		sqlite3_free(sd->col[i]);
	sqlite3_free(sd->col);
	sqlite3_free(sd->table);
	sqlite3_free(sd->part);
	memset(sd, 0, sizeof(*sd));
}

static void
vtab_free(struct sj_vtab *t)
{
	side_free(&t->s[0]);
	side_free(&t->s[1]);
	sqlite3_free(t->out);
	sqlite3_free(t);
}

static int
is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Next whitespace-separated token of *p, copied; NULL at the end. */
static char *
next_token(const char **p)
{
	const char	*s = *p, *e;

	while (is_space(*s))
		s++;
	if (*s == '\0')
		return NULL;
	for (e = s; *e != '\0' && !is_space(*e); e++)
		;
	*p = e;
	return sqlite3_mprintf("%.*s", (int)(e - s), s);
}

/* "table [PARTITIONED column]" */
static int
side_parse(struct sj_side *sd, const char *arg, char **err)
{
	char		*tok;
	const char	*p = arg;

	if ((sd->table = next_token(&p)) == NULL) {
		ops_seterr(err, "SPAN_JOIN: Missing table name");
		return -1;
	}
	/* The name goes into a query as written: one table, nothing more. */
	if (strchr(sd->table, ';') != NULL || strstr(sd->table, "--") != NULL ||
	    strstr(sd->table, "/*") != NULL) {
		ops_seterr(err, "SPAN_JOIN: invalid table name %s", sd->table);
		return -1;
	}
	if ((tok = next_token(&p)) == NULL)
		return 0;
	if (sqlite3_stricmp(tok, "PARTITIONED") != 0) {
		sqlite3_free(tok);
		ops_seterr(err, "SPAN_JOIN: Invalid token");
		return -1;
	}
	sqlite3_free(tok);
	if ((sd->part = next_token(&p)) == NULL) {
		ops_seterr(err, "SPAN_JOIN: Missing partitioning column");
		return -1;
	}
	if ((tok = next_token(&p)) != NULL) {
		sqlite3_free(tok);
		ops_seterr(err, "SPAN_JOIN: Invalid token");
		return -1;
	}
	if (sqlite3_stricmp(sd->part, "ts") == 0 ||
	    sqlite3_stricmp(sd->part, "dur") == 0) {
		ops_seterr(err, "SPAN_JOIN: partition column cannot be any of"
		    " {ts, dur} for table %s", sd->table);
		return -1;
	}
	return 0;
}

/* Reads the columns of a side's table and finds ts, dur and partition. */
static int
side_columns(sqlite3 *db, struct sj_side *sd, char **err)
{
	sqlite3_stmt	*st;
	const char	*name;
	char		**ncol;
	size_t		 len;
	int		 rc, cap = 0;

	if (sqlite3_prepare_v2(db,
	    "SELECT name FROM pragma_table_info(?1)", -1, &st, NULL) !=
	    SQLITE_OK) {
		ops_seterr(err, "SPAN_JOIN: %s", sqlite3_errmsg(db));
		return -1;
	}
	/* A table-valued function is described by its name alone. */
	len = strcspn(sd->table, "(");
	sqlite3_bind_text(st, 1, sd->table, (int)len, SQLITE_STATIC);
	sd->ts_idx = sd->dur_idx = sd->part_idx = -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		name = (const char *)sqlite3_column_text(st, 0);
		if (name == NULL)
			continue;
		if (sd->ncols == cap) {
			cap = cap ? cap * 2 : 8;
			ncol = sqlite3_realloc(sd->col, cap * (int)sizeof(*ncol));
			if (ncol == NULL) {
				rc = SQLITE_NOMEM;
				break;
			}
			sd->col = ncol;
		}
		if ((sd->col[sd->ncols] = sqlite3_mprintf("%s", name)) ==
		    NULL) {
			rc = SQLITE_NOMEM;
			break;
		}
		if (sqlite3_stricmp(name, "ts") == 0)
			sd->ts_idx = sd->ncols;
		else if (sqlite3_stricmp(name, "dur") == 0)
			sd->dur_idx = sd->ncols;
		else if (sd->part != NULL && sqlite3_stricmp(name, sd->part) == 0)
			sd->part_idx = sd->ncols;
		sd->ncols++;
	}
	if (rc != SQLITE_DONE)
		ops_seterr(err, "SPAN_JOIN: %s", rc == SQLITE_NOMEM ?
		    "out of memory" : sqlite3_errmsg(db));
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return -1;
	if (sd->ncols == 0) {
		ops_seterr(err, "SPAN_JOIN: no such table %s", sd->table);
		return -1;
	}
	if (sd->ts_idx < 0) {
		ops_seterr(err, "SPAN_JOIN: Missing ts column in table %s",
		    sd->table);
		return -1;
	}
	if (sd->part != NULL && sd->part_idx < 0) {
		ops_seterr(err, "SPAN_JOIN: Missing partition column '%s' in"
		    " table '%s'", sd->part, sd->table);
		return -1;
	}
	return 0;
}

/* The declared type of a column, normalised like SQLite's affinities. */
static const char *
column_type(sqlite3 *db, const char *table, const char *col)
{
	const char	*decl = NULL;
	char		*tname;
	size_t		 len = strcspn(table, "(");
	sqlite3_stmt	*st;
	const char	*res = "";

	tname = sqlite3_mprintf("%.*s", (int)len, table);
	if (tname != NULL && sqlite3_prepare_v2(db,
	    "SELECT type FROM pragma_table_info(?1) WHERE name = ?2", -1, &st,
	    NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, tname, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, col, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW)
			decl = (const char *)sqlite3_column_text(st, 0);
		if (decl == NULL || *decl == '\0')
			res = "";
		else if (sqlite3_strlike("%INT%", decl, 0) == 0)
			res = " BIGINT";
		else if (sqlite3_strlike("%CHAR%", decl, 0) == 0 ||
		    sqlite3_strlike("%CLOB%", decl, 0) == 0 ||
		    sqlite3_strlike("%TEXT%", decl, 0) == 0 ||
		    sqlite3_strlike("%STRING%", decl, 0) == 0)
			res = " TEXT";
		else if (sqlite3_strlike("%BLOB%", decl, 0) == 0)
			res = " BLOB";
		else if (sqlite3_strlike("%REAL%", decl, 0) == 0 ||
		    sqlite3_strlike("%FLOA%", decl, 0) == 0 ||
		    sqlite3_strlike("%DOUB%", decl, 0) == 0)
			res = " DOUBLE";
		sqlite3_finalize(st);
	}
	sqlite3_free(tname);
	return res;
}

/* Lays out the output columns and declares them to SQLite. */
static int
vtab_declare(struct sj_vtab *t, char **err)
{
	sqlite3_str	*decl;
	const char	*pname, *name;
	int		 i, j, k, n, nfixed, rc;

	nfixed = t->parting == SJ_PART_NONE ? 2 : 3;
	n = nfixed + t->s[0].ncols + t->s[1].ncols;
	if ((t->out = sqlite3_malloc(n * (int)sizeof(*t->out))) == NULL) {
		ops_seterr(err, "out of memory");
		return -1;
	}
	for (i = 0; i < nfixed; i++)
		t->out[i].side = -1;
	t->nout = nfixed;
	for (j = 0; j < 2; j++) {
		for (i = 0; i < t->s[j].ncols; i++) {
			if (i == t->s[j].ts_idx || i == t->s[j].dur_idx ||
			    i == t->s[j].part_idx)
				continue;
			t->out[t->nout].side = j;
			t->out[t->nout].idx = i;
			t->nout++;
		}
	}

	pname = t->s[0].part != NULL ? t->s[0].part : t->s[1].part;
	decl = sqlite3_str_new(t->db);
	sqlite3_str_appendall(decl, "CREATE TABLE x(ts BIGINT, dur BIGINT");
	if (nfixed == 3) {
		sqlite3_str_appendall(decl, ", ");
		ops_str_ident(decl, pname);
		sqlite3_str_appendall(decl, " BIGINT");
	}
	for (k = nfixed; k < t->nout; k++) {
		name = t->s[t->out[k].side].col[t->out[k].idx];
		/* Names must be unique across ts, dur, partition and both. */
		if (sqlite3_stricmp(name, "ts") == 0 ||
		    sqlite3_stricmp(name, "dur") == 0 ||
		    (nfixed == 3 && sqlite3_stricmp(name, pname) == 0))
			goto dup;
		for (i = nfixed; i < k; i++)
			if (sqlite3_stricmp(name,
			    t->s[t->out[i].side].col[t->out[i].idx]) == 0)
				goto dup;
		sqlite3_str_appendall(decl, ", ");
		ops_str_ident(decl, name);
		sqlite3_str_appendall(decl, column_type(t->db,
		    t->s[t->out[k].side].table, name));
	}
	sqlite3_str_appendall(decl, ")");
	rc = sqlite3_declare_vtab(t->db, sqlite3_str_value(decl));
	sqlite3_free(sqlite3_str_finish(decl));
	if (rc != SQLITE_OK) {
		ops_seterr(err, "SPAN_JOIN: %s", sqlite3_errmsg(t->db));
		return -1;
	}
	return 0;
dup:
	ops_seterr(err, "SPAN_JOIN: column %s present in both tables %s and %s",
	    name, t->s[0].table, t->s[1].table);
	sqlite3_free(sqlite3_str_finish(decl));
	return -1;
}

static int
sj_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
    sqlite3_vtab **out, char **err)
{
	struct sj_vtab	*t;
	int		 j, mixed_part;

	if (argc != 5) {
		ops_seterr(err, "SPAN_JOIN: expected exactly two arguments");
		return SQLITE_ERROR;
	}
	if ((t = sqlite3_malloc(sizeof(*t))) == NULL)
		return SQLITE_NOMEM;
	memset(t, 0, sizeof(*t));
	t->db = db;
	t->kind = (enum sj_kind)(intptr_t)aux;
	if (side_parse(&t->s[0], argv[3], err) == -1 ||
	    side_parse(&t->s[1], argv[4], err) == -1)
		goto fail;

	if (t->s[0].part == NULL && t->s[1].part == NULL)
		t->parting = SJ_PART_NONE;
	else if (t->s[0].part != NULL && t->s[1].part != NULL) {
		if (sqlite3_stricmp(t->s[0].part, t->s[1].part) != 0) {
			ops_seterr(err, "SPAN_JOIN: mismatching partitions"
			    " between the two tables; (partition %s in table"
			    " %s, partition %s in table %s)", t->s[0].part,
			    t->s[0].table, t->s[1].part, t->s[1].table);
			goto fail;
		}
		t->parting = SJ_PART_SAME;
	} else
		t->parting = SJ_PART_MIXED;

	/*
	 * Which segments each side offers: none for an inner side; for an
	 * outer side, gaps, plus voids when partitions are shared (a side
	 * replayed per partition, or with no partitions, has no voids to
	 * offer beyond its gaps).
	 */
	for (j = 0; j < 2; j++) {
		mixed_part = t->parting == SJ_PART_MIXED && t->s[j].part != NULL;
		if (t->kind == SJ_OUTER || (j == 1 && t->kind == SJ_LEFT)) {
			t->s[j].shadow = mixed_part ||
			    t->parting == SJ_PART_NONE ? SH_GAPS : SH_ALL;
			t->s[j].void_if_empty = !mixed_part;
		} else
			t->s[j].shadow = SH_NONE;
		if (side_columns(db, &t->s[j], err) == -1)
			goto fail;
	}
	if (t->s[0].dur_idx < 0 && t->s[1].dur_idx < 0) {
		ops_seterr(err, "SPAN_JOIN: column dur must be present in at"
		    " least one of tables %s and %s", t->s[0].table,
		    t->s[1].table);
		goto fail;
	}
	if (vtab_declare(t, err) == -1)
		goto fail;
	*out = &t->base;
	return SQLITE_OK;
fail:
	vtab_free(t);
	return SQLITE_ERROR;
}

/* Distinct from xConnect so that the modules are not eponymous. */
static int
sj_create(sqlite3 *db, void *aux, int argc, const char *const *argv,
    sqlite3_vtab **out, char **err)
{
	return sj_connect(db, aux, argc, argv, out, err);
}

static int
sj_disconnect(sqlite3_vtab *vt)
{
	vtab_free((struct sj_vtab *)vt);
	return SQLITE_OK;
}

/* ---- planning -------------------------------------------------------- */

static int
op_pushable(int op)
{
	switch (op) {
	case SQLITE_INDEX_CONSTRAINT_EQ:
	case SQLITE_INDEX_CONSTRAINT_GT:
	case SQLITE_INDEX_CONSTRAINT_LE:
	case SQLITE_INDEX_CONSTRAINT_LT:
	case SQLITE_INDEX_CONSTRAINT_GE:
	case SQLITE_INDEX_CONSTRAINT_NE:
	case SQLITE_INDEX_CONSTRAINT_LIKE:
	case SQLITE_INDEX_CONSTRAINT_GLOB:
	case OP_SOURCE_GEQ:
		return 1;
	}
	return 0;
}

static const char *
op_sql(int op)
{
	switch (op) {
	case SQLITE_INDEX_CONSTRAINT_EQ:
		return "=";
	case SQLITE_INDEX_CONSTRAINT_GT:
		return ">";
	case SQLITE_INDEX_CONSTRAINT_LE:
		return "<=";
	case SQLITE_INDEX_CONSTRAINT_LT:
		return "<";
	case SQLITE_INDEX_CONSTRAINT_NE:
		return "!=";
	case SQLITE_INDEX_CONSTRAINT_LIKE:
		return "LIKE";
	case SQLITE_INDEX_CONSTRAINT_GLOB:
		return "GLOB";
	default:
		return ">=";	/* GE and SOURCE_GEQ */
	}
}

/*
 * The column of side j a constraint on output column col can be pushed
 * to, or -1. Only sides that emit no gaps take constraints: filtering
 * their rows would move the gaps.
 */
static int
push_column(const struct sj_vtab *t, int j, int col, int op)
{
	const struct sj_side *sd = &t->s[j];

	if (sd->shadow != SH_NONE || !op_pushable(op) || col < 0 ||
	    col >= t->nout)
		return -1;
	if (col == COL_TS)
		return op == SQLITE_INDEX_CONSTRAINT_LE ||
		    op == SQLITE_INDEX_CONSTRAINT_LT || op == OP_SOURCE_GEQ ?
		    sd->ts_idx : -1;
	if (col == COL_DUR)
		return op == OP_SOURCE_GEQ ? sd->dur_idx : -1;
	if (col == COL_PART && t->parting != SJ_PART_NONE)
		return sd->part_idx;
	return t->out[col].side == j ? t->out[col].idx : -1;
}

/*
 * idxStr lists the pushed constraints as "side:argv:column:op;" entries;
 * argv indexes are 1-based as in sqlite3_index_info.
 */
static int
sj_best_index(sqlite3_vtab *vt, sqlite3_index_info *info)
{
	struct sj_vtab	*t = (struct sj_vtab *)vt;
	sqlite3_str	*plan;
	const struct sqlite3_index_constraint *c;
	const char	*coll;
	int		 i, j, col, argv = 0, used, npushed = 0;
	int		 first_part, second_ts;

	plan = sqlite3_str_new(t->db);
	for (i = 0; i < info->nConstraint; i++) {
		c = &info->aConstraint[i];
		if (!c->usable)
			continue;
		/* The inputs compare with BINARY; other collations stay here. */
		coll = sqlite3_vtab_collation(info, i);
		if (coll != NULL && sqlite3_stricmp(coll, "BINARY") != 0 &&
		    c->op != OP_SOURCE_GEQ)
			continue;
		used = 0;
		for (j = 0; j < 2; j++) {
			if ((col = push_column(t, j, c->iColumn, c->op)) < 0)
				continue;
			if (!used)
				info->aConstraintUsage[i].argvIndex = ++argv;
			used = 1;
			sqlite3_str_appendf(plan, "%d:%d:%d:%d;", j, argv, col,
			    c->op);
			npushed++;
		}
		/* SOURCE_GEQ is ours to apply (or to ignore on outer sides). */
		if (c->op == OP_SOURCE_GEQ)
			info->aConstraintUsage[i].omit = 1;
	}
	info->idxStr = sqlite3_str_finish(plan);
	if (info->idxStr == NULL)
		info->idxStr = sqlite3_mprintf("");
	if (info->idxStr == NULL)
		return SQLITE_NOMEM;
	info->needToFreeIdxStr = 1;

	/* Output comes in (partition, ts) order. */
	if (t->parting == SJ_PART_NONE)
		info->orderByConsumed = info->nOrderBy == 1 &&
		    info->aOrderBy[0].iColumn == COL_TS &&
		    !info->aOrderBy[0].desc;
	else {
		first_part = info->nOrderBy > 0 &&
		    info->aOrderBy[0].iColumn == COL_PART &&
		    !info->aOrderBy[0].desc;
		second_ts = info->nOrderBy >= 2 &&
		    info->aOrderBy[1].iColumn == COL_TS &&
		    !info->aOrderBy[1].desc;
		info->orderByConsumed = (info->nOrderBy == 1 && first_part) ||
		    (info->nOrderBy == 2 && first_part && second_ts);
	}
	info->estimatedCost = 1e6 / (1 + npushed);
	return SQLITE_OK;
}

static void
fn_source_geq(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	sqlite3_result_error(ctx,
	    "SOURCE_GEQ: only usable as a constraint on a span join", -1);
}

static int
sj_find_function(sqlite3_vtab *vt, int nargs, const char *name,
    void (**fn)(sqlite3_context *, int, sqlite3_value **), void **arg)
{
	if (nargs != 2 || sqlite3_stricmp(name, "source_geq") != 0)
		return 0;
	*fn = fn_source_geq;
	*arg = NULL;
	return OP_SOURCE_GEQ;
}

/* ---- streams ----------------------------------------------------------- */

static int64_t
row_ts(const struct sj_stream *s)
{
	return sqlite3_column_int64(s->stmt, s->side->ts_idx);
}

static int64_t
row_dur(const struct sj_stream *s)
{
	if (s->side->dur_idx < 0)
		return 0;
	return sqlite3_column_int64(s->stmt, s->side->dur_idx);
}

static int64_t
row_part(const struct sj_stream *s)
{
	return sqlite3_column_int64(s->stmt, s->side->part_idx);
}

/* Moves the statement to the next row with a usable partition. */
static int
stream_pull(struct sj_stream *s, char **err)
{
	int	 rc, type;

	for (;;) {
		rc = sqlite3_step(s->stmt);
		if (rc == SQLITE_DONE) {
			s->have_row = 0;
			return 0;
		}
		if (rc != SQLITE_ROW) {
			ops_seterr(err, "SPAN_JOIN: %s",
			    sqlite3_errmsg(sqlite3_db_handle(s->stmt)));
			return -1;
		}
		if (s->side->part_idx < 0)
			break;
		type = sqlite3_column_type(s->stmt, s->side->part_idx);
		if (type == SQLITE_NULL)
			continue;
		if (type != SQLITE_INTEGER) {
			ops_seterr(err,
			    "SPAN_JOIN: partition is not an INT column");
			return -1;
		}
		break;
	}
	s->have_row = 1;
	return 0;
}

/* End used for overlap and ordering: an unfinished span ends at its ts. */
static int64_t
adj_end(const struct sj_stream *s)
{
	return sat_sub(s->end, s->ts) == -1 ? s->ts : s->end;
}

/* One step along the full sequence of segments, wanted or not. */
static int
stream_step(struct sj_stream *s, char **err)
{
	int64_t	 end;

	switch (s->kind) {
	case SEG_REAL:
		end = adj_end(s);
		if (stream_pull(s, err) == -1)
			return -1;
		s->kind = SEG_GAP;
		s->ts = end;
		/* To the next span of this partition, else to the end. */
		if (s->have_row && (s->side->part_idx < 0 ||
		    row_part(s) == s->part))
			s->end = row_ts(s);
		else
			s->end = INT64_MAX;
		break;
	case SEG_GAP:
		if (s->end == INT64_MAX) {
			/* Partitions up to the next row's are missing. */
			s->kind = SEG_VOID;
			s->ts = 0;
			s->end = INT64_MAX;
			s->void_lo = s->part == INT64_MAX ? INT64_MAX :
			    s->part + 1;
			s->void_hi = s->have_row ? row_part(s) : INT64_MAX;
		} else {
			s->kind = SEG_REAL;
			s->ts = row_ts(s);
			s->end = sat_add(s->ts, row_dur(s));
		}
		break;
	case SEG_VOID:
		if (s->void_hi == INT64_MAX)
			s->kind = SEG_EOF;
		else {
			s->kind = SEG_GAP;
			s->part = s->void_hi;
			s->ts = 0;
			s->end = row_ts(s);
		}
		break;
	case SEG_EOF:
		break;
	}
	return 0;
}

static int
stream_wanted(const struct sj_stream *s)
{
	switch (s->kind) {
	case SEG_REAL:
		return 1;
	case SEG_GAP:
		return s->side->shadow != SH_NONE && s->ts != s->end;
	case SEG_VOID:
		return s->side->shadow == SH_ALL && s->void_lo != s->void_hi;
	case SEG_EOF:
		break;
	}
	return 1;
}

static int
stream_next(struct sj_stream *s, char **err)
{
	do {
		if (stream_step(s, err) == -1)
			return -1;
	} while (s->kind != SEG_EOF && !stream_wanted(s));
	return 0;
}

/* Back to the first wanted segment; the sequence opens with a void. */
static int
stream_rewind(struct sj_stream *s, char **err)
{
	sqlite3_reset(s->stmt);
	if (stream_pull(s, err) == -1)
		return -1;
	s->kind = SEG_VOID;
	s->ts = 0;
	s->end = INT64_MAX;
	s->part = INT64_MIN;
	s->void_lo = INT64_MIN;
	if (!s->have_row)
		s->void_hi = INT64_MAX;
	else if (s->side->part_idx >= 0)
		s->void_hi = row_part(s);
	else
		s->void_hi = INT64_MIN;
	if (stream_wanted(s))
		return 0;
	return stream_next(s, err);
}

static int64_t
first_part(const struct sj_stream *s)
{
	return s->kind == SEG_VOID ? s->void_lo : s->part;
}

static int64_t
last_part(const struct sj_stream *s)
{
	return s->kind == SEG_VOID ? s->void_hi - 1 : s->part;
}

/* ---- the sweep --------------------------------------------------------- */

static int
cursor_overlaps(const struct sj_cursor *c, enum sj_parting parting)
{
	const struct sj_stream *a = &c->s[0], *b = &c->s[1];

	if (a->kind == SEG_EOF || b->kind == SEG_EOF)
		return 0;
	if (a->kind != SEG_REAL && b->kind != SEG_REAL)
		return 0;
	if (parting == SJ_PART_SAME &&
	    !(first_part(a) >= first_part(b) && first_part(a) <= last_part(b)) &&
	    !(first_part(b) >= first_part(a) && first_part(b) <= last_part(a)))
		return 0;
	return (a->ts == b->ts && a->kind == SEG_REAL && b->kind == SEG_REAL) ||
	    (a->ts >= b->ts && a->ts < adj_end(b)) ||
	    (b->ts >= a->ts && b->ts < adj_end(a));
}

/* The stream whose segment finishes first. */
static struct sj_stream *
cursor_earliest(struct sj_cursor *c, enum sj_parting parting)
{
	struct sj_stream *a = &c->s[0], *b = &c->s[1];
	int64_t		 pa = 0, pb = 0, ea, eb;

	if (parting == SJ_PART_MIXED) {
		if (a->kind == SEG_EOF)
			return b;
		if (b->kind == SEG_EOF)
			return a;
	} else if (parting == SJ_PART_SAME) {
		pa = last_part(a);
		pb = last_part(b);
	}
	if (pa != pb)
		return pa < pb ? a : b;
	ea = adj_end(a);
	eb = adj_end(b);
	if (ea != eb)
		return ea < eb ? a : b;
	return a->kind != SEG_REAL && b->kind == SEG_REAL ? a : b;
}

static int
cursor_seek(struct sj_cursor *c, struct sj_vtab *t, char **err)
{
	struct sj_stream *p, *u;

	for (;;) {
		if (t->parting == SJ_PART_MIXED) {
			p = t->s[0].part != NULL ? &c->s[0] : &c->s[1];
			u = p == &c->s[0] ? &c->s[1] : &c->s[0];
			if (p->kind == SEG_EOF)
				break;
			/* Replay the unpartitioned side for a new partition. */
			if (c->mixed_part != p->part) {
				if (stream_rewind(u, err) == -1)
					return -1;
				c->mixed_part = p->part;
			}
		} else if (c->s[0].kind == SEG_EOF || c->s[1].kind == SEG_EOF)
			break;
		c->adv = cursor_earliest(c, t->parting);
		if (cursor_overlaps(c, t->parting))
			break;
		if (stream_next(c->adv, err) == -1)
			return -1;
	}
	return 0;
}

/* ---- cursor ------------------------------------------------------------ */

static int
sj_open(sqlite3_vtab *vt, sqlite3_vtab_cursor **out)
{
	struct sj_vtab	*t = (struct sj_vtab *)vt;
	struct sj_cursor *c;

	if ((c = sqlite3_malloc(sizeof(*c))) == NULL)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof(*c));
	c->s[0].side = &t->s[0];
	c->s[1].side = &t->s[1];
	c->s[0].kind = c->s[1].kind = SEG_EOF;
	*out = &c->base;
	return SQLITE_OK;
}

static void
cursor_drop_plan(struct sj_cursor *c)
{
	sqlite3_finalize(c->s[0].stmt);
	sqlite3_finalize(c->s[1].stmt);
	c->s[0].stmt = c->s[1].stmt = NULL;
	sqlite3_free(c->plan);
	c->plan = NULL;
}

static int
sj_close(sqlite3_vtab_cursor *cur)
{
	struct sj_cursor *c = (struct sj_cursor *)cur;

	cursor_drop_plan(c);
	sqlite3_free(c);
	return SQLITE_OK;
}

/* Builds side j's query for a plan: all columns, ordered for the sweep. */
static int
side_prepare(struct sj_vtab *t, int j, const char *plan, sqlite3_stmt **out,
    char **err)
{
	const struct sj_side *sd = &t->s[j];
	sqlite3_str	*q;
	const char	*p;
	int		 i, side, argv, col, op, n, nwhere = 0, rc;

	q = sqlite3_str_new(t->db);
	sqlite3_str_appendall(q, "SELECT ");
	for (i = 0; i < sd->ncols; i++) {
		if (i > 0)
			sqlite3_str_appendall(q, ", ");
		ops_str_ident(q, sd->col[i]);
	}
	sqlite3_str_appendf(q, " FROM %s", sd->table);
	for (p = plan; sscanf(p, "%d:%d:%d:%d;%n", &side, &argv, &col, &op,
	    &n) == 4; p += n) {
		if (side != j || col < 0 || col >= sd->ncols)
			continue;
		sqlite3_str_appendall(q, nwhere++ ? " AND " : " WHERE ");
		ops_str_ident(q, sd->col[col]);
		sqlite3_str_appendf(q, " %s ?%d", op_sql(op), argv);
	}
	sqlite3_str_appendall(q, " ORDER BY ");
	if (sd->part != NULL) {
		ops_str_ident(q, sd->col[sd->part_idx]);
		sqlite3_str_appendall(q, ", ");
	}
	ops_str_ident(q, sd->col[sd->ts_idx]);
	if ((p = sqlite3_str_value(q)) == NULL) {
		sqlite3_free(sqlite3_str_finish(q));
		ops_seterr(err, "out of memory");
		return -1;
	}
	rc = sqlite3_prepare_v3(t->db, p, -1, SQLITE_PREPARE_PERSISTENT, out,
	    NULL);
	sqlite3_free(sqlite3_str_finish(q));
	if (rc != SQLITE_OK) {
		ops_seterr(err, "SPAN_JOIN: %s", sqlite3_errmsg(t->db));
		return -1;
	}
	return 0;
}

static void
side_bind(sqlite3_stmt *st, int j, const char *plan, int argc,
    sqlite3_value **argv)
{
	const char	*p;
	int		 side, a, col, op, n;

	sqlite3_reset(st);
	for (p = plan; sscanf(p, "%d:%d:%d:%d;%n", &side, &a, &col, &op,
	    &n) == 4; p += n)
		if (side == j && a >= 1 && a <= argc)
			sqlite3_bind_value(st, a, argv[a - 1]);
}

static int
sj_filter(sqlite3_vtab_cursor *cur, int idxnum, const char *idxstr,
    int argc, sqlite3_value **argv)
{
	struct sj_cursor *c = (struct sj_cursor *)cur;
	struct sj_vtab	*t = (struct sj_vtab *)cur->pVtab;
	char		*err = NULL;
	int		 j;

	if (idxstr == NULL)
		idxstr = "";
	/* Correlated uses rerun one plan: keep its statements. */
	if (c->plan == NULL || strcmp(c->plan, idxstr) != 0) {
		cursor_drop_plan(c);
		if ((c->plan = sqlite3_mprintf("%s", idxstr)) == NULL)
			return SQLITE_NOMEM;
		for (j = 0; j < 2; j++)
			if (side_prepare(t, j, idxstr, &c->s[j].stmt, &err) ==
			    -1) {
				cursor_drop_plan(c);
				goto fail;
			}
	}
	c->rowid = 0;
	c->mixed_part = INT64_MIN;
	for (j = 0; j < 2; j++) {
		side_bind(c->s[j].stmt, j, idxstr, argc, argv);
		/*
		 * A side with nothing to join ends the join (unless one side
		 * replays for each partition of the other): the second side
		 * is not read, nor sorted.
		 */
		if (j == 1 && c->s[0].kind == SEG_EOF &&
		    t->parting != SJ_PART_MIXED) {
			sqlite3_reset(c->s[1].stmt);
			c->s[1].have_row = 0;
			c->s[1].kind = SEG_EOF;
			break;
		}
		if (stream_rewind(&c->s[j], &err) == -1)
			goto fail;
		if (c->s[j].kind == SEG_EOF && t->s[j].void_if_empty)
			c->s[j].kind = SEG_VOID;
	}
	if (cursor_seek(c, t, &err) == -1)
		goto fail;
	return SQLITE_OK;
fail:
	c->s[0].kind = c->s[1].kind = SEG_EOF;
	sqlite3_free(t->base.zErrMsg);
	t->base.zErrMsg = err;
	return SQLITE_ERROR;
}

static int
sj_next(sqlite3_vtab_cursor *cur)
{
	struct sj_cursor *c = (struct sj_cursor *)cur;
	struct sj_vtab	*t = (struct sj_vtab *)cur->pVtab;
	char		*err = NULL;

	if (stream_next(c->adv, &err) == -1 || cursor_seek(c, t, &err) == -1) {
		c->s[0].kind = c->s[1].kind = SEG_EOF;
		sqlite3_free(t->base.zErrMsg);
		t->base.zErrMsg = err;
		return SQLITE_ERROR;
	}
	c->rowid++;
	return SQLITE_OK;
}

static int
sj_eof(sqlite3_vtab_cursor *cur)
{
	struct sj_cursor *c = (struct sj_cursor *)cur;

	return c->s[0].kind == SEG_EOF || c->s[1].kind == SEG_EOF;
}

static int
sj_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
	struct sj_cursor *c = (struct sj_cursor *)cur;
	struct sj_vtab	*t = (struct sj_vtab *)cur->pVtab;
	struct sj_stream *a = &c->s[0], *b = &c->s[1], *src;
	int64_t		 ts, end;

	if (col < 0 || col >= t->nout)
		return SQLITE_OK;
	ts = a->ts > b->ts ? a->ts : b->ts;
	if (col == COL_TS) {
		sqlite3_result_int64(ctx, ts);
		return SQLITE_OK;
	}
	if (col == COL_DUR) {
		end = a->end < b->end ? a->end : b->end;
		sqlite3_result_int64(ctx, sat_sub(end, ts));
		return SQLITE_OK;
	}
	if (col == COL_PART && t->parting != SJ_PART_NONE) {
		if (t->parting == SJ_PART_MIXED)
			sqlite3_result_int64(ctx, c->mixed_part);
		else
			sqlite3_result_int64(ctx, a->kind == SEG_REAL ?
			    a->part : b->part);
		return SQLITE_OK;
	}
	src = &c->s[t->out[col].side];
	/* A side that is in a gap has no values. */
	if (src->kind == SEG_REAL)
		sqlite3_result_value(ctx,
		    sqlite3_column_value(src->stmt, t->out[col].idx));
	return SQLITE_OK;
}

static int
sj_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
	*rowid = ((struct sj_cursor *)cur)->rowid;
	return SQLITE_OK;
}

static const sqlite3_module sj_module = {
	.iVersion = 1,
	.xCreate = sj_create,
	.xConnect = sj_connect,
	.xBestIndex = sj_best_index,
	.xDisconnect = sj_disconnect,
	.xDestroy = sj_disconnect,
	.xOpen = sj_open,
	.xClose = sj_close,
	.xFilter = sj_filter,
	.xNext = sj_next,
	.xEof = sj_eof,
	.xColumn = sj_column,
	.xRowid = sj_rowid,
	.xFindFunction = sj_find_function,
};

int
ops_span_join_register(sqlite3 *db, char **err)
{
	static const struct {
		const char	*name;
		enum sj_kind	 kind;
	} mods[] = {
		{ "span_join", SJ_INNER },
		{ "span_left_join", SJ_LEFT },
		{ "span_outer_join", SJ_OUTER },
	};
	size_t	 i;

	/* SQLite must know the name before a table can claim it. */
	if (sqlite3_overload_function(db, "source_geq", 2) != SQLITE_OK) {
		ops_seterr(err, "source_geq: %s", sqlite3_errmsg(db));
		return -1;
	}
	for (i = 0; i < sizeof(mods) / sizeof(mods[0]); i++)
		if (sqlite3_create_module_v2(db, mods[i].name, &sj_module,
		    (void *)(intptr_t)mods[i].kind, NULL) != SQLITE_OK) {
			ops_seterr(err, "%s: %s", mods[i].name,
			    sqlite3_errmsg(db));
			return -1;
		}
	return 0;
}
