/*
 * Test helpers for the ftrace suites: a sink that keeps every packet, and
 * decoding of those packets with the protobuf-c TracePacket.
 */
#ifndef FARO_TEST_FTRACE_UTIL_H
#define FARO_TEST_FTRACE_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include <check.h>

#include "protos/perfetto/trace/trace_packet.pb-c.h"

#include "translate.h"

struct test_sink {
	struct pbw	  w;
	uint8_t		 *cur;		/* packet being written */
	size_t		  cur_cap;
	Perfetto__Protos__TracePacket **pkts;
	size_t		  npkts;
	size_t		  bad;		/* packets that did not decode */
	int32_t		  pids[4096];	/* from the sink's pids hook */
	size_t		  npids;
};

struct ftrace_sink test_sink_init(struct test_sink *);
void	test_sink_free(struct test_sink *);

/* Reads a file of the source tree (tests/traced_probes/data/NAME). */
char	*test_data(const char *name, size_t *len);

/* Visits every FtraceEvent of every bundle. */
typedef void test_event_fn(const Perfetto__Protos__FtraceEventBundle *,
	    const Perfetto__Protos__FtraceEvent *, void *arg);
void	test_sink_events(struct test_sink *, test_event_fn *, void *arg);

/* The field of a generic event named name, or NULL. */
const Perfetto__Protos__GenericFtraceEvent__Field *test_generic_field(
	    const Perfetto__Protos__GenericFtraceEvent *, const char *name);

/*
 * main() of a suite on the real kernel. Skips (77, with the reason) when
 * not root, when there is no tracefs (tracefs gets its root) or when
 * skip, if given, names a reason; waits for the machine-wide tracefs test
 * lock (every suite that traces takes turns through it); creates
 * state_dir (a mkdtemp template, or NULL for suites whose daemon keeps its
 * own) for the controller's state files; runs the suite; and afterwards
 * puts tracefs back from those files, since a failed test may have left
 * its state behind. Returns the exit status.
 */
int	test_kernel_main(const char *name, Suite *(*suite)(void),
	    char *tracefs, size_t tracefs_sz, char *state_dir,
	    const char *(*skip)(void));

#endif
