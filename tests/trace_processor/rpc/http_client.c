/*
 * Test HTTP client: see http_client.h.
 */
#include "config.h"

#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <ctype.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "http_client.h"

int
http_connect(int port)
{
	struct sockaddr_in sin;
	struct timeval tv = { 30, 0 };
	int fd;

	if ((fd = socket(AF_INET, SOCK_STREAM, 0)) == -1)
		return -1;
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons((uint16_t)port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1) {
		close(fd);
		return -1;
	}
	/* A test must never hang on a server that stopped answering. */
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return fd;
}

static int
write_all(int fd, const void *p, size_t n)
{
	const uint8_t *b = p;
	ssize_t w;

	while (n > 0) {
		if ((w = write(fd, b, n)) <= 0) {
			if (w == -1 && errno == EINTR)
				continue;
			return -1;
		}
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

int
http_read_head(int fd, char *buf, size_t len)
{
	size_t n = 0;
	ssize_t r;

	while (n + 1 < len) {
		if ((r = read(fd, buf + n, 1)) <= 0)
			return -1;
		n++;
		if (n >= 4 && memcmp(buf + n - 4, "\r\n\r\n", 4) == 0) {
			buf[n] = '\0';
			return 0;
		}
	}
	return -1;
}

static uint8_t *
read_to_eof(int fd, size_t *len)
{
	uint8_t *b = NULL, *nb;
	size_t cap = 0, n = 0;
	ssize_t r;

	for (;;) {
		if (cap - n < 65536) {
			cap = cap ? cap * 2 : 131072;
			if ((nb = realloc(b, cap + 1)) == NULL) {
				free(b);
				return NULL;
			}
			b = nb;
		}
		if ((r = read(fd, b + n, cap - n)) < 0) {
			if (errno == EINTR)
				continue;
			free(b);
			return NULL;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	b[n] = '\0';
	*len = n;
	return b;
}

char *
http_header(const struct http_reply *r, const char *name)
{
	const char *p = r->headers;
	size_t n = strlen(name);

	while ((p = strstr(p, "\r\n")) != NULL) {
		p += 2;
		if (strncasecmp(p, name, n) == 0 && p[n] == ':') {
			const char *v = p + n + 1, *e;

			while (*v == ' ')
				v++;
			e = strstr(v, "\r\n");
			return strndup(v, e ? (size_t)(e - v) : strlen(v));
		}
	}
	return NULL;
}

/* Undoes chunked transfer coding in place; -1 if malformed. */
static int
dechunk(uint8_t *b, size_t *len)
{
	size_t in = 0, out = 0, n;
	char *end;

	for (;;) {
		n = strtoul((const char *)b + in, &end, 16);
		if ((uint8_t *)end == b + in)
			return -1;
		in = (size_t)((uint8_t *)end - b);
		if ((end = strstr((char *)b + in, "\r\n")) == NULL)
			return -1;
		in = (size_t)((uint8_t *)end - b) + 2;
		if (n == 0)
			break;
		if (in + n + 2 > *len)
			return -1;
		memmove(b + out, b + in, n);
		out += n;
		in += n + 2;
	}
	b[out] = '\0';
	*len = out;
	return 0;
}

int
http_request(int port, const char *method, const char *path,
    const char *extra, const void *body, size_t len, struct http_reply *r)
{
	char head[1024], rhead[8192], *te, *cl;
	int fd;

	memset(r, 0, sizeof(*r));
	if ((fd = http_connect(port)) == -1)
		return -1;
	snprintf(head, sizeof(head), "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\n"
	    "Connection: close\r\nContent-Length: %zu\r\n%s\r\n", method,
	    path, len, extra ? extra : "");
	if (write_all(fd, head, strlen(head)) == -1 ||
	    (len > 0 && write_all(fd, body, len) == -1) ||
	    http_read_head(fd, rhead, sizeof(rhead)) == -1) {
		close(fd);
		return -1;
	}
	r->headers = strdup(rhead);
	if (sscanf(rhead, "HTTP/1.%*d %d", &r->status) != 1) {
		close(fd);
		return -1;
	}
	r->body = read_to_eof(fd, &r->len);
	close(fd);
	if (r->body == NULL)
		return -1;
	te = http_header(r, "Transfer-Encoding");
	cl = http_header(r, "Content-Length");
	if (te != NULL && strcasecmp(te, "chunked") == 0 &&
	    dechunk(r->body, &r->len) == -1) {
		free(te);
		free(cl);
		return -1;
	}
	if (cl != NULL && (size_t)strtoul(cl, NULL, 10) != r->len) {
		free(te);
		free(cl);
		return -1;
	}
	free(te);
	free(cl);
	return 0;
}

void
http_reply_free(struct http_reply *r)
{
	free(r->headers);
	free(r->body);
	memset(r, 0, sizeof(*r));
}
