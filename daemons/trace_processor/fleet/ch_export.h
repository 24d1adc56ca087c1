/*
 * A loaded trace's tables written into ClickHouse, for fleet queries over
 * many machines' traces (doc/fleet.md). Every row carries the trace's id
 * (its trace_uuid); the "traces" table gets the trace's one row last, with
 * the host and kernel it came from, so a trace is either listed there and
 * whole, or not listed (a load cut short is refused on retry until its
 * rows are purged). A trace already listed is skipped: loading is
 * idempotent by trace id.
 *
 * With a cluster, each table is a MergeTree "<name>_local" on every shard
 * and a Distributed "<name>" over them, sharded by cityHash64(trace_id):
 * a trace's rows all live on one shard, so joins on trace_id stay local.
 */
#ifndef FARO_TP_CH_EXPORT_H
#define FARO_TP_CH_EXPORT_H

#include <stdio.h>

#include <sqlite3.h>

#include "fleet/ch_http.h"

struct ch_export_opts {
	const char	*host;		/* the machine the trace came from */
	const char	*cluster;	/* Distributed over it; NULL: none */
	const char	*database;	/* NULL: "default" */
};

/* Creates every table where it is missing; 0 or -1 with *err. */
int	ch_export_schema(struct ch_conn *c, const struct ch_export_opts *o,
	    char **err);

/*
 * Writes the trace in db; a line on out says what happened ("loaded ID
 * ROWS" or "skipped ID"). 0, or -1 with *err.
 */
int	ch_export_trace(struct ch_conn *c, sqlite3 *db,
	    const struct ch_export_opts *o, FILE *out, char **err);

#endif
