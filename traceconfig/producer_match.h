/*
 * Which producers a TraceConfig data source entry selects: by the
 * producer's name, through producer_name_filter and
 * producer_name_regex_filter. traced decides with it whom to set up;
 * faro with it which of a config's data sources no connected producer
 * offers.
 */
#ifndef FARO_TRACECONFIG_PRODUCER_MATCH_H
#define FARO_TRACECONFIG_PRODUCER_MATCH_H

#include "protos/perfetto/config/trace_config.pb-c.h"

/*
 * Does pattern match all of name? Upstream uses a full-string ECMAScript
 * regex; a POSIX extended one anchored at both ends stands in for it. A
 * pattern that does not compile matches nothing.
 */
int	traceconfig_regex_match(const char *pattern, const char *name);

/* Does data source entry ds select a producer called name (NULL: "")? */
int	traceconfig_producer_match(
	    const Perfetto__Protos__TraceConfig__DataSource *ds,
	    const char *name);

#endif
