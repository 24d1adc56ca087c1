/*
 * libFuzzer target for the text-format parser, on the real TraceConfig
 * descriptor. Any input must give a message or an error, never a crash,
 * leak or hang; a message it gives must pack and decode back to the same
 * bytes. Run: fuzz/traceconfig/fuzz_textproto fuzz/traceconfig/corpus -max_total_time=60
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "protos/perfetto/config/trace_config.pb-c.h"

#include "traceconfig/textproto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
roundtrip(ProtobufCMessage *m)
{
	ProtobufCMessage *back;
	uint8_t *a, *b;
	size_t n;

	n = protobuf_c_message_get_packed_size(m);
	if ((a = malloc(n + 1)) == NULL)
		return;
	protobuf_c_message_pack(m, a);
	back = protobuf_c_message_unpack(m->descriptor, NULL, n, a);
	if (back == NULL)
		abort();	/* we produced something we cannot read */
	if (protobuf_c_message_get_packed_size(back) != n)
		abort();
	if ((b = malloc(n + 1)) == NULL)
		abort();
	protobuf_c_message_pack(back, b);
	if (memcmp(a, b, n) != 0)
		abort();
	free(a);
	free(b);
	protobuf_c_message_free_unpacked(back, NULL);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ProtobufCMessage *m;
	char err[512];
	int flags;

	/* The first byte picks strict or lossy; the rest is the text. */
	if (size < 1)
		return 0;
	flags = data[0] & 1 ? TEXTPROTO_SKIP_UNKNOWN : 0;
	m = textproto_parse_untrusted(&perfetto__protos__trace_config__descriptor,
	    (const char *)data + 1, size - 1, "fuzz", flags, err, sizeof(err));
	if (m == NULL) {
		if (err[0] == '\0')
			abort();	/* every failure must say why */
		return 0;
	}
	roundtrip(m);
	protobuf_c_message_free_unpacked(m, NULL);
	return 0;
}
