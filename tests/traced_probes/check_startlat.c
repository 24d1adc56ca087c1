/*
 * check_startlat: when `faro --background-wait` returns, the kernel is
 * recording. The real traced, traced_probes and faro: faro -D starts a
 * linux.ftrace session and returns once traced says every data source
 * started; a trace_marker write made right then must be in the trace.
 * A data source that said "started" before tracing_on (or a faro that
 * returned before all_data_sources_started) loses the write. One small
 * config and one of ~170 events, whose setup takes longest. Also the
 * broker's batches that make that setup a few round trips: each access
 * checked as if alone, a batch larger than a message split, the data as
 * a direct read gives it. Needs root and tracefs (exits 77 otherwise);
 * takes the kernel suites' lock (test_kernel_main).
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "protos/perfetto/common/tracing_service_state.pb-c.h"
#include "protos/perfetto/ipc/consumer_port.pb-c.h"

#include "ftrace_util.h"
#include "daemons/traced_probes/broker.h"
#include "tfs.h"
#include "probes_daemon.h"
#include "tt_fixture.h"

static char tracefs[256];
static char state_dir[] = "/tmp/check_startlat.XXXXXX";

/* ftrace/print carries the marker; the rest is what setup costs. */
static const char *configs[] = {
	"ftrace_events: \"ftrace/print\" "
	    "ftrace_events: \"sched/sched_switch\"",
	"ftrace_events: \"ftrace/print\" "
	    "ftrace_events: \"sched/*\" ftrace_events: \"ext4/*\" "
	    "ftrace_events: \"block/*\" ftrace_events: \"workqueue/*\" "
	    "ftrace_events: \"irq/*\"",
};

/* Polls the service state until a producer registered linux.ftrace. */
static int
wait_ftrace_registered(struct tt_consumer *c)
{
	Perfetto__Protos__QueryServiceStateResponse *q;
	struct tt_reply r;
	int found = 0;

	for (int i = 0; i < 2000 && !found; i++) {
		if (tt_consumer_call(c, CM_QUERY, NULL, -1, &r, 0) == -1)
			return -1;
		q = perfetto__protos__query_service_state_response__unpack(NULL,
		    r.lens[0], r.data);
		for (size_t k = 0; q != NULL && q->service_state != NULL &&
		    k < q->service_state->n_data_sources; k++) {
			const Perfetto__Protos__TracingServiceState__DataSource
			    *d = q->service_state->data_sources[k];

			if (d->ds_descriptor != NULL &&
			    d->ds_descriptor->name != NULL &&
			    strcmp(d->ds_descriptor->name, "linux.ftrace") == 0)
				found = 1;
		}
		if (q != NULL)
			perfetto__protos__query_service_state_response__free_unpacked(
			    q, NULL);
		tt_reply_free(&r);
		if (!found)
			tt_spin(base, 10);
	}
	return found ? 0 : -1;
}

/* Runs faro with argv, its stdout into out; returns the exit code. */
static int
run_faro(const char *const *args, char *out, size_t outsz)
{
	const char *top = getenv("top_builddir");
	const char *argv[16];
	char bin[512];
	size_t n = 0, len = 0;
	ssize_t k;
	int p[2], st;
	pid_t pid;

	snprintf(bin, sizeof(bin), "%s/faro", top ? top : ".");
	argv[n++] = bin;
	for (size_t i = 0; args[i] != NULL && n < 15; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	if (pipe(p) == -1 || (pid = fork()) == -1)
		return -1;
	if (pid == 0) {
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		setenv("PERFETTO_CONSUMER_SOCK_NAME", td.consumer_sock, 1);
		execv(bin, (char *const *)argv);
		_exit(127);
	}
	close(p[1]);
	while (len + 1 < outsz && (k = read(p[0], out + len,
	    outsz - len - 1)) > 0)
		len += (size_t)k;
	out[len] = '\0';
	close(p[0]);
	while (waitpid(pid, &st, 0) == -1 && errno == EINTR)
		;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

START_TEST(marker_after_background_wait)
{
	struct tt_consumer c;
	struct tt_trace t;
	char run_dir[] = "/tmp/faro-startlat.XXXXXX", cfgpath[300];
	char outpath[300], logpath[300], marker[64], inst[48], path[400];
	char cfg[1024], out[64];
	const char *args[] = { "-D", "-c", cfgpath, "--txt", "-o", outpath,
	    NULL };
	uint8_t *data;
	size_t len;
	int found = 0, all_started = 0, stats_start = 0, fd, i;
	long bgpid;
	pid_t probes;
	FILE *f;

	ck_assert_ptr_nonnull(mkdtemp(run_dir));
	/* The worker runs unprivileged: it must reach the producer socket. */
	ck_assert_int_eq(chmod(td.dir, 0755), 0);
	ck_assert_int_eq(chmod(td.producer_sock, 0666), 0);
	snprintf(logpath, sizeof(logpath), "%s/probes.log", td.dir);
	probes = probes_daemon_start(&td, run_dir, NULL, logpath, NULL, NULL);
	ck_assert_int_gt(probes, 0);
	ck_assert_int_eq(tt_consumer_connect(&c, base, td.consumer_sock), 0);
	ck_assert_int_eq(wait_ftrace_registered(&c), 0);
	tt_consumer_close(&c);

	/* An instance of its own: other tracers cannot clear its buffer. */
	snprintf(inst, sizeof(inst), "faro_startlat_%d_%d", (int)getpid(),
	    _i);
	snprintf(cfg, sizeof(cfg),
	    "buffers { size_kb: 16384 }\n"
	    "data_sources { config { name: \"linux.ftrace\" ftrace_config {"
	    " %s instance_name: \"%s\" } } }\n"
	    "duration_ms: 1500\n", configs[_i], inst);
	snprintf(cfgpath, sizeof(cfgpath), "%s/startlat.cfg", td.dir);
	snprintf(outpath, sizeof(outpath), "%s/startlat.pftrace", td.dir);
	ck_assert_ptr_nonnull(f = fopen(cfgpath, "w"));
	fputs(cfg, f);
	ck_assert_int_eq(fclose(f), 0);

	/* faro -D returns: the write that follows must be recorded. */
	ck_assert_int_eq(run_faro(args, out, sizeof(out)), 0);
	snprintf(marker, sizeof(marker), "faro-startlat-%d-%d\n",
	    (int)getpid(), _i);
	snprintf(path, sizeof(path), "%s/instances/%s/trace_marker", tracefs,
	    inst);
	fd = open(path, O_WRONLY);
	ck_assert_msg(fd >= 0, "%s: %s (the instance should exist once "
	    "faro -D returned)", path, strerror(errno));
	ck_assert_int_eq(write(fd, marker, strlen(marker)),
	    (ssize_t)strlen(marker));
	close(fd);

	/* The background faro ends with the session and writes the file. */
	bgpid = strtol(out, NULL, 10);
	ck_assert_int_gt(bgpid, 1);
	for (i = 0; i < 1500 && kill((pid_t)bgpid, 0) == 0; i++)
		tt_spin(base, 20);
	ck_assert_int_lt(i, 1500);
	ck_assert_int_eq(tt_read_file(outpath, &data, &len), 0);
	ck_assert_int_eq(tt_trace_parse(&t, data, len), 0);
	free(data);
	for (size_t p = 0; p < t.npackets; p++) {
		const Perfetto__Protos__TracePacket *pk = t.trace->packet[p];

		if (pk->data_case ==
		    PERFETTO__PROTOS__TRACE_PACKET__DATA_SERVICE_EVENT &&
		    pk->service_event->event_type_case ==
		    PERFETTO__PROTOS__TRACING_SERVICE_EVENT__EVENT_TYPE_ALL_DATA_SOURCES_STARTED)
			all_started++;
		if (pk->data_case ==
		    PERFETTO__PROTOS__TRACE_PACKET__DATA_FTRACE_STATS &&
		    pk->ftrace_stats->phase ==
		    PERFETTO__PROTOS__FTRACE_STATS__PHASE__START_OF_TRACE)
			stats_start++;
		if (pk->data_case !=
		    PERFETTO__PROTOS__TRACE_PACKET__DATA_FTRACE_EVENTS)
			continue;
		for (size_t k = 0; k < pk->ftrace_events->n_event; k++) {
			const Perfetto__Protos__FtraceEvent *ev =
			    pk->ftrace_events->event[k];

			if (ev->event_case ==
			    PERFETTO__PROTOS__FTRACE_EVENT__EVENT_PRINT &&
			    strcmp(ev->print->buf, marker) == 0)
				found++;
		}
	}
	tt_trace_free(&t);
	ck_assert_int_eq(probes_daemon_stop(probes), 0);
	rmdir(run_dir);
	ck_assert_int_eq(all_started, 1);
	ck_assert_int_eq(stats_start, 1);
	ck_assert_msg(found == 1, "config %d: the trace_marker write made "
	    "when faro -D returned is %s in the trace", _i,
	    found ? "more than once" : "not");
}
END_TEST

/* Reads enough format files that a batch needs several messages. */
#define BATCH_READS	400

START_TEST(batch_through_broker)
{
	static const char *checks[][2] = {
		{ "tracing_on", NULL },		/* allowed read */
		{ "../../../etc/passwd", NULL },	/* outside: EPERM */
		{ "trace_marker", "x" },	/* not writable: EPERM */
		{ "events/no_such_group/x/format", "" },	/* exists: ENOENT */
	};
	struct tfs_io io[BATCH_READS + 4];
	char (*rels)[TFS_PATH_MAX], **groups, **names, *direct;
	size_t ngroups, nnames, n = 0, len;
	uint64_t calls;
	int sv[2], buf = 512 * 1024, st;
	pid_t broker;

	ck_assert_ptr_nonnull(rels = calloc(BATCH_READS, sizeof(*rels)));
	ck_assert_int_eq(tfs_list(tracefs, "events", &groups, &ngroups), 0);
	for (size_t g = 0; g < ngroups && n < BATCH_READS; g++) {
		char rel[TFS_PATH_MAX];

		snprintf(rel, sizeof(rel), "events/%s", groups[g]);
		if (tfs_list(tracefs, rel, &names, &nnames) == -1)
			continue;
		for (size_t k = 0; k < nnames && n < BATCH_READS; k++)
			snprintf(rels[n++], sizeof(rels[0]),
			    "events/%s/%s/format", groups[g], names[k]);
		tfs_list_free(names, nnames);
	}
	tfs_list_free(groups, ngroups);
	ck_assert_uint_gt(n, 100);

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC,
	    0, sv), 0);
	for (int i = 0; i < 2; i++)
		(void)setsockopt(sv[i], SOL_SOCKET, SO_SNDBUFFORCE, &buf,
		    sizeof(buf));
	ck_assert_int_ge(broker = fork(), 0);
	if (broker == 0) {
		close(sv[1]);
		_exit(broker_serve(sv[0], tracefs) == 0 ? 0 : 1);
	}
	close(sv[0]);
	tfs_use_broker(sv[1]);
	memset(io, 0, sizeof(io));
	for (size_t i = 0; i < 4; i++) {
		io[i].kind = checks[i][1] == NULL ? TFS_IO_READ :
		    checks[i][1][0] != '\0' ? TFS_IO_WRITE : TFS_IO_EXISTS;
		io[i].rel = checks[i][0];
		io[i].val = checks[i][1];
	}
	for (size_t i = 0; i < n; i++) {
		io[4 + i].kind = TFS_IO_READ;
		io[4 + i].rel = rels[i];
	}
	calls = tfs_calls();
	ck_assert_int_eq(tfs_batch(tracefs, io, n + 4), 0);
	calls = tfs_calls() - calls;
	tfs_use_broker(-1);
	close(sv[1]);
	ck_assert_int_eq(waitpid(broker, &st, 0), broker);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);

	ck_assert_int_eq(io[0].rc, 0);
	ck_assert(io[0].data[0] == '0' || io[0].data[0] == '1');
	ck_assert_int_eq(io[1].rc, -1);
	ck_assert_int_eq(io[1].err, EPERM);
	ck_assert_int_eq(io[2].rc, -1);
	ck_assert_int_eq(io[2].err, EPERM);
	ck_assert_int_eq(io[3].rc, -1);
	ck_assert_int_eq(io[3].err, ENOENT);
	/* More than one message, far fewer than one per access. */
	ck_assert_uint_gt(calls, 1);
	ck_assert_uint_lt(calls, n / 10);
	for (size_t i = 0; i < n; i++) {
		ck_assert_msg(io[4 + i].rc == 0, "%s: %s", rels[i],
		    strerror(io[4 + i].err));
		ck_assert_int_eq(tfs_read(tracefs, rels[i], &direct, &len), 0);
		ck_assert_uint_eq(io[4 + i].len, len);
		ck_assert_mem_eq(io[4 + i].data, direct, len);
		free(direct);
	}
	for (size_t i = 0; i < n + 4; i++)
		free(io[i].data);
	free(rels);
}
END_TEST

static Suite *
startlat_suite(void)
{
	Suite *s = suite_create("startlat");
	TCase *tc;

	tc = tcase_create("background_wait");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 90);
	tcase_add_loop_test(tc, marker_after_background_wait, 0,
	    (int)(sizeof(configs) / sizeof(configs[0])));
	suite_add_tcase(s, tc);
	tc = tcase_create("broker_batch");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, batch_through_broker);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return test_kernel_main("check_startlat", startlat_suite, tracefs,
	    sizeof(tracefs), state_dir, NULL);
}
