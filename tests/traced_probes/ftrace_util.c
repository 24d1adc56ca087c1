/*
 * Test helpers for the ftrace suites (see ftrace_util.h).
 */
#include <sys/file.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "controller.h"
#include "ftrace_util.h"
#include "tfs.h"

#define PACKET_CAP	(4 * 1024 * 1024)

static struct pbw *
sink_begin(void *arg)
{
	struct test_sink *ts = arg;

	pbw_init_flat(&ts->w, ts->cur, ts->cur_cap);
	return &ts->w;
}

static void
sink_end(void *arg)
{
	struct test_sink *ts = arg;
	Perfetto__Protos__TracePacket *p, **np;
	size_t len = (size_t)pbw_written(&ts->w);

	if (ts->w.error != 0) {
		ts->bad++;
		return;
	}
	p = perfetto__protos__trace_packet__unpack(NULL, len, ts->cur);
	if (p == NULL) {
		ts->bad++;
		return;
	}
	np = realloc(ts->pkts, (ts->npkts + 1) * sizeof(*np));
	if (np == NULL)
		abort();
	ts->pkts = np;
	ts->pkts[ts->npkts++] = p;
}

static void
sink_pids(void *arg, const int32_t *pids, size_t n)
{
	struct test_sink *ts = arg;

	for (size_t i = 0; i < n && ts->npids < 4096; i++)
		ts->pids[ts->npids++] = pids[i];
}

struct ftrace_sink
test_sink_init(struct test_sink *ts)
{
	struct ftrace_sink s;

	memset(&s, 0, sizeof(s));
	memset(ts, 0, sizeof(*ts));
	ts->cur_cap = PACKET_CAP;
	if ((ts->cur = malloc(ts->cur_cap)) == NULL)
		abort();
	s.packet_begin = sink_begin;
	s.packet_end = sink_end;
	s.pids = sink_pids;
	s.arg = ts;
	return s;
}

void
test_sink_free(struct test_sink *ts)
{
	for (size_t i = 0; i < ts->npkts; i++)
		perfetto__protos__trace_packet__free_unpacked(ts->pkts[i],
		    NULL);
	free(ts->pkts);
	free(ts->cur);
	memset(ts, 0, sizeof(*ts));
}

char *
test_data(const char *name, size_t *lenp)
{
	const char *top = getenv("top_srcdir");
	char path[1024], *buf;
	long len;
	FILE *f;

	snprintf(path, sizeof(path), "%s/tests/traced_probes/data/%s",
	    top ? top : ".", name);
	if ((f = fopen(path, "rb")) == NULL) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		abort();
	}
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	if ((buf = malloc((size_t)len + 1)) == NULL ||
	    fread(buf, 1, (size_t)len, f) != (size_t)len)
		abort();
	buf[len] = '\0';
	fclose(f);
	if (lenp != NULL)
		*lenp = (size_t)len;
	return buf;
}

void
test_sink_events(struct test_sink *ts, test_event_fn *fn, void *arg)
{
	for (size_t i = 0; i < ts->npkts; i++) {
		const Perfetto__Protos__FtraceEventBundle *b;

		if (ts->pkts[i]->data_case !=
		    PERFETTO__PROTOS__TRACE_PACKET__DATA_FTRACE_EVENTS)
			continue;
		b = ts->pkts[i]->ftrace_events;
		for (size_t k = 0; k < b->n_event; k++)
			fn(b, b->event[k], arg);
	}
}

const Perfetto__Protos__GenericFtraceEvent__Field *
test_generic_field(const Perfetto__Protos__GenericFtraceEvent *g,
    const char *name)
{
	for (size_t i = 0; i < g->n_field; i++)
		if (g->field[i]->name != NULL &&
		    strcmp(g->field[i]->name, name) == 0)
			return g->field[i];
	return NULL;
}

int
test_kernel_main(const char *name, Suite *(*suite)(void), char *tracefs,
    size_t tracefs_sz, char *state_dir, const char *(*skip)(void))
{
	const char *cause = NULL;
	SRunner *sr;
	int failed, lock;

	if (geteuid() != 0) {
		printf("SKIP: %s needs root\n", name);
		return 77;
	}
	if (tfs_find(tracefs, tracefs_sz, 1, &cause) == -1) {
		printf("SKIP: %s\n", cause);
		return 77;
	}
	if (skip != NULL && (cause = skip()) != NULL) {
		printf("SKIP: %s\n", cause);
		return 77;
	}
	lock = open("/tmp/faro-tracefs-tests.lock", O_RDWR | O_CREAT |
	    O_CLOEXEC, 0600);
	if (lock == -1 || flock(lock, LOCK_EX) == -1) {
		perror("tracefs test lock");
		return 1;
	}
	if (state_dir != NULL && mkdtemp(state_dir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	sr = srunner_create(suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	if (state_dir != NULL) {
		(void)ftrace_ctl_cleanup(state_dir, &cause);
		rmdir(state_dir);
	}
	close(lock);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
