/*
 * --query: traced's state (producers, data sources, sessions) printed for
 * people in upstream's layout, or with --query-raw as the binary
 * TracingServiceState for scripts.
 */
#ifndef FARO_CLI_QUERY_H
#define FARO_CLI_QUERY_H

#include <stdio.h>

#include "protos/perfetto/common/tracing_service_state.pb-c.h"

/* state may be NULL (an empty reply). Returns 0, or -1 on a write error. */
int	query_print(FILE *, const Perfetto__Protos__TracingServiceState *state,
	    int long_fmt, int raw);

#endif
