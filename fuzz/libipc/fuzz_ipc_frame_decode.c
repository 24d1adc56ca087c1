/*
 * libFuzzer target: the IPCFrame decoder on one payload, and the encoder
 * on whatever decoded (a decoded frame must re-encode within the cap or
 * be refused cleanly).
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "libipc/ipc_frame.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *cause;
	ipc_frame_t *f;
	uint8_t *out;

	if (size > IPC_FRAME_MAX)
		return 0;
	if ((f = ipc_frame_decode_untrusted(data, size, &cause)) == NULL)
		return 0;
	if (ipc_frame_encode(f, &out, &cause) > 0)
		free(out);
	ipc_frame_msg_free(f);
	return 0;
}
