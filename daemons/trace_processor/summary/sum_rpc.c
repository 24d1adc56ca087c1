/*
 * TraceSummaryArgs -> TraceSummaryResult (trace_processor.proto), for
 * TPM_SUMMARIZE_TRACE and POST /trace_summary, as upstream answers:
 * binary specs first, then text ones; no metric unless asked for by id or
 * with run_all_metrics.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "summary.h"
#include "sum_int.h"

#define ARGS_PROTO_SPECS	1
#define ARGS_TEXT_SPECS		2
#define ARGS_COMPUTATION	3
#define ARGS_FORMAT		4
#define COMP_METRIC_IDS		1
#define COMP_METADATA		2
#define COMP_ALL		3
#define RES_PROTO		1
#define RES_TEXT		2
#define RES_ERROR		3

void
summary_rpc_untrusted(sqlite3 *db, const void *args, size_t len,
    struct pbbuf *out)
{
	struct sum_msg a = { args, len }, comp;
	struct summary_req req;
	struct summary_spec *specs = NULL;
	struct sum_strs ids = { NULL, 0 };
	struct sum_it it;
	struct pb_field f;
	struct pbbuf res;
	char *err = NULL, *s, *meta = NULL;
	size_t n = 0, pass;

	if (len == 0)
		a.p = (const uint8_t *)"";
	memset(&req, 0, sizeof(req));
	if (!sum_has(a, ARGS_PROTO_SPECS) && !sum_has(a, ARGS_TEXT_SPECS)) {
		pbb_string(out, RES_ERROR, "TraceSummary missing "
		    "trace_summary_spec");
		return;
	}
	if (!sum_has(a, ARGS_FORMAT)) {
		pbb_string(out, RES_ERROR, "TraceSummary missing format");
		return;
	}
	if (sum_uint(a, ARGS_FORMAT) > 1) {
		pbb_string(out, RES_ERROR, "TraceSummary: unknown format");
		return;
	}
	for (pass = 0; pass < 2; pass++) {
		sum_it_init(&it, a, pass == 0 ? ARGS_PROTO_SPECS :
		    ARGS_TEXT_SPECS);
		while (sum_it_next(&it, &f)) {
			struct summary_spec *ns;

			if (f.wire != PB_LEN)
				continue;
			ns = reallocarray(specs, n + 1, sizeof(*ns));
			if (ns == NULL)
				goto oom;
			specs = ns;
			ns[n].data = f.data;
			ns[n].len = f.len;
			ns[n++].text = pass == 1;
		}
	}
	comp = sum_bytes(a, ARGS_COMPUTATION);
	req.all_metrics = sum_uint(comp, COMP_ALL) != 0;
	sum_it_init(&it, comp, COMP_METRIC_IDS);
	while (!req.all_metrics && sum_it_next(&it, &f)) {
		if ((s = sum_field_str(&f)) == NULL ||
		    sum_strs_add(&ids, s, 0) == -1) {
			free(s);
			goto oom;
		}
		free(s);
	}
	if (sum_has(comp, COMP_METADATA) &&
	    (meta = sum_str(comp, COMP_METADATA)) == NULL)
		goto oom;
	req.specs = specs;
	req.nspecs = n;
	req.ids = (const char *const *)ids.v;
	req.nids = ids.n;
	req.metadata_query = meta;
	req.text = sum_uint(a, ARGS_FORMAT) == 1;
	pbb_init(&res);
	if (summary_compute(db, &req, &res, &err) == -1)
		pbb_string(out, RES_ERROR, err ? err : "out of memory");
	else
		pbb_bytes(out, req.text ? RES_TEXT : RES_PROTO,
		    res.buf ? res.buf : (uint8_t *)"", res.len);
	pbb_free(&res);
	free(err);
	free(meta);
	free(specs);
	sum_strs_free(&ids);
	return;
oom:
	pbb_string(out, RES_ERROR, "out of memory");
	free(meta);
	free(specs);
	sum_strs_free(&ids);
}
