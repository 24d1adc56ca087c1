/*
 * fuzz_consumer_read: hostile ReadBuffers replies into the packet joiner
 * (libipc/consumer_read.c). The input is split into replies at positions
 * taken from its first byte; the joiner must never keep a packet over its
 * limit, nor hand out a packet longer than the bytes it was given.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include "libipc/consumer_read.h"

struct fuzz_seen {
	size_t	 total;		/* bytes handed out */
	size_t	 max;
};

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static int
fuzz_packet(void *arg, const uint8_t *pkt, size_t len)
{
	struct fuzz_seen *s = arg;

	if (len > s->max)
		abort();
	if (len > 0 && pkt == NULL)
		abort();
	s->total += len;
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct consumer_read rd;
	struct fuzz_seen seen = { 0, 0 };
	size_t off, n, step;

	if (size < 1)
		return 0;
	step = (size_t)data[0] + 1;
	seen.max = (size_t)data[0] * 4;
	consumer_read_init(&rd, seen.max);
	for (off = 1; off < size; off += n) {
		n = size - off < step ? size - off : step;
		(void)consumer_read_reply_untrusted(&rd, data + off, n,
		    fuzz_packet, &seen);
	}
	if (seen.total > size)
		abort();
	consumer_read_free(&rd);
	return 0;
}
