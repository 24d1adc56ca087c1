/*
 * trace_processor's command line, spelled as upstream's
 * trace_processor_shell spells it: the subcommands (query, interactive,
 * server http, metrics, export, summarize; convert, bundle and util are
 * refused) and the classic flags (-q, -Q, -D, -e, --run-metrics, ...),
 * plus faro's own flags (--sort-window, --live, --http-*-timeout-ms, ...)
 * in both. Both forms end in one struct tp_args; main.c runs it.
 *
 *   trace_processor query TRACE 'SQL'     trace_processor -Q 'SQL' TRACE
 *   trace_processor server http [TRACE]   trace_processor -D [TRACE]
 *   trace_processor metrics --run a,b T   trace_processor --run-metrics a,b T
 *   trace_processor export sqlite -o F T  trace_processor -e F T
 *   trace_processor export clickhouse --url U [--host H] [--cluster C] T
 *
 * A flag upstream has and faro does not implement yet is an error naming
 * it, never a silent difference.
 */
#ifndef FARO_TP_ARGS_H
#define FARO_TP_ARGS_H

#include <stddef.h>
#include <stdio.h>

#include "tp.h"
#include "rpc/modes.h"

enum args_cmd {
	ARGS_INTERACTIVE,	/* the default */
	ARGS_QUERY,		/* query, -q, -Q */
	ARGS_METRICS,		/* metrics, --run-metrics */
	ARGS_EXPORT,		/* export sqlite|clickhouse, -e */
	ARGS_CH_SCHEMA,		/* export clickhouse --schema-only */
	ARGS_SUMMARIZE,		/* summarize, --summary */
	ARGS_SERVER,		/* server http, -D, --live */
	ARGS_HELP,		/* -h, help [COMMAND], --help-classic */
	ARGS_VERSION,		/* -v */
};

/* export clickhouse (faro's own: the fleet, doc/fleet.md). */
struct args_clickhouse {
	const char	*url;		/* --url http://HOST:PORT */
	const char	*database;	/* --database */
	const char	*cluster;	/* --cluster: write through Distributed */
	const char	*host;		/* --host; default: the file's name */
	int		 schema_only;	/* --schema-only: tables, no trace */
};

/* --add-sql-package and --override-sql-package: PATH[@PACKAGE]. */
struct args_sql_package {
	char		*path;		/* the directory */
	char		*package;	/* @PACKAGE, else the directory's name */
	int		 override;	/* --override-sql-package */
};

/* --summary*, or the summarize command. */
struct args_summary {
	const char	*metrics_v2;	/* ids "a,b" or "all"; NULL: none */
	const char	*metadata_query;/* a query id */
	const char	**specs;	/* TraceSummarySpec files */
	size_t		 nspecs;
	const char	*format;	/* "text" (default) or "binary" */
};

struct tp_args {
	enum args_cmd	 cmd;
	const char	*trace;		/* path, "-" for stdin; NULL: none */
	const char	*query_file;	/* -q, query -f, --post-query */
	const char	*query_string;	/* -Q, query's SQL argument */
	int		 query_stdin;	/* query: the SQL comes on stdin */
	const char	*pre_metrics;	/* --pre-metrics, metrics --pre */
	const char	*export_path;	/* -e, export -o */
	struct args_clickhouse ch;	/* export clickhouse; url NULL: not */
	int		 interactive;	/* the prompt after the rest */
	int		 verbose;	/* --verbose */
	int		 dev;		/* --dev: nothing is gated behind it */
	int		 allow_sql_file_access;	/* no SQL function reads
						   files: nothing to allow */
	struct args_sql_package *packages;
	size_t		 npackages;
	struct args_summary summary;
	const char	*help_cmd;	/* help COMMAND; "classic" */
	struct tp_config cfg;		/* --full-sort, --sort-window */
	struct modes_args modes;	/* -D, --run-metrics, --live */
	/* --no-ftrace-raw: accepted (upstream's Python API always passes
	 * it) but ftrace_event is still filled: warned about. */
};

/*
 * Fills a from the command line. 0, or -1 with the one-line reason in
 * *err (malloc'd); a has then been freed.
 */
int	args_parse(struct tp_args *a, int argc, char *argv[], char **err);
void	args_free(struct tp_args *);
/* What ARGS_HELP prints: help_cmd's flags, the classic list or all. */
void	args_usage(const struct tp_args *, const char *argv0, FILE *out);
/* What ARGS_VERSION prints. */
void	args_version(FILE *out);

#endif
