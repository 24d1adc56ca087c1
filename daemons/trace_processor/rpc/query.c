/*
 * QueryResult serialization: see query.h.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "metrics/pbbuf.h"
#include "query.h"
#include "daemons/trace_processor/psql/psql.h"

/* QueryResult fields. */
#define QR_COLUMN_NAMES		1
#define QR_ERROR		2
#define QR_BATCH		3
#define QR_STATEMENT_COUNT	4
#define QR_STATEMENT_WITH_OUTPUT 5
#define QR_LAST_STATEMENT_SQL	6
#define QR_ELAPSED_MS		7
/* QueryResult.CellsBatch fields. */
#define CB_CELLS		1
#define CB_VARINT_CELLS		2
#define CB_FLOAT64_CELLS	3
#define CB_BLOB_CELLS		4
#define CB_STRING_CELLS		5
#define CB_IS_LAST		6
#define CB_PADDING		7	/* aligns the doubles, as upstream */

enum {
	CELL_NULL = 1,
	CELL_VARINT = 2,
	CELL_FLOAT64 = 3,
	CELL_STRING = 4,
	CELL_BLOB = 5,
};

struct tpq {
	sqlite3		*db;
	struct psql	*ps;
	sqlite3_stmt	*stmt;		/* the last statement, or NULL */
	char		*error;
	uint32_t	 nstmts;
	uint32_t	 nstmts_output;
	int		 ncols;
	int		 col;		/* next column of the current row */
	int		 row_ready;	/* a stepped row not yet written */
	int		 meta_done;
	int		 eof;
	uint32_t	 max_cells;
	uint32_t	 max_bytes;
	struct timespec	 t0;
};

static void
tpq_fail(struct tpq *q, const char *msg)
{
	if (q->error == NULL)
		q->error = strdup(msg && *msg ? msg : "Unknown error");
}

/* Skips whitespace and comments: is anything left to run? */
static int
sql_has_more(const char *s, const char *end)
{
	while (s < end) {
		if (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r' ||
		    *s == '\f' || *s == ';')
			s++;
		else if (s + 1 < end && s[0] == '-' && s[1] == '-') {
			while (s < end && *s != '\n')
				s++;
		} else if (s + 1 < end && s[0] == '/' && s[1] == '*') {
			s += 2;
			while (s + 1 < end && !(s[0] == '*' && s[1] == '/'))
				s++;
			s += 2;
		} else if (*s == '\0')
			return 0;
		else
			return 1;
	}
	return 0;
}

struct tpq *
tpq_start(sqlite3 *db, const char *sql, size_t len)
{
	struct tpq *q;
	struct psql_iter it;
	sqlite3_stmt *st;
	char *err = NULL;
	int rc;

	if ((q = calloc(1, sizeof(*q))) == NULL)
		return NULL;
	q->db = db;
	q->max_cells = 50000;
	q->max_bytes = 128 * 1024;
	clock_gettime(CLOCK_REALTIME, &q->t0);
	if ((q->ps = psql_of(db)) == NULL) {
		tpq_fail(q, "out of memory");
		return q;
	}
	psql_iter_init(&it, "stdin", sql, len);
	while ((rc = psql_next(q->ps, &it, &st, &err)) == 1) {
		q->nstmts++;
		if (st == NULL)		/* a PerfettoSQL statement, run */
			continue;
		if (!sql_has_more(it.p, it.end)) {
			if (sqlite3_column_count(st) > 0 &&
			    !psql_stmt_is_void(st, 0))
				q->nstmts_output++;
			q->stmt = st;
			break;
		}
		/* Not the last one: run it to completion. */
		rc = sqlite3_step(st);
		if (sqlite3_column_count(st) > 0 &&
		    !psql_stmt_is_void(st, rc == SQLITE_ROW))
			q->nstmts_output++;
		while (rc == SQLITE_ROW)
			rc = sqlite3_step(st);
		sqlite3_finalize(st);
		if (rc != SQLITE_DONE) {
			err = psql_step_error(q->ps, sqlite3_errmsg(db));
			rc = -1;
			break;
		}
	}
	if (rc == -1) {
		tpq_fail(q, err ? err : "out of memory");
		free(err);
	}
	if (q->stmt != NULL)
		q->ncols = sqlite3_column_count(q->stmt);
	q->col = q->ncols;	/* the first row is stepped on demand */
	return q;
}

void
tpq_set_batch_limits(struct tpq *q, uint32_t cells, uint32_t bytes)
{
	q->max_cells = cells > 0 ? cells : 1;
	q->max_bytes = bytes;
}

const char *
tpq_error(const struct tpq *q)
{
	return q->error;
}

void
tpq_free(struct tpq *q)
{
	if (q == NULL)
		return;
	sqlite3_finalize(q->stmt);
	free(q->error);
	free(q);
}

/* Moves to the next row; 0 at the end (or on an error, recorded). */
static int
tpq_step(struct tpq *q)
{
	int rc;

	if (q->stmt == NULL)
		return 0;
	rc = sqlite3_step(q->stmt);
	if (rc == SQLITE_ROW)
		return 1;
	if (rc != SQLITE_DONE) {
		char *err = psql_step_error(q->ps, sqlite3_errmsg(q->db));

		tpq_fail(q, err ? err : "out of memory");
		free(err);
	}
	sqlite3_finalize(q->stmt);
	q->stmt = NULL;
	return 0;
}

static size_t
varint_len(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

static void
tpq_batch(struct tpq *q, struct pbbuf *w, size_t msg_start)
{
	struct pbbuf cells, varints, doubles, blobs;
	uint32_t ncells = 0, approx = 16;
	size_t batch, strs;
	int full = 0, t;

	pbb_init(&cells);
	pbb_init(&varints);
	pbb_init(&doubles);
	pbb_init(&blobs);
	batch = pbb_begin(w, QR_BATCH);
	strs = pbb_begin(w, CB_STRING_CELLS);
	for (;; ncells++, q->col++) {
		if (q->col >= q->ncols) {
			q->col = 0;
			if (!q->row_ready && !tpq_step(q))
				break;
			q->row_ready = 1;
			if (q->ncols == 0) {
				q->row_ready = 0;
				q->col = q->ncols;
				ncells--;
				continue;
			}
			if (ncells > 0 && (ncells + (uint32_t)q->ncols >
			    q->max_cells || approx > q->max_bytes)) {
				full = 1;
				break;
			}
		}
		q->row_ready = 0;
		t = sqlite3_column_type(q->stmt, q->col);
		switch (t) {
		case SQLITE_INTEGER:
			pbb_varint(&varints, (uint64_t)sqlite3_column_int64(
			    q->stmt, q->col));
			pbb_raw(&cells, &(uint8_t){ CELL_VARINT }, 1);
			approx += 4;
			break;
		case SQLITE_FLOAT: {
			double d = sqlite3_column_double(q->stmt, q->col);

			pbb_raw(&doubles, &d, sizeof(d));
			pbb_raw(&cells, &(uint8_t){ CELL_FLOAT64 }, 1);
			approx += 8;
			break;
		}
		case SQLITE_TEXT: {
			const unsigned char *s = sqlite3_column_text(q->stmt,
			    q->col);
			size_t n = s ? strlen((const char *)s) : 0;

			pbb_raw(w, s ? (const void *)s : "", n);
			pbb_raw(w, "", 1);
			pbb_raw(&cells, &(uint8_t){ CELL_STRING }, 1);
			approx += (uint32_t)n + 5;
			break;
		}
		case SQLITE_BLOB: {
			const void *b = sqlite3_column_blob(q->stmt, q->col);
			int n = sqlite3_column_bytes(q->stmt, q->col);

			pbb_bytes(&blobs, CB_BLOB_CELLS, b, (size_t)n);
			pbb_raw(&cells, &(uint8_t){ CELL_BLOB }, 1);
			approx += (uint32_t)n + 4;
			break;
		}
		default:
			pbb_raw(&cells, &(uint8_t){ CELL_NULL }, 1);
			break;
		}
	}
	pbb_end(w, strs);
	if (cells.len > 0)
		pbb_bytes(w, CB_CELLS, cells.buf, cells.len);
	if (varints.len > 0)
		pbb_bytes(w, CB_VARINT_CELLS, varints.buf, varints.len);
	if (doubles.len > 0) {
		/*
		 * Upstream pads so that the packed doubles start 8-aligned
		 * from the start of the QueryResult, letting readers view
		 * them in place: a varint field of 2..9 bytes (1 cannot be).
		 * The batch's length prefix is still 5 bytes here and shrinks
		 * in pbb_end, so the offset is computed as it will be then.
		 */
		size_t pre_len, off, pad, body, i;

		pre_len = 1 + varint_len(doubles.len);
		for (pad = 0; pad < 10; pad++) {
			if (pad == 1)
				continue;
			body = (w->len - batch) + pad + pre_len + doubles.len +
			    blobs.len + (full ? 0 : 2);
			off = (batch - 5 - msg_start) + varint_len(body) +
			    (w->len - batch) + pad + pre_len;
			if (off % 8 == 0)
				break;
		}
		if (pad >= 10)
			pad = 0;
		if (pad > 0) {
			pbb_tag(w, CB_PADDING, 0);
			for (i = 0; i + 2 < pad; i++)
				pbb_raw(w, &(uint8_t){ 0x80 }, 1);
			pbb_raw(w, &(uint8_t){ 0 }, 1);
		}
		pbb_tag(w, CB_FLOAT64_CELLS, 2);
		pbb_varint(w, doubles.len);
		pbb_raw(w, doubles.buf, doubles.len);
	}
	if (blobs.len > 0)
		pbb_raw(w, blobs.buf, blobs.len);
	if (!full) {
		q->eof = 1;
		pbb_uint(w, CB_IS_LAST, 1);
	}
	pbb_end(w, batch);
	pbb_free(&cells);
	pbb_free(&varints);
	pbb_free(&doubles);
	pbb_free(&blobs);
}

int
tpq_next(struct tpq *q, struct pbbuf *w)
{
	size_t start = w->len;
	struct timespec t1;
	int i;

	if (q->eof)
		return 0;
	if (!q->meta_done) {
		q->meta_done = 1;
		for (i = 0; i < q->ncols; i++) {
			const char *n = sqlite3_column_name(q->stmt, i);

			pbb_string(w, QR_COLUMN_NAMES, n ? n : "");
		}
		pbb_uint(w, QR_STATEMENT_COUNT, q->nstmts);
		pbb_uint(w, QR_STATEMENT_WITH_OUTPUT, q->nstmts_output);
		if (q->stmt != NULL && sqlite3_sql(q->stmt) != NULL)
			pbb_string(w, QR_LAST_STATEMENT_SQL,
			    sqlite3_sql(q->stmt));
	}
	tpq_batch(q, w, start);
	if (q->error != NULL)
		pbb_string(w, QR_ERROR, q->error);
	clock_gettime(CLOCK_REALTIME, &t1);
	pbb_double(w, QR_ELAPSED_MS,
	    (double)(t1.tv_sec - q->t0.tv_sec) * 1e3 +
	    (double)(t1.tv_nsec - q->t0.tv_nsec) / 1e6);
	return !q->eof;
}
