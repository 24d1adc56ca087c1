/*
 * libFuzzer target: the trace filter's bytecode parser and the filter it
 * builds (trace_filter.c), on a bytecode and an overlay from a consumer's
 * config and a packet from a producer.
 *
 * Input: mode (1 byte), bytecode length (2 bytes LE), bytecode, overlay
 * length (1 byte), overlay, packet. Mode bit 0 appends the right checksum
 * to the bytecode and bit 1 to the overlay, so that the parser's checks
 * past the checksum get exercised too. A packet that passes must come out
 * no larger; the output must pass again, and filtering is stable from
 * the second pass on (lengths keep their input widths once).
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "libshm/pbw.h"
#include "traced.h"

int LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* Copies a varint stream and appends its checksum word. */
static size_t
with_checksum(const uint8_t *in, size_t len, uint8_t *out)
{
	static uint32_t	 w[65536];
	const uint8_t	*p = in, *end = in + len;
	uint64_t	 v;
	size_t		 o = 0, n = 0;

	while (p < end && n < 65536 && packet_varint(&p, end, &v) == 0) {
		w[n++] = (uint32_t)v;
		o = (size_t)(pbw_put_varint(out + o, (uint32_t)v) - out);
	}
	return (size_t)(pbw_put_varint(out + o, trace_filter_checksum(w, n)) -
	    out);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	static struct trace_filter *tf;
	static uint8_t	 bc[65536 * 5 + 16], ov[256 * 5 + 16];
	const uint8_t	*b, *o, *out;
	uint8_t		*copy, *copy2;
	const char	*cause;
	size_t		 blen, olen;
	ssize_t		 n, n2, n3;
	int		 mode;

	if (tf == NULL && (tf = trace_filter_new_empty()) == NULL)
		abort();
	if (len < 4)
		return 0;
	mode = data[0];
	blen = (size_t)data[1] | (size_t)data[2] << 8;
	data += 3;
	len -= 3;
	if (blen > len)
		return 0;
	b = data;
	data += blen;
	len -= blen;
	olen = len > 0 ? data[0] : 0;
	if (len > 0) {
		data++;
		len--;
	}
	if (olen > len)
		olen = len;
	o = data;
	data += olen;
	len -= olen;
	if (mode & 1) {
		blen = with_checksum(b, blen, bc);
		b = bc;
	}
	if (mode & 2 && olen > 0) {
		olen = with_checksum(o, olen, ov);
		o = ov;
	}
	if (trace_filter_load_untrusted(tf, b, blen, o, olen, &cause) == -1) {
		if (cause == NULL)
			abort();
		return 0;
	}
	if ((n = trace_filter_packet_untrusted(tf, data, len, NULL, 0,
	    &out)) == -1)
		return 0;
	if ((size_t)n > len)
		abort();
	if ((copy = malloc((size_t)n + 1)) == NULL)
		return 0;
	memcpy(copy, out, (size_t)n);
	if ((n2 = trace_filter_packet_untrusted(tf, copy, (size_t)n, NULL, 0,
	    &out)) == -1 || n2 > n)
		abort();
	if ((copy2 = malloc((size_t)n2 + 1)) == NULL) {
		free(copy);
		return 0;
	}
	memcpy(copy2, out, (size_t)n2);
	n3 = trace_filter_packet_untrusted(tf, copy2, (size_t)n2, NULL, 0,
	    &out);
	if (n3 != n2 || (n2 > 0 && memcmp(out, copy2, (size_t)n2) != 0))
		abort();
	free(copy);
	free(copy2);
	return 0;
}
