/*
 * Metrics: SQL that summarizes a trace into a proto, as upstream's trace
 * processor does it.
 *
 * A metric NAME is a SQL file that creates the view NAME_output; its one
 * row's first column is the metric's message, built in SQL with one
 * function per message type, named after the type without its package
 * (nested types joined with '_'), taking field names and values in pairs:
 *
 *   CREATE VIEW trace_stats_output AS SELECT TraceAnalysisStats(
 *       'stat', (SELECT RepeatedField(TraceAnalysisStats_Stat(
 *           'name', name, 'count', value)) FROM stats));
 *
 * NULL leaves a field out; RepeatedField() gathers the values of a
 * repeated field; enums take their value names or numbers. Each metric is
 * a field of TraceMetrics with the metric's name: a regular field (the
 * built-ins trace_stats and trace_metadata) or an extension (our Linux
 * metrics and users' own, declared with `extend TraceMetrics`).
 *
 * The message types come from .proto files read at runtime by a small
 * parser (mproto.h): built-ins are compiled in as text, users add a
 * directory of .proto and .sql files (--metric-extension DIR; DIR/protos
 * and DIR/sql when those exist) without rebuilding.
 *
 * The result is the binary TraceMetrics message; metrics_render prints it
 * as text proto or JSON by walking it with the same descriptors.
 */
#ifndef FARO_TP_METRICS_H
#define FARO_TP_METRICS_H

#include <stddef.h>

#include <sqlite3.h>

struct metrics;
struct mp_pool;
struct pbbuf;

enum metrics_format {
	METRICS_BINARY,
	METRICS_TEXT,
	METRICS_JSON,
};

/* Built-ins loaded. NULL and *err (malloc'd) on failure. */
struct metrics	*metrics_new(char **err);
void		 metrics_free(struct metrics *);

/* Loads a user directory; 0, or -1 with *err. */
int		 metrics_add_extension(struct metrics *, const char *dir,
		    char **err);

/* Names of every metric known, NULL-terminated; owned by mx. */
const char *const *metrics_names(struct metrics *);

/*
 * Runs the named metrics on db and appends the TraceMetrics message to
 * out. -1 with *err (malloc'd) when a name is unknown or its SQL fails.
 */
int		 metrics_compute(struct metrics *, sqlite3 *db,
		    const char *const *names, size_t nnames, struct pbbuf *out,
		    char **err);

/*
 * A serialized message of type msg_name (NULL: TraceMetrics) as text
 * proto or JSON; malloc'd, NUL-terminated, length in *len.
 */
char		*metrics_render(struct metrics *, const void *pb, size_t len,
		    enum metrics_format, size_t *outlen, char **err);

/* The descriptors, for renderers of other formats (OpenMetrics). */
struct mp_pool	*metrics_pool(struct metrics *);

/* Splits "a,b,c" into names (malloc'd array of malloc'd strings). */
char		**metrics_split_names(const char *list, size_t *n);
void		 metrics_names_free(char **, size_t);

/* Registers the builder functions on db (metrics_compute does it too). */
int		 metrics_register_sql_pool(struct mp_pool *, sqlite3 *db,
		    char **err);
int		 metrics_register_sql(struct metrics *, sqlite3 *db,
		    char **err);

/* The built-in .proto and .sql texts (metrics_builtin.c, generated). */
struct metrics_file {
	const char	*name;
	const char	*text;
};
extern const struct metrics_file metrics_builtin_files[];

#endif
