/*
 * check_startlat: when `faro --background-wait` returns, the kernel is
 * recording. The real traced, traced_probes and faro: faro -D starts a
 * linux.ftrace session and returns once traced says every data source
 * started; a trace_marker write made right then must be in the trace.
 * A data source that said "started" before tracing_on (or a faro that
 * returned before all_data_sources_started) loses the write. One small
 * config and one of ~170 events, whose setup takes longest. Needs root
 * and tracefs (exits 77 otherwise); takes the kernel suites' lock.
 */
#include "config.h"

#include <sys/file.h>
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

#include "tfs.h"
#include "probes_daemon.h"
#include "tt_fixture.h"

static char tracefs[256];

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
		if (tt_consumer_call(c, TT_C_QUERY, NULL, -1, &r, 0) == -1)
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

int
main(void)
{
	const char *cause;
	Suite *s;
	TCase *tc;
	SRunner *sr;
	int failed, lock;

	if (geteuid() != 0) {
		printf("SKIP: check_startlat needs root\n");
		return 77;
	}
	if (tfs_find(tracefs, sizeof(tracefs), 1, &cause) == -1) {
		printf("SKIP: %s\n", cause);
		return 77;
	}
	/* One tracefs for the whole machine: kernel suites take turns. */
	lock = open("/tmp/faro-tracefs-tests.lock", O_RDWR | O_CREAT, 0600);
	if (lock == -1 || flock(lock, LOCK_EX) == -1) {
		perror("tracefs test lock");
		return 1;
	}
	s = suite_create("startlat");
	tc = tcase_create("background_wait");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 90);
	tcase_add_loop_test(tc, marker_after_background_wait, 0,
	    (int)(sizeof(configs) / sizeof(configs[0])));
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
