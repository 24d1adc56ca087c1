/*
 * Data sources slow to start (registered will_notify_on_start): the
 * session runs and keeps their data meanwhile, the consumer hears
 * all_data_sources_started only once every one has acked, and one that
 * has not acked after the start timeout is named in the trace by a
 * slow_starting_data_sources service event, as upstream. traced runs
 * with the timeout shortened to 300 ms (a test hook; upstream's is 20 s).
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tt_fixture.h"

static void
setup_short(void)
{
	setenv("FARO_TEST_START_TIMEOUT_MS", "300", 1);
	setup();
}

#ifdef FARO_TEST_HOOKS
static const char *ds2[] = { "tt.slow", "tt.never", NULL };

static double
now_s(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void	scan(const struct tt_trace *, char *, size_t, int *, int *);

/*
 * Producer "tt.producer" registers the data sources of cfg, each with
 * will_notify_on_start (and will_notify_on_stop when its name says
 * "never": it will not ack that either); a consumer observing all events
 * enables cfg.
 */
static void
start_slow(struct tt_producer *p, struct tt_consumer *c,
    Perfetto__Protos__TraceConfig *cfg)
{
	const char	*name;
	size_t		 i;

	ck_assert_int_eq(tt_producer_connect(p, base, td.producer_sock,
	    "tt.producer"), 0);
	for (i = 0; i < cfg->n_data_sources; i++) {
		name = cfg->data_sources[i]->config->name;
		ck_assert_int_eq(tt_producer_register(p, name, 1,
		    strstr(name, "never") != NULL), 0);
	}
	ck_assert_int_eq(tt_consumer_connect(c, base, td.consumer_sock), 0);
	ck_assert_int_eq(tt_consumer_observe(c, 3), 0);
	ck_assert_int_eq(tt_consumer_enable(c, cfg, -1), 0);
}

static void
notify_started(struct tt_producer *p, uint64_t id)
{
	ck_assert_int_eq(tt_producer_notify(p, TT_P_STARTED, id), 0);
}

/* Reads the session out: the slow-start names and events counted. */
static void
read_events(struct tt_consumer *c, char *names, size_t len, int *nslow,
    int *nall)
{
	struct tt_trace	t;

	read_trace(c, &t);
	scan(&t, names, len, nslow, nall);
	tt_trace_free(&t);
}

/* The data sources named by slow-start events; the all-started events. */
static void
scan(const struct tt_trace *t, char *names, size_t len, int *nslow,
    int *nall)
{
	size_t	i, j;

	names[0] = '\0';
	*nslow = *nall = 0;
	for (i = 0; i < t->npackets; i++) {
		Perfetto__Protos__TracePacket *pk = t->trace->packet[i];
		Perfetto__Protos__TracingServiceEvent *ev;

		if (pk->data_case !=
		    PERFETTO__PROTOS__TRACE_PACKET__DATA_SERVICE_EVENT)
			continue;
		ev = pk->service_event;
		if (ev->event_type_case ==
		    PERFETTO__PROTOS__TRACING_SERVICE_EVENT__EVENT_TYPE_ALL_DATA_SOURCES_STARTED)
			(*nall)++;
		if (ev->event_type_case !=
		    PERFETTO__PROTOS__TRACING_SERVICE_EVENT__EVENT_TYPE_SLOW_STARTING_DATA_SOURCES)
			continue;
		(*nslow)++;
		ck_assert_uint_eq(pk->trusted_packet_sequence_id, 1);
		ck_assert_uint_gt(pk->timestamp, 0);
		for (j = 0; j < ev->slow_starting_data_sources->n_data_source;
		    j++) {
			Perfetto__Protos__TracingServiceEvent__DataSources__DataSource
			    *d = ev->slow_starting_data_sources->data_source[j];

			ck_assert_str_eq(d->producer_name, "tt.producer");
			snprintf(names + strlen(names), len - strlen(names),
			    "%s;", d->data_source_name);
		}
	}
}

/*
 * One data source acks late (after the timeout), one never does, nor
 * acks its stop: data written before the ack is kept, both are named,
 * the consumer never hears all-started, and stopping completes after
 * data_source_stop_timeout_ms.
 */
START_TEST(test_late_and_never)
{
	struct tt_producer	 p;
	struct tt_consumer	 c;
	struct tt_instance	*slow, *never;
	struct shm_writer	*w;
	struct tt_trace		 t;
	Perfetto__Protos__TraceConfig *cfg = tt_config_new(1024, 0, ds2);
	char			 names[256];
	int			 nslow, nall;
	double			 t0, t1;

	cfg->has_data_source_stop_timeout_ms = 1;
	cfg->data_source_stop_timeout_ms = 500;
	start_slow(&p, &c, cfg);
	slow = wait_started(&p, "tt.slow");
	never = wait_started(&p, "tt.never");
	ck_assert_ptr_nonnull(slow);
	ck_assert_ptr_nonnull(never);
	/* Written while STARTING: kept. */
	w = tt_producer_writer(&p, slow->target_buffer);
	tt_write_packets(w, "early", 0, 50, 10);
	tt_producer_commit(&p, w);
	tt_spin(base, 700);			/* past the 300 ms timeout */
	ck_assert_int_eq(c.observe_all_started, 0);
	notify_started(&p, slow->id);
	tt_write_packets(w, "late", 0, 50, 10);
	tt_producer_commit(&p, w);
	tt_spin(base, 200);
	ck_assert_int_eq(c.observe_all_started, 0);	/* tt.never */
	t0 = now_s();
	disable_and_wait(&c);
	t1 = now_s();
	ck_assert_msg(t1 - t0 >= 0.4 && t1 - t0 < 3, "stop took %.2f s",
	    t1 - t0);
	read_trace(&c, &t);
	ck_assert_uint_eq(tt_trace_count(&t, "early", NULL, 0), 50);
	ck_assert_uint_eq(tt_trace_count(&t, "late", NULL, 0), 50);
	scan(&t, names, sizeof(names), &nslow, &nall);
	ck_assert_int_eq(nslow, 1);
	ck_assert_int_eq(nall, 0);
	ck_assert_str_eq(names, "tt.slow;tt.never;");
	tt_trace_free(&t);
	tt_consumer_close(&c);
	tt_producer_close(&p);
	tt_config_free(cfg);
}
END_TEST

/*
 * One data source acks late (_i == 1: after the timeout; all-started
 * still follows, after the slow-start event) or in time (_i == 0: no
 * slow-start event).
 */
START_TEST(test_ack)
{
	struct tt_producer	 p;
	struct tt_consumer	 c;
	struct tt_instance	*in;
	static const char	*ds[] = { "tt.slow", NULL };
	Perfetto__Protos__TraceConfig *cfg = tt_config_new(1024, 0, ds);
	char			 names[256];
	int			 nslow, nall;

	start_slow(&p, &c, cfg);
	in = wait_started(&p, "tt.slow");
	ck_assert_ptr_nonnull(in);
	if (_i == 1) {
		tt_spin(base, 700);
		ck_assert_int_eq(c.observe_all_started, 0);
	}
	notify_started(&p, in->id);
	WAIT_UNTIL(c.observe_all_started != 0);
	ck_assert_int_eq(c.observe_all_started, 1);
	tt_spin(base, 700);
	disable_and_wait(&c);
	read_events(&c, names, sizeof(names), &nslow, &nall);
	ck_assert_int_eq(nslow, _i);
	ck_assert_int_eq(nall, 1);
	ck_assert_str_eq(names, _i ? "tt.slow;" : "");
	tt_consumer_close(&c);
	tt_producer_close(&p);
	tt_config_free(cfg);
}
END_TEST
#endif

static Suite *
start_suite(void)
{
	Suite	*s = suite_create("traced_start");
	TCase	*tc = tcase_create("start");

	tcase_add_checked_fixture(tc, setup_short, teardown);
	tcase_set_timeout(tc, 60);
#ifdef FARO_TEST_HOOKS
	tcase_add_test(tc, test_late_and_never);
	tcase_add_loop_test(tc, test_ack, 0, 2);
#endif
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner	*sr = srunner_create(start_suite());
	int	 failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
