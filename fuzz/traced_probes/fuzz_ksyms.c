/*
 * libFuzzer target: /proc/kallsyms text as a hostile procfs (or a bug)
 * might present it, fed in chunks of varying size, then lookups.
 *   fuzz/traced_probes/fuzz_ksyms -max_total_time=60
 *   (seed: tests/traced_probes/data/kallsyms.txt prefixed by one byte)
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ksyms.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct ksyms_parse_stats st;
	struct ksyms_builder *b;
	struct ksyms *k;
	const char *cause = NULL;
	char name[KSYMS_NAME_MAX];
	size_t chunk, off, n;
	uint64_t addr;
	int r;

	if (len < 1)
		return 0;
	/* The first byte picks the read size the text arrives in. */
	chunk = (size_t)data[0] % 64 + 1;
	data++;
	len--;
	if ((b = ksyms_builder_new()) == NULL)
		return 0;
	for (off = 0; off < len; off += n) {
		n = len - off < chunk ? len - off : chunk;
		ksyms_builder_feed_untrusted(b, (const char *)data + off, n);
	}
	if ((k = ksyms_builder_finish(b, &st, &cause)) == NULL)
		return 0;
	if (ksyms_count(k) > st.lines)
		abort();
	/* Lookups at addresses taken from the input itself. */
	for (off = 0; off + 8 <= len; off += 8) {
		memcpy(&addr, data + off, 8);
		r = ksyms_lookup(k, addr, name, sizeof(name));
		if (r >= (int)sizeof(name) || (r >= 0 &&
		    strlen(name) != (size_t)r))
			abort();
		(void)ksyms_lookup(k, addr, name, 1 + (size_t)(addr & 15));
	}
	ksyms_free(k);
	return 0;
}
