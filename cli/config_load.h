/*
 * Loading the session's TraceConfig: from -c (binary or --txt text, a
 * file or stdin) or from the light mode flags, then completed the way
 * upstream's `perfetto` completes it (attributes, trace UUID, statsd
 * logging off) and checked against the other flags.
 */
#ifndef FARO_CLI_CONFIG_LOAD_H
#define FARO_CLI_CONFIG_LOAD_H

#include <stddef.h>

#include "protos/perfetto/config/trace_config.pb-c.h"

#include "cli/flags.h"
#include "traceconfig/traceconfig.h"

/*
 * The whole step for FARO_MODE_TRACE: load or build, then complete and
 * check. Returns NULL with a message for the user in err.
 */
Perfetto__Protos__TraceConfig *config_load(const struct faro_opts *,
	    char *err, size_t errlen);

/* Adds --add-attribute pairs, a UUID and statsd_logging; 0 or -1. */
int	config_complete(Perfetto__Protos__TraceConfig *,
	    const struct faro_opts *, char *err, size_t errlen);

#endif
