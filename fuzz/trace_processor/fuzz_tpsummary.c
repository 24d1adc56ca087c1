/*
 * libFuzzer target for trace summary specs, which come from users' files
 * and RPC peers: the first byte picks text (even) or binary (odd) for the
 * rest; a text spec is encoded (sum_pbtxt.c), the spec's shared queries
 * registered and each metric's SQL generated (sum_sqgen.c, sum_sqsrc.c),
 * then the bytes printed as text (sum_print.c). No SQL runs here: the RPC
 * stream target (fuzz_tprpc.c) reaches summaries on an engine.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include "summary/sum_int.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	static struct mp_pool *pool;
	struct sqgen g;
	struct pbbuf w;
	struct sum_msg m;
	struct sum_it it;
	struct pb_field f;
	char *err = NULL, *s;

	if (pool == NULL && (pool = sum_protos_load(&err)) == NULL)
		abort();
	if (len == 0)
		return 0;
	pbb_init(&w);
	m.p = data + 1;
	m.n = len - 1;
	if ((data[0] & 1) == 0) {
		if (sum_pbtxt_untrusted(pool, (const char *)data + 1, len - 1,
		    "fuzz", &w, &err) == -1) {
			free(err);
			pbb_free(&w);
			return 0;
		}
		m.p = w.buf != NULL ? w.buf : (const uint8_t *)"";
		m.n = w.len;
	}
	sqgen_init(&g);
	sum_it_init(&it, m, SPEC_QUERY);
	while (sum_it_next(&it, &f))
		if (sqgen_add_query(&g, sum_field_msg(&f), &err) == -1) {
			free(err);
			err = NULL;
		}
	sum_it_init(&it, m, SPEC_METRIC);
	while (sum_it_next(&it, &f)) {
		s = sqgen_generate(&g, sum_bytes(sum_field_msg(&f), MS_QUERY),
		    &err);
		free(s);
		free(err);
		err = NULL;
	}
	free(sum_print(pool, "perfetto.protos.TraceSummarySpec", m.p, m.n));
	sqgen_free(&g);
	pbb_free(&w);
	return 0;
}
