/*
 * Radix sort (see cs_radix.h): one pass per key byte, skipping a byte
 * that is the same in every key (the high bytes of times and ids).
 */
#include <string.h>

#include "cs_radix.h"

uint32_t *
cs_radix_sort(uint64_t *k, uint32_t *v, uint64_t *k2, uint32_t *v2, size_t n)
{
	size_t count[256], i, shift;

	for (shift = 0; shift < 64 && n > 0; shift += 8) {
		size_t sum = 0;
		uint64_t *tk;
		uint32_t *tv;

		memset(count, 0, sizeof(count));
		for (i = 0; i < n; i++)
			count[(k[i] >> shift) & 0xff]++;
		if (count[(k[0] >> shift) & 0xff] == n)
			continue;
		for (i = 0; i < 256; i++) {
			size_t c = count[i];

			count[i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++) {
			size_t at = count[(k[i] >> shift) & 0xff]++;

			k2[at] = k[i];
			v2[at] = v[i];
		}
		tk = k, k = k2, k2 = tk;
		tv = v, v = v2, v2 = tv;
	}
	return v;
}
