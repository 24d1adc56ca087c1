/*
 * traced with faro's own producer endpoint (libipc/producer_endpoint.h,
 * what traced_probes and libfaro use): drop_reply calls, writers announced
 * with RegisterTraceWriter, flush acknowledgements, and the final flush of
 * a session that ends on duration_ms.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libipc/producer_endpoint.h"
#include "tt_fixture.h"

struct ep_state {
	struct producer_ep	*ep;
	struct shm_writer	*w;
	uint64_t		 id;
	int			 started, stopped, flushes, connects;
	uint32_t		 seq;
};

static void
ep_connected(struct producer_ep *ep, void *arg)
{
	struct ep_state	*st = arg;

	(void)ep;
	st->connects++;
}

static void
ep_start(struct producer_ep *ep, uint64_t id,
    const Perfetto__Protos__DataSourceConfig *cfg, void *arg)
{
	struct ep_state	*st = arg;
	const char	*cause;

	st->id = id;
	st->w = producer_ep_writer_new(ep, cfg->target_buffer,
	    SHM_POLICY_DROP, &cause);
	st->started++;
}

static void
ep_stop(struct producer_ep *ep, uint64_t id, void *arg)
{
	struct ep_state	*st = arg;

	(void)id;
	if (st->w != NULL)
		producer_ep_writer_free(ep, st->w);
	st->w = NULL;
	st->stopped++;
}

static void
ep_flush(struct producer_ep *ep, uint64_t req, const uint64_t *ids,
    size_t n, void *arg)
{
	struct ep_state	*st = arg;

	(void)ids; (void)n;
	if (st->w != NULL)
		shm_writer_flush(st->w);
	st->flushes++;
	producer_ep_flush_done(ep, req);
}

static const struct producer_ep_ops ep_ops = {
	.connected = ep_connected,
	.start = ep_start,
	.stop = ep_stop,
	.flush = ep_flush,
};

START_TEST(test_endpoint_session)
{
	struct ep_state		 st;
	struct producer_ds	 ds = { "ep.ds", 0, 0, 0 };
	struct producer_ep_config cfg;
	struct tt_consumer	 c;
	struct tt_trace		 t;
	static const char	*names[] = { "ep.ds", NULL };
	Perfetto__Protos__TraceConfig *tc = tt_config_new(512, 0, names);
	const char		*cause;

	memset(&st, 0, sizeof(st));
	memset(&cfg, 0, sizeof(cfg));
	cfg.name = "ep.producer";
	cfg.socket = td.producer_sock;
	cfg.ds = &ds;
	cfg.nds = 1;
	cfg.ops = &ep_ops;
	cfg.arg = &st;
	st.ep = producer_ep_new(base, &cfg, &cause);
	ck_assert_ptr_nonnull(st.ep);
	WAIT_UNTIL(st.connects != 0);
	ck_assert_int_eq(st.connects, 1);
	tt_spin(base, 50);
	tc->has_duration_ms = 1;
	tc->duration_ms = 600;
	ck_assert_int_eq(tt_consumer_connect(&c, base, td.consumer_sock), 0);
	ck_assert_int_eq(tt_consumer_enable(&c, tc, -1), 0);
	WAIT_UNTIL(st.w != NULL);
	ck_assert_ptr_nonnull(st.w);
	/* Write until the duration ends the session (final flush). */
	while (!c.enable_done && st.seq < 20000) {
		if (st.w != NULL) {
			tt_write_packets(st.w, "ep", st.seq, 50, 64);
			st.seq += 50;
		}
		tt_spin(base, 5);
	}
	ck_assert_int_eq(tt_wait(base, &c.enable_done, 5000), 0);
	ck_assert_int_ge(st.flushes, 1);
	ck_assert_int_eq(st.stopped, 1);
	read_trace(&c, &t);
	/* Everything written before the final flush is there. */
	ck_assert_uint_gt(tt_trace_count(&t, "ep", NULL, 0), 100);
	ck_assert_uint_ge(tt_trace_count(&t, "ep", NULL, 0), st.seq - 50);
	ck_assert_int_eq(t.bad_trusted, 0);
	tt_trace_free(&t);
	tt_consumer_close(&c);
	producer_ep_free(st.ep);
	tt_config_free(tc);
}
END_TEST

static Suite *
endpoint_suite(void)
{
	Suite	*s = suite_create("traced_endpoint");
	TCase	*tc = tcase_create("endpoint");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_endpoint_session);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner	*sr = srunner_create(endpoint_suite());
	int	 failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
