/*
 * A ClickHouse client over its HTTP interface, just what the fleet export
 * needs: statements whose (small) result is returned, and INSERTs whose
 * body is streamed in HTTP/1.1 chunks, so a table is never held whole.
 *
 * The connection is opened before trace_processor confines itself (the
 * sandbox makes no IP socket) and every request reuses it (keep-alive).
 * ClickHouse waits http_receive_timeout (1800 s by default) for the first
 * request, so a long trace load between ch_open and the first request is
 * fine. Plain http:// only: ClickHouse's TLS port needs a TLS library.
 *
 *   URL: http://[USER[:PASSWORD]@]HOST[:PORT][/]   (port 8123 by default)
 */
#ifndef FARO_TP_CH_HTTP_H
#define FARO_TP_CH_HTTP_H

#include <stddef.h>

struct ch_conn;

/* Resolves and connects; NULL with the reason in *err (malloc'd). */
struct ch_conn	*ch_open(const char *url, const char *database, char **err);
void		 ch_close(struct ch_conn *c);

/*
 * Runs one statement (sent as the request body). 0 with its result in
 * *out (malloc'd, NUL-terminated; out may be NULL), or -1 with *err:
 * ClickHouse's own message when it refused the statement.
 */
int	ch_exec(struct ch_conn *c, const char *sql, char **out, char **err);

/*
 * An INSERT streamed as the body: begin with the statement ("INSERT INTO
 * t FORMAT TabSeparated"), write its data in any pieces, end to send the
 * last chunk and read ClickHouse's answer. settings: "" or "&k=v..." added
 * to the request's parameters. Each returns 0 or -1 with *err.
 */
int	ch_insert_begin(struct ch_conn *c, const char *sql,
	    const char *settings, char **err);
int	ch_insert_write(struct ch_conn *c, const void *p, size_t n,
	    char **err);
int	ch_insert_end(struct ch_conn *c, char **err);

/* Sets *err (malloc'd, NULL when out of memory) from fmt; returns -1. */
int	ch_fail(char **err, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));

#endif
