/*
 * check_faro_cmd: the faro program end to end. Each test starts a real
 * traced on private sockets in a temporary directory, runs the faro binary
 * as a user would (argv, stdin, environment, signals) and checks the exit
 * code, the messages and the trace file it leaves.
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "protos/perfetto/common/tracing_service_state.pb-c.h"
#include "protos/perfetto/trace/trace.pb-c.h"

#include <event2/event.h>

#include "traced_test.h"

typedef Perfetto__Protos__TraceConfig TraceConfig;

static char dir[256];
static char faro_bin[PATH_MAX];
static struct tt_traced tt;
static pid_t probes_pid = -1;	/* traced_probes, if a test started it */

struct run {
	int	 code;
	char	*out;		/* stdout, NUL-terminated */
	size_t	 outlen;
	char	*err;		/* stderr */
};

static const char *
path(const char *name)
{
	static char buf[8][PATH_MAX];
	static int i;

	i = (i + 1) % 8;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", dir, name);
	return buf[i];
}

static void
write_file(const char *p, const char *data)
{
	FILE *f = fopen(p, "w");

	ck_assert_ptr_nonnull(f);
	fputs(data, f);
	ck_assert_int_eq(fclose(f), 0);
}

static uint8_t *
read_file(const char *p, size_t *len)
{
	FILE *f = fopen(p, "rb");
	uint8_t *b;
	long n;

	ck_assert_msg(f != NULL, "cannot open %s", p);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	b = malloc((size_t)n + 1);
	ck_assert_ptr_nonnull(b);
	ck_assert_uint_eq(fread(b, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return b;
}

static void
msleep(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

static void
setup(void)
{
	const char *top = getenv("top_builddir");

	snprintf(faro_bin, sizeof(faro_bin), "%s/faro", top ? top : ".");
	ck_assert_int_eq(tt_traced_start(&tt, NULL), 0);
	snprintf(dir, sizeof(dir), "%s", tt.dir);
	setenv("PERFETTO_PRODUCER_SOCK_NAME", tt.producer_sock, 1);
	setenv("PERFETTO_CONSUMER_SOCK_NAME", tt.consumer_sock, 1);
}

static void
teardown(void)
{
	int st;

	if (probes_pid > 0) {
		kill(probes_pid, SIGTERM);
		waitpid(probes_pid, &st, 0);
		probes_pid = -1;
	}
	tt_traced_stop(&tt);	/* removes its directory too */
}

/* A fixture without traced, for the "no traced" paths. */
static void
setup_bare(void)
{
	const char *top = getenv("top_builddir");

	snprintf(dir, sizeof(dir), "/tmp/check_faro_cmd.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(faro_bin, sizeof(faro_bin), "%s/faro", top ? top : ".");
	setenv("PERFETTO_CONSUMER_SOCK_NAME", path("c.sock"), 1);
}

static void
teardown_bare(void)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "teardown: cannot remove %s\n", dir);
}

static void
run_free(struct run *r)
{
	free(r->out);
	free(r->err);
	memset(r, 0, sizeof(*r));
}

/* Appends what fd has to *buf; returns 0 at EOF. */
static int
drain(int fd, char **buf, size_t *len)
{
	char tmp[8192];
	ssize_t n = read(fd, tmp, sizeof(tmp));

	if (n <= 0)
		return 0;
	*buf = realloc(*buf, *len + (size_t)n + 1);
	ck_assert_ptr_nonnull(*buf);
	memcpy(*buf + *len, tmp, (size_t)n);
	*len += (size_t)n;
	(*buf)[*len] = '\0';
	return 1;
}

static pid_t
spawn(const char *const *argv, const char *input, int *outfd, int *errfd,
    int keep_fd)
{
	int in[2], out[2], err[2];
	pid_t pid;
	char *args[32];
	int i;

	ck_assert_int_eq(pipe(in), 0);
	ck_assert_int_eq(pipe(out), 0);
	ck_assert_int_eq(pipe(err), 0);
	args[0] = (char *)"faro";
	for (i = 0; argv[i] != NULL && i < 30; i++)
		args[i + 1] = (char *)argv[i];
	args[i + 1] = NULL;
	if ((pid = fork()) == 0) {
		dup2(in[0], STDIN_FILENO);
		dup2(out[1], STDOUT_FILENO);
		dup2(err[1], STDERR_FILENO);
		for (i = 3; i < 256; i++)
			if (i != keep_fd)
				close(i);
		execv(faro_bin, args);
		_exit(127);
	}
	ck_assert_int_ne(pid, -1);
	close(in[0]);
	close(out[1]);
	close(err[1]);
	if (input != NULL)
		ck_assert_int_eq(write(in[1], input, strlen(input)),
		    (ssize_t)strlen(input));
	close(in[1]);
	*outfd = out[0];
	*errfd = err[0];
	return pid;
}

/* Collects the output of a spawned faro and its exit code. */
static void
finish(pid_t pid, int outfd, int errfd, struct run *r)
{
	struct pollfd pfd[2];
	size_t errlen = 0;
	int open_fds = 2, st, i, waited = 0;

	r->out = calloc(1, 1);
	r->err = calloc(1, 1);
	r->outlen = 0;
	pfd[0].fd = outfd;
	pfd[1].fd = errfd;
	pfd[0].events = pfd[1].events = POLLIN;
	while (open_fds > 0) {
		if (poll(pfd, 2, 1000) == 0 && ++waited > 60) {
			kill(pid, SIGKILL);
			ck_abort_msg("faro hung; stderr so far: %s", r->err);
		}
		for (i = 0; i < 2; i++) {
			if (pfd[i].fd == -1 || !(pfd[i].revents &
			    (POLLIN | POLLHUP)))
				continue;
			if (!drain(pfd[i].fd, i == 0 ? &r->out : &r->err,
			    i == 0 ? &r->outlen : &errlen)) {
				close(pfd[i].fd);
				pfd[i].fd = -1;
				open_fds--;
			}
		}
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	r->code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int
faro(struct run *r, const char *input, ...)
{
	const char *argv[32];
	va_list ap;
	int n = 0, outfd, errfd;
	pid_t pid;

	va_start(ap, input);
	while ((argv[n] = va_arg(ap, const char *)) != NULL && n < 30)
		n++;
	va_end(ap);
	argv[n] = NULL;
	pid = spawn(argv, input, &outfd, &errfd, -1);
	finish(pid, outfd, errfd, r);
	return r->code;
}

/* Polls `faro --query` (500 times, 10 ms apart) until it prints want. */
static void
wait_query(const char *want)
{
	struct run q;
	int i;

	for (i = 0; i < 500; i++) {
		faro(&q, NULL, "--query", NULL);
		if (strstr(q.out, want) != NULL) {
			run_free(&q);
			break;
		}
		run_free(&q);
		msleep(10);
	}
	ck_assert_int_lt(i, 500);
}

#define ASSERT_ERR(r, s) ck_assert_msg(strstr((r)->err, (s)) != NULL, \
	"stderr <%s> lacks <%s>", (r)->err, (s))

/* Decodes a trace file; fails the test if it is not a valid Trace. */
static Perfetto__Protos__Trace *
load_trace(const char *p)
{
	Perfetto__Protos__Trace *t;
	uint8_t *b;
	size_t len;

	b = read_file(p, &len);
	ck_assert_msg(len > 0, "%s is empty", p);
	t = perfetto__protos__trace__unpack(NULL, len, b);
	free(b);
	ck_assert_msg(t != NULL, "%s is not a valid Trace", p);
	return t;
}

/* The config traced recorded in the trace (its trace_config packet). */
static const TraceConfig *
trace_config_of(const Perfetto__Protos__Trace *t)
{
	size_t i;

	for (i = 0; i < t->n_packet; i++)
		if (t->packet[i]->data_case ==
		    PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACE_CONFIG)
			return t->packet[i]->trace_config;
	return NULL;
}

static uint8_t *
pack_cfg(const TraceConfig *c, size_t *len)
{
	uint8_t *b;

	*len = protobuf_c_message_get_packed_size(&c->base);
	b = malloc(*len + 1);
	ck_assert_ptr_nonnull(b);
	protobuf_c_message_pack(&c->base, b);
	return b;
}

/* Every text-format construct, in a config traced accepts. */
static const char every_construct[] =
    "# every construct of the text format\n"
    "buffers: { size_kb: 1024 fill_policy: DISCARD }\n"
    "buffers < size_kb: 0x200; fill_policy: 1 >  # hex, enum by number\n"
    "data_sources {\n"
    "  config {\n"
    "    name: \"linux.ftrace\" \"\"   # adjacent strings\n"
    "    target_buffer: 01              # octal\n"
    "    ftrace_config {\n"
    "      ftrace_events: [\"sched/sched_switch\", 'power/cpu_idle']\n"
    "      ftrace_events: \"sched/\\x73ched_wakeup\"\n"
    "      symbolize_ksyms: t\n"
    "    }\n"
    "  }\n"
    "  producer_name_filter: \"traced_probes\"\n"
    "}\n"
    "duration_ms: 300, flush_period_ms: 0\n"
    "statsd_metadata { triggering_alert_id: -42 }\n"
    "trace_uuid_msb: 0x1234 trace_uuid_lsb: -0x5678\n"
    "unique_session_name: \"every\\u00e9\"\n";

START_TEST(test_text_config_every_construct)
{
	struct run r;
	Perfetto__Protos__Trace *t;
	const TraceConfig *c;

	write_file(path("every.txt"), every_construct);
	ck_assert_int_eq(faro(&r, NULL, "-c", path("every.txt"), "--txt", "-o",
	    path("every.pftrace"), NULL), 0);
	ASSERT_ERR(&r, "Wrote ");
	run_free(&r);

	t = load_trace(path("every.pftrace"));
	c = trace_config_of(t);
	ck_assert_msg(c != NULL, "no trace_config packet in the trace");
	ck_assert_uint_eq(c->n_buffers, 2);
	ck_assert_uint_eq(c->buffers[1]->size_kb, 512);
	ck_assert_int_eq(c->buffers[1]->fill_policy,
	    PERFETTO__PROTOS__TRACE_CONFIG__BUFFER_CONFIG__FILL_POLICY__RING_BUFFER);
	ck_assert_uint_eq(c->duration_ms, 300);
	ck_assert_str_eq(c->unique_session_name, "every\xc3\xa9");
	ck_assert_uint_eq(c->n_data_sources, 1);
	ck_assert_uint_eq(c->data_sources[0]->config->target_buffer, 1);
	ck_assert_uint_eq(c->data_sources[0]->config->ftrace_config->
	    n_ftrace_events, 3);
	ck_assert_str_eq(c->data_sources[0]->config->ftrace_config->
	    ftrace_events[2], "sched/sched_wakeup");
	perfetto__protos__trace__free_unpacked(t, NULL);
}
END_TEST

/* The binary form of a text config gives the same session. */
START_TEST(test_binary_equals_text)
{
	struct run r;
	Perfetto__Protos__Trace *ttx, *tb;
	uint8_t *b1, *b2, *raw;
	size_t l1, l2, rawlen;

	write_file(path("every.txt"), every_construct);
	ck_assert_int_eq(faro(&r, NULL, "-c", path("every.txt"), "--txt", "-o",
	    path("text.pftrace"), NULL), 0);
	run_free(&r);
	/* protoc's own encoder makes the binary config, independently. */
	if (system("command -v protoc >/dev/null 2>&1") != 0) {
		/* Fall back to the config traced recorded. */
		ttx = load_trace(path("text.pftrace"));
		raw = pack_cfg(trace_config_of(ttx), &rawlen);
		perfetto__protos__trace__free_unpacked(ttx, NULL);
		{
			FILE *f = fopen(path("every.pb"), "wb");

			ck_assert_ptr_nonnull(f);
			fwrite(raw, 1, rawlen, f);
			fclose(f);
		}
		free(raw);
	} else {
		char cmd[4 * PATH_MAX];
		const char *src = getenv("top_srcdir");

		snprintf(cmd, sizeof(cmd), "protoc --proto_path=%s "
		    "--encode=perfetto.protos.TraceConfig "
		    "%s/protos/perfetto/config/trace_config.proto < %s > %s",
		    src ? src : ".", src ? src : ".", path("every.txt"),
		    path("every.pb"));
		ck_assert_msg(system(cmd) == 0, "protoc failed: %s", cmd);
	}
	ck_assert_int_eq(faro(&r, NULL, "-c", path("every.pb"), "-o",
	    path("bin.pftrace"), NULL), 0);
	run_free(&r);

	ttx = load_trace(path("text.pftrace"));
	tb = load_trace(path("bin.pftrace"));
	ck_assert_ptr_nonnull(trace_config_of(ttx));
	ck_assert_ptr_nonnull(trace_config_of(tb));
	b1 = pack_cfg(trace_config_of(ttx), &l1);
	b2 = pack_cfg(trace_config_of(tb), &l2);
	ck_assert_uint_eq(l1, l2);
	ck_assert(memcmp(b1, b2, l1) == 0);
	free(b1);
	free(b2);
	perfetto__protos__trace__free_unpacked(ttx, NULL);
	perfetto__protos__trace__free_unpacked(tb, NULL);
}
END_TEST

/*
 * Every typed data source config upstream has, every field of it set
 * (tests/cli/data/every_data_source.cfg, one entry per config named
 * "test.<field>"): faro --txt parses it, traced starts the session
 * though no producer offers any of them, and the config traced recorded
 * is byte for byte what protoc encodes from the same text.
 */
START_TEST(test_every_data_source)
{
	const ProtobufCMessageDescriptor *dd =
	    &perfetto__protos__data_source_config__descriptor;
	const ProtobufCFieldDescriptor *fd;
	const char *src = getenv("top_srcdir");
	char cfgpath[PATH_MAX], cmd[4 * PATH_MAX], covered[256];
	Perfetto__Protos__Trace *t;
	const TraceConfig *c;
	uint8_t *got, *want;
	size_t i, glen, wlen;
	struct run r;

	snprintf(cfgpath, sizeof(cfgpath), "%s/tests/cli/data/"
	    "every_data_source.cfg", src ? src : ".");
	ck_assert_int_eq(faro(&r, NULL, "-c", cfgpath, "--txt", "-o",
	    path("every_ds.pftrace"), NULL), 0);
	ASSERT_ERR(&r, "No connected producer offers these data sources of "
	    "this config; they record nothing");
	ASSERT_ERR(&r, "\nfaro:   test.ftrace_config\n");
	ASSERT_ERR(&r, "\nfaro:   test.qnx_config\n");
	run_free(&r);

	t = load_trace(path("every_ds.pftrace"));
	ck_assert_ptr_nonnull(c = trace_config_of(t));
	ck_assert_uint_ge(c->n_data_sources, 48);
	memset(covered, 0, sizeof(covered));
	for (i = 0; i < c->n_data_sources; i++) {
		const Perfetto__Protos__DataSourceConfig *d =
		    c->data_sources[i]->config;

		ck_assert_ptr_nonnull(d);
		ck_assert_ptr_nonnull(d->name);
		ck_assert(strncmp(d->name, "test.", 5) == 0);
		fd = protobuf_c_message_descriptor_get_field_by_name(dd,
		    d->name + 5);
		ck_assert_msg(fd != NULL && fd->type == PROTOBUF_C_TYPE_MESSAGE,
		    "%s names no typed config", d->name);
		ck_assert_msg(*(void *const *)((const char *)d + fd->offset) !=
		    NULL, "%s: its config was dropped", d->name);
		covered[fd - dd->fields] = 1;
	}
	/* Every typed config of DataSourceConfig is in the file. */
	ck_assert_uint_lt(dd->n_fields, sizeof(covered));
	for (i = 0; i < dd->n_fields; i++)
		ck_assert_msg(dd->fields[i].type != PROTOBUF_C_TYPE_MESSAGE ||
		    covered[i], "no entry sets %s", dd->fields[i].name);

	if (system("command -v protoc >/dev/null 2>&1") == 0) {
		snprintf(cmd, sizeof(cmd), "protoc --proto_path=%s "
		    "--encode=perfetto.protos.TraceConfig "
		    "%s/protos/perfetto/config/trace_config.proto < %s > %s "
		    "2>/dev/null", src ? src : ".", src ? src : ".", cfgpath,
		    path("every_ds.pb"));
		ck_assert_msg(system(cmd) == 0, "protoc failed: %s", cmd);
		want = read_file(path("every_ds.pb"), &wlen);
		got = pack_cfg(c, &glen);
		ck_assert_uint_eq(glen, wlen);
		ck_assert(memcmp(got, want, wlen) == 0);
		free(got);
		free(want);
	}
	perfetto__protos__trace__free_unpacked(t, NULL);
}
END_TEST

START_TEST(test_light_mode)
{
	struct run r;
	Perfetto__Protos__Trace *t;
	const TraceConfig *c;
	size_t i;
	int have_ftrace = 0, have_ps = 0;

	ck_assert_int_eq(faro(&r, NULL, "-t", "300ms", "-b", "2mb", "-o",
	    path("light.pftrace"), "sched/sched_switch", "--add-attribute",
	    "who=check", NULL), 0);
	ASSERT_ERR(&r, "TTL: 1s");
	run_free(&r);
	t = load_trace(path("light.pftrace"));
	c = trace_config_of(t);
	ck_assert_ptr_nonnull(c);
	ck_assert_uint_eq(c->duration_ms, 300);
	ck_assert_uint_eq(c->buffers[0]->size_kb, 2048);
	for (i = 0; i < c->n_data_sources; i++) {
		const char *n = c->data_sources[i]->config->name;

		if (strcmp(n, "linux.ftrace") == 0) {
			have_ftrace = 1;
			ck_assert_str_eq(c->data_sources[i]->config->
			    ftrace_config->ftrace_events[0],
			    "sched/sched_switch");
		}
		if (strcmp(n, "linux.process_stats") == 0)
			have_ps = 1;
	}
	ck_assert(have_ftrace && have_ps);
	ck_assert_ptr_nonnull(c->trace_attributes);
	ck_assert_str_eq(c->trace_attributes->attribute[0]->key, "who");
	perfetto__protos__trace__free_unpacked(t, NULL);

	/* -s: traced streams into the file faro opened. */
	ck_assert_int_eq(faro(&r, NULL, "-t", "200ms", "-s", "1mb", "-o",
	    path("stream.pftrace"), NULL), 0);
	ASSERT_ERR(&r, "Trace written into");
	run_free(&r);
	t = load_trace(path("stream.pftrace"));
	c = trace_config_of(t);
	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(c->write_into_file, 1);
	perfetto__protos__trace__free_unpacked(t, NULL);
}
END_TEST

START_TEST(test_stdin_stdout)
{
	struct run r;
	Perfetto__Protos__Trace *t;

	ck_assert_int_eq(faro(&r, "duration_ms: 100 buffers { size_kb: 64 }",
	    "-c", "-", "--txt", "-o", "-", NULL), 0);
	ck_assert_uint_gt(r.outlen, 0);
	t = perfetto__protos__trace__unpack(NULL, r.outlen,
	    (const uint8_t *)r.out);
	ck_assert_msg(t != NULL, "stdout is not a Trace");
	ck_assert_ptr_nonnull(trace_config_of(t));
	ck_assert_uint_eq(trace_config_of(t)->duration_ms, 100);
	ASSERT_ERR(&r, "into stdout");
	perfetto__protos__trace__free_unpacked(t, NULL);
	run_free(&r);
}
END_TEST

/* Spawns faro, waits for the session to start, sends sig. */
static void
interrupt_run(int sig, const char *extra, struct run *r)
{
	const char *argv[] = { "-t", "60s", "-o", path("int.pftrace"), extra,
	    NULL };
	int outfd, errfd;
	pid_t pid;

	pid = spawn(argv, NULL, &outfd, &errfd, -1);
	/* The session shows up in --query once traced has it. */
	wait_query("Tracing sessions: 1 (started: 1)");
	kill(pid, sig);
	finish(pid, outfd, errfd, r);
}

START_TEST(test_ctrl_c)
{
	struct run r;
	Perfetto__Protos__Trace *t;

	interrupt_run(SIGINT, NULL, &r);
	ck_assert_int_eq(r.code, 0);
	ASSERT_ERR(&r, "SIGINT received: disabling tracing");
	ASSERT_ERR(&r, "Wrote ");
	run_free(&r);
	t = load_trace(path("int.pftrace"));
	ck_assert_ptr_nonnull(trace_config_of(t));
	perfetto__protos__trace__free_unpacked(t, NULL);

	/* SIGTERM and a streamed session: the file is kept and complete. */
	interrupt_run(SIGTERM, "--size=4mb", &r);
	ck_assert_int_eq(r.code, 0);
	ASSERT_ERR(&r, "SIGTERM received");
	run_free(&r);
	t = load_trace(path("int.pftrace"));
	ck_assert_ptr_nonnull(trace_config_of(t));
	perfetto__protos__trace__free_unpacked(t, NULL);
}
END_TEST

static const char detach_cfg[] =
    "duration_ms: 60000 write_into_file: true file_write_period_ms: 100\n"
    "buffers { size_kb: 256 } unique_session_name: \"det\"\n";

START_TEST(test_detach_attach)
{
	struct run r;
	Perfetto__Protos__Trace *t;

	write_file(path("det.txt"), detach_cfg);
	ck_assert_int_eq(faro(&r, NULL, "-c", path("det.txt"), "--txt",
	    "--detach=key1", "-o", path("det.pftrace"), NULL), 0);
	run_free(&r);

	ck_assert_int_eq(faro(&r, NULL, "--is_detached=key1", NULL), 0);
	run_free(&r);
	/* Unknown key: 2, quietly. */
	ck_assert_int_eq(faro(&r, NULL, "--is_detached=other", NULL), 2);
	ck_assert_str_eq(r.err, "");
	run_free(&r);
	/* The session is listed while detached. */
	ck_assert_int_eq(faro(&r, NULL, "--query", NULL), 0);
	ck_assert_ptr_nonnull(strstr(r.out, " det\n"));
	run_free(&r);

	ck_assert_int_eq(faro(&r, NULL, "--attach=key1", "--stop", NULL), 0);
	ASSERT_ERR(&r, "Trace written into the output file");
	run_free(&r);
	t = load_trace(path("det.pftrace"));
	ck_assert_ptr_nonnull(trace_config_of(t));
	ck_assert_str_eq(trace_config_of(t)->unique_session_name, "det");
	perfetto__protos__trace__free_unpacked(t, NULL);

	/* The key is gone once the session ended. */
	ck_assert_int_eq(faro(&r, NULL, "--is_detached=key1", NULL), 2);
	run_free(&r);
	ck_assert_int_eq(faro(&r, NULL, "--attach=key1", NULL), 2);
	ASSERT_ERR(&r, "Session re-attach failed");
	run_free(&r);
	/* --detach needs write_into_file. */
	ck_assert_int_eq(faro(&r, "duration_ms: 1000", "-c", "-", "--txt",
	    "--detach=k", "-o", path("x"), NULL), 1);
	ASSERT_ERR(&r, "write_into_file must be true");
	run_free(&r);
}
END_TEST

START_TEST(test_clone)
{
	struct run r;
	Perfetto__Protos__Trace *t;
	const char *cfg = "duration_ms: 60000 buffers { size_kb: 256 } "
	    "unique_session_name: \"orig\"";
	int outfd, errfd;
	const char *argv[] = { "-c", "-", "--txt", "-o", path("orig.pftrace"),
	    NULL };
	pid_t pid;

	int i;

	pid = spawn(argv, cfg, &outfd, &errfd, -1);
	for (i = 0; i < 250; i++) {
		msleep(20);
		faro(&r, NULL, "--query", NULL);
		if (strstr(r.out, " orig\n") != NULL)
			break;
		run_free(&r);
	}
	ck_assert_int_lt(i, 250);
	run_free(&r);
	ck_assert_int_eq(faro(&r, NULL, "--clone-by-name", "orig", "-o",
	    path("clone.pftrace"), NULL), 0);
	run_free(&r);
	t = load_trace(path("clone.pftrace"));
	ck_assert_ptr_nonnull(trace_config_of(t));
	perfetto__protos__trace__free_unpacked(t, NULL);

	/* By id, as --query shows it. */
	{
		Perfetto__Protos__TracingServiceState *st;
		char id[32];

		ck_assert_int_eq(faro(&r, NULL, "--query-raw", NULL), 0);
		st = perfetto__protos__tracing_service_state__unpack(NULL,
		    r.outlen, (const uint8_t *)r.out);
		ck_assert_ptr_nonnull(st);
		ck_assert_uint_ge(st->n_tracing_sessions, 1);
		snprintf(id, sizeof(id), "%" PRIu64,
		    st->tracing_sessions[0]->id);
		perfetto__protos__tracing_service_state__free_unpacked(st,
		    NULL);
		run_free(&r);
		ck_assert_int_eq(faro(&r, NULL, "--clone", id, "-o",
		    path("byid.pftrace"), NULL), 0);
		run_free(&r);
		t = load_trace(path("byid.pftrace"));
		ck_assert_ptr_nonnull(trace_config_of(t));
		perfetto__protos__trace__free_unpacked(t, NULL);
	}

	ck_assert_int_eq(faro(&r, NULL, "--clone-by-name", "nosuch", "-o",
	    path("none.pftrace"), NULL), 1);
	ASSERT_ERR(&r, "Failed to clone tracing session \"nosuch\"");
	ck_assert_int_eq(access(path("none.pftrace"), F_OK), -1);
	run_free(&r);
	kill(pid, SIGINT);
	finish(pid, outfd, errfd, &r);
	run_free(&r);
}
END_TEST

START_TEST(test_query_raw)
{
	struct run r;
	Perfetto__Protos__TracingServiceState *st;

	ck_assert_int_eq(faro(&r, NULL, "--query-raw", NULL), 0);
	st = perfetto__protos__tracing_service_state__unpack(NULL, r.outlen,
	    (const uint8_t *)r.out);
	ck_assert_ptr_nonnull(st);
	ck_assert_ptr_nonnull(st->tracing_service_version);
	perfetto__protos__tracing_service_state__free_unpacked(st, NULL);
	run_free(&r);
	ck_assert_int_eq(faro(&r, NULL, "--query", NULL), 0);
	ck_assert_ptr_nonnull(strstr(r.out, "PRODUCER PROCESSES CONNECTED"));
	ck_assert_ptr_nonnull(strstr(r.out, "Service: "));
	run_free(&r);
}
END_TEST

START_TEST(test_refused)
{
	struct run r;

	/* traced checks the config and says why it refuses. */
	ck_assert_int_eq(faro(&r, "buffers { size_kb: 64 } data_sources { "
	    "config { name: \"x\" target_buffer: 5 } }", "-c", "-", "--txt",
	    "-o", path("ref.pftrace"), NULL), 1);
	ASSERT_ERR(&r, "traced refused the session: ");
	ASSERT_ERR(&r, "target_buffer");
	/* No empty file left behind. */
	ck_assert_int_eq(access(path("ref.pftrace"), F_OK), -1);
	run_free(&r);
}
END_TEST

START_TEST(test_background)
{
	struct run r;
	int fds[2], outfd, errfd, i;
	const char *argv[] = { "-t", "200ms", "-o", path("nfd.pftrace"),
	    "--notify-fd", NULL, NULL };
	char fdarg[16];
	uint8_t st = 0xff;
	pid_t pid;
	long bgpid;

	/* -D: prints the PID once data sources started, exit 0. */
	ck_assert_int_eq(faro(&r, NULL, "-D", "-t", "200ms", "-o",
	    path("bg.pftrace"), NULL), 0);
	bgpid = strtol(r.out, NULL, 10);
	ck_assert_int_gt(bgpid, 1);
	run_free(&r);
	for (i = 0; i < 500 && kill((pid_t)bgpid, 0) == 0; i++)
		msleep(20);
	ck_assert_int_lt(i, 500);
	perfetto__protos__trace__free_unpacked(load_trace(path("bg.pftrace")),
	    NULL);

	/* --notify-fd gets one status byte, 0 for started. */
	ck_assert_int_eq(pipe(fds), 0);
	snprintf(fdarg, sizeof(fdarg), "%d", fds[1]);
	argv[5] = fdarg;
	pid = spawn(argv, NULL, &outfd, &errfd, fds[1]);
	close(fds[1]);
	ck_assert_int_eq(read(fds[0], &st, 1), 1);
	ck_assert_int_eq(st, 0);
	finish(pid, outfd, errfd, &r);
	ck_assert_int_eq(r.code, 0);
	run_free(&r);
	close(fds[0]);
}
END_TEST

START_TEST(test_output_errors)
{
	struct run r;
	struct stat st;

	/* --no-clobber: refuses and leaves the file as it was. */
	write_file(path("exists.pftrace"), "keep");
	ck_assert_int_eq(faro(&r, NULL, "-t", "100ms", "--no-clobber", "-o",
	    path("exists.pftrace"), NULL), 1);
	ASSERT_ERR(&r, "already exists");
	ck_assert_int_eq(stat(path("exists.pftrace"), &st), 0);
	ck_assert_int_eq(st.st_size, 4);
	run_free(&r);

	ck_assert_int_eq(faro(&r, NULL, "-t", "100ms", "-o",
	    path("nodir/x.pftrace"), NULL), 1);
	ASSERT_ERR(&r, "Cannot open output file");
	run_free(&r);
	ck_assert_int_eq(faro(&r, NULL, "-t", "100ms", NULL), 1);
	ASSERT_ERR(&r, "--out FILE is required");
	run_free(&r);
	/* A full disk while writing the trace: an error, exit 1. */
	if (access("/dev/full", W_OK) == 0) {
		ck_assert_int_eq(faro(&r, NULL, "-t", "100ms", "-o",
		    "/dev/full", NULL), 1);
		ASSERT_ERR(&r, "Cannot write to /dev/full: No space left");
		run_free(&r);
	}
}
END_TEST

START_TEST(test_config_errors)
{
	struct run r;

	write_file(path("bad.txt"), "duration_ms: 10\n  bufers { size_kb: 1 }\n");
	ck_assert_int_eq(faro(&r, NULL, "-c", path("bad.txt"), "--txt", "-o",
	    path("o"), NULL), 1);
	ASSERT_ERR(&r, "bad.txt:2:3: error: unknown field 'bufers'");
	ASSERT_ERR(&r, "did you mean 'buffers'?");
	run_free(&r);
	ck_assert_int_eq(faro(&r, NULL, "-c", path("bad.txt"), "-o", path("o"),
	    NULL), 1);
	ASSERT_ERR(&r, "try adding --txt");
	run_free(&r);
	/* The new data source configs are as strict as the rest. */
	write_file(path("bad2.txt"), "data_sources { config {\n"
	    "  name: \"android.log\"\n"
	    "  android_log_config { log_ids: LID_NOPE }\n} }\n");
	ck_assert_int_eq(faro(&r, NULL, "-c", path("bad2.txt"), "--txt", "-o",
	    path("o"), NULL), 1);
	ASSERT_ERR(&r, "bad2.txt:3:33: error: unknown value 'LID_NOPE' for "
	    "enum perfetto.protos.AndroidLogId");
	run_free(&r);
	write_file(path("bad3.txt"), "data_sources { config {\n"
	    "  perf_event_config { timebase { frequency: 99 }\n"
	    "    callstack_sampling { kernel_frame: true } } } }\n");
	ck_assert_int_eq(faro(&r, NULL, "-c", path("bad3.txt"), "--txt", "-o",
	    path("o"), NULL), 1);
	ASSERT_ERR(&r, "bad3.txt:3:26: error: unknown field 'kernel_frame' "
	    "in perfetto.protos.PerfEventConfig.CallstackSampling (did you "
	    "mean 'kernel_frames'?)");
	run_free(&r);
	/* Valid text that traced refuses: a trigger timeout of 10 days. */
	write_file(path("bad4.txt"), "buffers { size_kb: 64 }\n"
	    "data_sources { config { name: \"linux.ftrace\" } }\n"
	    "trigger_config { trigger_mode: START_TRACING\n"
	    "  triggers { name: \"foo\" } trigger_timeout_ms: 864000000 }\n");
	ck_assert_int_eq(faro(&r, NULL, "-c", path("bad4.txt"), "--txt", "-o",
	    path("o"), NULL), 1);
	ASSERT_ERR(&r, "traced refused the session: ");
	ASSERT_ERR(&r, "trigger_timeout_ms below 7 days");
	run_free(&r);
	ck_assert_int_eq(faro(&r, NULL, "-c", path("missing.txt"), "-o",
	    path("o"), NULL), 1);
	ASSERT_ERR(&r, "Could not open config");
	run_free(&r);
	ck_assert_int_eq(faro(&r, NULL, "-t", "5x", "-o", path("o"), NULL), 1);
	ASSERT_ERR(&r, "--time argument is invalid");
	run_free(&r);
	ck_assert_int_eq(faro(&r, NULL, "--attach=a", "--detach=b", NULL), 1);
	ASSERT_ERR(&r, "mutually exclusive");
	run_free(&r);
	/* Nothing was started by any of these. */
	ck_assert_int_eq(faro(&r, NULL, "--query", NULL), 0);
	ck_assert_ptr_nonnull(strstr(r.out, "Tracing sessions: 0"));
	run_free(&r);
}
END_TEST

START_TEST(test_no_traced)
{
	struct run r;
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd;

	ck_assert_int_eq(faro(&r, NULL, "-t", "1s", "-o", path("o.pftrace"),
	    NULL), 1);
	ASSERT_ERR(&r, path("c.sock"));
	ASSERT_ERR(&r, "no such socket");
	ASSERT_ERR(&r, "PERFETTO_CONSUMER_SOCK_NAME");
	/* The empty output file is not left behind. */
	ck_assert_int_eq(access(path("o.pftrace"), F_OK), -1);
	run_free(&r);

	ck_assert_int_eq(faro(&r, NULL, "--query", NULL), 1);
	ASSERT_ERR(&r, "Could not connect to the traced consumer socket");
	run_free(&r);
	ck_assert_int_eq(faro(&r, NULL, "--is_detached=k", NULL), 1);
	run_free(&r);

	/* A plain file where the socket should be. */
	write_file(path("c.sock"), "");
	ck_assert_int_eq(faro(&r, NULL, "--query", NULL), 1);
	ASSERT_ERR(&r, "not a socket");
	run_free(&r);
	unlink(path("c.sock"));

	/* A socket nobody accepts on. */
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path("c.sock"));
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sun, sizeof(sun)), 0);
	ck_assert_int_eq(faro(&r, NULL, "--query", NULL), 1);
	ASSERT_ERR(&r, "connection refused");
	run_free(&r);
	close(fd);
}
END_TEST

/*
 * A real producer's data through faro: the data source starts, its packets
 * (some spanning chunks) reach the file by ReadBuffers, and Ctrl-C flushes
 * what the producer still holds before the session ends.
 */
/*
 * A test producer of "faro.test", then faro run with argv and cfg on its
 * stdin: returns the producer's writer once traced started the source.
 */
static struct shm_writer *
faro_with_producer(struct event_base *base, struct tt_producer *p,
    struct tt_instance **inp, const char *const *argv, const char *cfg,
    pid_t *pid, int *outfd, int *errfd)
{
	struct tt_instance *in = NULL;
	struct shm_writer *w;
	int i;

	memset(p, 0, sizeof(*p));
	ck_assert_int_eq(tt_producer_connect(p, base, tt.producer_sock,
	    "check_faro_cmd"), 0);
	ck_assert_int_eq(tt_producer_register(p, "faro.test", 0, 0), 0);
	*pid = spawn(argv, cfg, outfd, errfd, -1);
	for (i = 0; i < 500; i++) {
		tt_spin(base, 10);
		if ((in = tt_producer_instance(p, "faro.test")) != NULL &&
		    in->started)
			break;
	}
	ck_assert_msg(in != NULL && in->started, "data source not started");
	ck_assert_ptr_nonnull(w = tt_producer_writer(p, in->target_buffer));
	*inp = in;
	return w;
}

START_TEST(test_producer_data)
{
	const char *argv[] = { "-c", "-", "--txt", "-o", path("prod.pftrace"),
	    NULL };
	const char *cfg = "duration_ms: 60000 buffers { size_kb: 4096 } "
	    "data_sources { config { name: \"faro.test\" } }";
	struct event_base *base;
	struct tt_producer p;
	struct tt_instance *in = NULL;
	struct shm_writer *w;
	struct tt_trace tr;
	struct run r;
	uint8_t seen[400], *data;
	size_t len;
	int outfd, errfd, st, i;
	pid_t pid;

	base = event_base_new();
	ck_assert_ptr_nonnull(base);
	w = faro_with_producer(base, &p, &in, argv, cfg, &pid, &outfd,
	    &errfd);
	tt_write_packets(w, "faro", 0, 300, 100);
	/* Bigger than a chunk, within the 256 KiB SMB (the writer drops). */
	tt_write_packets(w, "faro", 300, 100, 1500);
	tt_producer_commit(&p, w);

	kill(pid, SIGINT);
	for (i = 0; i < 3000; i++) {
		tt_spin(base, 10);	/* answers traced's Flush */
		if (waitpid(pid, &st, WNOHANG) == pid)
			break;
	}
	ck_assert_int_lt(i, 3000);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	close(outfd);
	close(errfd);

	ck_assert_int_eq(tt_read_file(path("prod.pftrace"), &data, &len), 0);
	ck_assert_int_eq(tt_trace_parse(&tr, data, len), 0);
	memset(seen, 0, sizeof(seen));
	{
		size_t got = tt_trace_count(&tr, "faro", seen, 400);
		char miss[2048] = "";
		size_t k, o = 0;

		for (k = 0; k < 400 && o + 8 < sizeof(miss); k++)
			if (!seen[k])
				o += (size_t)snprintf(miss + o, sizeof(miss) - o,
				    " %zu", k);
		ck_assert_msg(got == 400, "%zu of 400 packets; missing:%s",
		    got, miss);
	}
	ck_assert_uint_eq(tr.nconfig, 1);
	tt_trace_free(&tr);
	free(data);

	/* The producer shows up in --query with its data source. */
	ck_assert_int_eq(faro(&r, NULL, "--query", NULL), 0);
	ck_assert_ptr_nonnull(strstr(r.out, "check_faro_cmd"));
	ck_assert_ptr_nonnull(strstr(r.out, "faro.test"));
	run_free(&r);
	tt_producer_close(&p);
	event_base_free(base);
}
END_TEST

/*
 * The session starts whatever producers are connected; faro names, once
 * each, the data sources no producer offers, with the producer filters
 * applied, and says nothing of the one that is offered.
 */
START_TEST(test_unserved_warning)
{
	const char *argv[] = { "-c", "-", "--txt", "-o", path("uns.pftrace"),
	    NULL };
	const char *cfg = "duration_ms: 300 buffers { size_kb: 1024 } "
	    "data_sources { config { name: \"faro.test\" } } "
	    "data_sources { config { name: \"faro.absent\" } } "
	    "data_sources { config { name: \"faro.absent\" } } "
	    "data_sources { config { name: \"faro.test\" } "
	    "producer_name_filter: \"someone_else\" }";
	struct event_base *base;
	struct tt_producer p;
	struct tt_instance *in = NULL;
	struct run r;
	int outfd, errfd, i;
	pid_t pid;

	base = event_base_new();
	ck_assert_ptr_nonnull(base);
	faro_with_producer(base, &p, &in, argv, cfg, &pid, &outfd, &errfd);
	for (i = 0; i < 500 && !in->stopped; i++)
		tt_spin(base, 10);	/* answers traced's Flush and stop */
	finish(pid, outfd, errfd, &r);
	ck_assert_int_eq(r.code, 0);
	ASSERT_ERR(&r, "No connected producer offers these data sources of "
	    "this config; they record nothing unless a producer of them "
	    "connects (faro --query lists the data sources registered):\n"
	    "faro:   faro.absent\n"
	    "faro:   faro.test (from the producers its filters name)\n");
	/* Listed once; the offered faro.test not at all. */
	ck_assert_ptr_null(strstr(strstr(r.err, "faro.absent") + 1,
	    "faro.absent"));
	ck_assert_ptr_null(strstr(r.err, "faro.test\n"));
	run_free(&r);
	tt_producer_close(&p);
	event_base_free(base);
}
END_TEST

/* A config with activate_triggers fires them through the producer port. */
START_TEST(test_activate_triggers)
{
	const char *argv[] = { "-c", "-", "--txt", "-o", path("trig.pftrace"),
	    NULL };
	const char *cfg = "buffers { size_kb: 256 } trigger_config { "
	    "trigger_mode: STOP_TRACING trigger_timeout_ms: 60000 "
	    "triggers { name: \"faro_stop\" stop_delay_ms: 0 } }";
	struct run r;
	int outfd, errfd;
	pid_t pid;

	pid = spawn(argv, cfg, &outfd, &errfd, -1);
	wait_query("Tracing sessions: 1");
	/* No session, no output file: just the trigger. */
	ck_assert_int_eq(faro(&r, "activate_triggers: \"faro_stop\"", "-c",
	    "-", "--txt", NULL), 0);
	ASSERT_ERR(&r, "Activated 1 trigger");
	run_free(&r);
	/* The waiting session stops and its trace is written. */
	finish(pid, outfd, errfd, &r);
	ck_assert_msg(r.code == 0, "stderr: %s", r.err);
	run_free(&r);
	perfetto__protos__trace__free_unpacked(load_trace(
	    path("trig.pftrace")), NULL);

	/* No traced on the producer socket: a clear error. */
	setenv("PERFETTO_PRODUCER_SOCK_NAME", path("nope.sock"), 1);
	ck_assert_int_eq(faro(&r, "activate_triggers: \"x\"", "-c", "-",
	    "--txt", NULL), 1);
	ASSERT_ERR(&r, "Could not connect to the traced producer socket");
	ASSERT_ERR(&r, "PERFETTO_PRODUCER_SOCK_NAME");
	run_free(&r);
}
END_TEST

/* Cloning a session that streams into a file: traced writes the copy. */
START_TEST(test_clone_write_into_file)
{
	struct run r;
	Perfetto__Protos__Trace *t;
	const char *cfg = "duration_ms: 60000 buffers { size_kb: 256 } "
	    "write_into_file: true file_write_period_ms: 100000 "
	    "unique_session_name: \"wif\"";
	const char *argv[] = { "-c", "-", "--txt", "-o", path("wif.pftrace"),
	    NULL };
	int outfd, errfd, i;
	pid_t pid;

	pid = spawn(argv, cfg, &outfd, &errfd, -1);
	for (i = 0; i < 250; i++) {
		msleep(20);
		faro(&r, NULL, "--query", NULL);
		if (strstr(r.out, " wif\n") != NULL)
			break;
		run_free(&r);
	}
	ck_assert_int_lt(i, 250);
	run_free(&r);
	ck_assert_int_eq(faro(&r, NULL, "--clone-by-name", "wif", "-o",
	    path("wifclone.pftrace"), NULL), 0);
	ASSERT_ERR(&r, "Trace written into");
	run_free(&r);
	t = load_trace(path("wifclone.pftrace"));
	ck_assert_ptr_nonnull(trace_config_of(t));
	ck_assert_str_eq(trace_config_of(t)->unique_session_name, "wif");
	perfetto__protos__trace__free_unpacked(t, NULL);
	kill(pid, SIGINT);
	finish(pid, outfd, errfd, &r);
	ck_assert_int_eq(r.code, 0);
	run_free(&r);
}
END_TEST

/*
 * Recording on the real kernel: traced_probes reads tracefs and faro gets
 * the ftrace events. Needs root and tracefs; skipped (with a message)
 * otherwise.
 */
/*
 * Tests touching tracefs take turns (shared with the probes suites and the
 * demo). The lock is taken by an unchecked fixture, in the runner before it
 * forks the test, so waiting for another suite does not eat into the
 * test's timeout.
 */
static int tracefs_lock = -1;

static void
tracefs_lock_take(void)
{
	tracefs_lock = open("/tmp/faro-tracefs-tests.lock", O_RDWR | O_CREAT |
	    O_CLOEXEC, 0666);
	if (tracefs_lock != -1 && flock(tracefs_lock, LOCK_EX) == -1) {
		close(tracefs_lock);
		tracefs_lock = -1;
	}
}

static void
tracefs_lock_drop(void)
{
	if (tracefs_lock != -1)
		close(tracefs_lock);
	tracefs_lock = -1;
}

START_TEST(test_light_mode_ftrace)
{
	const char *top = getenv("top_builddir");
	char probes[PATH_MAX], cfg[512];
	struct run r, q;
	Perfetto__Protos__Trace *t;
	size_t i, k, nswitch = 0;
	pid_t ppid;
	int st, fd;

	if (getuid() != 0 || access("/sys/kernel/tracing/events/sched/"
	    "sched_switch", F_OK) != 0) {
		fprintf(stderr, "test_light_mode_ftrace: skipped (needs root "
		    "and tracefs)\n");
		return;
	}
	ck_assert_msg(tracefs_lock != -1, "no tracefs test lock");
	snprintf(probes, sizeof(probes), "%s/daemons/traced_probes/"
	    "traced_probes", top ? top : ".");
	mkdir(path("run"), 0700);
	if ((ppid = fork()) == 0) {
		fd = open(path("probes.log"), O_WRONLY | O_CREAT, 0644);
		dup2(fd, STDERR_FILENO);
		execl(probes, "traced_probes", "--run-dir", path("run"),
		    "--producer-socket", tt.producer_sock, (char *)NULL);
		_exit(127);
	}
	ck_assert_int_gt(ppid, 0);
	probes_pid = ppid;
	for (i = 0; i < 500; i++) {
		faro(&q, NULL, "--query", NULL);
		k = strstr(q.out, "linux.ftrace") != NULL;
		run_free(&q);
		if (k)
			break;
		msleep(10);
	}
	ck_assert_msg(i < 500, "traced_probes did not register linux.ftrace");

	/*
	 * Light mode's config, in a private ftrace instance (named after
	 * this process) so that tests running at the same time do not
	 * interfere.
	 */
	snprintf(cfg, sizeof(cfg), "duration_ms: 1000 buffers { size_kb: 8192 } "
	    "data_sources { config { name: \"linux.ftrace\" ftrace_config { "
	    "ftrace_events: \"sched/sched_switch\" symbolize_ksyms: true "
	    "instance_name: \"faro_check_cli_%d\" } } }", (int)getpid());
	ck_assert_int_eq(faro(&r, cfg, "-c", "-", "--txt", "-o",
	    path("k.pftrace"), NULL), 0);
	run_free(&r);
	kill(ppid, SIGTERM);
	waitpid(ppid, &st, 0);
	probes_pid = -1;

	t = load_trace(path("k.pftrace"));
	for (i = 0; i < t->n_packet; i++) {
		const Perfetto__Protos__TracePacket *p = t->packet[i];

		if (p->data_case !=
		    PERFETTO__PROTOS__TRACE_PACKET__DATA_FTRACE_EVENTS)
			continue;
		for (k = 0; k < p->ftrace_events->n_event; k++)
			if (p->ftrace_events->event[k]->event_case ==
			    PERFETTO__PROTOS__FTRACE_EVENT__EVENT_SCHED_SWITCH)
				nswitch++;
	}
	perfetto__protos__trace__free_unpacked(t, NULL);
	/* A second of a live system has context switches. */
	ck_assert_uint_gt(nswitch, 0);
}
END_TEST

/* traced going away mid-session is an error that says so. */
START_TEST(test_traced_dies)
{
	const char *argv[] = { "-t", "60s", "-o", path("dies.pftrace"), NULL };
	struct run r;
	int outfd, errfd;
	pid_t pid;

	pid = spawn(argv, NULL, &outfd, &errfd, -1);
	wait_query("Tracing sessions: 1");
	kill(tt.pid, SIGKILL);
	finish(pid, outfd, errfd, &r);
	ck_assert_int_eq(r.code, 1);
	ASSERT_ERR(&r, "Disconnected from traced at");
	ASSERT_ERR(&r, "before the end of the session");
	run_free(&r);
}
END_TEST

/* output_path: faro creates the file and traced writes into it. */
START_TEST(test_output_path)
{
	struct run r;
	char cfg[512];
	Perfetto__Protos__Trace *t;

	snprintf(cfg, sizeof(cfg), "duration_ms: 200 write_into_file: true "
	    "buffers { size_kb: 256 } output_path: \"%s\"",
	    path("op.pftrace"));
	ck_assert_int_eq(faro(&r, cfg, "-c", "-", "--txt", NULL), 0);
	run_free(&r);
	t = load_trace(path("op.pftrace"));
	ck_assert_ptr_nonnull(trace_config_of(t));
	perfetto__protos__trace__free_unpacked(t, NULL);
	/* It must not exist already, as upstream requires. */
	ck_assert_int_eq(faro(&r, cfg, "-c", "-", "--txt", NULL), 1);
	ASSERT_ERR(&r, "output_path must not exist");
	run_free(&r);
}
END_TEST

/*
 * write_into_file onto a full filesystem (a 2 MiB tmpfs): traced stops the
 * session and says why, faro exits 1 naming the file and ENOSPC, and the
 * file keeps a valid trace.
 */
START_TEST(test_full_disk)
{
	const char *argv[] = { "-c", "-", "--txt", "-o", path("full/t.pftrace"),
	    NULL };
	const char *cfg = "duration_ms: 30000 buffers { size_kb: 8192 } "
	    "write_into_file: true file_write_period_ms: 100 "
	    "data_sources { config { name: \"faro.test\" } }";
	struct event_base *base;
	struct tt_producer p;
	struct tt_instance *in = NULL;
	struct shm_writer *w;
	Perfetto__Protos__Trace *t;
	struct run r;
	uint32_t seq = 0;
	int outfd, errfd, i;
	pid_t pid;

	ck_assert_int_eq(mkdir(path("full"), 0700), 0);
	if (mount("faro-full", path("full"), "tmpfs", 0, "size=2m") == -1) {
		fprintf(stderr, "test_full_disk: skipped: cannot mount a "
		    "tmpfs: %s\n", strerror(errno));
		return;
	}
	base = event_base_new();
	ck_assert_ptr_nonnull(base);
	w = faro_with_producer(base, &p, &in, argv, cfg, &pid, &outfd,
	    &errfd);
	/* About 6 MB, paced so that the 256 KiB SMB does not overflow. */
	for (i = 0; i < 400 && !in->stopped; i++) {
		tt_write_packets(w, "faro", seq, 10, 1500);
		seq += 10;
		tt_producer_commit(&p, w);
		tt_spin(base, 5);
	}
	for (i = 0; i < 2000 && !in->stopped; i++)
		tt_spin(base, 10);
	ck_assert_msg(in->stopped, "traced did not stop the session");
	finish(pid, outfd, errfd, &r);
	ck_assert_int_eq(r.code, 1);
	ASSERT_ERR(&r, path("full/t.pftrace"));
	ASSERT_ERR(&r, "ENOSPC");
	t = load_trace(path("full/t.pftrace"));
	ck_assert_uint_gt(t->n_packet, 100);
	perfetto__protos__trace__free_unpacked(t, NULL);
	run_free(&r);
	tt_producer_close(&p);
	event_base_free(base);
	ck_assert_int_eq(umount2(path("full"), MNT_DETACH), 0);
}
END_TEST

static Suite *
faro_cmd_suite(void)
{
	Suite *s = suite_create("faro_cmd");
	TCase *tc;

	tc = tcase_create("no_traced");
	tcase_add_checked_fixture(tc, setup_bare, teardown_bare);
	tcase_add_test(tc, test_no_traced);
	suite_add_tcase(s, tc);

	tc = tcase_create("traced");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_text_config_every_construct);
	tcase_add_test(tc, test_binary_equals_text);
	tcase_add_test(tc, test_every_data_source);
	tcase_add_test(tc, test_unserved_warning);
	tcase_add_test(tc, test_light_mode);
	tcase_add_test(tc, test_stdin_stdout);
	tcase_add_test(tc, test_ctrl_c);
	tcase_add_test(tc, test_detach_attach);
	tcase_add_test(tc, test_query_raw);
	tcase_add_test(tc, test_refused);
	tcase_add_test(tc, test_background);
	tcase_add_test(tc, test_output_errors);
	tcase_add_test(tc, test_full_disk);
	tcase_add_test(tc, test_config_errors);
	tcase_add_test(tc, test_producer_data);
	tcase_add_test(tc, test_activate_triggers);
	tcase_add_test(tc, test_traced_dies);
	tcase_add_test(tc, test_output_path);
	tcase_add_test(tc, test_clone);
	tcase_add_test(tc, test_clone_write_into_file);
	suite_add_tcase(s, tc);

	tc = tcase_create("tracefs");
	tcase_add_unchecked_fixture(tc, tracefs_lock_take, tracefs_lock_drop);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_light_mode_ftrace);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(faro_cmd_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
