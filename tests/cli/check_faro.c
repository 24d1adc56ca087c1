/*
 * check_faro: the pieces of the faro command below main(): flag rules,
 * light mode config builder, config loading (binary and text give the same
 * config), output framing and file handling, progress line, --query text.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "protos/perfetto/config/trace_config.pb-c.h"
#include "protos/perfetto/ipc/consumer_port.pb-c.h"
#include "protos/perfetto/trace/trace.pb-c.h"

#include "base/log.h"
#include "cli/background.h"
#include "cli/config_load.h"
#include "cli/flags.h"
#include "cli/lightcfg.h"
#include "cli/output.h"
#include "cli/progress.h"
#include "cli/query.h"

typedef Perfetto__Protos__TraceConfig TraceConfig;

static char tmpdir[] = "/tmp/check_faro.XXXXXX";

static void
setup(void)
{
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void
teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	ck_assert_int_eq(system(cmd), 0);
	strcpy(tmpdir, "/tmp/check_faro.XXXXXX");
}

static char *
tmppath(const char *name)
{
	static char buf[4][256];
	static int i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", tmpdir, name);
	return buf[i];
}

static void
write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(data, 1, len, f), len);
	ck_assert_int_eq(fclose(f), 0);
}

/* Runs flags_parse on a NULL-terminated argument list. */
static int
parse_args(struct faro_opts *o, int *code, ...)
{
	char *argv[32];
	int argc = 0, rc;
	va_list ap;

	argv[argc++] = (char *)"faro";
	va_start(ap, code);
	while ((argv[argc] = va_arg(ap, char *)) != NULL)
		argc++;
	va_end(ap);
	rc = flags_parse(argc, argv, o, code);
	return rc;
}

START_TEST(test_flags_trace)
{
	struct faro_opts o;
	int code;

	ck_assert_int_eq(parse_args(&o, &code, "-c", "cfg", "--txt", "-o",
	    "out", "--no-clobber", "--add-attribute", "k=v=w",
	    "--add-attribute", "flag", "--notify-fd", "2", NULL), 0);
	ck_assert_int_eq(o.mode, FARO_MODE_TRACE);
	ck_assert_str_eq(o.config_path, "cfg");
	ck_assert_int_eq(o.txt, 1);
	ck_assert_str_eq(o.out_path, "out");
	ck_assert_int_eq(o.no_clobber, 1);
	ck_assert_int_eq(o.notify_fd, 2);
	ck_assert_uint_eq(o.nattrs, 2);
	ck_assert_str_eq(o.attrs[0].key, "k");
	ck_assert_str_eq(o.attrs[0].value, "v=w");
	ck_assert_str_eq(o.attrs[1].key, "flag");
	ck_assert_str_eq(o.attrs[1].value, "");
	ck_assert_int_eq(o.has_light, 0);
	flags_free(&o);

	ck_assert_int_eq(parse_args(&o, &code, "--time", "5s", "-b", "1mb",
	    "-s", "2m", "-a", "app", "sched/sched_switch", "-o", "x",
	    "power/cpu_idle", "-D", NULL), 0);
	ck_assert_int_eq(o.has_light, 1);
	ck_assert_str_eq(o.light.time, "5s");
	ck_assert_str_eq(o.light.buffer, "1mb");
	ck_assert_str_eq(o.light.size, "2m");
	ck_assert_uint_eq(o.light.napps, 1);
	ck_assert_uint_eq(o.light.ncategories, 2);
	ck_assert_str_eq(o.light.categories[1], "power/cpu_idle");
	ck_assert_int_eq(o.background, 1);
	ck_assert_int_eq(o.background_wait, 1);
	flags_free(&o);

	/* Light mode defaults, as upstream. */
	ck_assert_int_eq(parse_args(&o, &code, "-o", "x", "sched/sched_switch",
	    NULL), 0);
	ck_assert_str_eq(o.light.time, "10s");
	ck_assert_str_eq(o.light.buffer, "32mb");
	ck_assert_ptr_null(o.light.size);
	flags_free(&o);
}
END_TEST

START_TEST(test_flags_modes)
{
	struct faro_opts o;
	int code;

	ck_assert_int_eq(parse_args(&o, &code, "--attach=k", "--stop", NULL), 0);
	ck_assert_int_eq(o.mode, FARO_MODE_ATTACH);
	ck_assert_str_eq(o.attach_key, "k");
	ck_assert_int_eq(o.stop, 1);
	flags_free(&o);

	ck_assert_int_eq(parse_args(&o, &code, "--is_detached=k", NULL), 0);
	ck_assert_int_eq(o.mode, FARO_MODE_IS_DETACHED);
	flags_free(&o);

	ck_assert_int_eq(parse_args(&o, &code, "--detach=k", "-c", "c", "-o",
	    "o", NULL), 0);
	ck_assert_int_eq(o.mode, FARO_MODE_TRACE);
	ck_assert_str_eq(o.detach_key, "k");
	flags_free(&o);

	ck_assert_int_eq(parse_args(&o, &code, "--query", "--long", NULL), 0);
	ck_assert_int_eq(o.mode, FARO_MODE_QUERY);
	ck_assert_int_eq(o.query_long, 1);
	flags_free(&o);

	ck_assert_int_eq(parse_args(&o, &code, "--query-raw", NULL), 0);
	ck_assert_int_eq(o.mode, FARO_MODE_QUERY);
	ck_assert_int_eq(o.query_raw, 1);
	flags_free(&o);

	ck_assert_int_eq(parse_args(&o, &code, "--clone", "42", "-o", "x",
	    "--clone-for-bugreport", NULL), 0);
	ck_assert_int_eq(o.mode, FARO_MODE_CLONE);
	ck_assert(o.clone_tsid == 42);
	ck_assert_int_eq(o.clone_for_bugreport, 1);
	flags_free(&o);

	ck_assert_int_eq(parse_args(&o, &code, "--clone-by-name", "nm", "-o",
	    "x", NULL), 0);
	ck_assert_int_eq(o.mode, FARO_MODE_CLONE);
	ck_assert_str_eq(o.clone_name, "nm");
	flags_free(&o);
}
END_TEST

START_TEST(test_flags_exit)
{
	struct faro_opts o;
	int code;
	char *argv[] = { (char *)"faro", NULL };

	/* No arguments: usage and 1, as upstream. */
	ck_assert_int_eq(flags_parse(1, argv, &o, &code), -1);
	ck_assert_int_eq(code, FARO_EXIT_ERROR);
	flags_free(&o);
	ck_assert_int_eq(parse_args(&o, &code, "--version", NULL), -1);
	ck_assert_int_eq(code, FARO_EXIT_OK);
	flags_free(&o);
	ck_assert_int_eq(parse_args(&o, &code, "-h", NULL), -1);
	ck_assert_int_eq(code, FARO_EXIT_OK);
	flags_free(&o);
	ck_assert_int_eq(parse_args(&o, &code, "--bogus", NULL), -1);
	ck_assert_int_eq(code, FARO_EXIT_ERROR);
	flags_free(&o);
}
END_TEST

/* Every combination upstream rejects, and our own checks on values. */
START_TEST(test_flags_conflicts)
{
	static const char *bad[][8] = {
		{ "--query", "--detach=k", NULL },
		{ "--query", "-d", NULL },
		{ "--long", NULL },
		{ "--attach=a", "--detach=b", NULL },
		{ "-c", "x", "--txt", "--txt-lossy", "-o", "o", NULL },
		{ "--detach=k", "-d", "-c", "x", "-o", "o", NULL },
		{ "--stop", "-c", "x", "-o", "o", NULL },
		{ "--is_detached=k", "--stop", NULL },
		{ "--clone", "1", "--clone-by-name", "n", "-o", "o", NULL },
		{ "--clone-for-bugreport", "-c", "x", "-o", "o", NULL },
		{ "--attach=k", "-c", "x", NULL },
		{ "--attach=k", "-o", "x", NULL },
		{ "--attach=k", "sched/sched_switch", NULL },
		{ "--query", "-t", "1s", NULL },
		{ "--clone", "1", "-c", "x", "-o", "o", NULL },
		{ "-c", "x", "-t", "1s", "-o", "o", NULL },
		{ "-c", "x", "sched/sched_switch", "-o", "o", NULL },
		{ "-o", "o", NULL },
		{ "--txt", "-t", "1s", "-o", "o", NULL },
		{ "--clone", "abc", "-o", "o", NULL },
		{ "--clone", "0", "-o", "o", NULL },
		{ "--detach=", "-c", "x", NULL },
		{ "--notify-fd", "x", "-c", "c", "-o", "o", NULL },
		{ "--notify-fd", "999", "-c", "c", "-o", "o", NULL },
		{ "--add-attribute", "=v", "-c", "c", "-o", "o", NULL },
		{ "--add-attribute", "", "-c", "c", "-o", "o", NULL },
	};
	struct faro_opts o;
	char *argv[10];
	size_t i;
	int argc, code;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		argv[0] = (char *)"faro";
		for (argc = 1; bad[i][argc - 1] != NULL; argc++)
			argv[argc] = (char *)bad[i][argc - 1];
		argv[argc] = NULL;
		ck_assert_msg(flags_parse(argc, argv, &o, &code) == -1,
		    "case %zu (%s %s) should be rejected", i, bad[i][0],
		    bad[i][1] ? bad[i][1] : "");
		ck_assert_int_eq(code, FARO_EXIT_ERROR);
		flags_free(&o);
	}
}
END_TEST

START_TEST(test_light_units)
{
	uint64_t v;

	ck_assert_int_eq(lightcfg_time_ms("10s", &v), 0);
	ck_assert(v == 10000);
	ck_assert_int_eq(lightcfg_time_ms("250ms", &v), 0);
	ck_assert(v == 250);
	ck_assert_int_eq(lightcfg_time_ms("2m", &v), 0);
	ck_assert(v == 120000);
	ck_assert_int_eq(lightcfg_time_ms("1h", &v), 0);
	ck_assert(v == 3600000);
	ck_assert_int_eq(lightcfg_time_ms("0", &v), 0);
	ck_assert(v == 0);
	ck_assert_int_eq(lightcfg_time_ms("10", &v), -1);
	ck_assert_int_eq(lightcfg_time_ms("s", &v), -1);
	ck_assert_int_eq(lightcfg_time_ms("-1s", &v), -1);
	ck_assert_int_eq(lightcfg_time_ms("1d", &v), -1);
	ck_assert_int_eq(lightcfg_size_kb("32mb", &v), 0);
	ck_assert(v == 32768);
	ck_assert_int_eq(lightcfg_size_kb("64k", &v), 0);
	ck_assert(v == 64);
	ck_assert_int_eq(lightcfg_size_kb("1g", &v), 0);
	ck_assert(v == 1048576);
	ck_assert_int_eq(lightcfg_size_kb("2gb", &v), 0);
	ck_assert(v == 2097152);
	ck_assert_int_eq(lightcfg_size_kb("1MB", &v), -1);
	ck_assert_int_eq(lightcfg_size_kb("99999999999999999999kb", &v), -1);
	ck_assert_int_eq(lightcfg_size_kb("18446744073709551615g", &v), -1);
}
END_TEST

static const Perfetto__Protos__DataSourceConfig *
find_ds(const TraceConfig *c, const char *name, size_t nth)
{
	size_t i;

	for (i = 0; i < c->n_data_sources; i++)
		if (c->data_sources[i]->config != NULL &&
		    strcmp(c->data_sources[i]->config->name, name) == 0 &&
		    nth-- == 0)
			return c->data_sources[i]->config;
	return NULL;
}

START_TEST(test_light_config)
{
	struct faro_light l = { .time = "3s", .buffer = "64mb" };
	char *cats[] = { (char *)"sched/sched_switch", (char *)"power/cpu_idle",
	    (char *)"gfx", (char *)"disk", (char *)"hyp" };
	char *apps[] = { (char *)"com.x\"y" };
	const Perfetto__Protos__DataSourceConfig *ds;
	char err[512];
	TraceConfig *c;

	l.categories = cats;
	l.ncategories = 5;
	l.apps = apps;
	l.napps = 1;
	c = lightcfg_build(&l, err, sizeof(err));
	ck_assert_msg(c != NULL, "%s", err);
	ck_assert_uint_eq(c->duration_ms, 3000);
	ck_assert_uint_eq(c->n_buffers, 1);
	ck_assert_uint_eq(c->buffers[0]->size_kb, 65536);
	ck_assert_uint_eq(c->flush_period_ms, 30000);
	ck_assert_int_eq(c->write_into_file, 0);
	ck_assert(c->max_file_size_bytes == 0);

	ds = find_ds(c, "linux.ftrace", 0);
	ck_assert_ptr_nonnull(ds);
	ck_assert_ptr_nonnull(ds->ftrace_config);
	ck_assert_uint_eq(ds->ftrace_config->n_ftrace_events, 2);
	ck_assert_str_eq(ds->ftrace_config->ftrace_events[0],
	    "sched/sched_switch");
	ck_assert_str_eq(ds->ftrace_config->ftrace_events[1], "power/cpu_idle");
	ck_assert_uint_eq(ds->ftrace_config->n_atrace_categories, 2);
	ck_assert_str_eq(ds->ftrace_config->atrace_categories[0], "gfx");
	ck_assert_uint_eq(ds->ftrace_config->n_atrace_apps, 1);
	ck_assert_str_eq(ds->ftrace_config->atrace_apps[0], "com.x\"y");
	ck_assert_int_eq(ds->ftrace_config->symbolize_ksyms, 1);

	/* hyp gets its own ftrace instance. */
	ds = find_ds(c, "linux.ftrace", 1);
	ck_assert_ptr_nonnull(ds);
	ck_assert_str_eq(ds->ftrace_config->instance_name, "hyp");
	ck_assert_str_eq(ds->ftrace_config->ftrace_events[0], "hyp/*");

	ds = find_ds(c, "linux.sys_stats", 0);
	ck_assert_ptr_nonnull(ds);
	ck_assert_uint_eq(ds->sys_stats_config->diskstat_period_ms, 1000);
	ck_assert_ptr_nonnull(find_ds(c, "android.surfaceflinger.frametimeline",
	    0));
	ds = find_ds(c, "linux.process_stats", 0);
	ck_assert_ptr_nonnull(ds);
	ck_assert_int_eq(ds->has_target_buffer, 1);
	ck_assert_ptr_nonnull(find_ds(c, "linux.system_info", 0));
	protobuf_c_message_free_unpacked(&c->base, NULL);

	/* -s streams into the file. */
	l.size = "1g";
	l.ncategories = 0;
	l.napps = 0;
	c = lightcfg_build(&l, err, sizeof(err));
	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(c->write_into_file, 1);
	ck_assert(c->max_file_size_bytes == 1024ull * 1024 * 1024);
	ck_assert_ptr_null(find_ds(c, "linux.ftrace", 0));
	protobuf_c_message_free_unpacked(&c->base, NULL);

	l.size = "1x";
	ck_assert_ptr_null(lightcfg_build(&l, err, sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "--size argument is invalid: '1x'"));
	l.size = NULL;
	l.buffer = "5000000g";
	ck_assert_ptr_null(lightcfg_build(&l, err, sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "--buffer argument is invalid"));
	l.buffer = "1mb";
	l.time = "5000000h";
	ck_assert_ptr_null(lightcfg_build(&l, err, sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "--time argument is invalid"));
}
END_TEST

static const char text_cfg[] =
    "# a config with most constructs\n"
    "buffers: { size_kb: 1024 fill_policy: DISCARD }\n"
    "buffers < size_kb: 0x800 fill_policy: RING_BUFFER >\n"
    "data_sources {\n"
    "  config {\n"
    "    name: \"linux.ftrace\" target_buffer: 1\n"
    "    ftrace_config { ftrace_events: [\"sched/sched_switch\", "
    "'power/cpu_idle'] ftrace_events: \"sched/sched_wakeup\" }\n"
    "  }\n"
    "  producer_name_filter: \"traced_probes\"\n"
    "}\n"
    "duration_ms: 010000\n"
    "write_into_file: True; file_write_period_ms: 2500\n"
    "unique_session_name: \"sess\\x21\" \"-2\"\n"
    "statsd_metadata { triggering_alert_id: -5 }\n"
    "trace_uuid_msb: 1 trace_uuid_lsb: -1\n";

/* Packs a config to bytes; the caller frees. */
static uint8_t *
pack(const TraceConfig *c, size_t *len)
{
	uint8_t *b;

	*len = protobuf_c_message_get_packed_size(&c->base);
	b = malloc(*len + 1);
	ck_assert_ptr_nonnull(b);
	protobuf_c_message_pack(&c->base, b);
	return b;
}

START_TEST(test_config_binary_equals_text)
{
	struct faro_opts o;
	TraceConfig *t, *b;
	uint8_t *tb, *bb;
	size_t tl, bl;
	char err[1024];
	int code;

	t = traceconfig_parse_untrusted(text_cfg, strlen(text_cfg), "t", 1, 0, err,
	    sizeof(err));
	ck_assert_msg(t != NULL, "%s", err);
	ck_assert_uint_eq(t->n_buffers, 2);
	ck_assert_uint_eq(t->buffers[1]->size_kb, 2048);
	ck_assert_uint_eq(t->duration_ms, 4096);	/* octal */
	ck_assert_str_eq(t->unique_session_name, "sess!-2");
	ck_assert_uint_eq(t->data_sources[0]->config->ftrace_config->
	    n_ftrace_events, 3);
	tb = pack(t, &tl);

	/* Binary through a file, as -c without --txt reads it. */
	write_file(tmppath("cfg.pb"), tb, tl);
	ck_assert_int_eq(parse_args(&o, &code, "-c", tmppath("cfg.pb"), "-o",
	    tmppath("out"), NULL), 0);
	b = config_load(&o, err, sizeof(err));
	ck_assert_msg(b != NULL, "%s", err);
	flags_free(&o);

	/* The text config, loaded the same way. */
	write_file(tmppath("cfg.txt"), text_cfg, strlen(text_cfg));
	ck_assert_int_eq(parse_args(&o, &code, "-c", tmppath("cfg.txt"),
	    "--txt", "-o", tmppath("out"), NULL), 0);
	protobuf_c_message_free_unpacked(&t->base, NULL);
	t = config_load(&o, err, sizeof(err));
	ck_assert_msg(t != NULL, "%s", err);
	flags_free(&o);

	free(tb);
	tb = pack(t, &tl);
	bb = pack(b, &bl);
	ck_assert_uint_eq(tl, bl);
	ck_assert(memcmp(tb, bb, tl) == 0);
	/* Completed the same way: statsd logging off, the given UUID kept. */
	ck_assert_int_eq(b->statsd_logging,
	    PERFETTO__PROTOS__TRACE_CONFIG__STATSD_LOGGING__STATSD_LOGGING_DISABLED);
	free(tb);
	free(bb);
	protobuf_c_message_free_unpacked(&t->base, NULL);
	protobuf_c_message_free_unpacked(&b->base, NULL);
}
END_TEST

START_TEST(test_config_complete)
{
	struct faro_opts o;
	TraceConfig *c;
	char err[1024];
	int code;

	ck_assert_int_eq(parse_args(&o, &code, "-t", "1s", "-o", "x",
	    "--add-attribute", "a=1", "--add-attribute", "b", NULL), 0);
	c = config_load(&o, err, sizeof(err));
	ck_assert_msg(c != NULL, "%s", err);
	ck_assert_ptr_nonnull(c->trace_attributes);
	ck_assert_uint_eq(c->trace_attributes->n_attribute, 2);
	ck_assert_str_eq(c->trace_attributes->attribute[0]->key, "a");
	ck_assert_str_eq(c->trace_attributes->attribute[0]->string_value, "1");
	ck_assert_str_eq(c->trace_attributes->attribute[1]->string_value, "");
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
	ck_assert(c->trace_uuid_msb != 0 || c->trace_uuid_lsb != 0);
	/* Version 4 UUID. */
	ck_assert((c->trace_uuid_msb & 0xf000) == 0x4000);
#pragma GCC diagnostic pop
	protobuf_c_message_free_unpacked(&c->base, NULL);
	flags_free(&o);
}
END_TEST

/* Loads text config body with the given extra flags; expects err_part. */
static void
config_fail(const char *body, const char *flag, const char *err_part)
{
	struct faro_opts o;
	char err[1024];
	int code;

	write_file(tmppath("bad.txt"), body, strlen(body));
	if (flag != NULL)
		ck_assert_int_eq(parse_args(&o, &code, "-c", tmppath("bad.txt"),
		    "--txt", flag, NULL), 0);
	else
		ck_assert_int_eq(parse_args(&o, &code, "-c", tmppath("bad.txt"),
		    "--txt", "-o", tmppath("o"), NULL), 0);
	ck_assert_ptr_null(config_load(&o, err, sizeof(err)));
	ck_assert_msg(strstr(err, err_part) != NULL, "<%s> lacks <%s>", err,
	    err_part);
	flags_free(&o);
}

START_TEST(test_config_errors)
{
	struct faro_opts o;
	char err[1024];
	int code;

	config_fail("duration_ms: 1\nbufers {}", NULL,
	    "bad.txt:2:1: error: unknown field 'bufers' in "
	    "perfetto.protos.TraceConfig (did you mean 'buffers'?)");
	config_fail("cmd_trace_start_delay { min_delay_ms: 1 }", NULL,
	    "only partially specified");
	config_fail("cmd_trace_start_delay { min_delay_ms: 5 max_delay_ms: 1 }",
	    NULL, "above max_delay_ms");
	config_fail("activate_triggers: \"t\"", NULL, "activate_triggers");
	config_fail("incident_report_config { destination_package: \"p\" }",
	    NULL, "IncidentReportConfig");
	config_fail("android_report_config { reporter_service_package: \"p\" }",
	    NULL, "AndroidReportConfig");
	config_fail("duration_ms: 1", "--detach=k",
	    "write_into_file must be true when using --detach");
	config_fail("duration_ms: 1", "--no-clobber", "--out FILE is required");
	write_file(tmppath("exists"), "x", 1);
	{
		char body[512];

		snprintf(body, sizeof(body), "write_into_file: true "
		    "output_path: \"%s\"", tmppath("exists"));
		config_fail(body, "--no-clobber", "must not exist");
		config_fail(body, NULL, "Can't pass --out if output_path");
	}

	/* Missing file, then a binary config that is really text. */
	ck_assert_int_eq(parse_args(&o, &code, "-c", tmppath("none"), "-o",
	    "x", NULL), 0);
	ck_assert_ptr_null(config_load(&o, err, sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "Could not open config"));
	ck_assert_ptr_nonnull(strstr(err, "No such file"));
	flags_free(&o);
	write_file(tmppath("t.pb"), "duration_ms: 5\n", 15);
	ck_assert_int_eq(parse_args(&o, &code, "-c", tmppath("t.pb"), "-o",
	    "x", NULL), 0);
	ck_assert_ptr_null(config_load(&o, err, sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "try adding --txt"));
	flags_free(&o);
	write_file(tmppath("e.pb"), "", 0);
	ck_assert_int_eq(parse_args(&o, &code, "-c", tmppath("e.pb"), "-o",
	    "x", NULL), 0);
	ck_assert_ptr_null(config_load(&o, err, sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "empty"));
	flags_free(&o);
	write_file(tmppath("g.pb"), "\xff\xff\xff", 3);
	ck_assert_int_eq(parse_args(&o, &code, "-c", tmppath("g.pb"), "-o",
	    "x", NULL), 0);
	ck_assert_ptr_null(config_load(&o, err, sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "not a binary TraceConfig"));
	flags_free(&o);
}
END_TEST

START_TEST(test_config_lossy_and_stdin)
{
	static const char body[] = "duration_ms: 7 future_field { x: 1 }";
	struct faro_opts o;
	TraceConfig *c;
	char err[1024];
	int code, fds[2], saved;

	write_file(tmppath("l.txt"), body, strlen(body));
	ck_assert_int_eq(parse_args(&o, &code, "-c", tmppath("l.txt"),
	    "--txt-lossy", "-o", "x", NULL), 0);
	c = config_load(&o, err, sizeof(err));
	ck_assert_msg(c != NULL, "%s", err);
	ck_assert_uint_eq(c->duration_ms, 7);
	protobuf_c_message_free_unpacked(&c->base, NULL);
	flags_free(&o);

	/* -c - reads stdin. */
	ck_assert_int_eq(pipe(fds), 0);
	ck_assert_int_eq(write(fds[1], "duration_ms: 9", 14), 14);
	close(fds[1]);
	saved = dup(STDIN_FILENO);
	dup2(fds[0], STDIN_FILENO);
	close(fds[0]);
	ck_assert_int_eq(parse_args(&o, &code, "-c", "-", "--txt", "-o", "x",
	    NULL), 0);
	c = config_load(&o, err, sizeof(err));
	dup2(saved, STDIN_FILENO);
	close(saved);
	ck_assert_msg(c != NULL, "%s", err);
	ck_assert_uint_eq(c->duration_ms, 9);
	protobuf_c_message_free_unpacked(&c->base, NULL);
	flags_free(&o);
}
END_TEST

static uint8_t *
read_all(const char *path, size_t *len)
{
	char err[256];
	char *b = traceconfig_read_file(path, len, err, sizeof(err));

	ck_assert_msg(b != NULL, "%s", err);
	return (uint8_t *)b;
}

/* One ReadBuffersResponse of n slices (data, len, last), fed to out. */
static int
reply_feed(struct output *out, char *err, size_t errlen, int n, ...)
{
	Perfetto__Protos__ReadBuffersResponse r =
	    PERFETTO__PROTOS__READ_BUFFERS_RESPONSE__INIT;
	Perfetto__Protos__ReadBuffersResponse__Slice sl[4], *slp[4];
	uint8_t *buf;
	size_t len;
	va_list ap;
	int i, rc;

	va_start(ap, n);
	for (i = 0; i < n; i++) {
		perfetto__protos__read_buffers_response__slice__init(&sl[i]);
		sl[i].has_data = 1;
		sl[i].data.data = (uint8_t *)va_arg(ap, const uint8_t *);
		sl[i].data.len = va_arg(ap, size_t);
		sl[i].has_last_slice_for_packet = 1;
		sl[i].last_slice_for_packet = va_arg(ap, int);
		slp[i] = &sl[i];
	}
	va_end(ap);
	r.n_slices = (size_t)n;
	r.slices = slp;
	len = perfetto__protos__read_buffers_response__get_packed_size(&r);
	ck_assert_ptr_nonnull(buf = malloc(len + 1));
	perfetto__protos__read_buffers_response__pack(&r, buf);
	rc = output_reply_untrusted(out, buf, len, err, errlen);
	free(buf);
	return rc;
}

START_TEST(test_output_framing)
{
	struct output out;
	char err[512];
	uint8_t *data, big[300];
	size_t len;
	Perfetto__Protos__Trace *tr;

	size_t i;

	/* TracePacket.timestamp (field 8) = 1, 150 times: valid protobuf. */
	for (i = 0; i < sizeof(big); i += 2) {
		big[i] = 0x40;
		big[i + 1] = 0x01;
	}
	ck_assert_int_eq(output_open(&out, tmppath("t.pftrace"), 0, err,
	    sizeof(err)), 0);
	/* One whole packet, one split across three slices and two
	 * replies, one empty: as traced answers ReadBuffers. */
	ck_assert_int_eq(reply_feed(&out, err, sizeof(err), 2,
	    (const uint8_t *)"\x40\x02", (size_t)2, 1, big, (size_t)100, 0), 0);
	ck_assert_int_eq(reply_feed(&out, err, sizeof(err), 3, big,
	    (size_t)100, 0, big, (size_t)100, 1, (const uint8_t *)"",
	    (size_t)0, 1), 0);
	ck_assert(out.packets == 3);
	ck_assert(out.bytes == 2 + 2 + 3 + 300 + 2);
	ck_assert_int_eq(output_close(&out, 0, err, sizeof(err)), 0);

	data = read_all(tmppath("t.pftrace"), &len);
	ck_assert_uint_eq(len, 309);
	ck_assert(memcmp(data, "\x0a\x02\x40\x02\x0a\xac\x02", 7) == 0);
	/* And it decodes as a Trace. */
	tr = perfetto__protos__trace__unpack(NULL, len, data);
	ck_assert_ptr_nonnull(tr);
	ck_assert_uint_eq(tr->n_packet, 3);
	perfetto__protos__trace__free_unpacked(tr, NULL);
	free(data);

	/* Past the limit the read fails, however the packet is sliced; a
	 * reply that is no ReadBuffersResponse too. */
	ck_assert_int_eq(output_open(&out, tmppath("t2.pftrace"), 0, err,
	    sizeof(err)), 0);
	out.rd.max = 150;
	ck_assert_int_eq(reply_feed(&out, err, sizeof(err), 2, big,
	    (size_t)100, 0, big, (size_t)100, 1), -1);
	ck_assert_ptr_nonnull(strstr(err, "larger than"));
	ck_assert_int_eq(reply_feed(&out, err, sizeof(err), 1, big,
	    (size_t)200, 1), -1);
	ck_assert_int_eq(output_reply_untrusted(&out, (const uint8_t *)"\xff",
	    1, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "malformed"));
	ck_assert(out.packets == 0);
	ck_assert_int_eq(output_close(&out, 1, err, sizeof(err)), 0);
}
END_TEST

START_TEST(test_output_files)
{
	struct output out;
	char err[512];
	struct stat st;

	/* --no-clobber refuses an existing file and leaves it alone. */
	write_file(tmppath("keep"), "abc", 3);
	ck_assert_int_eq(output_open(&out, tmppath("keep"), 1, err,
	    sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "already exists"));
	ck_assert_ptr_nonnull(strstr(err, "--no-clobber"));
	ck_assert_int_eq(stat(tmppath("keep"), &st), 0);
	ck_assert_int_eq(st.st_size, 3);

	/* Without it, the file is truncated. */
	ck_assert_int_eq(output_open(&out, tmppath("keep"), 0, err,
	    sizeof(err)), 0);
	ck_assert_int_eq(fstat(out.fd, &st), 0);
	ck_assert_int_eq(st.st_size, 0);
	/* An empty file is removed when asked (a failed session). */
	ck_assert_int_eq(output_close(&out, 1, err, sizeof(err)), 0);
	ck_assert_int_eq(stat(tmppath("keep"), &st), -1);

	/* A new file is private to its owner: mode 0600. */
	ck_assert_int_eq(output_open(&out, tmppath("new"), 1, err,
	    sizeof(err)), 0);
	ck_assert_int_eq(fstat(out.fd, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0600);
	ck_assert_int_eq(output_close(&out, 0, err, sizeof(err)), 0);
	ck_assert_int_eq(stat(tmppath("new"), &st), 0);	/* kept */

	ck_assert_int_eq(output_open(&out, tmppath("no/such/dir"), 0, err,
	    sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "Cannot open output file"));
	ck_assert_ptr_nonnull(strstr(err, "No such file or directory"));

	/* Devices are never removed, even "empty" ones. */
	ck_assert_int_eq(output_open(&out, "/dev/null", 0, err, sizeof(err)),
	    0);
	ck_assert_int_eq(output_close(&out, 1, err, sizeof(err)), 0);
	ck_assert_int_eq(access("/dev/null", F_OK), 0);

	/* Nor a file that replaced ours at the path. */
	ck_assert_int_eq(output_open(&out, tmppath("swap"), 0, err,
	    sizeof(err)), 0);
	ck_assert_int_eq(unlink(tmppath("swap")), 0);
	write_file(tmppath("swap"), "", 0);
	ck_assert_int_eq(output_close(&out, 1, err, sizeof(err)), 0);
	ck_assert_int_eq(access(tmppath("swap"), F_OK), 0);

	/* A full disk is a clear error, not a silent loss. */
	if (access("/dev/full", W_OK) == 0) {
		uint8_t pkt[64] = { 0 };

		ck_assert_int_eq(output_open(&out, "/dev/full", 0, err,
		    sizeof(err)), 0);
		ck_assert_int_eq(output_packet(&out, pkt, sizeof(pkt), err,
		    sizeof(err)), 0);	/* buffered */
		ck_assert_int_eq(output_flush(&out, err, sizeof(err)), -1);
		ck_assert_ptr_nonnull(strstr(err, "Cannot write to /dev/full"));
		ck_assert_ptr_nonnull(strstr(err, "No space left"));
		output_close(&out, 0, err, sizeof(err));
	}
}
END_TEST

START_TEST(test_progress_format)
{
	struct progress p;
	char line[160];

	progress_init(&p, -1, 10000);
	ck_assert_int_eq(p.fd, -1);	/* not a terminal: silent */
	p.bytes = 3 * 1024 * 1024 / 2;
	p.ds_started = 3;
	progress_format(&p, 4200, line, sizeof(line));
	ck_assert_str_eq(line, "tracing: 4s / 10s, 1.5 MiB, 3 data sources "
	    "started");
	p.duration_ms = 0;
	p.bytes = 10;
	p.ds_started = 1;
	progress_format(&p, 0, line, sizeof(line));
	ck_assert_str_eq(line, "tracing: 0s, 10 B, 1 data source started");
}
END_TEST

START_TEST(test_query_print)
{
	Perfetto__Protos__TracingServiceState st =
	    PERFETTO__PROTOS__TRACING_SERVICE_STATE__INIT;
	Perfetto__Protos__TracingServiceState__Producer p =
	    PERFETTO__PROTOS__TRACING_SERVICE_STATE__PRODUCER__INIT, *pp = &p;
	Perfetto__Protos__TracingServiceState__DataSource ds =
	    PERFETTO__PROTOS__TRACING_SERVICE_STATE__DATA_SOURCE__INIT, *pds = &ds;
	Perfetto__Protos__DataSourceDescriptor d =
	    PERFETTO__PROTOS__DATA_SOURCE_DESCRIPTOR__INIT;
	Perfetto__Protos__TrackEventDescriptor ted =
	    PERFETTO__PROTOS__TRACK_EVENT_DESCRIPTOR__INIT;
	Perfetto__Protos__TrackEventCategory cat[12], *pcat[12];
	Perfetto__Protos__TracingServiceState__TracingSession ts =
	    PERFETTO__PROTOS__TRACING_SERVICE_STATE__TRACING_SESSION__INIT,
	    *pts = &ts;
	uint32_t kb[2] = { 1024, 2048 };
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f;
	Perfetto__Protos__TracingServiceState *back;

	st.tracing_service_version = (char *)"faro 0.1.0";
	st.has_num_sessions = 1;
	st.num_sessions = 1;
	st.n_producers = 1;
	st.producers = &pp;
	p.id = 7;
	p.pid = 1234;
	p.uid = 1000;
	p.name = (char *)"traced_probes";
	p.sdk_version = (char *)"v1";
	st.n_data_sources = 1;
	st.data_sources = &pds;
	ds.ds_descriptor = &d;
	ds.producer_id = 7;
	d.name = (char *)"track_event";
	d.track_event_descriptor = &ted;
	for (i = 0; i < 12; i++) {
		perfetto__protos__track_event_category__init(&cat[i]);
		cat[i].name = (char *)"category";
		pcat[i] = &cat[i];
	}
	ted.n_available_categories = 12;
	ted.available_categories = pcat;
	st.has_supports_tracing_sessions = 1;
	st.supports_tracing_sessions = 1;
	st.n_tracing_sessions = 1;
	st.tracing_sessions = &pts;
	ts.id = 3;
	ts.consumer_uid = 1000;
	ts.state = (char *)"STARTED";
	ts.n_buffer_size_kb = 2;
	ts.buffer_size_kb = kb;
	ts.duration_ms = 10000;
	ts.num_data_sources = 2;
	ts.start_realtime_ns = (int64_t)(3600 + 120 + 5) * 1000000000;
	ts.unique_session_name = (char *)"mysess";

	f = open_memstream(&buf, &len);
	ck_assert_int_eq(query_print(f, &st, 0, 0), 0);
	fclose(f);
	ck_assert_ptr_nonnull(strstr(buf, "Service: faro 0.1.0\n"
	    "Tracing sessions: 1 (started: 0)\n"));
	ck_assert_ptr_nonnull(strstr(buf, "\n7      1234     1000            "
	    "traced_probes"));
	ck_assert_ptr_nonnull(strstr(buf, "track_event                              "
	    "traced_probes (7)            category,category"));
	ck_assert_ptr_nonnull(strstr(buf, "... (use --long to expand)\n"));
	ck_assert_ptr_nonnull(strstr(buf, "\n3       1000    STARTED    (2) 3072     "
	    "10        2    01:02:05 mysess\n"));
	free(buf);

	/* --long shows every category. */
	buf = NULL;
	f = open_memstream(&buf, &len);
	ck_assert_int_eq(query_print(f, &st, 1, 0), 0);
	fclose(f);
	ck_assert_ptr_null(strstr(buf, "use --long"));
	free(buf);

	/* --query-raw is the TracingServiceState itself. */
	buf = NULL;
	f = open_memstream(&buf, &len);
	ck_assert_int_eq(query_print(f, &st, 0, 1), 0);
	fclose(f);
	back = perfetto__protos__tracing_service_state__unpack(NULL, len,
	    (uint8_t *)buf);
	ck_assert_ptr_nonnull(back);
	ck_assert_uint_eq(back->n_producers, 1);
	ck_assert_str_eq(back->tracing_sessions[0]->unique_session_name,
	    "mysess");
	perfetto__protos__tracing_service_state__free_unpacked(back, NULL);
	free(buf);
}
END_TEST

START_TEST(test_background_status)
{
	int fds[2];
	uint8_t b;

	/* A status byte from the background process is the exit code. */
	ck_assert_int_eq(pipe(fds), 0);
	b = CONSUMER_WAIT_OK;
	ck_assert_int_eq(write(fds[1], &b, 1), 1);
	ck_assert_int_eq(background_wait_status(fds[0], 1000), 0);
	close(fds[0]);
	close(fds[1]);

	ck_assert_int_eq(pipe(fds), 0);
	b = CONSUMER_WAIT_ERROR;
	ck_assert_int_eq(write(fds[1], &b, 1), 1);
	ck_assert_int_eq(background_wait_status(fds[0], 1000), 1);
	close(fds[0]);
	close(fds[1]);

	/* Nothing in time: 2, as upstream's timeout. */
	ck_assert_int_eq(pipe(fds), 0);
	ck_assert_int_eq(background_wait_status(fds[0], 50),
	    CONSUMER_WAIT_TIMEOUT);
	/* The process went away without a word: an error. */
	close(fds[1]);
	ck_assert_int_eq(background_wait_status(fds[0], 1000),
	    CONSUMER_WAIT_ERROR);
	close(fds[0]);
}
END_TEST


START_TEST(test_config_builtin_test)
{
	struct faro_opts o;
	TraceConfig *c;
	char err[1024];
	int code;

	ck_assert_int_eq(parse_args(&o, &code, "-c", ":test", "-o", "x",
	    NULL), 0);
	c = config_load(&o, err, sizeof(err));
	ck_assert_msg(c != NULL, "%s", err);
	ck_assert_uint_eq(c->duration_ms, 2000);
	ck_assert_str_eq(find_ds(c, "linux.ftrace", 0)->ftrace_config->
	    ftrace_events[3], "power/gpu_frequency");
	protobuf_c_message_free_unpacked(&c->base, NULL);
	flags_free(&o);
}
END_TEST

/* On a terminal the line is drawn in place and erased before messages. */
START_TEST(test_progress_tty)
{
	struct progress p;
	char buf[512];
	ssize_t n;
	int m, sl;

	m = posix_openpt(O_RDWR | O_NOCTTY);
	ck_assert_int_ge(m, 0);
	ck_assert_int_eq(grantpt(m), 0);
	ck_assert_int_eq(unlockpt(m), 0);
	sl = open(ptsname(m), O_RDWR | O_NOCTTY);
	ck_assert_int_ge(sl, 0);

	progress_init(&p, sl, 5000);
	ck_assert_int_eq(p.fd, sl);
	p.ds_started = 2;
	progress_draw(&p);
	progress_clear(&p);
	/* The two writes may come out of the pty in one read or two. */
	{
		size_t got = 0;
		struct pollfd pfd = { m, POLLIN, 0 };

		while (got < sizeof(buf) - 1 && poll(&pfd, 1, 500) == 1) {
			n = read(m, buf + got, sizeof(buf) - 1 - got);
			if (n <= 0)
				break;
			got += (size_t)n;
			buf[got] = '\0';
			if (strstr(buf, "\r\033[K") != NULL)
				break;
		}
		buf[got] = '\0';
	}
	ck_assert_ptr_nonnull(strstr(buf, "\rtracing: 0s / 5s, 0 B, 2 data "
	    "sources started\033[K"));
	ck_assert_ptr_nonnull(strstr(buf, "\r\033[K"));
	close(sl);
	close(m);
}
END_TEST

static Suite *
faro_suite(void)
{
	Suite *s = suite_create("faro");
	TCase *tc;

	tc = tcase_create("flags");
	tcase_add_test(tc, test_flags_trace);
	tcase_add_test(tc, test_flags_modes);
	tcase_add_test(tc, test_flags_exit);
	tcase_add_test(tc, test_flags_conflicts);
	suite_add_tcase(s, tc);

	tc = tcase_create("config");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_light_units);
	tcase_add_test(tc, test_light_config);
	tcase_add_test(tc, test_config_binary_equals_text);
	tcase_add_test(tc, test_config_complete);
	tcase_add_test(tc, test_config_errors);
	tcase_add_test(tc, test_config_lossy_and_stdin);
	tcase_add_test(tc, test_config_builtin_test);
	suite_add_tcase(s, tc);

	tc = tcase_create("output");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_output_framing);
	tcase_add_test(tc, test_output_files);
	tcase_add_test(tc, test_progress_format);
	tcase_add_test(tc, test_progress_tty);
	tcase_add_test(tc, test_query_print);
	tcase_add_test(tc, test_background_status);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(faro_suite());
	int failed;

	log_init("check_faro", 1, 0);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
