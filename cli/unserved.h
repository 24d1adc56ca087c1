/*
 * The data sources of a config that no connected producer offers. traced
 * starts a session anyway and records nothing for them (as upstream's
 * does), so faro names them on stderr when the session starts rather
 * than leave the user with an empty trace and no reason.
 */
#ifndef FARO_CLI_UNSERVED_H
#define FARO_CLI_UNSERVED_H

#include "protos/perfetto/common/tracing_service_state.pb-c.h"
#include "protos/perfetto/config/trace_config.pb-c.h"

/*
 * Warns (log_warnx) about each data source of cfg that no producer in st
 * offers, with the producer filters of its entry applied, as traced
 * applies them. st may be NULL (no producers). Returns how many.
 */
size_t	unserved_warn(const Perfetto__Protos__TraceConfig *cfg,
	    const Perfetto__Protos__TracingServiceState *st);

#endif
