/*
 * The trace processor RPC: Perfetto's TraceProcessorRpc methods on one
 * engine, for the HTTP endpoints and for the byte stream that /rpc and
 * /websocket carry.
 *
 * Stream framing (TraceProcessorRpcStream, both directions):
 *
 *   0x0a <varint len> TraceProcessorRpc   0x0a <varint len> ...
 *
 * Requests carry seq (each one the previous plus one), request = method
 * and their args; every reply carries the service's own seq counter,
 * response = method and a result; a query answers with one reply per
 * QueryResult batch. A framing error or an out-of-order seq gets one
 * message with fatal_error, then the sender is told to close.
 *
 * Loading: parse (append_trace_data) any number of times, then eof
 * (finalize). Parsing again after eof starts a new trace, as upstream.
 */
#ifndef FARO_TP_RPC_H
#define FARO_TP_RPC_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "tp.h"

/*
 * The API version of the proto we implement (TraceProcessorApiVersion),
 * also printed by trace_processor --version.
 */
#define RPC_API_VERSION		14

struct metrics;
struct pbbuf;
struct rpc;

/* data == NULL, len == 0: close the stream (after a fatal error). */
typedef void	 rpc_send_fn(void *arg, const void *data, size_t len);

/*
 * preloaded (may be NULL) is a loaded, finalized engine named name; the
 * RPC takes it over. mx (may be NULL) serves compute_metric.
 */
struct rpc	*rpc_new(const struct tp_config *, struct tp *preloaded,
		    const char *name, struct metrics *mx, char **err);
void		 rpc_free(struct rpc *);
/* Serves tp (loaded and finalized, taken over) as a preloaded trace. */
void		 rpc_preload(struct rpc *, struct tp *, const char *name);
/*
 * The RPC serves tp (taken over; the previous engine is freed), which its
 * caller goes on feeding (tp_parse, tp_checkpoint): parse, eof and reset
 * from clients are refused, queries and metrics run on it as it stands.
 */
void		 rpc_fix_engine(struct rpc *, struct tp *,
		    const char *name);

/* The stream: where replies go, and bytes that came in. */
void		 rpc_stream_begin(struct rpc *, rpc_send_fn *, void *arg);
void		 rpc_stream_input_untrusted(struct rpc *, const void *,
		    size_t);
void		 rpc_stream_end(struct rpc *);

/* The methods, for the one-endpoint-per-method HTTP API. */
int		 rpc_parse(struct rpc *, const void *, size_t, char **err);
int		 rpc_eof(struct rpc *, char **err);
void		 rpc_restore_initial_tables(struct rpc *);
void		 rpc_reset(struct rpc *);
/* Serialized StatusResult / ComputeMetricResult appended to out. */
void		 rpc_status(struct rpc *, struct pbbuf *out);
void		 rpc_compute_metric_untrusted(struct rpc *, const void *args,
		    size_t len, struct pbbuf *out);
/* RegisterSqlPackageResult for RegisterSqlPackageArgs (rpc_pkg.c). */
void		 rpc_register_sql_package_untrusted(struct rpc *,
		    const void *args, size_t len, struct pbbuf *out);
/*
 * The result of a method this engine does not serve (summarizers,
 * export, reading a metatrace) with its error set, for the
 * TPM_ number method; 0, or -1 if the method is not one of them.
 */
int		 rpc_refused(int method, uint32_t *result_field,
		    struct pbbuf *out);
/* AppendTraceDataResult for a parse outcome. */
void		 rpc_append_result(struct rpc *, const char *err,
		    struct pbbuf *out);

sqlite3		*rpc_db(struct rpc *);
struct tp	*rpc_tp(struct rpc *);

#endif
