/*
 * libFuzzer target: a real host on a real socket fed arbitrary bytes by
 * a client that then hangs up. Exercises dispatch (BindService,
 * InvokeMethod with unknown ids, drop_reply, streams, replies kept past
 * the disconnect) behind the frame receiver.
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/un.h>

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "libipc/ipc_host.h"
#include "base/log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct event_base *base;
static struct ipc_host *host;
static char name[64];
static struct ipc_reply *kept[4];
static int lowest_fd;

/* The lowest free descriptor: it moves if any descriptor leaked. */
static int
probe_fd(void)
{
	int fd = dup(0);

	if (fd >= 0)
		close(fd);
	return fd;
}

static void
m_echo(struct ipc_call *call, void *arg)
{
	ipc_reply_send(call->reply, call->args, call->args_len, 0, -1);
}

static void
m_stream(struct ipc_call *call, void *arg)
{
	int i, n = call->args_len > 0 ? call->args[0] % 8 : 0;

	for (i = 0; i < n; i++)
		ipc_reply_send(call->reply, "s", 1, 1, -1);
	ipc_reply_send(call->reply, "e", 1, 0, -1);
}

static void
m_keep(struct ipc_call *call, void *arg)
{
	size_t i;

	for (i = 0; i < 4; i++) {
		if (kept[i] == NULL) {
			kept[i] = call->reply;
			ipc_reply_send(kept[i], "k", 1, 1, -1);
			return;
		}
	}
	ipc_reply_fail(call->reply);
}

static void
m_fd(struct ipc_call *call, void *arg)
{
	int fd = ipc_call_take_fd(call);

	if (fd >= 0)
		close(fd);
	ipc_reply_send(call->reply, NULL, 0, 0, 0);	/* sends stdin */
}

static void
on_disconnect(const struct ipc_peer *peer, void *arg)
{
	size_t i;

	for (i = 0; i < 4; i++) {
		if (kept[i] != NULL) {
			ipc_reply_send(kept[i], "late", 4, 0, -1);
			kept[i] = NULL;
		}
	}
}

static const struct ipc_method methods[] = {
	{ "Echo", m_echo }, { "Stream", m_stream }, { "Keep", m_keep },
	{ "Fd", m_fd }, { "None", NULL },
};

static void
init(void)
{
	log_init("fuzz", 1, 0);
	snprintf(name, sizeof(name), "@faro-fuzz-host-%d", (int)getpid());
	base = event_base_new();
	host = ipc_host_new(base);
	if (ipc_host_listen(host, name, 0600, NULL) == -1 ||
	    ipc_host_add_service(host, "Fuzz", methods, 5, on_disconnect,
	    NULL) == -1 ||
	    ipc_host_add_service(host, "Other", methods, 1, NULL, NULL) == -1)
		fatalx("fuzz init: %s", ipc_host_strerror(host));
	/* Small, so the output cap is reachable from one input. */
	ipc_host_set_outq_max(host, 256 * 1024);
	lowest_fd = probe_fd();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sockaddr_un sun;
	socklen_t len;
	char sink[4096];
	size_t off = 0;
	ssize_t n;
	int fd, i;

	if (base == NULL)
		init();
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	memcpy(sun.sun_path + 1, name + 1, strlen(name) - 1);
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(name));
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0)) == -1)
		return 0;
	if (connect(fd, (struct sockaddr *)&sun, len) == -1) {
		close(fd);
		return 0;
	}
	/* Write, let the host work, read its replies, until all is said. */
	for (i = 0; i < 10000; i++) {
		if (off < size) {
			n = write(fd, data + off, size - off);
			if (n > 0)
				off += (size_t)n;
			if (off == size)
				shutdown(fd, SHUT_WR);
		} else if (size == 0 && i == 0)
			shutdown(fd, SHUT_WR);
		event_base_loop(base, EVLOOP_NONBLOCK);
		n = read(fd, sink, sizeof(sink));
		if (n == 0 || (n == -1 && errno != EAGAIN))
			break;	/* the host hung up */
	}
	close(fd);
	while (ipc_host_nconns(host) > 0)
		event_base_loop(base, EVLOOP_ONCE);
	if (probe_fd() != lowest_fd) {
		fprintf(stderr, "descriptor leaked\n");
		abort();
	}
	return 0;
}
