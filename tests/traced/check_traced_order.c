/*
 * Orderings the producer protocol does not guarantee, each forced by the
 * test producer, and handled as upstream's service does: commits and
 * patches before the StartDataSource acknowledgement or after
 * StopDataSource, a flush acknowledged after it timed out,
 * RegisterTraceWriter after the writer's commits, UnregisterTraceWriter
 * before the writer's last commits, commits racing the producer's own
 * disconnect. No data is lost and nothing is counted as discarded.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "libipc/ipc_client.h"
#include "tt_fixture.h"
#include "protos/perfetto/ipc/consumer_port.pb-c.h"

static const char *ds1[] = { "tt.ds", NULL };

/* Packets bigger than a chunk: each spans chunks and needs patches. */
#define BIG	3000
/*
 * Packets that fit a chunk: a chunk left in the SMB is scraped whole,
 * while a packet spanning chunks would wait for patches never sent.
 */
#define SMALL	200

struct order {
	struct tt_producer	 p;
	struct tt_consumer	 c;
	struct tt_instance	*in;
	Perfetto__Protos__TraceConfig *cfg;
};

/* A session with one producer whose instance got StartDataSource. */
static void
order_up(struct order *o, int notify_start, int notify_stop)
{
	memset(o, 0, sizeof(*o));
	o->cfg = tt_config_new(4096, 0, ds1);
	ck_assert_int_eq(tt_producer_connect(&o->p, base, td.producer_sock,
	    "tt.order"), 0);
	ck_assert_int_eq(tt_producer_register(&o->p, "tt.ds", notify_start,
	    notify_stop), 0);
	ck_assert_int_eq(tt_consumer_connect(&o->c, base, td.consumer_sock),
	    0);
	ck_assert_int_eq(tt_consumer_enable(&o->c, o->cfg, -1), 0);
	o->in = wait_started(&o->p, "tt.ds");
	ck_assert_ptr_nonnull(o->in);
}

/* Stats of the session: nothing discarded. */
static void
order_nothing_discarded(struct order *o)
{
	Perfetto__Protos__TraceStats *st = tt_consumer_stats(&o->c);

	ck_assert_ptr_nonnull(st);
	ck_assert_uint_eq(st->chunks_discarded, 0);
	ck_assert_uint_eq(st->patches_discarded, 0);
	perfetto__protos__trace_stats__free_unpacked(st, NULL);
}

/* Reads the trace: n packets of prefix, each seq_value once. */
static void
order_expect(struct order *o, const char *prefix, size_t n)
{
	struct tt_trace	 t;
	uint8_t		*seen = calloc(n, 1);
	size_t		 i;

	read_trace(&o->c, &t);
	ck_assert_uint_eq(tt_trace_count(&t, prefix, seen, n), n);
	for (i = 0; i < n; i++)
		ck_assert_int_eq(seen[i], 1);
	tt_trace_free(&t);
	free(seen);
}

static void
order_down(struct order *o)
{
	ck_assert_int_eq(tt_traced_alive(&td), 1);
	tt_consumer_close(&o->c);
	tt_producer_close(&o->p);
	tt_config_free(o->cfg);
}

/* Commits and patches before NotifyDataSourceStarted. */
START_TEST(test_commit_before_start_ack)
{
	struct order		 o;
	struct shm_writer	*w;

	order_up(&o, 1, 0);
	w = tt_producer_writer(&o.p, o.in->target_buffer);
	tt_write_packets(w, "early", 0, 20, BIG);
	tt_producer_commit(&o.p, w);
	ck_assert_int_eq(tt_producer_notify(&o.p, TT_P_STARTED, o.in->id), 0);
	order_nothing_discarded(&o);
	disable_and_wait(&o.c);
	order_expect(&o, "early", 20);
	order_down(&o);
}
END_TEST

/*
 * Commits after StopDataSource: before the producer acknowledges it, and
 * after the session is disabled (the buffer lives until FreeBuffers).
 */
START_TEST(test_commit_after_stop)
{
	struct order		 o;
	struct shm_writer	*w;

	order_up(&o, 0, 1);
	w = tt_producer_writer(&o.p, o.in->target_buffer);
	tt_write_packets(w, "stop", 0, 10, BIG);
	ck_assert_int_eq(tt_consumer_call(&o.c, CM_DISABLE, NULL, -1, NULL,
	    0), 0);
	WAIT_UNTIL(o.in->stopped);
	ck_assert_int_eq(o.in->stopped, 1);
	tt_write_packets(w, "stop", 10, 10, BIG);
	tt_producer_commit(&o.p, w);
	ck_assert_int_eq(tt_producer_notify(&o.p, TT_P_STOPPED, o.in->id), 0);
	ck_assert_int_eq(tt_wait(base, &o.c.enable_done, 10000), 0);
	/* The session is disabled; the producer still sends some. */
	tt_write_packets(w, "stop", 20, 10, BIG);
	tt_producer_commit(&o.p, w);
	order_nothing_discarded(&o);
	order_expect(&o, "stop", 30);
	order_down(&o);
}
END_TEST

/*
 * A flush that timed out, acknowledged later with data: the data is
 * kept, the flush stays failed, and the late id does not acknowledge the
 * next flush.
 */
START_TEST(test_flush_ack_after_timeout)
{
	struct order		 o;
	struct shm_writer	*w;
	Perfetto__Protos__FlushRequest fr = PERFETTO__PROTOS__FLUSH_REQUEST__INIT;
	Perfetto__Protos__TraceStats *st;
	uint64_t		 late_id;

	order_up(&o, 0, 0);
	w = tt_producer_writer(&o.p, o.in->target_buffer);
	o.p.no_auto_flush = 1;
	fr.has_timeout_ms = 1;
	fr.timeout_ms = 200;
	ck_assert_int_eq(tt_consumer_call(&o.c, CM_FLUSH, &fr.base, -1, NULL,
	    0), -1);
	ck_assert_int_eq(o.p.flushes, 1);
	late_id = o.p.last_flush_id;
	/* A second flush is pending when the first one's ack arrives. */
	fr.timeout_ms = 400;
	ck_assert_int_ne(consumer_ep_invoke(&o.c.ep, CM_FLUSH, &fr.base,
	    -1, IPC_INVOKE_DROP_REPLY, NULL,
	    NULL), 0);
	WAIT_UNTIL(o.p.flushes == 2);
	ck_assert_int_eq(o.p.flushes, 2);
	tt_write_packets(w, "late", 0, 10, BIG);
	shm_writer_flush(w);
	shm_arbiter_flush(o.p.arb, late_id);
	ck_assert_int_eq(tt_producer_sync(&o.p), 0);
	tt_spin(base, 600);
	st = tt_consumer_stats(&o.c);
	ck_assert_ptr_nonnull(st);
	ck_assert_uint_eq(st->flushes_requested, 2);
	ck_assert_uint_eq(st->flushes_succeeded, 0);
	ck_assert_uint_eq(st->flushes_failed, 2);
	perfetto__protos__trace_stats__free_unpacked(st, NULL);
	/* An answered flush still succeeds. */
	o.p.no_auto_flush = 0;
	ck_assert_int_eq(tt_consumer_call(&o.c, CM_FLUSH, &fr.base, -1, NULL,
	    0), 0);
	order_nothing_discarded(&o);
	disable_and_wait(&o.c);
	order_expect(&o, "late", 10);
	order_down(&o);
}
END_TEST

/* RegisterTraceWriter arrives after the writer's first commits. */
START_TEST(test_register_writer_after_commits)
{
	struct order		 o;
	struct shm_writer	*w;

	order_up(&o, 0, 0);
	w = tt_producer_writer_unannounced(&o.p, o.in->target_buffer);
	ck_assert_ptr_nonnull(w);
	tt_write_packets(w, "reg", 0, 20, BIG);
	tt_producer_commit(&o.p, w);
	ck_assert_int_eq(tt_producer_writer_announce(&o.p, shm_writer_id(w),
	    o.in->target_buffer), 0);
	tt_write_packets(w, "reg", 20, 20, BIG);
	tt_producer_commit(&o.p, w);
	order_nothing_discarded(&o);
	disable_and_wait(&o.c);
	order_expect(&o, "reg", 40);
	order_down(&o);
}
END_TEST

/* UnregisterTraceWriter overtakes the writer's last commits and patches. */
START_TEST(test_unregister_writer_in_flight)
{
	struct order		 o;
	struct shm_writer	*w;

	order_up(&o, 0, 0);
	w = tt_producer_writer(&o.p, o.in->target_buffer);
	tt_write_packets(w, "unreg", 0, 20, BIG);
	o.p.defer_commits = 1;
	tt_write_packets(w, "unreg", 20, 20, BIG);
	shm_writer_flush(w);
	ck_assert_int_gt(o.p.ndeferred, 0);
	ck_assert_int_eq(tt_producer_writer_retire(&o.p, shm_writer_id(w)), 0);
	o.p.defer_commits = 0;
	tt_producer_release_commits(&o.p);
	ck_assert_int_eq(tt_producer_sync(&o.p), 0);
	order_nothing_discarded(&o);
	disable_and_wait(&o.c);
	order_expect(&o, "unreg", 40);
	order_down(&o);
}
END_TEST

/*
 * Commits still in the socket when the producer hangs up, and chunks it
 * never committed: traced reads every frame before it sees the end, then
 * scrapes what is left in the SMB.
 */
START_TEST(test_commits_racing_disconnect)
{
	struct order		 o;
	struct shm_writer	*w;
	uint32_t		 n;
	int			 round;

	for (round = 0; round < 3; round++) {
		order_up(&o, 0, 0);
		w = tt_producer_writer(&o.p, o.in->target_buffer);
		/* One CommitData per chunk, none waited for. */
		tt_write_packets(w, "race", 0, 200, SMALL);
		n = 220;
		if (round == 1)
			shm_writer_flush(w);	/* the last chunk too */
		if (round == 2) {
			/* A complete chunk never committed: scraped. */
			shm_writer_flush(w);
			o.p.hold_commits = 1;
			n = 203;
		}
		tt_write_packets(w, "race", 200, n - 200, SMALL);
		if (round == 2)
			shm_writer_flush(w);
		ipc_client_free(o.p.cl);	/* hang up now */
		o.p.cl = NULL;
		ck_assert_int_eq(wait_state(&o.c, 0, 1), 0);
		order_nothing_discarded(&o);
		disable_and_wait(&o.c);
		order_expect(&o, "race", n);
		order_down(&o);
	}
}
END_TEST

static Suite *
order_suite(void)
{
	Suite	*s = suite_create("traced_order");
	TCase	*tc = tcase_create("order");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_commit_before_start_ack);
	tcase_add_test(tc, test_commit_after_stop);
	tcase_add_test(tc, test_flush_ack_after_timeout);
	tcase_add_test(tc, test_register_writer_after_commits);
	tcase_add_test(tc, test_unregister_writer_in_flight);
	tcase_add_test(tc, test_commits_racing_disconnect);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner	*sr = srunner_create(order_suite());
	int	 failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
