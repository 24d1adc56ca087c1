/*
 * libFuzzer target: the check traced makes on every producer packet it
 * reads back (packet_validate_untrusted), and the trailer it appends.
 * A packet that passes plus the trailer must still pass (the trailer is
 * made of fields the check reserves, so it must then fail: both ways are
 * asserted).
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "libshm/pbw.h"
#include "traced.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	uint8_t	 trailer[PBW_PACKET_TRAILER_MAX], *buf;
	size_t	 tlen;

	if (packet_validate_untrusted(data, len) == -1)
		return 0;
	tlen = pbw_packet_trailer(trailer, (int32_t)len, (uint32_t)len, 1, 1);
	if (tlen > PBW_PACKET_TRAILER_MAX)
		abort();
	/* Valid + trailer is well formed but uses reserved fields. */
	if ((buf = malloc(len + tlen)) == NULL)
		return 0;
	memcpy(buf, data, len);
	memcpy(buf + len, trailer, tlen);
	if (packet_validate_untrusted(buf, len + tlen) != -1)
		abort();
	free(buf);
	return 0;
}
