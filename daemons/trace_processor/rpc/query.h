/*
 * Query results in Perfetto's QueryResult proto, batched as upstream's
 * trace processor sends them, so the Python API and the UI decode ours:
 *
 *   QueryResult #1: column_names, statement counts, last_statement_sql,
 *                   batch { cells, varint_cells, float64_cells,
 *                           blob_cells, string_cells }   (+ error)
 *   QueryResult #2..n: batch { ... }, the last with is_last_batch = true
 *
 * cells holds one CellType byte per cell (row-major); each typed list
 * holds the values of its type in cell order; string_cells is every
 * string cell followed by a NUL, concatenated. A batch ends after 50000
 * cells or about 128 KiB. Concatenated, the messages parse as one
 * QueryResult with several batches (what /query relies on).
 *
 * All statements of the text run; the result is the last statement's.
 */
#ifndef FARO_TP_RPC_QUERY_H
#define FARO_TP_RPC_QUERY_H

#include <stdint.h>

#include <sqlite3.h>

struct pbbuf;
struct tpq;

/* Runs every statement but the last; NULL only when out of memory. */
struct tpq	*tpq_start(sqlite3 *, const char *sql, size_t len);
/* Appends the next QueryResult message to w; 1 while more follow. */
int		 tpq_next(struct tpq *, struct pbbuf *w);
/* The error so far, or NULL. */
const char	*tpq_error(const struct tpq *);
void		 tpq_free(struct tpq *);

/* Tunables (tests make batches small to see several). */
void		 tpq_set_batch_limits(struct tpq *, uint32_t cells,
		    uint32_t bytes);

#endif
