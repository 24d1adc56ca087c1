/*
 * Inside trace summaries: field numbers of the spec protos
 * (protos/perfetto/trace_summary, protos/perfetto/perfetto_sql), reading
 * messages as wire bytes (the spec is echoed into the output byte for
 * byte, as upstream does), string building, and the parts' interfaces.
 */
#ifndef FARO_TP_SUM_INT_H
#define FARO_TP_SUM_INT_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "metrics/pbbuf.h"
#include "pbdec.h"

/* TraceSummarySpec */
#define SPEC_METRIC		1
#define SPEC_QUERY		2
#define SPEC_TEMPLATE		3
/* TraceSummary */
#define OUT_METADATA		2
#define OUT_BUNDLE		3
/* TraceMetricV2Spec */
#define MS_ID			1
#define MS_DIMENSIONS		2
#define MS_VALUE		3
#define MS_QUERY		4
#define MS_DIM_SPECS		5
#define MS_UNIQUENESS		6
#define MS_BUNDLE_ID		7
#define MS_UNIT			8
#define MS_CUSTOM_UNIT		9
#define MS_POLARITY		10
#define MS_INTERNED		11
#define MS_UNIQUE		2	/* DimensionUniqueness UNIQUE */
/* DimensionSpec and InternedDimensionSpec.ColumnSpec */
#define DIM_NAME		1
#define DIM_TYPE		2
/* InternedDimensionSpec */
#define IDS_KEY			1
#define IDS_DATA		2
#define IDS_QUERY		3
/* TraceMetricV2TemplateSpec (and its ValueColumnSpec) */
#define TS_ID_PREFIX		1
#define TS_DIMENSIONS		2
#define TS_VALUE_COLUMNS	3
#define TS_QUERY		4
#define TS_DIM_SPECS		5
#define TS_UNIQUENESS		6
#define TS_NO_BUNDLING		7
#define TS_VALUE_SPECS		8
#define TS_INTERNED		9
#define VCS_NAME		1
#define VCS_UNIT		2
#define VCS_CUSTOM_UNIT		3
#define VCS_POLARITY		4

/* Dimension types (TraceMetricV2Spec.DimensionType). */
enum sum_dim_type {
	DIM_UNSPECIFIED = 0, DIM_STRING = 1, DIM_INT64 = 2, DIM_DOUBLE = 3,
	DIM_BOOLEAN = 4,
};

/* Bytes of one message. */
struct sum_msg {
	const uint8_t	*p;
	size_t		 n;
};

/*
 * The last occurrence of field id (a singular field, as protozero's
 * decoders read it): 1 and *f, or 0 when absent or the bytes are bad.
 */
int	sum_get(struct sum_msg, uint32_t id, struct pb_field *f);
int	sum_has(struct sum_msg, uint32_t id);
/* Field id's bytes (""/empty when absent) and its value as a message. */
struct sum_msg sum_bytes(struct sum_msg, uint32_t id);
/* A NUL-terminated copy of string field id ("" when absent); NULL: OOM. */
char	*sum_str(struct sum_msg, uint32_t id);
/* Is the string field id equal to s? */
int	sum_str_eq(struct sum_msg, uint32_t id, const char *s);
uint64_t sum_uint(struct sum_msg, uint32_t id);

/* Each occurrence of field id, in order. */
struct sum_it {
	struct pb	 pb;
	uint32_t	 id;
};
void	sum_it_init(struct sum_it *, struct sum_msg, uint32_t id);
int	sum_it_next(struct sum_it *, struct pb_field *f);
/* A field's bytes as a message / as a malloc'd string. */
struct sum_msg sum_field_msg(const struct pb_field *);
char	*sum_field_str(const struct pb_field *);

/* String building on a pbbuf (its oom flag tells of failures). */
void	sb_add(struct pbbuf *, const char *);
void	sb_addn(struct pbbuf *, const void *, size_t);
void	sb_printf(struct pbbuf *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
/* Each line of s prefixed by n spaces. */
void	sb_indent(struct pbbuf *, const char *s, size_t n);
/* The text, NUL-terminated and taken (w is reset); NULL: out of memory. */
char	*sb_take(struct pbbuf *);
/* A malloc'd printf; NULL when out of memory. */
char	*sum_printf(const char *, ...) __attribute__((format(printf, 1, 2)));
/* std::to_string of a double: "%f". */
void	sb_double(struct pbbuf *, double);

/* A list of strings, kept in insertion order. */
struct sum_strs {
	char		**v;
	size_t		 n;
};
/* Adds a copy unless present (when uniq); 1 added, 0 present, -1 OOM. */
int	sum_strs_add(struct sum_strs *, const char *s, int uniq);
ssize_t	sum_strs_find(const struct sum_strs *, const char *s);
void	sum_strs_free(struct sum_strs *);

/*
 * The order in which upstream's base::FlatHashMap<std::string, ...> walks
 * keys inserted in order (sum_order.c): the bundles of the output, the
 * modules included. order[i] is the index of the i-th key walked. -1: OOM.
 */
int	sum_hash_order(char *const *keys, size_t n, size_t *order);

/* The spec and output protos (sum_protos.c); NULL with *err. */
struct mp_pool;
struct mp_pool *sum_protos_load(char **err);
void	sum_protos_free(struct mp_pool *);

/* Text spec to TraceSummarySpec bytes, in the text's field order. */
int	sum_pbtxt_untrusted(const struct mp_pool *, const char *text,
	    size_t len, const char *fname, struct pbbuf *out, char **err);

/*
 * A message's bytes as text (type: a full name), laid out as upstream's
 * protozero_to_text prints it; malloc'd, NULL when out of memory.
 */
char	*sum_print(const struct mp_pool *, const char *type,
	    const uint8_t *, size_t);

/*
 * The structured query generator (sum_sqgen.c): shared queries, the
 * modules and preambles the generated SQL needs.
 */
struct sum_shared {
	char		*id;
	char		*table;
	char		*sql;
};
struct sqgen {
	struct sum_strs	 proto_ids;	/* shared queries' ids ... */
	struct sum_msg	*protos;	/* ... and their bytes */
	struct sum_shared *queries;	/* shared queries referenced */
	size_t		 nqueries;
	struct sum_strs	 modules;	/* in order of first reference */
	struct sum_strs	 preambles;
};
void	sqgen_init(struct sqgen *);
void	sqgen_free(struct sqgen *);
int	sqgen_add_query(struct sqgen *, struct sum_msg, char **err);
/* SQL for a PerfettoSqlStructuredQuery; NULL with *err. */
char	*sqgen_generate(struct sqgen *, struct sum_msg, char **err);
char	*sqgen_generate_by_id(struct sqgen *, const char *id, char **err);

/*
 * A query's source and how to name nested queries, for the sources'
 * builders (sum_sqsrc.c) called by the generator.
 */
struct sqgen_run;
/* The table name a nested query (its bytes) will have. */
const char *sqgen_nested(struct sqgen_run *, struct sum_msg);
/* The table name of shared query id (inner_query_id); NULL with *err. */
const char *sqgen_shared_id(struct sqgen_run *, const char *id, char **err);
void	sqgen_module(struct sqgen_run *, const char *);
void	sqgen_preamble(struct sqgen_run *, const char *, size_t);
/* Appends the FROM source of query q to w; -1 with *err. */
int	sqsrc_build(struct sqgen_run *, struct sum_msg q, struct pbbuf *w,
	    char **err);

/*
 * Runs SQL as upstream's ExecuteQuery: every statement but the last to
 * completion, the last prepared in *st (NULL when none). 0, or -1 with
 * *err.
 */
int	sum_exec(sqlite3 *, const char *sql, sqlite3_stmt **st, char **err);

/* Template expansion (sum_template.c): expanded TraceMetricV2Specs. */
int	sum_expand_templates(const struct sum_msg *specs, size_t nspecs,
	    struct pbbuf **out, size_t *nout, char **err);

/* A metric to compute (summary.c, sum_metric.c). */
struct sum_metric {
	char		*id;
	char		*query;		/* NULL: no definition found */
	struct sum_msg	 spec;		/* its TraceMetricV2Spec bytes */
	char		**interned;	/* one query per interned dimension */
	size_t		 ninterned;
};
struct pzw;
/* Computes the bundles into the TraceSummary being built in out. */
int	sum_metrics_compute(sqlite3 *, const struct sum_metric *, size_t,
	    struct pzw *out, char **err);
/* The metadata rows of sql into out. */
int	sum_metadata(sqlite3 *, const char *sql, struct pzw *out,
	    char **err);

/* Sets of byte strings (sum_set.c): 1 added, 0 present, -1 OOM. */
struct sum_set;
struct sum_set *sum_set_new(void);
int	sum_set_add(struct sum_set *, const void *, size_t);
int	sum_set_has(const struct sum_set *, const void *, size_t);
void	sum_set_free(struct sum_set *);

#endif
