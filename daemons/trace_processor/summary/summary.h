/*
 * Trace summaries (metrics v2), as upstream's trace processor computes
 * them: TraceSummarySpec files describe metrics as structured queries;
 * the summary is a TraceSummary message with one TraceMetricV2Bundle per
 * bundle of metrics and, if asked, the rows of a metadata query.
 *
 *   spec (text or binary) --> metrics selected by id
 *        --> SQL per metric (sum_sqgen.c) --> rows --> TraceSummary
 *
 * Surfaces: `trace_processor summarize [--metrics-v2 IDS|all]
 * [--metadata-query ID] [--format text|binary] TRACE SPEC...`, the classic
 * --summary flags, TPM_SUMMARIZE_TRACE over /rpc and /websocket, and
 * POST /trace_summary (TraceSummaryArgs -> TraceSummaryResult).
 *
 * Specs are untrusted: every length is checked, nesting is bounded, and
 * what the SQL they carry does is what any query may do.
 */
#ifndef FARO_TP_SUMMARY_H
#define FARO_TP_SUMMARY_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

struct pbbuf;

/* One TraceSummarySpec, as given. */
struct summary_spec {
	const uint8_t	*data;
	size_t		 len;
	int		 text;		/* text format, else binary */
};

struct summary_req {
	const struct summary_spec *specs;
	size_t		 nspecs;
	int		 all_metrics;	/* every metric of the specs */
	const char *const *ids;		/* else these (none: no metric) */
	size_t		 nids;
	const char	*metadata_query;/* a shared query's id, or NULL */
	int		 text;		/* output as text, else binary */
};

/*
 * Computes the summary on db and appends it (a TraceSummary message or
 * its text) to out. 0, or -1 with *err (malloc'd), worded as upstream's.
 */
int	summary_compute(sqlite3 *db, const struct summary_req *,
	    struct pbbuf *out, char **err);

/* Is a spec file text? As upstream guesses: by name, else by content. */
int	summary_spec_is_text(const char *path, const uint8_t *data,
	    size_t len);

/*
 * TraceSummaryResult for TraceSummaryArgs (untrusted), appended to out:
 * the RPC's TPM_SUMMARIZE_TRACE and POST /trace_summary.
 */
void	summary_rpc_untrusted(sqlite3 *db, const void *args, size_t len,
	    struct pbbuf *out);

#endif
