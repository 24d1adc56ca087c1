/*
 * fuzz_tfs_broker: the privileged broker's request stream (tfs.c) as a
 * compromised worker could send it. The input is a run of messages, each
 * a 2-byte little-endian length and its bytes; they go down a
 * SOCK_SEQPACKET pair to broker_serve, which must answer or give up on
 * each without crashing, hanging or touching anything outside its top
 * directory. The top is a scratch stand-in for tracefs, made once, so a
 * fuzzer that finds its name (a fixed path, to be findable) reaches the
 * per-file checks behind it. Seed it with the requests the worker really
 * sends (run the kernel suites under strace -e sendmsg, or write a few).
 */
#include <sys/socket.h>
#include <sys/stat.h>

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemons/traced_probes/broker.h"
#include "tfs.h"

#define TOP		"/tmp/faro-fuzz-tfs"
#define MAX_MSGS	32

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
touch(const char *rel, const char *text)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", TOP, rel);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644)) == -1)
		abort();
	if (write(fd, text, strlen(text)) < 0)
		abort();
	close(fd);
}

/* A few of the files and directories the broker serves. */
static void
top_make(void)
{
	static const char *dirs[] = { "", "/events", "/events/sched",
	    "/events/sched/sched_switch", "/per_cpu", "/per_cpu/cpu0",
	    "/instances" };
	char path[256];

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(path, sizeof(path), "%s%s", TOP, dirs[i]);
		(void)mkdir(path, 0755);
	}
	touch("tracing_on", "1\n");
	touch("buffer_size_kb", "1408\n");
	touch("trace_clock", "[local] global boot\n");
	touch("set_event", "");
	touch("kprobe_events", "");
	touch("events/sched/sched_switch/enable", "0\n");
	touch("events/sched/sched_switch/format", "name: sched_switch\n");
	touch("per_cpu/cpu0/trace_pipe_raw", "");
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int made;
	int sv[2], nmsg = 0;
	size_t off = 0, len;

	if (!made) {
		top_make();
		made = 1;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == -1)
		abort();
	/* Every message is queued before the broker runs; its replies queue
	 * the other way and go with the socket (few, small: no blocking). */
	while (off + 2 <= size && nmsg < MAX_MSGS) {
		len = (size_t)data[off] | (size_t)data[off + 1] << 8;
		off += 2;
		if (len > size - off)
			len = size - off;
		if (send(sv[0], data + off, len, MSG_NOSIGNAL) == -1)
			break;
		off += len;
		nmsg++;
	}
	shutdown(sv[0], SHUT_WR);
	(void)broker_serve(sv[1], TOP);
	close(sv[0]);
	close(sv[1]);
	return 0;
}
