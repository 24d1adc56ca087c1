/*
 * __intrinsic_int_rows(a, b, ...): the aggregate packing rows of integers
 * into one BLOB for the graph table functions, and the reading side.
 *
 * BLOB: a header (magic, column count; native byte order, as it never
 * leaves the process) then the values row after row. Every row must have
 * the same number of columns; a value must be an integer (a real with an
 * integral value is taken as one) or NULL.
 */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "ops_int.h"
#include "ops_graph.h"

#define ROWS_MAGIC	0x31524746u	/* "FGR1" */

struct rows_hdr {
	uint32_t	magic;
	uint32_t	ncols;
};

struct rows_agg {
	struct ops_grows rows;
	int		 failed;
};

int
ops_grows_decode(sqlite3_value *v, size_t ncols, struct ops_grows *out,
    char **err)
{
	struct rows_hdr	 h;
	const unsigned char *p;
	size_t		 len;

	memset(out, 0, sizeof(*out));
	out->ncols = ncols;
	if (sqlite3_value_type(v) == SQLITE_NULL)
		return 0;
	if (sqlite3_value_type(v) != SQLITE_BLOB)
		goto bad;
	p = sqlite3_value_blob(v);
	len = (size_t)sqlite3_value_bytes(v);
	if (len == 0)
		return 0;
	if (p == NULL || len < sizeof(h))
		goto bad;
	memcpy(&h, p, sizeof(h));
	len -= sizeof(h);
	if (h.magic != ROWS_MAGIC || h.ncols != ncols ||
	    len % (ncols * sizeof(int64_t)) != 0)
		goto bad;
	/* Copied: a BLOB read from a table need not be aligned. */
	if ((out->v = malloc(len)) == NULL) {
		ops_seterr(err, "out of memory");
		return -1;
	}
	memcpy(out->v, p + sizeof(h), len);
	out->n = len / (ncols * sizeof(int64_t));
	out->cap = out->n * ncols;
	return 0;
bad:
	ops_seterr(err, "expected rows of %u integers from "
	    "__intrinsic_int_rows", (unsigned)ncols);
	return -1;
}

static void
rows_step(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
	struct rows_agg	*a;
	int64_t		 row[16];
	double		 d;
	char		*err = NULL, *msg;
	int		 i;

	if ((a = sqlite3_aggregate_context(ctx, sizeof(*a))) == NULL) {
		sqlite3_result_error_nomem(ctx);
		return;
	}
	if (a->failed)
		return;
	if (argc < 1 || argc > (int)(sizeof(row) / sizeof(row[0]))) {
		sqlite3_result_error(ctx,
		    "__intrinsic_int_rows: 1 to 16 columns", -1);
		a->failed = 1;
		return;
	}
	a->rows.ncols = (size_t)argc;
	for (i = 0; i < argc; i++) {
		switch (sqlite3_value_type(argv[i])) {
		case SQLITE_NULL:
			row[i] = OPS_GRAPH_NULL;
			continue;
		case SQLITE_INTEGER:
			row[i] = sqlite3_value_int64(argv[i]);
			if (row[i] != OPS_GRAPH_NULL)
				continue;
			break;
		case SQLITE_FLOAT:
			d = sqlite3_value_double(argv[i]);
			if (d == floor(d) && d > -9.2e18 && d < 9.2e18) {
				row[i] = (int64_t)d;
				continue;
			}
			break;
		default:
			break;
		}
		ops_seterr(&err, "column %d of a row is not an integer id",
		    i + 1);
		goto fail;
	}
	if (ops_grows_add(&a->rows, row, &err) == 0)
		return;
fail:
	msg = sqlite3_mprintf("graph: %s", err != NULL ? err : "failed");
	sqlite3_result_error(ctx, msg != NULL ? msg : "graph: failed", -1);
	sqlite3_free(msg);
	sqlite3_free(err);
	a->failed = 1;
}

static void
rows_final(sqlite3_context *ctx)
{
	struct rows_agg	*a;
	struct rows_hdr	 h;
	unsigned char	*b;
	size_t		 vbytes;

	a = sqlite3_aggregate_context(ctx, 0);
	if (a == NULL || a->rows.n == 0 || a->failed) {
		if (a == NULL || !a->failed)
			sqlite3_result_zeroblob(ctx, 0);
		if (a != NULL)
			ops_grows_free(&a->rows);
		return;
	}
	vbytes = a->rows.n * a->rows.ncols * sizeof(int64_t);
	if ((b = sqlite3_malloc64(sizeof(h) + vbytes)) == NULL) {
		ops_grows_free(&a->rows);
		sqlite3_result_error_nomem(ctx);
		return;
	}
	h.magic = ROWS_MAGIC;
	h.ncols = (uint32_t)a->rows.ncols;
	memcpy(b, &h, sizeof(h));
	memcpy(b + sizeof(h), a->rows.v, vbytes);
	ops_grows_free(&a->rows);
	sqlite3_result_blob64(ctx, b, sizeof(h) + vbytes, sqlite3_free);
}

int
ops_graph_agg_register(sqlite3 *db, char **err)
{
	if (sqlite3_create_function_v2(db, "__intrinsic_int_rows", -1,
	    SQLITE_UTF8 | SQLITE_INNOCUOUS, NULL, NULL, rows_step, rows_final,
	    NULL) != SQLITE_OK) {
		ops_seterr(err, "__intrinsic_int_rows: %s",
		    sqlite3_errmsg(db));
		return -1;
	}
	return 0;
}
