/*
 * faro_example: a small multi-threaded app that uses every part of
 * libfaro: worker threads with nested and scoped slices, instants with
 * debug annotations (nested dictionaries too), flows between threads,
 * counters on custom counter tracks, a custom track, complete events, a
 * "slow" category that sessions get only on request, and a custom data
 * source writing its own packets.
 *
 *   faro_example [--seconds N] [--threads N]
 */
#define _DEFAULT_SOURCE

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>

#include <faro/faro.h>
#include <faro/data_source.h>
#include <faro/track_event.h>

#define EXAMPLE_CATEGORIES(C)						\
	C(work, "example.work", "What the workers do", NULL)		\
	C(io, "example.io", "Pretend I/O", NULL)			\
	C(stats, "example.stats", "Counters", NULL)			\
	C(verbose, "example.verbose", "Per-item detail", "slow")

FARO_TE_CATEGORIES_DECLARE(EXAMPLE_CATEGORIES)
FARO_TE_CATEGORIES_DEFINE(EXAMPLE_CATEGORIES)

static struct faro_track	 queue_track, depth_track, load_track;
static struct faro_ds		*heartbeat_ds;
static atomic_int		 quit;
static atomic_ullong		 next_flow = 1;
static atomic_ullong		 handoff;	/* flow id waiting for a taker */

static void
spin_us(unsigned us)
{
	uint64_t end = faro_now_ns() + (uint64_t)us * 1000;

	while (faro_now_ns() < end)
		;
}

static void
process_item(int worker, int item)
{
	FARO_TE_SCOPED(work, "process_item", FARO_ARG_INT("item", item),
	    FARO_ARG_INT("worker", worker));

	FARO_TE_BEGIN(io, "read", FARO_ARG_STRING("path", "/dev/zero"),
	    FARO_ARG_UINT("bytes", 4096u * (unsigned)(item % 4 + 1)));
	spin_us(200);
	FARO_TE_END(io);

	FARO_TE_BEGIN(work, "compute", FARO_ARG_DOUBLE("ratio",
	    item / 7.0), FARO_ARG_BOOL("even", item % 2 == 0),
	    FARO_ARG_PTR("self", &worker),
	    FARO_ARG_DICT_BEGIN("shape"),
		FARO_ARG_INT("w", 640), FARO_ARG_INT("h", 480),
		FARO_ARG_DICT_BEGIN("origin"),
		    FARO_ARG_INT("x", item), FARO_ARG_INT("y", -item),
		FARO_ARG_DICT_END(),
	    FARO_ARG_DICT_END());
	spin_us(300);
	FARO_TE_INSTANT(verbose, "detail", FARO_ARG_INT("item", item));
	FARO_TE_END(work);
}

static void *
worker_main(void *arg)
{
	int id = (int)(intptr_t)arg;
	char name[16];
	uint64_t flow, start;

	snprintf(name, sizeof(name), "worker-%d", id);
	prctl(PR_SET_NAME, name);
	for (int item = 0; !atomic_load(&quit); item++) {
		/* Even workers hand items over, odd ones take them. */
		if (id % 2 == 0) {
			flow = atomic_fetch_add(&next_flow, 1);
			FARO_TE_INSTANT(work, "hand_over", FARO_FLOW(flow));
			atomic_store(&handoff, flow);
		} else if ((flow = atomic_exchange(&handoff, 0)) != 0)
			FARO_TE_INSTANT(work, "take_over",
			    FARO_TERMINATING_FLOW(flow));
		process_item(id, item);
		start = faro_now_ns();
		spin_us(100);
		FARO_TE_COMPLETE(io, "flush", start, faro_now_ns() - start,
		    FARO_ARG_INT("item", item));
		FARO_TE_COUNTER_INT(stats, &depth_track, item % 10);
		usleep(1000);
	}
	return NULL;
}

static void
heartbeat_write(struct faro_ds_ctx *ctx, void *arg)
{
	struct faro_msg *p = faro_ctx_packet_begin(ctx);

	faro_msg_uint(p, 8, faro_now_ns());		/* timestamp */
	faro_msg_nested_begin(p, 900);			/* for_testing */
	faro_msg_string(p, 1, "heartbeat");		/* str */
	faro_msg_uint(p, 2, *(unsigned *)arg);		/* seq_value */
	faro_msg_nested_end(p);
	faro_ctx_packet_end(ctx);
}

int
main(int argc, char **argv)
{
	struct faro_init_args ia = { .struct_size = sizeof(ia) };
	struct faro_ds_args da = { .struct_size = sizeof(da) };
	int seconds = 5, nthreads = 4;
	pthread_t th[16];
	const char *cause;
	uint64_t end;
	unsigned beat = 0;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc)
			seconds = atoi(argv[++i]);
		else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
			nthreads = atoi(argv[++i]);
		else {
			fprintf(stderr, "usage: faro_example [--seconds N] "
			    "[--threads N]\n");
			return 1;
		}
	}
	if (nthreads < 1 || nthreads > 16)
		nthreads = 4;
	ia.producer_name = "faro_example";
	if (faro_init(&ia, &cause) == -1) {
		fprintf(stderr, "faro_example: %s\n", cause);
		return 1;
	}
	FARO_TE_REGISTER(EXAMPLE_CATEGORIES);
	da.policy = FARO_POLICY_DROP;
	heartbeat_ds = faro_ds_register("com.example.heartbeat", &da, &cause);
	if (heartbeat_ds == NULL)
		fprintf(stderr, "faro_example: heartbeat: %s\n", cause);
	faro_track_init(&queue_track, "Queue", NULL);
	faro_counter_track_init(&depth_track, "queue depth", "items");
	faro_counter_track_init(&load_track, "load", NULL);

	for (int i = 0; i < nthreads; i++)
		pthread_create(&th[i], NULL, worker_main, (void *)(intptr_t)i);
	end = faro_now_ns() + (uint64_t)seconds * 1000000000ull;
	while (faro_now_ns() < end) {
		FARO_TE_BEGIN(work, "tick", FARO_ON_TRACK(&queue_track));
		FARO_TE_COUNTER_DOUBLE(stats, &load_track,
		    (double)(beat % 100) / 100.0);
		if (heartbeat_ds != NULL)
			faro_ds_trace(heartbeat_ds, heartbeat_write, &beat);
		beat++;
		usleep(10000);
		FARO_TE_END(work, FARO_ON_TRACK(&queue_track));
	}
	atomic_store(&quit, 1);
	for (int i = 0; i < nthreads; i++)
		pthread_join(th[i], NULL);
	faro_shutdown();
	return 0;
}
