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
#include "ops_rowfn.h"

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

/* The slices of the tracks asked for, and their boxes. */
struct sl_cursor {
	struct sl_slice	*s;
	struct sl_box	*b;
	size_t		 ns, nb;
};

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
	c->ns = c->nb = 0;
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

/* The function: a row (id, layout_depth) per slice of the tracks. */
static int
sl_run(sqlite3 *db, sqlite3_value **argv, struct ops_grows *out, char **err)
{
	struct sl_cursor c;
	const char	*ids = (const char *)sqlite3_value_text(argv[0]);
	int64_t		 row[2];
	size_t		 i;
	int		 rc = 0;

	memset(&c, 0, sizeof(c));
	if (ids == NULL)
		return 0;
	if (sl_load(&c, db, ids, err) != SQLITE_OK) {
		if (*err == NULL)
			ops_seterr(err, "out of memory");
		rc = -1;
	}
	for (i = 0; i < c.ns && rc == 0; i++) {
		row[0] = c.s[i].id;
		row[1] = c.b[c.s[i].box].row + c.s[i].depth;
		rc = ops_grows_add(out, row, err);
	}
	sl_reset(&c);
	return rc;
}

static const char *const sl_cols[] = { "id", "layout_depth", NULL };
static const char *const sl_args[] = { "filter_track_ids", NULL };
static const struct ops_rowfn sl_fn = {
	.name = "experimental_slice_layout",
	.cols = sl_cols,
	.args = sl_args,
	.run = sl_run,
};

int
ops_slice_layout_register(sqlite3 *db, char **err)
{
	return ops_rowfn_register(db, &sl_fn, NULL, NULL, err);
}
