/*
 * ClickHouse over HTTP/1.1: see ch_http.h. Requests are POSTs on one
 * kept-alive connection; responses are read whole (they are small: DDL
 * answers, counts, error messages) with Content-Length, chunked or
 * until-close bodies, as ClickHouse may send any of them.
 */
#include "config.h"

#include <errno.h>
#include <netdb.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "fleet/ch_http.h"

#define CH_CHUNK	(256 * 1024)	/* one HTTP chunk of INSERT data */
#define CH_BODY_MAX	(16 * 1024 * 1024)	/* the largest answer read */
#define CH_LINE_MAX	8192
#define CH_TIMEOUT_S	600		/* a stalled server is an error */

struct ch_conn {
	int	 fd;		/* -1 once the server closed it */
	char	*host;		/* the Host header */
	char	*user;		/* X-ClickHouse-User/-Key, or NULL */
	char	*key;
	char	*db;		/* URL-encoded database, or NULL */
	char	 in[16384];	/* what was read and not yet used */
	size_t	 inpos, inlen;
	char	*chunk;		/* INSERT data not sent yet */
	size_t	 nchunk;
};

int
ch_fail(char **err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(err, fmt, ap) == -1)
		*err = NULL;
	va_end(ap);
	return -1;
}

/* Percent-encodes s for a URL's query string; NULL when out of memory. */
static char *
ch_urlenc(const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	char *o = malloc(strlen(s) * 3 + 1), *p = o;

	if (o == NULL)
		return NULL;
	for (; *s != '\0'; s++) {
		unsigned char ch = (unsigned char)*s;

		if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		    (ch >= '0' && ch <= '9') || strchr("-_.~", ch) != NULL)
			*p++ = (char)ch;
		else {
			*p++ = '%';
			*p++ = hex[ch >> 4];
			*p++ = hex[ch & 15];
		}
	}
	*p = '\0';
	return o;
}

static int
ch_connect(struct ch_conn *c, const char *host, const char *port,
    char **err)
{
	struct addrinfo hints, *res, *ai;
	struct timeval tv = { CH_TIMEOUT_S, 0 };
	int rc, saved = 0;

	memset(&hints, 0, sizeof(hints));
	hints.ai_socktype = SOCK_STREAM;
	if ((rc = getaddrinfo(host, port, &hints, &res)) != 0)
		return ch_fail(err, "%s: %s", host, gai_strerror(rc));
	for (ai = res; ai != NULL; ai = ai->ai_next) {
		c->fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC,
		    ai->ai_protocol);
		if (c->fd == -1)
			continue;
		if (connect(c->fd, ai->ai_addr, ai->ai_addrlen) == 0)
			break;
		saved = errno;
		close(c->fd);
		c->fd = -1;
	}
	freeaddrinfo(res);
	if (c->fd == -1)
		return ch_fail(err, "%s:%s: %s", host, port,
		    strerror(saved ? saved : EADDRNOTAVAIL));
	(void)setsockopt(c->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	(void)setsockopt(c->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	return 0;
}

/* http://[USER[:KEY]@]HOST[:PORT][/]: fills c and connects. */
static int
ch_url(struct ch_conn *c, const char *url, char **err)
{
	const char *a, *end, *at, *colon;
	char *host = NULL, *port = NULL;
	int rc;

	if (strncmp(url, "http://", 7) != 0)
		return ch_fail(err, "%s: expected http://HOST[:PORT]", url);
	a = url + 7;
	end = a + strcspn(a, "/?#");
	if (*end != '\0' && strcmp(end, "/") != 0)
		return ch_fail(err, "%s: no path or parameters expected "
		    "(use --database)", url);
	if ((at = memchr(a, '@', (size_t)(end - a))) != NULL) {
		colon = memchr(a, ':', (size_t)(at - a));
		c->user = strndup(a, (size_t)((colon ? colon : at) - a));
		c->key = colon ? strndup(colon + 1, (size_t)(at - colon - 1)) :
		    strdup("");
		a = at + 1;
	}
	c->host = strndup(a, (size_t)(end - a));
	if (*a == '[') {			/* [v6addr]:port */
		const char *rb = memchr(a, ']', (size_t)(end - a));

		if (rb == NULL)
			return ch_fail(err, "%s: unclosed '['", url);
		host = strndup(a + 1, (size_t)(rb - a - 1));
		colon = rb + 1 < end && rb[1] == ':' ? rb + 1 : NULL;
	} else {
		colon = memchr(a, ':', (size_t)(end - a));
		host = strndup(a, (size_t)((colon ? colon : end) - a));
	}
	port = colon ? strndup(colon + 1, (size_t)(end - colon - 1)) :
	    strdup("8123");
	if (c->host == NULL || host == NULL || port == NULL ||
	    (at != NULL && (c->user == NULL || c->key == NULL)))
		rc = ch_fail(err, "out of memory");
	else if (*host == '\0' || *port == '\0')
		rc = ch_fail(err, "%s: no host or port", url);
	else
		rc = ch_connect(c, host, port, err);
	free(host);
	free(port);
	return rc;
}

struct ch_conn *
ch_open(const char *url, const char *database, char **err)
{
	struct ch_conn *c = calloc(1, sizeof(*c));

	*err = NULL;
	if (c == NULL) {
		ch_fail(err, "out of memory");
		return NULL;
	}
	c->fd = -1;
	/* A server that drops the connection is an error, not a signal. */
	signal(SIGPIPE, SIG_IGN);
	if (ch_url(c, url, err) == -1 || (database != NULL &&
	    (c->db = ch_urlenc(database)) == NULL) ||
	    (c->chunk = malloc(CH_CHUNK)) == NULL) {
		if (*err == NULL)
			ch_fail(err, "out of memory");
		ch_close(c);
		return NULL;
	}
	return c;
}

void
ch_close(struct ch_conn *c)
{
	if (c == NULL)
		return;
	if (c->fd != -1)
		close(c->fd);
	free(c->host);
	free(c->user);
	free(c->key);
	free(c->db);
	free(c->chunk);
	free(c);
}

static int
ch_write(struct ch_conn *c, const void *p, size_t n, char **err)
{
	const char *b = p;
	ssize_t w;

	if (c->fd == -1)
		return ch_fail(err, "the connection to ClickHouse is closed");
	while (n > 0) {
		if ((w = write(c->fd, b, n)) == -1) {
			if (errno == EINTR)
				continue;
			return ch_fail(err, "sending to ClickHouse: %s",
			    strerror(errno));
		}
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

/* The next byte of the answer; -1 at end of stream or on error. */
static int
ch_getc(struct ch_conn *c)
{
	ssize_t r;

	if (c->inpos == c->inlen) {
		do
			r = read(c->fd, c->in, sizeof(c->in));
		while (r == -1 && errno == EINTR);
		if (r <= 0)
			return -1;
		c->inpos = 0;
		c->inlen = (size_t)r;
	}
	return (unsigned char)c->in[c->inpos++];
}

/* One CRLF-ended line without its end; -1 at end of stream. */
static int
ch_line(struct ch_conn *c, char *buf, size_t cap)
{
	size_t n = 0;
	int ch;

	while ((ch = ch_getc(c)) != -1 && ch != '\n')
		if (n + 1 < cap)
			buf[n++] = (char)ch;
	if (ch == -1 && n == 0)
		return -1;
	if (n > 0 && buf[n - 1] == '\r')
		n--;
	buf[n] = '\0';
	return 0;
}

/* Appends up to n bytes of the body (n < 0: until the stream ends). */
static int
ch_body(struct ch_conn *c, char **body, size_t *len, long long n)
{
	int ch;

	for (; n != 0; n -= n > 0) {
		if ((ch = ch_getc(c)) == -1)
			return n < 0 ? 0 : -1;
		if (*len + 2 > CH_BODY_MAX)
			return -1;
		if ((*len & 4095) == 0) {
			char *g = realloc(*body, *len + 4096 + 1);

			if (g == NULL)
				return -1;
			*body = g;
		}
		(*body)[(*len)++] = (char)ch;
	}
	return 0;
}

/* Reads one answer; 0 with its body when ClickHouse said 200. */
static int
ch_answer(struct ch_conn *c, char **out, char **err)
{
	char line[CH_LINE_MAX], *body = malloc(4096 + 1), *e;
	size_t len = 0;
	long long clen = -1, sz;
	int status = 0, chunked = 0, close_after = 0, rc = 0;

	if (body == NULL)
		return ch_fail(err, "out of memory");
	if (ch_line(c, line, sizeof(line)) == -1 ||
	    sscanf(line, "HTTP/%*d.%*d %d", &status) != 1) {
		free(body);
		close(c->fd);
		c->fd = -1;
		return ch_fail(err, "ClickHouse closed the connection or "
		    "did not answer in HTTP");
	}
	while (ch_line(c, line, sizeof(line)) == 0 && line[0] != '\0') {
		if (strncasecmp(line, "Content-Length:", 15) == 0)
			clen = strtoll(line + 15, NULL, 10);
		else if (strncasecmp(line, "Transfer-Encoding:", 18) == 0 &&
		    strstr(line + 18, "chunked") != NULL)
			chunked = 1;
		else if (strncasecmp(line, "Connection:", 11) == 0 &&
		    strcasestr(line + 11, "close") != NULL)
			close_after = 1;
	}
	if (chunked) {
		for (;;) {
			if (ch_line(c, line, sizeof(line)) == -1 ||
			    (sz = strtoll(line, &e, 16)) < 0 || e == line) {
				rc = -1;
				break;
			}
			if (sz == 0) {	/* trailers, then the empty line */
				while (ch_line(c, line, sizeof(line)) == 0 &&
				    line[0] != '\0')
					;
				break;
			}
			if (ch_body(c, &body, &len, sz) == -1 ||
			    ch_line(c, line, sizeof(line)) == -1) {
				rc = -1;
				break;
			}
		}
	} else
		rc = ch_body(c, &body, &len, clen);
	body[len] = '\0';
	if (rc == -1 || (clen < 0 && !chunked))
		close_after = 1;
	if (close_after) {
		close(c->fd);
		c->fd = -1;
	}
	if (rc == -1) {
		free(body);
		return ch_fail(err, "ClickHouse's answer was cut short or too "
		    "long");
	}
	if (status != 200) {
		while (len > 0 && (body[len - 1] == '\n' || body[len - 1] ==
		    '\r'))
			body[--len] = '\0';
		ch_fail(err, "ClickHouse (HTTP %d): %.1000s", status, body);
		free(body);
		return -1;
	}
	if (out != NULL)
		*out = body;
	else
		free(body);
	return 0;
}

/* The request line and headers; body_len < 0: a chunked body follows. */
static int
ch_head(struct ch_conn *c, const char *query, const char *settings,
    long long body_len, char **err)
{
	char *q = query ? ch_urlenc(query) : NULL, *h = NULL;
	int n, rc;

	if (query != NULL && q == NULL)
		return ch_fail(err, "out of memory");
	n = asprintf(&h, "POST /?%s%s%s%s%s HTTP/1.1\r\nHost: %s\r\n"
	    "%s%s%s%s%s%s",
	    c->db ? "database=" : "", c->db ? c->db : "",
	    q ? (c->db ? "&query=" : "query=") : "", q ? q : "",
	    settings ? settings : "", c->host,
	    c->user ? "X-ClickHouse-User: " : "", c->user ? c->user : "",
	    c->user ? "\r\nX-ClickHouse-Key: " : "", c->key ? c->key : "",
	    c->user ? "\r\n" : "",
	    body_len < 0 ? "Transfer-Encoding: chunked\r\n\r\n" : "");
	free(q);
	if (n == -1)
		return ch_fail(err, "out of memory");
	rc = ch_write(c, h, (size_t)n, err);
	free(h);
	if (rc == 0 && body_len >= 0) {
		char cl[64];

		n = snprintf(cl, sizeof(cl), "Content-Length: %lld\r\n\r\n",
		    body_len);
		rc = ch_write(c, cl, (size_t)n, err);
	}
	return rc;
}

int
ch_exec(struct ch_conn *c, const char *sql, char **out, char **err)
{
	size_t n = strlen(sql);

	*err = NULL;
	if (ch_head(c, NULL, NULL, (long long)n, err) == -1 ||
	    ch_write(c, sql, n, err) == -1)
		return -1;
	return ch_answer(c, out, err);
}

int
ch_insert_begin(struct ch_conn *c, const char *sql, const char *settings,
    char **err)
{
	*err = NULL;
	c->nchunk = 0;
	return ch_head(c, sql, settings, -1, err);
}

/* Sends what is buffered as one chunk. */
static int
ch_flush(struct ch_conn *c, char **err)
{
	char sz[32];
	int n;

	if (c->nchunk == 0)
		return 0;
	n = snprintf(sz, sizeof(sz), "%zx\r\n", c->nchunk);
	if (ch_write(c, sz, (size_t)n, err) == -1 ||
	    ch_write(c, c->chunk, c->nchunk, err) == -1 ||
	    ch_write(c, "\r\n", 2, err) == -1)
		return -1;
	c->nchunk = 0;
	return 0;
}

/*
 * A server that refuses the data answers early and closes: its message
 * says more than the failed write, so read it when it is there.
 */
static int
ch_refused(struct ch_conn *c, char **err)
{
	char *why = NULL;

	if (c->fd != -1 && ch_answer(c, NULL, &why) == -1 && why != NULL &&
	    strncmp(why, "ClickHouse (HTTP", 16) == 0) {
		free(*err);
		*err = why;
	} else
		free(why);
	return -1;
}

int
ch_insert_write(struct ch_conn *c, const void *p, size_t n, char **err)
{
	const char *b = p;
	size_t k;

	while (n > 0) {
		k = CH_CHUNK - c->nchunk < n ? CH_CHUNK - c->nchunk : n;
		memcpy(c->chunk + c->nchunk, b, k);
		c->nchunk += k;
		b += k;
		n -= k;
		if (c->nchunk == CH_CHUNK && ch_flush(c, err) == -1)
			return ch_refused(c, err);
	}
	return 0;
}

int
ch_insert_end(struct ch_conn *c, char **err)
{
	if (ch_flush(c, err) == -1 || ch_write(c, "0\r\n\r\n", 5, err) == -1)
		return ch_refused(c, err);
	return ch_answer(c, NULL, err);
}
