/*
 * libFuzzer target: the incremental frame receiver. The first input byte
 * picks how the rest is split into reads, so one corpus explores both
 * the byte stream and its chunking.
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>

#include "libipc/ipc_frame.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ipc_frame_rx rx;
	struct ipc_frame_in in;
	const char *cause;
	size_t chunk, off = 1, n;
	ssize_t took;
	int r;

	if (size < 1)
		return 0;
	chunk = (size_t)data[0] + 1;
	ipc_frame_rx_init(&rx, 0);
	while (off < size) {
		n = size - off < chunk ? size - off : chunk;
		if ((took = ipc_frame_rx_feed(&rx, data + off, n, &cause)) <= 0)
			break;
		off += (size_t)took;
		while ((r = ipc_frame_rx_pop_untrusted(&rx, &in, &cause)) == 1)
			ipc_frame_in_free(&in);
		if (r == -1)
			break;	/* a real peer is disconnected here */
	}
	ipc_frame_rx_free(&rx);
	return 0;
}
