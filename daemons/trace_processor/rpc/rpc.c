/*
 * The trace processor RPC: see rpc.h.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "metrics/metrics.h"
#include "metrics/pbbuf.h"
#include "pbdec.h"
#include "psql/psql.h"
#include "query.h"
#include "rpc.h"
#include "summary/summary.h"

/* TraceProcessorRpc fields and methods (trace_processor.proto). */
#define RPC_SEQ			1
#define RPC_REQUEST		2
#define RPC_RESPONSE		3
#define RPC_INVALID_REQUEST	4
#define RPC_FATAL_ERROR		5
#define RPC_APPEND_TRACE_DATA	101
#define RPC_QUERY_ARGS		103
#define RPC_COMPUTE_METRIC_ARGS	105
#define RPC_RESET_ARGS		107
#define RPC_REGISTER_SQL_ARGS	108
#define RPC_SUMMARY_ARGS	110
#define RPC_STATEMENT_ARGS	115
#define RPC_APPEND_RESULT	201
#define RPC_QUERY_RESULT	203
#define RPC_METRIC_RESULT	205
#define RPC_METRIC_DESCRIPTORS	206
#define RPC_METATRACE		209
#define RPC_STATUS		210
#define RPC_REGISTER_SQL_RESULT	211
#define RPC_FINALIZE_RESULT	212
#define RPC_SUMMARY_RESULT	214
#define RPC_STATEMENT_RESULT	219

enum {
	TPM_APPEND_TRACE_DATA = 1,
	TPM_FINALIZE_TRACE_DATA = 2,
	TPM_QUERY_STREAMING = 3,
	TPM_COMPUTE_METRIC = 5,
	TPM_GET_METRIC_DESCRIPTORS = 6,
	TPM_RESTORE_INITIAL_TABLES = 7,
	TPM_ENABLE_METATRACE = 8,
	TPM_DISABLE_AND_READ_METATRACE = 9,
	TPM_GET_STATUS = 10,
	TPM_RESET_TRACE_PROCESSOR = 11,
	TPM_REGISTER_SQL_PACKAGE = 13,
	TPM_SUMMARIZE_TRACE = 15,
	TPM_CREATE_SUMMARIZER = 16,
	TPM_UPDATE_SUMMARIZER_SPEC = 17,
	TPM_QUERY_SUMMARIZER = 18,
	TPM_DESTROY_SUMMARIZER = 19,
	TPM_STATEMENT_STREAMING = 20,
	TPM_EXPORT = 21,
};

static const char summary_msg[] = "summarizers are not supported by "
    "faro's trace_processor: ask for the whole summary (TPM_SUMMARIZE_TRACE"
    ", /trace_summary)";

/* What is refused: the result message and its error field. */
static const struct {
	int		 method;
	uint32_t	 result;
	uint32_t	 error;
	const char	*msg;
} refused[] = {
	{ TPM_DISABLE_AND_READ_METATRACE, 209, 2,
	    "metatracing is not supported" },
	{ TPM_CREATE_SUMMARIZER, 215, 2, summary_msg },
	{ TPM_UPDATE_SUMMARIZER_SPEC, 216, 2, summary_msg },
	{ TPM_QUERY_SUMMARIZER, 217, 6, summary_msg },
	{ TPM_DESTROY_SUMMARIZER, 218, 1, summary_msg },
	{ TPM_EXPORT, 220, 2, "export is not supported over RPC: the shell's"
	    " -e FILE writes the tables to an SQLite file" },
};

/* Largest stream message accepted (upstream bounds it the same way). */
#define RPC_MAX_MSG		(128u << 20)

struct rpc_obj {
	char	*type;
	char	*name;
};

struct rpc {
	struct tp_config	 cfg;
	struct tp		*tp;
	struct metrics		*mx;
	char			*name;
	int			 eof;
	int			 fixed;		/* rpc_fix_engine */
	uint64_t		 bytes_parsed;
	/* Schema objects present right after the trace was finalized. */
	struct rpc_obj		*initial;
	size_t			 ninitial;
	/* The stream. */
	rpc_send_fn		*send;
	void			*send_arg;
	uint8_t			*rx;
	size_t			 rxlen, rxcap;
	int64_t			 rx_seq;
	int64_t			 tx_seq;
	int			 closed;
};

static void
rpc_initial_free(struct rpc *r)
{
	size_t i;

	for (i = 0; i < r->ninitial; i++) {
		free(r->initial[i].type);
		free(r->initial[i].name);
	}
	free(r->initial);
	r->initial = NULL;
	r->ninitial = 0;
}

/* Remembers which tables and views the engine made. */
static void
rpc_initial_snapshot(struct rpc *r)
{
	sqlite3_stmt *st;
	struct rpc_obj *n;

	rpc_initial_free(r);
	if (sqlite3_prepare_v2(tp_db(r->tp), "SELECT type, name FROM "
	    "sqlite_schema UNION ALL SELECT type, name FROM "
	    "sqlite_temp_schema", -1, &st, NULL) != SQLITE_OK)
		return;
	while (sqlite3_step(st) == SQLITE_ROW) {
		n = reallocarray(r->initial, r->ninitial + 1, sizeof(*n));
		if (n == NULL)
			break;
		r->initial = n;
		n[r->ninitial].type = strdup((const char *)
		    sqlite3_column_text(st, 0));
		n[r->ninitial].name = strdup((const char *)
		    sqlite3_column_text(st, 1));
		r->ninitial++;
	}
	sqlite3_finalize(st);
}

static int
rpc_is_initial(struct rpc *r, const char *type, const char *name)
{
	size_t i;

	for (i = 0; i < r->ninitial; i++)
		if (r->initial[i].type && r->initial[i].name &&
		    strcmp(r->initial[i].type, type) == 0 &&
		    strcmp(r->initial[i].name, name) == 0)
			return 1;
	return 0;
}

static int
rpc_engine_new(struct rpc *r, char **err)
{
	tp_free(r->tp);
	rpc_initial_free(r);
	r->eof = 0;
	r->bytes_parsed = 0;
	if ((r->tp = tp_new(&r->cfg, err)) == NULL)
		return -1;
	return 0;
}

struct rpc *
rpc_new(const struct tp_config *cfg, struct tp *preloaded, const char *name,
    struct metrics *mx, char **err)
{
	struct rpc *r;

	if ((r = calloc(1, sizeof(*r))) == NULL) {
		*err = strdup("out of memory");
		return NULL;
	}
	r->cfg = *cfg;
	/* The RPC has no terminal to show progress on. */
	r->cfg.progress = NULL;
	r->mx = mx;
	if (preloaded != NULL)
		rpc_preload(r, preloaded, name);
	else if (rpc_engine_new(r, err) == -1) {
		free(r);
		return NULL;
	}
	return r;
}

void
rpc_preload(struct rpc *r, struct tp *tp, const char *name)
{
	tp_free(r->tp);
	rpc_initial_free(r);
	r->tp = tp;
	r->eof = 1;
	free(r->name);
	r->name = name ? strdup(name) : NULL;
	rpc_initial_snapshot(r);
}

void
rpc_free(struct rpc *r)
{
	if (r == NULL)
		return;
	tp_free(r->tp);
	rpc_initial_free(r);
	free(r->name);
	free(r->rx);
	free(r);
}

sqlite3 *
rpc_db(struct rpc *r)
{
	return tp_db(r->tp);
}

struct tp *
rpc_tp(struct rpc *r)
{
	return r->tp;
}

static char *
rpc_strdup_err(const char *s)
{
	return strdup(s && *s ? s : "unknown error");
}

/* What parse, eof and reset say to an engine fed by its owner. */
static const char fixed_msg[] = "this trace processor follows a live session:"
    " it takes no trace";

void
rpc_fix_engine(struct rpc *r, struct tp *tp, const char *name)
{
	tp_free(r->tp);
	r->tp = tp;
	free(r->name);
	r->name = name ? strdup(name) : NULL;
	r->fixed = 1;
	/* Queries may run at once; the tables it has now are its own. */
	r->eof = 1;
	rpc_initial_snapshot(r);
}

int
rpc_parse(struct rpc *r, const void *buf, size_t len, char **err)
{
	*err = NULL;
	if (r->fixed) {
		*err = strdup(fixed_msg);
		return -1;
	}
	if (r->eof) {
		/* A new trace after the previous one was finalized. */
		free(r->name);
		r->name = NULL;
		if (rpc_engine_new(r, err) == -1)
			return -1;
	}
	r->bytes_parsed += len;
	if (len == 0)
		return 0;
	if (tp_parse(r->tp, buf, len) == -1) {
		*err = rpc_strdup_err(tp_error(r->tp));
		return -1;
	}
	return 0;
}

int
rpc_eof(struct rpc *r, char **err)
{
	*err = NULL;
	if (r->fixed) {
		*err = strdup(fixed_msg);
		return -1;
	}
	if (r->eof)
		return 0;
	r->eof = 1;
	if (tp_eof(r->tp) == -1) {
		*err = rpc_strdup_err(tp_error(r->tp));
		return -1;
	}
	rpc_initial_snapshot(r);
	return 0;
}

void
rpc_reset(struct rpc *r)
{
	char *err = NULL;

	if (r->fixed) {
		log_warnx("%s: %s", __func__, fixed_msg);
		return;
	}
	free(r->name);
	r->name = NULL;
	if (rpc_engine_new(r, &err) == -1) {
		log_warnx("%s: %s", __func__, err ? err : "?");
		free(err);
	}
}

/*
 * Drops what queries created since the trace was finalized (views first:
 * they may name the tables), keeping the engine's own tables.
 */
void
rpc_restore_initial_tables(struct rpc *r)
{
	static const char *const order[] = { "view", "trigger", "table" };
	sqlite3 *db = tp_db(r->tp);
	sqlite3_stmt *st;
	char *sql, *err = NULL;
	size_t i;
	int again;

	if (!r->eof)
		return;
	for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		do {
			again = 0;
			if (sqlite3_prepare_v2(db, "SELECT name, 'main' FROM "
			    "sqlite_schema WHERE type = ?1 UNION ALL "
			    "SELECT name, 'temp' FROM sqlite_temp_schema "
			    "WHERE type = ?1", -1, &st, NULL) != SQLITE_OK)
				return;
			sqlite3_bind_text(st, 1, order[i], -1, SQLITE_STATIC);
			sql = NULL;
			while (sqlite3_step(st) == SQLITE_ROW) {
				const char *n = (const char *)
				    sqlite3_column_text(st, 0);
				const char *s = (const char *)
				    sqlite3_column_text(st, 1);

				if (n == NULL || strncmp(n, "sqlite_", 7) == 0 ||
				    rpc_is_initial(r, order[i], n))
					continue;
				sql = sqlite3_mprintf("DROP %s IF EXISTS "
				    "%s.\"%w\"", order[i], s, n);
				break;
			}
			sqlite3_finalize(st);
			if (sql != NULL) {
				if (sqlite3_exec(db, sql, NULL, NULL, NULL) ==
				    SQLITE_OK)
					again = 1;
				sqlite3_free(sql);
			}
		} while (again);
	}
	/* What SQL defined goes with the tables (the modules re-include). */
	if (psql_reset(db, &err) == -1) {
		log_warnx("%s: %s", __func__, err ? err : "?");
		free(err);
	}
}

void
rpc_status(struct rpc *r, struct pbbuf *out)
{
	char name[256];

	if (r->name != NULL)
		snprintf(name, sizeof(name), "%s", r->name);
	else if (r->bytes_parsed > 0)
		snprintf(name, sizeof(name), "Unnamed trace (%" PRIu64
		    " MB)", r->bytes_parsed >> 20);
	else
		name[0] = '\0';
	pbb_string(out, 1, name);
	pbb_string(out, 2, "faro trace_processor " PACKAGE_VERSION);
	pbb_uint(out, 3, RPC_API_VERSION);
}

int
rpc_refused(int method, uint32_t *result_field, struct pbbuf *out)
{
	size_t i;

	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		if (refused[i].method == method) {
			pbb_string(out, refused[i].error, refused[i].msg);
			*result_field = refused[i].result;
			return 0;
		}
	return -1;
}

void
rpc_append_result(struct rpc *r, const char *err, struct pbbuf *out)
{
	pbb_uint(out, 1, r->bytes_parsed);
	if (err != NULL)
		pbb_string(out, 2, err);
}

/* ComputeMetricArgs { repeated string metric_names = 1; format = 2 }. */
void
rpc_compute_metric_untrusted(struct rpc *r, const void *args, size_t len,
    struct pbbuf *out)
{
	struct pb it;
	struct pb_field f;
	char **names = NULL, **nn, *err = NULL, *txt;
	size_t nnames = 0, i, tlen;
	uint64_t format = 0;
	struct pbbuf m;

	pbb_init(&m);
	pb_init(&it, args, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		if (f.id == 1 && f.wire == PB_LEN) {
			nn = reallocarray(names, nnames + 1, sizeof(*nn));
			if (nn == NULL)
				break;
			names = nn;
			if ((names[nnames] = strndup((const char *)f.data,
			    f.len)) == NULL)
				break;
			nnames++;
		} else if (f.id == 2 && f.wire == PB_VARINT)
			format = f.u;
	}
	if (it.err)
		err = strdup("malformed ComputeMetricArgs");
	else if (r->mx == NULL)
		err = strdup("metrics are not available");
	else if (metrics_compute(r->mx, tp_db(r->tp),
	    (const char *const *)names, nnames, &m, &err) == 0) {
		if (format == 0)
			pbb_bytes(out, 1, m.buf, m.len);
		else if ((txt = metrics_render(r->mx, m.buf, m.len,
		    format == 1 ? METRICS_TEXT : METRICS_JSON, &tlen,
		    &err)) != NULL) {
			pbb_bytes(out, format == 1 ? 3 : 4, txt, tlen);
			free(txt);
		}
	}
	if (err != NULL) {
		pbb_string(out, 2, err);
		free(err);
	}
	pbb_free(&m);
	for (i = 0; i < nnames; i++)
		free(names[i]);
	free(names);
}

/* ---- the stream ---------------------------------------------------- */

void
rpc_stream_begin(struct rpc *r, rpc_send_fn *send, void *arg)
{
	r->send = send;
	r->send_arg = arg;
	r->rxlen = 0;
	r->rx_seq = 0;
	r->closed = 0;
}

void
rpc_stream_end(struct rpc *r)
{
	r->send = NULL;
	r->send_arg = NULL;
	r->rxlen = 0;
}

/* One TraceProcessorRpcStream message holding one reply. */
static void
rpc_reply(struct rpc *r, int method, uint32_t field, const void *payload,
    size_t len, int has_payload)
{
	struct pbbuf w;
	size_t m;

	if (r->send == NULL || r->closed)
		return;
	pbb_init(&w);
	m = pbb_begin(&w, 1);
	pbb_uint(&w, RPC_SEQ, (uint64_t)r->tx_seq++);
	pbb_uint(&w, RPC_RESPONSE, (uint64_t)method);
	if (has_payload)
		pbb_bytes(&w, field, payload, len);
	pbb_end(&w, m);
	if (!w.oom)
		r->send(r->send_arg, w.buf, w.len);
	pbb_free(&w);
}

static void
rpc_fatal(struct rpc *r, const char *msg)
{
	struct pbbuf w;
	size_t m;

	log_warnx("%s: %s", __func__, msg);
	if (r->send == NULL || r->closed)
		return;
	pbb_init(&w);
	m = pbb_begin(&w, 1);
	pbb_string(&w, RPC_FATAL_ERROR, msg);
	pbb_end(&w, m);
	if (!w.oom)
		r->send(r->send_arg, w.buf, w.len);
	pbb_free(&w);
	r->closed = 1;
	r->send(r->send_arg, NULL, 0);
}

static void
rpc_query_stream(struct rpc *r, int method, const char *sql, size_t len)
{
	struct tpq *q;
	struct pbbuf w;
	int more;

	if ((q = tpq_start(tp_db(r->tp), sql, len)) == NULL) {
		rpc_fatal(r, "out of memory");
		return;
	}
	do {
		pbb_init(&w);
		if (method == TPM_STATEMENT_STREAMING) {
			/* StatementResult { result = 1 }. */
			size_t m = pbb_begin(&w, 1);

			more = tpq_next(q, &w);
			pbb_end(&w, m);
		} else
			more = tpq_next(q, &w);
		rpc_reply(r, method, method == TPM_STATEMENT_STREAMING ?
		    RPC_STATEMENT_RESULT : RPC_QUERY_RESULT, w.buf, w.len, 1);
		pbb_free(&w);
	} while (more && !r->closed);
	tpq_free(q);
}

/* Returns the sql_query (QueryArgs.1) or sql (StatementArgs.1) field. */
static int
rpc_sql_arg_untrusted(const struct pb_field *args, const uint8_t **sql,
    size_t *len)
{
	struct pb it;
	struct pb_field f;

	*sql = (const uint8_t *)"";
	*len = 0;
	pb_init(&it, args->data, args->len);
	while (pb_next_untrusted(&it, &f) == 1)
		if (f.id == 1 && f.wire == PB_LEN) {
			*sql = f.data;
			*len = f.len;
		}
	return it.err ? -1 : 0;
}

static void
rpc_request_untrusted(struct rpc *r, const uint8_t *data, size_t len)
{
	static const char not_set[] = "RPC error: request field not set";
	struct pb it;
	struct pb_field f, args[256 - 100];
	int have[256 - 100] = { 0 };
	int64_t seq = 0;
	int method = 0;
	struct pbbuf w;
	char *err = NULL, msg[128];
	const uint8_t *sql;
	size_t sqllen;

	pb_init(&it, data, len);
	while (pb_next_untrusted(&it, &f) == 1) {
		if (f.id == RPC_SEQ && f.wire == PB_VARINT)
			seq = (int64_t)f.u;
		else if (f.id == RPC_REQUEST && f.wire == PB_VARINT)
			method = (int)f.u;
		else if (f.id > 100 && f.id < 256 && f.wire == PB_LEN) {
			args[f.id - 100] = f;
			have[f.id - 100] = 1;
		}
	}
	if (it.err) {
		rpc_fatal(r, "RPC framing error: malformed request");
		return;
	}
	if (seq != 0 && r->rx_seq != 0 && seq != r->rx_seq + 1) {
		snprintf(msg, sizeof(msg), "RPC request out of order. Expected "
		    "%" PRId64 ", got %" PRId64 " (ERR:rpc_seq)",
		    r->rx_seq + 1, seq);
		rpc_fatal(r, msg);
		return;
	}
	r->rx_seq = seq;

	pbb_init(&w);
	switch (method) {
	case TPM_APPEND_TRACE_DATA:
		if (!have[RPC_APPEND_TRACE_DATA - 100])
			err = strdup(not_set);
		else
			rpc_parse(r, args[1].data, args[1].len, &err);
		rpc_append_result(r, err, &w);
		rpc_reply(r, method, RPC_APPEND_RESULT, w.buf, w.len, 1);
		break;
	case TPM_FINALIZE_TRACE_DATA:
		if (rpc_eof(r, &err) == -1)
			pbb_string(&w, 1, err);
		rpc_reply(r, method, RPC_FINALIZE_RESULT, w.buf, w.len, 1);
		break;
	case TPM_QUERY_STREAMING:
	case TPM_STATEMENT_STREAMING: {
		uint32_t id = method == TPM_QUERY_STREAMING ?
		    RPC_QUERY_ARGS : RPC_STATEMENT_ARGS;

		if (!have[id - 100] ||
		    rpc_sql_arg_untrusted(&args[id - 100], &sql, &sqllen) ==
		    -1) {
			size_t b;

			pbb_string(&w, 2, not_set);
			b = pbb_begin(&w, 3);
			pbb_uint(&w, 6, 1);
			pbb_end(&w, b);
			rpc_reply(r, method, id + 100, w.buf, w.len, 1);
			break;
		}
		rpc_query_stream(r, method, (const char *)sql, sqllen);
		break;
	}
	case TPM_COMPUTE_METRIC:
		if (!have[RPC_COMPUTE_METRIC_ARGS - 100])
			pbb_string(&w, 2, not_set);
		else
			rpc_compute_metric_untrusted(r,
			    args[RPC_COMPUTE_METRIC_ARGS - 100].data,
			    args[RPC_COMPUTE_METRIC_ARGS - 100].len, &w);
		rpc_reply(r, method, RPC_METRIC_RESULT, w.buf, w.len, 1);
		break;
	case TPM_GET_METRIC_DESCRIPTORS:
		/* An empty DescriptorSet: metrics are described at runtime. */
		rpc_reply(r, method, RPC_METRIC_DESCRIPTORS, NULL, 0, 1);
		break;
	case TPM_RESTORE_INITIAL_TABLES:
		rpc_restore_initial_tables(r);
		rpc_reply(r, method, 0, NULL, 0, 0);
		break;
	case TPM_ENABLE_METATRACE:
		rpc_reply(r, method, 0, NULL, 0, 0);
		break;
	case TPM_GET_STATUS:
		rpc_status(r, &w);
		rpc_reply(r, method, RPC_STATUS, w.buf, w.len, 1);
		break;
	case TPM_RESET_TRACE_PROCESSOR:
		rpc_reset(r);
		rpc_reply(r, method, 0, NULL, 0, 0);
		break;
	case TPM_REGISTER_SQL_PACKAGE:
		if (!have[RPC_REGISTER_SQL_ARGS - 100])
			pbb_string(&w, 1, not_set);
		else
			rpc_register_sql_package_untrusted(r,
			    args[RPC_REGISTER_SQL_ARGS - 100].data,
			    args[RPC_REGISTER_SQL_ARGS - 100].len, &w);
		rpc_reply(r, method, RPC_REGISTER_SQL_RESULT, w.buf, w.len, 1);
		break;
	case TPM_SUMMARIZE_TRACE:
		if (!have[RPC_SUMMARY_ARGS - 100])
			pbb_string(&w, 3, not_set);
		else
			summary_rpc_untrusted(tp_db(r->tp),
			    args[RPC_SUMMARY_ARGS - 100].data,
			    args[RPC_SUMMARY_ARGS - 100].len, &w);
		rpc_reply(r, method, RPC_SUMMARY_RESULT, w.buf, w.len, 1);
		break;
	default: {
		/* Unknown method: invalid_request in place of response. */
		uint32_t result;
		size_t m;

		if (rpc_refused(method, &result, &w) == 0) {
			rpc_reply(r, method, result, w.buf, w.len, 1);
			break;
		}

		pbb_free(&w);
		if (r->send == NULL || r->closed)
			break;
		m = pbb_begin(&w, 1);
		pbb_uint(&w, RPC_SEQ, (uint64_t)r->tx_seq++);
		pbb_uint(&w, RPC_INVALID_REQUEST, (uint64_t)method);
		pbb_end(&w, m);
		if (!w.oom)
			r->send(r->send_arg, w.buf, w.len);
		break;
	}
	}
	free(err);
	pbb_free(&w);
}

void
rpc_stream_input_untrusted(struct rpc *r, const void *data, size_t len)
{
	const uint8_t *p, *end, *q;
	uint64_t tag, mlen;
	size_t used;

	if (r->closed || len == 0)
		return;
	if (r->rxcap - r->rxlen < len) {
		size_t cap = r->rxcap ? r->rxcap : 4096;
		uint8_t *nb;

		while (cap - r->rxlen < len)
			cap *= 2;
		if ((nb = realloc(r->rx, cap)) == NULL) {
			rpc_fatal(r, "out of memory");
			return;
		}
		r->rx = nb;
		r->rxcap = cap;
	}
	memcpy(r->rx + r->rxlen, data, len);
	r->rxlen += len;

	p = r->rx;
	end = r->rx + r->rxlen;
	while (p < end && !r->closed) {
		if ((q = pb_varint_untrusted(p, end, &tag)) == NULL) {
			if (end - p >= 10)
				rpc_fatal(r, "RPC framing error");
			break;
		}
		if (tag != ((1 << 3) | PB_LEN)) {
			rpc_fatal(r, "RPC framing error");
			break;
		}
		if ((q = pb_varint_untrusted(q, end, &mlen)) == NULL) {
			if (end - p >= 11)
				rpc_fatal(r, "RPC framing error");
			break;
		}
		if (mlen > RPC_MAX_MSG) {
			rpc_fatal(r, "RPC framing error: message too large");
			break;
		}
		if ((uint64_t)(end - q) < mlen)
			break;
		rpc_request_untrusted(r, q, (size_t)mlen);
		p = q + mlen;
	}
	if (r->closed) {
		r->rxlen = 0;
		return;
	}
	used = (size_t)(p - r->rx);
	memmove(r->rx, p, r->rxlen - used);
	r->rxlen -= used;
}
