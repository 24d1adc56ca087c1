/*
 * Light mode config builder. The config is written as text and read back
 * by the text parser, so light mode and --txt configs are one code path
 * and `faro -t ... --dry` style debugging can show the exact text.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/lightcfg.h"
#include "traceconfig/textproto.h"

struct unit {
	const char	*name;
	uint64_t	 mult;
};

static const struct unit time_units[] = {
	{ "ms", 1 }, { "s", 1000 }, { "m", 60 * 1000 }, { "h", 3600 * 1000 },
	{ NULL, 0 }
};

static const struct unit size_units[] = {
	{ "kb", 1 }, { "mb", 1024 }, { "gb", 1024 * 1024 },
	{ "k", 1 }, { "m", 1024 }, { "g", 1024 * 1024 },
	{ NULL, 0 }
};

/* N followed by exactly one known unit; "" and "0" mean zero. */
static int
convert(const char *s, const struct unit *units, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (s[0] == '\0' || strcmp(s, "0") == 0) {
		*out = 0;
		return 0;
	}
	if (s[0] < '0' || s[0] > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0)
		return -1;
	for (; units->name != NULL; units++) {
		if (strcmp(end, units->name) != 0)
			continue;
		if (v > UINT64_MAX / units->mult)
			return -1;
		*out = v * units->mult;
		return 0;
	}
	return -1;
}

int
lightcfg_time_ms(const char *s, uint64_t *ms)
{
	return convert(s, time_units, ms);
}

int
lightcfg_size_kb(const char *s, uint64_t *kb)
{
	return convert(s, size_units, kb);
}

/* Writes s as a quoted text-format string. */
static void
put_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(f, "\\%03o", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void
put_ftrace_source(FILE *f, const struct faro_light *l)
{
	size_t i;

	fprintf(f, "data_sources {\n  config {\n    name: \"linux.ftrace\"\n"
	    "    ftrace_config {\n");
	for (i = 0; i < l->ncategories; i++) {
		const char *c = l->categories[i];

		if (strchr(c, '/') == NULL)
			continue;
		fprintf(f, "      ftrace_events: ");
		put_string(f, c);
		fputc('\n', f);
	}
	for (i = 0; i < l->ncategories; i++) {
		const char *c = l->categories[i];

		if (strchr(c, '/') != NULL || strcmp(c, "hyp") == 0 ||
		    strcmp(c, "hypervisor") == 0)
			continue;
		fprintf(f, "      atrace_categories: ");
		put_string(f, c);
		fputc('\n', f);
	}
	for (i = 0; i < l->napps; i++) {
		fprintf(f, "      atrace_apps: ");
		put_string(f, l->apps[i]);
		fputc('\n', f);
	}
	fprintf(f, "      symbolize_ksyms: true\n    }\n  }\n}\n");
}

char *
lightcfg_text(const struct faro_light *l, char *err, size_t errlen)
{
	uint64_t ms, buf_kb, file_kb;
	size_t i, nftrace = 0;
	const char *hyp = NULL;
	char *text = NULL;
	size_t len;
	FILE *f;

	if (lightcfg_time_ms(l->time, &ms) == -1 || ms > UINT32_MAX) {
		snprintf(err, errlen, "--time argument is invalid: '%s' "
		    "(examples: 10s, 500ms, 2m, 1h)", l->time);
		return NULL;
	}
	if (lightcfg_size_kb(l->buffer, &buf_kb) == -1 ||
	    buf_kb > UINT32_MAX) {
		snprintf(err, errlen, "--buffer argument is invalid: '%s' "
		    "(examples: 32mb, 512k, 1g)", l->buffer);
		return NULL;
	}
	file_kb = 0;
	if (l->size != NULL && (lightcfg_size_kb(l->size, &file_kb) == -1 ||
	    file_kb > UINT64_MAX / 1024)) {
		snprintf(err, errlen, "--size argument is invalid: '%s' "
		    "(examples: 100mb, 1g)", l->size);
		return NULL;
	}
	if ((f = open_memstream(&text, &len)) == NULL) {
		snprintf(err, errlen, "open_memstream: %s", strerror(errno));
		return NULL;
	}
	fprintf(f, "# faro light mode\n");
	fprintf(f, "duration_ms: %llu\n", (unsigned long long)ms);
	fprintf(f, "max_file_size_bytes: %llu\n",
	    (unsigned long long)(file_kb * 1024));
	fprintf(f, "flush_period_ms: 30000\n");
	if (file_kb != 0)
		fprintf(f, "write_into_file: true\n");
	fprintf(f, "buffers { size_kb: %llu }\n", (unsigned long long)buf_kb);

	for (i = 0; i < l->ncategories; i++) {
		const char *c = l->categories[i];

		if (strchr(c, '/') != NULL)
			nftrace++;
		else if (strcmp(c, "hyp") == 0 || strcmp(c, "hypervisor") == 0)
			hyp = c;
		else
			nftrace++;	/* an atrace category */
		/* Categories that bring a companion data source along. */
		if (strcmp(c, "gfx") == 0)
			fprintf(f, "data_sources { config { name: "
			    "\"android.surfaceflinger.frametimeline\" } }\n");
		if (strcmp(c, "disk") == 0)
			fprintf(f, "data_sources { config { name: "
			    "\"linux.sys_stats\" sys_stats_config { "
			    "diskstat_period_ms: 1000 } } }\n");
	}
	if (nftrace > 0 || l->napps > 0)
		put_ftrace_source(f, l);
	if (hyp != NULL) {
		fprintf(f, "data_sources { config { name: \"linux.ftrace\" "
		    "ftrace_config { instance_name: ");
		put_string(f, hyp);
		fprintf(f, " ftrace_events: \"%s/*\" } } }\n", hyp);
	}
	fprintf(f, "data_sources { config { name: \"linux.process_stats\" "
	    "target_buffer: 0 } }\n");
	fprintf(f, "data_sources { config { name: \"linux.system_info\" "
	    "target_buffer: 0 } }\n");
	if (ferror(f)) {
		fclose(f);
		free(text);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	fclose(f);
	return text;
}

Perfetto__Protos__TraceConfig *
lightcfg_build(const struct faro_light *l, char *err, size_t errlen)
{
	ProtobufCMessage *m;
	char *text;

	if ((text = lightcfg_text(l, err, errlen)) == NULL)
		return NULL;
	m = textproto_parse_untrusted(&perfetto__protos__trace_config__descriptor,
	    text, strlen(text), "light mode", 0, err, errlen);
	free(text);
	return (Perfetto__Protos__TraceConfig *)m;
}
