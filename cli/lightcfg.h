/*
 * Light mode: the TraceConfig that `faro -t 10s -b 32mb sched/sched_switch`
 * stands for, with the defaults and units of upstream's `perfetto`.
 */
#ifndef FARO_CLI_LIGHTCFG_H
#define FARO_CLI_LIGHTCFG_H

#include <stddef.h>
#include <stdint.h>

#include "protos/perfetto/config/trace_config.pb-c.h"

#include "cli/flags.h"

/* "10s", "500ms", "2m", "1h" or "0" / "" (no limit) to milliseconds. */
int	lightcfg_time_ms(const char *, uint64_t *);
/* "32mb", "64k", "1g", "512kb" or "0" / "" to KiB. */
int	lightcfg_size_kb(const char *, uint64_t *);

/*
 * Writes the config as protobuf text (the form --txt reads) into a new
 * string; returns NULL with err set for a bad -t/-b/-s value.
 */
char	*lightcfg_text(const struct faro_light *, char *err, size_t errlen);

/* The config itself: lightcfg_text run through the text parser. */
Perfetto__Protos__TraceConfig *lightcfg_build(const struct faro_light *,
	    char *err, size_t errlen);

#endif
