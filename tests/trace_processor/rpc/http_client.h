/*
 * A blocking HTTP/1.1 client for the tests: one request per connection,
 * Content-Length and chunked replies, raw access to the socket for the
 * WebSocket test.
 */
#ifndef FARO_TEST_HTTP_CLIENT_H
#define FARO_TEST_HTTP_CLIENT_H

#include <stddef.h>
#include <stdint.h>

struct http_reply {
	int	 status;
	char	*headers;	/* raw, NUL-terminated */
	uint8_t	*body;		/* de-chunked; NUL-terminated */
	size_t	 len;
};

/*
 * method path on 127.0.0.1:port with extra header lines ("K: v\r\n...",
 * may be NULL) and a body. 0, or -1 on a transport error.
 */
int	http_request(int port, const char *method, const char *path,
	    const char *extra_headers, const void *body, size_t len,
	    struct http_reply *);
void	http_reply_free(struct http_reply *);
/* The value of a header (case-insensitive), malloc'd, or NULL. */
char	*http_header(const struct http_reply *, const char *name);

/* A connected socket to 127.0.0.1:port, -1 on failure. */
int	http_connect(int port);
/* Reads until "\r\n\r\n"; the head in buf (NUL-terminated). */
int	http_read_head(int fd, char *buf, size_t len);

#endif
