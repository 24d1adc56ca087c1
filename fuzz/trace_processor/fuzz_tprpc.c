/*
 * libFuzzer targets for what the RPC daemon reads from its peers:
 *   FUZZ_TARGET 0: a TraceProcessorRpcStream, fed in pieces split at
 *                  offsets taken from its first byte, to the RPC on an
 *                  engine (parse, finalize, queries, metrics, ...)
 *   FUZZ_TARGET 1: a .proto file for metrics (mproto)
 * Queries from the input may be costly: a progress handler stops any
 * statement after a bounded number of steps.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/metrics.h"
#include "metrics/mproto.h"
#include "daemons/trace_processor/rpc/rpc.h"
#include "tp.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#if FUZZ_TARGET == 0
static void
discard(void *arg, const void *data, size_t len)
{
	(void)arg;
	(void)data;
	(void)len;
}

static int
stop_long(void *arg)
{
	int *steps = arg;

	return ++*steps > 2000;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	static struct metrics *mx;
	struct tp_config cfg;
	struct rpc *r;
	char *err = NULL;
	size_t off = 0, step;
	int steps = 0;

	if (mx == NULL && (mx = metrics_new(&err)) == NULL)
		abort();
	tp_config_init(&cfg);
	if ((r = rpc_new(&cfg, NULL, NULL, mx, &err)) == NULL) {
		free(err);
		return 0;
	}
	sqlite3_progress_handler(rpc_db(r), 1000, stop_long, &steps);
	rpc_stream_begin(r, discard, NULL);
	step = len > 0 ? (size_t)data[0] % 64 + 1 : 1;
	while (off < len) {
		size_t n = len - off < step ? len - off : step;

		rpc_stream_input_untrusted(r, data + off, n);
		off += n;
		/* The engine may have been replaced: keep it bounded too. */
		sqlite3_progress_handler(rpc_db(r), 1000, stop_long, &steps);
	}
	rpc_stream_end(r);
	rpc_free(r);
	return 0;
}
#else
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct mp_pool pool;
	char err[256];

	mp_pool_init(&pool);
	if (mp_parse_untrusted(&pool, (const char *)data, len, "fuzz", err,
	    sizeof(err)) == 0)
		(void)mp_resolve(&pool, err, sizeof(err));
	mp_pool_free(&pool);
	return 0;
}
#endif
