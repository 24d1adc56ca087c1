/*
 * libipc throughput on one event loop, host and client in one process
 * over a real UNIX socket, next to a reference: the same bytes through a
 * bare socketpair with no framing, protobuf or dispatch.
 *
 *   calls/s    sequential Echo invocations (request, reply, next request)
 *   MB/s       one streamed reply of N x 60 KiB frames
 */
#include "config.h"

#include <sys/socket.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "libipc/ipc_client.h"
#include "libipc/ipc_host.h"

#define CHUNK	(60 * 1024)

static struct event_base *base;
static int done, nreplies;
static uint32_t sid;
static uint64_t bytes;

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
m_echo(struct ipc_call *call, void *arg)
{
	ipc_reply_send(call->reply, call->args, call->args_len, 0, -1);
}

/* Streams n chunks, pacing itself on the connection's backlog. */
struct stream {
	struct ipc_reply	*r;
	int			 left;
	struct event		*ev;
};

static void
stream_more(evutil_socket_t fd, short ev, void *arg)
{
	static uint8_t blob[CHUNK];
	struct stream *s = arg;
	struct timeval tv = { 0, 0 };

	while (s->left > 0 && ipc_reply_backlog(s->r) < 4 * CHUNK) {
		s->left--;
		ipc_reply_send(s->r, blob, sizeof(blob), s->left > 0, -1);
	}
	if (s->left > 0)
		evtimer_add(s->ev, &tv);
	else {
		event_free(s->ev);
		free(s);
	}
}

static void
m_stream(struct ipc_call *call, void *arg)
{
	struct stream *s = calloc(1, sizeof(*s));

	s->r = call->reply;
	memcpy(&s->left, call->args, sizeof(s->left));
	s->ev = evtimer_new(base, stream_more, s);
	stream_more(-1, 0, s);
}

static const struct ipc_method methods[] = {
	{ "Echo", m_echo }, { "Stream", m_stream },
};

static void
on_event(struct ipc_client *c, enum ipc_client_event ev, void *arg)
{
}

static void
on_bind(struct ipc_client *c, const struct ipc_binding *b, void *arg)
{
	sid = b->service_id;
	done = 1;
}

static int left_calls;

static void
on_echo(struct ipc_client *c, struct ipc_result *res, void *arg)
{
	if (--left_calls > 0)
		ipc_client_invoke(c, sid, 1, "0123456789abcdef", 16, -1, 0,
		    on_echo, NULL);
	else
		done = 1;
}

static void
on_chunk(struct ipc_client *c, struct ipc_result *res, void *arg)
{
	bytes += res->len;
	nreplies++;
	if (!res->has_more)
		done = 1;
}

static void
loop_until_done(void)
{
	while (!done)
		event_base_loop(base, EVLOOP_ONCE);
	done = 0;
}

/*
 * Reference: the same exchanges through a bare socketpair in the same
 * thread, i.e. the syscalls alone.
 */
static void
reference(int calls, int chunks, double *calls_s, double *mb_s)
{
	static uint8_t blob[CHUNK], sink[CHUNK];
	int sv[2], i, sz = 4 * CHUNK;
	char b[20] = { 0 };
	size_t off;
	ssize_t n;
	double t0;

	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	t0 = now();
	for (i = 0; i < calls; i++) {
		if (write(sv[0], b, 20) != 20 || read(sv[1], b, 20) != 20 ||
		    write(sv[1], b, 20) != 20 || read(sv[0], b, 20) != 20)
			break;
	}
	*calls_s = calls / (now() - t0);
	t0 = now();
	for (i = 0; i < chunks; i++) {
		if (write(sv[1], blob, CHUNK) != CHUNK)
			break;
		for (off = 0; off < CHUNK; off += (size_t)n)
			if ((n = read(sv[0], sink, CHUNK - off)) <= 0)
				break;
	}
	*mb_s = (double)chunks * CHUNK / (now() - t0) / 1e6;
	close(sv[0]);
	close(sv[1]);
}

int
main(int argc, char **argv)
{
	int calls = argc > 1 ? atoi(argv[1]) : 100000;
	int chunks = argc > 2 ? atoi(argv[2]) : 20000;
	char dir[] = "/tmp/bench_ipc.XXXXXX", path[64];
	struct ipc_host *h;
	struct ipc_client *c;
	double t0, ipc_calls, ipc_mb, ref_calls, ref_mb;

	if (mkdtemp(dir) == NULL)
		return 1;
	snprintf(path, sizeof(path), "%s/b.sock", dir);
	base = event_base_new();
	h = ipc_host_new(base);
	if (ipc_host_listen(h, path, 0600, NULL) == -1) {
		fprintf(stderr, "%s\n", ipc_host_strerror(h));
		return 1;
	}
	ipc_host_add_service(h, "Bench", methods, 2, NULL, NULL);
	c = ipc_client_new(base, path, 0, on_event, NULL);
	ipc_client_bind(c, "Bench", on_bind, NULL);
	loop_until_done();

	left_calls = calls;
	t0 = now();
	ipc_client_invoke(c, sid, 1, "0123456789abcdef", 16, -1, 0, on_echo,
	    NULL);
	loop_until_done();
	ipc_calls = calls / (now() - t0);

	t0 = now();
	ipc_client_invoke(c, sid, 2, &chunks, sizeof(chunks), -1, 0, on_chunk,
	    NULL);
	loop_until_done();
	ipc_mb = (double)bytes / (now() - t0) / 1e6;

	reference(calls, chunks, &ref_calls, &ref_mb);
	printf("echo calls/s:   libipc %.0f  bare socketpair %.0f  "
	    "ratio %.2f\n", ipc_calls, ref_calls, ipc_calls / ref_calls);
	printf("stream MB/s:    libipc %.0f  bare socketpair %.0f  "
	    "ratio %.2f (%d replies)\n", ipc_mb, ref_mb, ipc_mb / ref_mb,
	    nreplies);
	ipc_client_free(c);
	ipc_host_free(h);
	event_base_free(base);
	unlink(path);
	rmdir(dir);
	return 0;
}
