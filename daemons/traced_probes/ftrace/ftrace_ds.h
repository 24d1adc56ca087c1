/*
 * linux.ftrace as a producer data source: one instance per session the
 * service starts, each with its own trace writer in the SMB and its own
 * ftrace_source (source.h) on the process-wide ftrace_host.
 */
#ifndef FARO_FTRACE_DS_H
#define FARO_FTRACE_DS_H

#include <stdint.h>

#include "protos/perfetto/config/data_source_config.pb-c.h"

#define FTRACE_DS_NAME	"linux.ftrace"

struct ftrace_host;
struct producer_ep;
struct ftrace_ds;

/* Starts an instance; NULL (logged) if it cannot trace. */
struct ftrace_ds *ftrace_ds_start(struct ftrace_host *, struct producer_ep *,
	    uint64_t id, const Perfetto__Protos__DataSourceConfig *);
/* Drains the kernel buffers into the SMB and commits (a flush). */
void	ftrace_ds_flush(struct ftrace_ds *);
/* Final drain, end stats, kernel state released, writer freed. */
void	ftrace_ds_stop(struct ftrace_ds *);

#endif
