/*
 * check_ch_http: the fleet export's ClickHouse client against a scripted
 * server on a real loopback socket: answers with Content-Length, chunked
 * and until-close bodies, several requests on one connection, a streamed
 * INSERT body, and answers that are wrong (not HTTP, a bad chunk size, a
 * body cut short, an error status): each a clear error, never a hang.
 */
#include <arpa/inet.h>
#include <check.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fleet/ch_http.h"

#define MAX_ANSWERS	4

/* The server: one connection, one scripted answer per request read. */
struct fake {
	int		 lfd;
	const char	*answers[MAX_ANSWERS];
	char		*request[MAX_ANSWERS];	/* each request's body */
	size_t		 request_len[MAX_ANSWERS];
	int		 close_after;	/* close after the last answer */
	pthread_t	 th;
};

static int
read_line(int fd, char *buf, size_t cap)
{
	size_t n = 0;
	char c;

	while (read(fd, &c, 1) == 1) {
		if (c == '\n') {
			if (n > 0 && buf[n - 1] == '\r')
				n--;
			buf[n] = '\0';
			return 0;
		}
		if (n + 1 < cap)
			buf[n++] = c;
	}
	return -1;
}

static int
read_exact(int fd, char *p, size_t n)
{
	ssize_t r;

	while (n > 0) {
		if ((r = read(fd, p, n)) <= 0)
			return -1;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

/* Reads one request; its body (Content-Length or chunked) into *body. */
static int
read_request(int fd, char **body, size_t *len)
{
	char line[8192];
	long clen = 0;
	int chunked = 0;

	*body = NULL;
	*len = 0;
	if (read_line(fd, line, sizeof(line)) == -1)
		return -1;
	while (read_line(fd, line, sizeof(line)) == 0 && line[0] != '\0') {
		if (strncmp(line, "Content-Length: ", 16) == 0)
			clen = atol(line + 16);
		if (strcmp(line, "Transfer-Encoding: chunked") == 0)
			chunked = 1;
	}
	if (!chunked) {
		*body = malloc((size_t)clen + 1);
		*len = (size_t)clen;
		return read_exact(fd, *body, (size_t)clen);
	}
	for (;;) {
		size_t sz;

		if (read_line(fd, line, sizeof(line)) == -1)
			return -1;
		sz = strtoul(line, NULL, 16);
		if (sz == 0)
			return read_line(fd, line, sizeof(line));
		*body = realloc(*body, *len + sz + 1);
		if (read_exact(fd, *body + *len, sz) == -1 ||
		    read_line(fd, line, sizeof(line)) == -1)
			return -1;
		*len += sz;
	}
}

static void *
fake_run(void *arg)
{
	struct fake *f = arg;
	int fd = accept(f->lfd, NULL, NULL), i;

	for (i = 0; fd != -1 && i < MAX_ANSWERS && f->answers[i] != NULL;
	    i++) {
		if (read_request(fd, &f->request[i], &f->request_len[i]) == -1)
			break;
		if (write(fd, f->answers[i], strlen(f->answers[i])) < 0)
			break;
	}
	if (fd != -1 && f->close_after)
		close(fd);
	return NULL;
}

/* Starts the server; returns its URL in url. */
static void
fake_start(struct fake *f, char *url, size_t cap)
{
	struct sockaddr_in a;
	socklen_t alen = sizeof(a);

	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	f->lfd = socket(AF_INET, SOCK_STREAM, 0);
	ck_assert_int_ne(f->lfd, -1);
	ck_assert_int_eq(bind(f->lfd, (struct sockaddr *)&a, sizeof(a)), 0);
	ck_assert_int_eq(listen(f->lfd, 1), 0);
	ck_assert_int_eq(getsockname(f->lfd, (struct sockaddr *)&a, &alen), 0);
	snprintf(url, cap, "http://127.0.0.1:%u/", ntohs(a.sin_port));
	ck_assert_int_eq(pthread_create(&f->th, NULL, fake_run, f), 0);
}

/* Waits for the server; the requests it read stay until fake_free. */
static void
fake_stop(struct fake *f)
{
	pthread_join(f->th, NULL);
	close(f->lfd);
}

static void
fake_free(struct fake *f)
{
	int i;

	for (i = 0; i < MAX_ANSWERS; i++)
		free(f->request[i]);
}

START_TEST(test_answers_and_keepalive)
{
	struct fake f = { .answers = {
	    "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n5\n",
	    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
	    "3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n",
	    "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nuntil close",
	}, .close_after = 1 };
	char url[64], *out = NULL, *err = NULL;
	struct ch_conn *c;

	fake_start(&f, url, sizeof(url));
	ck_assert_ptr_nonnull(c = ch_open(url, "fleet", &err));
	ck_assert_int_eq(ch_exec(c, "SELECT 5", &out, &err), 0);
	ck_assert_str_eq(out, "5\n");
	free(out);
	ck_assert_int_eq(ch_exec(c, "SELECT 'abcde'", &out, &err), 0);
	ck_assert_str_eq(out, "abcde");
	free(out);
	ck_assert_int_eq(ch_exec(c, "SELECT 3", &out, &err), 0);
	ck_assert_str_eq(out, "until close");
	free(out);
	/* The server closed: a clear error, not a hang or a signal. */
	ck_assert_int_eq(ch_exec(c, "SELECT 4", &out, &err), -1);
	ck_assert_ptr_nonnull(strstr(err, "closed"));
	free(err);
	ch_close(c);
	fake_stop(&f);
	/* Each statement went as its request's body. */
	ck_assert_uint_eq(f.request_len[0], 8);
	ck_assert_int_eq(memcmp(f.request[0], "SELECT 5", 8), 0);
	fake_free(&f);
}
END_TEST

START_TEST(test_insert_streamed)
{
	struct fake f = { .answers = {
	    "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n" } };
	char url[64], *err = NULL, *data = malloc(700000);
	struct ch_conn *c;
	size_t i;

	for (i = 0; i < 700000; i++)
		data[i] = (char)('a' + i % 26);
	fake_start(&f, url, sizeof(url));
	ck_assert_ptr_nonnull(c = ch_open(url, NULL, &err));
	ck_assert_int_eq(ch_insert_begin(c, "INSERT INTO t FORMAT "
	    "TabSeparated", "", &err), 0);
	/* Pieces of odd sizes, across the client's chunk boundary. */
	for (i = 0; i < 700000; i += 70000)
		ck_assert_int_eq(ch_insert_write(c, data + i, 70000, &err), 0);
	ck_assert_int_eq(ch_insert_end(c, &err), 0);
	ch_close(c);
	fake_stop(&f);
	ck_assert_uint_eq(f.request_len[0], 700000);
	ck_assert_int_eq(memcmp(f.request[0], data, 700000), 0);
	fake_free(&f);
	free(data);
}
END_TEST

/* One wrong answer: ch_exec fails with a message holding want. */
static void
check_bad_answer(const char *answer, const char *want)
{
	struct fake f = { .answers = { answer }, .close_after = 1 };
	char url[64], *out = NULL, *err = NULL;
	struct ch_conn *c;

	fake_start(&f, url, sizeof(url));
	ck_assert_ptr_nonnull(c = ch_open(url, NULL, &err));
	ck_assert_int_eq(ch_exec(c, "SELECT 1", &out, &err), -1);
	ck_assert_ptr_null(out);
	ck_assert_ptr_nonnull(err);
	ck_assert_msg(strstr(err, want) != NULL, "'%s' lacks '%s'", err, want);
	free(err);
	ch_close(c);
	fake_stop(&f);
	fake_free(&f);
}

START_TEST(test_bad_answers)
{
	check_bad_answer("HTTP/1.1 500 Internal Server Error\r\n"
	    "Connection: close\r\n\r\n"
	    "Code: 60. DB::Exception: Table t doesn't exist\n",
	    "(HTTP 500): Code: 60. DB::Exception: Table t doesn't exist");
	check_bad_answer("HELLO\r\n\r\n", "did not answer in HTTP");
	check_bad_answer("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n"
	    "\r\nzz\r\n", "cut short");
	check_bad_answer("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n"
	    "only this", "cut short");
	check_bad_answer("HTTP/1.1 200 OK\r\nContent-Length: 99999999999\r\n"
	    "\r\nx", "cut short or too long");
}
END_TEST

START_TEST(test_bad_urls)
{
	char *err = NULL;

	ck_assert_ptr_null(ch_open("https://127.0.0.1:8443", NULL, &err));
	ck_assert_ptr_nonnull(strstr(err, "expected http://"));
	free(err);
	ck_assert_ptr_null(ch_open("http://127.0.0.1:8123/db?x=1", NULL,
	    &err));
	ck_assert_ptr_nonnull(strstr(err, "no path or parameters"));
	free(err);
	ck_assert_ptr_null(ch_open("http://[::1", NULL, &err));
	ck_assert_ptr_nonnull(strstr(err, "unclosed"));
	free(err);
	ck_assert_ptr_null(ch_open("http://:8123", NULL, &err));
	ck_assert_ptr_nonnull(strstr(err, "no host"));
	free(err);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("ch_http");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_answers_and_keepalive);
	tcase_add_test(tc, test_insert_streamed);
	tcase_add_test(tc, test_bad_answers);
	tcase_add_test(tc, test_bad_urls);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
