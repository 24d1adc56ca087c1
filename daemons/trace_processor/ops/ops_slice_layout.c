/*
 * experimental_slice_layout(track_ids): the slices of several tracks
 * (ids separated by commas) with a layout_depth that draws them as one
 * track, as upstream's UI asks for its merged tracks:
 *
 *   SELECT id, layout_depth FROM experimental_slice_layout('3,7,9');
 *
 * Each depth-0 slice and its descendants form a box (first ts, last end,
 * height). Boxes are placed tallest first (then by ts, then id), each at
 * the lowest run of rows free over its whole time span; a slice's
 * layout_depth is its box's row plus its own depth in the box.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "ops_int.h"

struct sl_slice {
	int64_t		 id, depth;
	size_t		 box;
};

struct sl_box {
	int64_t		 id, start, end, height, row;
};

struct sl_range {
	int64_t		 start, end;
};

struct sl_row {
	struct sl_range	*r;
	size_t		 n, cap;
};

struct sl_cursor {
	sqlite3_vtab_cursor base;
	struct sl_slice	*s;
	struct sl_box	*b;
	size_t		 ns, nb, pos;
};

enum { SL_COL_ID, SL_COL_DEPTH, SL_COL_ARG };

static int
sl_box_cmp(const void *x, const void *y)
{
	const struct sl_box *a = x, *b = y;

	if (a->height != b->height)
		return a->height > b->height ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

static int
sl_row_free(const struct sl_row *row, int64_t start, int64_t end)
{
	size_t	 i;

	for (i = 0; i < row->n; i++)
		if (row->r[i].start < end && start < row->r[i].end)
			return 0;
	return 1;
}

static int
sl_row_take(struct sl_row *row, int64_t start, int64_t end)
{
	struct sl_range	*nr;
	size_t		 ncap;

	if (row->n == row->cap) {
		ncap = row->cap ? row->cap * 2 : 16;
		if ((nr = sqlite3_realloc64(row->r, ncap * sizeof(*nr))) ==
		    NULL)
			return -1;
		row->r = nr;
		row->cap = ncap;
	}
	row->r[row->n].start = start;
	row->r[row->n++].end = end;
	return 0;
}

/* Places the boxes; their row is written into each. */
static int
sl_place(struct sl_box *b, size_t nb)
{
	struct sl_row	*rows = NULL, *nr;
	struct sl_box	*sorted;
	size_t		 nrows = 0, i, k, need;
	int64_t		 r;
	int		 ret = -1;

	if (nb == 0)
		return 0;
	if ((sorted = sqlite3_malloc64(nb * sizeof(*sorted))) == NULL)
		return -1;
	memcpy(sorted, b, nb * sizeof(*sorted));
	qsort(sorted, nb, sizeof(*sorted), sl_box_cmp);
	for (i = 0; i < nb; i++) {
		for (r = 0;; r++) {
			for (k = 0; k <= (size_t)sorted[i].height; k++)
				if ((size_t)r + k < nrows && !sl_row_free(
				    &rows[r + k], sorted[i].start,
				    sorted[i].end))
					break;
			if (k > (size_t)sorted[i].height)
				break;
		}
		need = (size_t)r + (size_t)sorted[i].height + 1;
		if (need > nrows) {
			if ((nr = sqlite3_realloc64(rows, need *
			    sizeof(*nr))) == NULL)
				goto out;
			memset(nr + nrows, 0, (need - nrows) * sizeof(*nr));
			rows = nr;
			nrows = need;
		}
		for (k = 0; k <= (size_t)sorted[i].height; k++)
			if (sl_row_take(&rows[r + k], sorted[i].start,
			    sorted[i].end) == -1)
				goto out;
		/* boxes are numbered by position in b: id holds it */
		b[sorted[i].id].row = r;
	}
	ret = 0;
out:
	for (i = 0; i < nrows; i++)
		sqlite3_free(rows[i].r);
	sqlite3_free(rows);
	sqlite3_free(sorted);
	return ret;
}

static void
sl_reset(struct sl_cursor *c)
{
	sqlite3_free(c->s);
	sqlite3_free(c->b);
	c->s = NULL;
	c->b = NULL;
	c->ns = c->nb = c->pos = 0;
}

/* Track ids "1,2,3" as a SQL list; NULL when a part is not a number. */
static char *
sl_id_list(const char *ids)
{
	sqlite3_str	*s = sqlite3_str_new(NULL);
	const char	*p = ids;
	char		*end;
	long long	 v;
	int		 n = 0;

	for (;;) {
		while (*p == ' ')
			p++;
		v = strtoll(p, &end, 10);
		if (end == p)
			break;
		sqlite3_str_appendf(s, "%s%lld", n++ ? "," : "", v);
		p = end;
		while (*p == ' ')
			p++;
		if (*p != ',')
			break;
		p++;
	}
	if (*p != '\0' || n == 0) {
		sqlite3_free(sqlite3_str_finish(s));
		return NULL;
	}
	return sqlite3_str_finish(s);
}

static int
sl_load(struct sl_cursor *c, sqlite3 *db, const char *ids, char **err)
{
	sqlite3_stmt	*st;
	struct sl_slice	*ns;
	struct sl_box	*nb;
	char		*list, *sql;
	struct { int64_t track; size_t box; } *tracks = NULL, *nt2;
	int64_t		 ts, dur, end, depth, track;
	size_t		 scap = 0, bcap = 0, tcap = 0, nt = 0, k;
	int		 rc;

	if ((list = sl_id_list(ids)) == NULL) {
		ops_seterr(err, "experimental_slice_layout: bad track ids"
		    " '%s'", ids);
		return SQLITE_ERROR;
	}
	sql = sqlite3_mprintf("SELECT id, ts, dur, depth, track_id FROM slice"
	    " WHERE track_id IN (%s) ORDER BY id", list);
	sqlite3_free(list);
	if (sql == NULL)
		return SQLITE_NOMEM;
	rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	sqlite3_free(sql);
	if (rc != SQLITE_OK) {
		ops_seterr(err, "%s", sqlite3_errmsg(db));
		return SQLITE_ERROR;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		ts = sqlite3_column_int64(st, 1);
		dur = sqlite3_column_int64(st, 2);
		depth = sqlite3_column_int64(st, 3);
		/* unfinished slices run to the end; instants take a ns */
		end = dur < 0 ? INT64_MAX : ts + (dur > 0 ? dur : 1);
		if (c->ns == scap) {
			scap = scap ? scap * 2 : 256;
			if ((ns = sqlite3_realloc64(c->s, scap *
			    sizeof(*ns))) == NULL)
				break;
			c->s = ns;
		}
		/*
		 * A slice belongs to the box last opened on its track (ids
		 * follow begin order); one at depth 0, or first on its
		 * track, opens a box.
		 */
		track = sqlite3_column_int64(st, 4);
		for (k = 0; k < nt && tracks[k].track != track; k++)
			;
		if (k == nt) {
			if (nt == tcap) {
				tcap = tcap ? tcap * 2 : 16;
				if ((nt2 = sqlite3_realloc64(tracks, tcap *
				    sizeof(*nt2))) == NULL)
					break;
				tracks = nt2;
			}
			tracks[nt].track = track;
			tracks[nt++].box = SIZE_MAX;
		}
		if (depth == 0 || tracks[k].box == SIZE_MAX) {
			if (c->nb == bcap) {
				bcap = bcap ? bcap * 2 : 64;
				if ((nb = sqlite3_realloc64(c->b, bcap *
				    sizeof(*nb))) == NULL)
					break;
				c->b = nb;
			}
			c->b[c->nb].id = (int64_t)c->nb;
			c->b[c->nb].start = ts;
			c->b[c->nb].end = end;
			c->b[c->nb].height = 0;
			c->b[c->nb++].row = 0;
			tracks[k].box = c->nb - 1;
		}
		nb = &c->b[tracks[k].box];
		if (end > nb->end)
			nb->end = end;
		if (ts < nb->start)
			nb->start = ts;
		if (depth > nb->height)
			nb->height = depth;
		c->s[c->ns].id = sqlite3_column_int64(st, 0);
		c->s[c->ns].depth = depth;
		c->s[c->ns++].box = tracks[k].box;
	}
	sqlite3_free(tracks);
	if (rc != SQLITE_DONE) {
		ops_seterr(err, "%s", rc == SQLITE_ROW ? "out of memory" :
		    sqlite3_errmsg(db));
		sqlite3_finalize(st);
		return SQLITE_ERROR;
	}
	sqlite3_finalize(st);
	if (sl_place(c->b, c->nb) == -1)
		return SQLITE_NOMEM;
	return SQLITE_OK;
}

struct sl_vtab {
	sqlite3_vtab	 base;
	sqlite3		*db;
};

static int
sl_connect(sqlite3 *db, void *aux, int argc, const char *const *argv,
    sqlite3_vtab **out, char **err)
{
	struct sl_vtab	*t;
	int		 rc;

	(void)aux;
	(void)argc;
	(void)argv;
	(void)err;
	rc = sqlite3_declare_vtab(db, "CREATE TABLE x(id INTEGER,"
	    " layout_depth INTEGER, filter_track_ids TEXT HIDDEN)");
	if (rc != SQLITE_OK)
		return rc;
	if ((t = sqlite3_malloc(sizeof(*t))) == NULL)
		return SQLITE_NOMEM;
	memset(t, 0, sizeof(*t));
	t->db = db;
	*out = &t->base;
	return SQLITE_OK;
}

static int
sl_disconnect(sqlite3_vtab *t)
{
	sqlite3_free(t);
	return SQLITE_OK;
}

/* The track ids are required, with equality. */
static int
sl_best_index(sqlite3_vtab *t, sqlite3_index_info *info)
{
	int	 i;

	(void)t;
	for (i = 0; i < info->nConstraint; i++) {
		if (info->aConstraint[i].iColumn != SL_COL_ARG)
			continue;
		if (!info->aConstraint[i].usable ||
		    info->aConstraint[i].op != SQLITE_INDEX_CONSTRAINT_EQ)
			return SQLITE_CONSTRAINT;
		info->aConstraintUsage[i].argvIndex = 1;
		info->aConstraintUsage[i].omit = 1;
		info->estimatedCost = 1000;
		return SQLITE_OK;
	}
	return SQLITE_CONSTRAINT;
}

static int
sl_open(sqlite3_vtab *t, sqlite3_vtab_cursor **out)
{
	struct sl_cursor *c;

	(void)t;
	if ((c = sqlite3_malloc(sizeof(*c))) == NULL)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof(*c));
	*out = &c->base;
	return SQLITE_OK;
}

static int
sl_close(sqlite3_vtab_cursor *vc)
{
	sl_reset((struct sl_cursor *)vc);
	sqlite3_free(vc);
	return SQLITE_OK;
}

static int
sl_filter(sqlite3_vtab_cursor *vc, int idxnum, const char *idxstr,
    int argc, sqlite3_value **argv)
{
	struct sl_cursor *c = (struct sl_cursor *)vc;
	struct sl_vtab	*t = (struct sl_vtab *)vc->pVtab;
	const char	*ids;
	char		*err = NULL;
	int		 rc;

	(void)idxnum;
	(void)idxstr;
	sl_reset(c);
	if (argc != 1 || (ids = (const char *)sqlite3_value_text(argv[0])) ==
	    NULL)
		return SQLITE_OK;
	if ((rc = sl_load(c, t->db, ids, &err)) != SQLITE_OK) {
		sqlite3_free(t->base.zErrMsg);
		t->base.zErrMsg = err;
		sl_reset(c);
	}
	return rc;
}

static int
sl_next(sqlite3_vtab_cursor *vc)
{
	((struct sl_cursor *)vc)->pos++;
	return SQLITE_OK;
}

static int
sl_eof(sqlite3_vtab_cursor *vc)
{
	struct sl_cursor *c = (struct sl_cursor *)vc;

	return c->pos >= c->ns;
}

static int
sl_column(sqlite3_vtab_cursor *vc, sqlite3_context *ctx, int col)
{
	struct sl_cursor *c = (struct sl_cursor *)vc;
	const struct sl_slice *s = &c->s[c->pos];

	if (col == SL_COL_ID)
		sqlite3_result_int64(ctx, s->id);
	else if (col == SL_COL_DEPTH)
		sqlite3_result_int64(ctx, c->b[s->box].row + s->depth);
	else
		sqlite3_result_null(ctx);
	return SQLITE_OK;
}

static int
sl_rowid(sqlite3_vtab_cursor *vc, sqlite3_int64 *rowid)
{
	*rowid = (sqlite3_int64)((struct sl_cursor *)vc)->pos;
	return SQLITE_OK;
}

static const sqlite3_module sl_module = {
	.iVersion = 1, .xConnect = sl_connect, .xBestIndex = sl_best_index,
	.xDisconnect = sl_disconnect, .xOpen = sl_open, .xClose = sl_close,
	.xFilter = sl_filter, .xNext = sl_next, .xEof = sl_eof,
	.xColumn = sl_column, .xRowid = sl_rowid,
};

int
ops_slice_layout_register(sqlite3 *db, char **err)
{
	if (sqlite3_create_module_v2(db, "experimental_slice_layout",
	    &sl_module, NULL, NULL) != SQLITE_OK) {
		ops_seterr(err, "%s", sqlite3_errmsg(db));
		return -1;
	}
	return 0;
}
