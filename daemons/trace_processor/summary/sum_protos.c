/*
 * The summary's protos (structured_query.proto, v2_metric.proto,
 * file.proto), compiled in as text and read with the metrics' .proto
 * reader: protoc-c cannot compile them (sum_print.c and sum_pbtxt.c use
 * these descriptors instead).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "metrics/metrics.h"
#include "metrics/mproto.h"
#include "sum_int.h"

extern const struct metrics_file sum_proto_files[];

struct mp_pool *
sum_protos_load(char **err)
{
	const struct metrics_file *f;
	struct mp_pool *pool;
	char e[256];

	if ((pool = calloc(1, sizeof(*pool))) == NULL) {
		*err = strdup("out of memory");
		return NULL;
	}
	mp_pool_init(pool);
	for (f = sum_proto_files; f->name != NULL; f++)
		if (mp_parse_untrusted(pool, f->text, strlen(f->text), f->name,
		    e, sizeof(e)) == -1)
			goto fail;
	if (mp_resolve(pool, e, sizeof(e)) == -1)
		goto fail;
	return pool;
fail:
	*err = strdup(e);
	sum_protos_free(pool);
	return NULL;
}

void
sum_protos_free(struct mp_pool *pool)
{
	if (pool == NULL)
		return;
	mp_pool_free(pool);
	free(pool);
}
