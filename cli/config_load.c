/* TraceConfig loading, completion and checks; see config_load.h. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/config_load.h"
#include "cli/lightcfg.h"
#include "traceconfig/traceconfig.h"

typedef Perfetto__Protos__TraceConfig TraceConfig;

static int
attr_add(TraceConfig *cfg, const char *key, const char *value)
{
	Perfetto__Protos__TraceAttributes *ta = cfg->trace_attributes;
	Perfetto__Protos__TraceAttributes__Attribute *a, **na;

	if (ta == NULL) {
		if ((ta = malloc(sizeof(*ta))) == NULL)
			return -1;
		perfetto__protos__trace_attributes__init(ta);
		cfg->trace_attributes = ta;
	}
	na = reallocarray(ta->attribute, ta->n_attribute + 1, sizeof(*na));
	if (na == NULL)
		return -1;
	ta->attribute = na;
	if ((a = malloc(sizeof(*a))) == NULL)
		return -1;
	perfetto__protos__trace_attributes__attribute__init(a);
	a->key = strdup(key);
	a->string_value = strdup(value);
	a->value_case =
	    PERFETTO__PROTOS__TRACE_ATTRIBUTES__ATTRIBUTE__VALUE_STRING_VALUE;
	na[ta->n_attribute++] = a;	/* freed with cfg from here on */
	return a->key != NULL && a->string_value != NULL ? 0 : -1;
}

int
config_complete(TraceConfig *cfg, const struct faro_opts *o, char *err,
    size_t errlen)
{
	uint64_t uuid[2];
	size_t i;

	for (i = 0; i < o->nattrs; i++) {
		if (attr_add(cfg, o->attrs[i].key, o->attrs[i].value) == -1) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
	}
	/*
	 * Every trace gets a UUID so that copies and clones can be told
	 * apart. The fields are deprecated upstream yet still what the
	 * service reads, so the warning is silenced here only.
	 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
	if (cfg->trace_uuid_msb == 0 && cfg->trace_uuid_lsb == 0) {
		if (getrandom(uuid, sizeof(uuid), 0) != sizeof(uuid)) {
			snprintf(err, errlen, "getrandom: %s", strerror(errno));
			return -1;
		}
		/* RFC 4122 version 4, variant 1. */
		uuid[0] = (uuid[0] & ~0xf000ull) | 0x4000ull;
		uuid[1] = (uuid[1] & ~(3ull << 62)) | (2ull << 62);
		cfg->has_trace_uuid_msb = cfg->has_trace_uuid_lsb = 1;
		cfg->trace_uuid_msb = (int64_t)uuid[0];
		cfg->trace_uuid_lsb = (int64_t)uuid[1];
	}
#pragma GCC diagnostic pop
	/* No statsd here: log only if the config asks for it. */
	if (cfg->statsd_logging !=
	    PERFETTO__PROTOS__TRACE_CONFIG__STATSD_LOGGING__STATSD_LOGGING_ENABLED) {
		cfg->has_statsd_logging = 1;
		cfg->statsd_logging =
		    PERFETTO__PROTOS__TRACE_CONFIG__STATSD_LOGGING__STATSD_LOGGING_DISABLED;
	}
	return 0;
}

/* The checks upstream's `perfetto` makes on a config before using it. */
static int
config_check(const TraceConfig *cfg, const struct faro_opts *o, char *err,
    size_t errlen)
{
	const Perfetto__Protos__TraceConfig__CmdTraceStartDelay *d =
	    cfg->cmd_trace_start_delay;
	struct stat st;

	if (d != NULL && d->has_min_delay_ms != d->has_max_delay_ms) {
		snprintf(err, errlen, "cmd_trace_start_delay field is only "
		    "partially specified");
		return -1;
	}
	if (d != NULL && d->min_delay_ms > d->max_delay_ms) {
		snprintf(err, errlen, "cmd_trace_start_delay: min_delay_ms is "
		    "above max_delay_ms");
		return -1;
	}
	if (cfg->incident_report_config != NULL &&
	    cfg->incident_report_config->destination_package != NULL &&
	    cfg->incident_report_config->destination_package[0] != '\0') {
		snprintf(err, errlen, "Unexpected IncidentReportConfig: "
		    "uploading (--upload) is Android only");
		return -1;
	}
	if (cfg->android_report_config != NULL &&
	    cfg->android_report_config->reporter_service_package != NULL &&
	    cfg->android_report_config->reporter_service_package[0] != '\0') {
		snprintf(err, errlen, "Unexpected AndroidReportConfig: "
		    "uploading (--upload) is Android only");
		return -1;
	}
	/* Only fires triggers: no session, no output. */
	if (cfg->n_activate_triggers > 0) {
		if (o->out_path != NULL || o->detach_key != NULL ||
		    o->background) {
			snprintf(err, errlen, "a config with activate_triggers "
			    "starts no session: do not pass --out, --detach "
			    "or --background");
			return -1;
		}
		return 0;
	}
	if (o->detach_key != NULL && !cfg->write_into_file) {
		snprintf(err, errlen, "TraceConfig's write_into_file must be "
		    "true when using --detach");
		return -1;
	}
	if (cfg->output_path != NULL && cfg->output_path[0] != '\0') {
		if (o->out_path != NULL) {
			snprintf(err, errlen, "Can't pass --out if output_path "
			    "is set in the trace config");
			return -1;
		}
		if (stat(cfg->output_path, &st) == 0) {
			snprintf(err, errlen, "The output_path must not exist, "
			    "the service cannot overwrite existing files for "
			    "security reasons. Remove %s or use a different "
			    "path.", cfg->output_path);
			return -1;
		}
	} else if (o->out_path == NULL) {
		snprintf(err, errlen, "--out FILE is required (or "
		    "write_into_file with output_path in the config)");
		return -1;
	}
	return 0;
}

TraceConfig *
config_load(const struct faro_opts *o, char *err, size_t errlen)
{
	TraceConfig *cfg;
	char *buf;
	size_t len;

	if (o->config_path != NULL && strcmp(o->config_path, ":test") == 0) {
		/* Upstream's built-in smoke test config. */
		static char *events[] = { (char *)"sched/sched_switch",
		    (char *)"power/cpu_idle", (char *)"power/cpu_frequency",
		    (char *)"power/gpu_frequency" };
		struct faro_light l = { .time = "2s", .buffer = "32mb",
		    .categories = events, .ncategories = 4 };

		cfg = lightcfg_build(&l, err, errlen);
	} else if (o->config_path != NULL) {
		if ((buf = traceconfig_read_file(o->config_path, &len, err,
		    errlen)) == NULL)
			return NULL;
		cfg = traceconfig_parse_untrusted(buf, len,
		    strcmp(o->config_path, "-") == 0 ? "stdin" : o->config_path,
		    o->txt, o->txt_lossy, err, errlen);
		free(buf);
	} else
		cfg = lightcfg_build(&o->light, err, errlen);
	if (cfg == NULL)
		return NULL;
	if (config_complete(cfg, o, err, errlen) == -1 ||
	    config_check(cfg, o, err, errlen) == -1) {
		protobuf_c_message_free_unpacked(&cfg->base, NULL);
		return NULL;
	}
	return cfg;
}
