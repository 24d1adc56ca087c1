/*
 * traced RPCs one by one: Flush, ObserveEvents and the notify calls,
 * deferred StartTracing, producer filters and ChangeTraceConfig, late
 * registration, Unregister/Update, capabilities and what is unsupported.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tt_fixture.h"
#include "protos/perfetto/ipc/consumer_port.pb-c.h"
#include "protos/perfetto/ipc/producer_port.pb-c.h"
#include "protos/perfetto/common/commit_data_request.pb-c.h"

static const char *ds1[] = { "tt.ds", NULL };

START_TEST(test_flush)
{
	struct tt_producer	 p;
	struct tt_consumer	 c;
	struct tt_instance	*in;
	struct shm_writer	*w;
	struct tt_trace		 t;
	Perfetto__Protos__TraceConfig *cfg = tt_config_new(256, 0, ds1);
	Perfetto__Protos__FlushRequest fr = PERFETTO__PROTOS__FLUSH_REQUEST__INIT;
	Perfetto__Protos__TraceStats *st;

	connect_producer(&p, "tt.producer", "tt.ds");
	ck_assert_int_eq(tt_consumer_connect(&c, base, td.consumer_sock), 0);
	ck_assert_int_eq(tt_consumer_enable(&c, cfg, -1), 0);
	in = wait_started(&p, "tt.ds");
	ck_assert_ptr_nonnull(in);
	w = tt_producer_writer(&p, in->target_buffer);
	tt_write_packets(w, "fl", 0, 5, 0);	/* held in the writer */
	fr.has_timeout_ms = 1;
	fr.timeout_ms = 3000;
	ck_assert_int_eq(tt_consumer_call(&c, CM_FLUSH, &fr.base, -1, NULL,
	    0), 0);
	ck_assert_int_eq(p.flushes, 1);
	/* Read while tracing: the flushed data is there. */
	read_trace(&c, &t);
	ck_assert_uint_eq(tt_trace_count(&t, "fl", NULL, 0), 5);
	ck_assert_uint_eq(t.nstats, 0);		/* only at the end */
	tt_trace_free(&t);
	/* A producer that does not answer makes the flush fail. */
	p.no_auto_flush = 1;
	fr.timeout_ms = 300;
	ck_assert_int_eq(tt_consumer_call(&c, CM_FLUSH, &fr.base, -1, NULL,
	    0), -1);
	st = tt_consumer_stats(&c);
	ck_assert_ptr_nonnull(st);
	ck_assert_uint_eq(st->flushes_requested, 2);
	ck_assert_uint_eq(st->flushes_succeeded, 1);
	ck_assert_uint_eq(st->flushes_failed, 1);
	ck_assert_uint_eq(st->producers_connected, 1);
	ck_assert_uint_eq(st->data_sources_registered, 1);
	ck_assert_uint_eq(st->n_buffer_stats, 1);
	perfetto__protos__trace_stats__free_unpacked(st, NULL);
	disable_and_wait(&c);
	tt_consumer_close(&c);
	tt_producer_close(&p);
	tt_config_free(cfg);
}
END_TEST

START_TEST(test_observe_and_notify)
{
	struct tt_producer	 p;
	struct tt_consumer	 c;
	struct tt_instance	*in = NULL;
	Perfetto__Protos__TraceConfig *cfg = tt_config_new(256, 0, ds1);
	struct timespec		 a, b;
	int			 i;

	ck_assert_int_eq(tt_producer_connect(&p, base, td.producer_sock,
	    "tt.producer"), 0);
	ck_assert_int_eq(tt_producer_register(&p, "tt.ds", 1, 1), 0);
	ck_assert_int_eq(tt_consumer_connect(&c, base, td.consumer_sock), 0);
	ck_assert_int_eq(tt_consumer_observe(&c, 3), 0);
	ck_assert_int_eq(tt_consumer_enable(&c, cfg, -1), 0);
	for (i = 0; i < 4000 && (in == NULL || !in->started); i++) {
		tt_spin(base, 5);
		in = tt_producer_instance(&p, "tt.ds");
	}
	ck_assert_ptr_nonnull(in);
	ck_assert_int_eq(in->started, 1);
	tt_spin(base, 100);
	/* STARTING until the producer says so. */
	ck_assert_int_eq(c.observe_all_started, 0);
	ck_assert_int_eq(tt_producer_notify(&p, TT_P_STARTED, in->id), 0);
	WAIT_UNTIL(c.observe_all_started != 0);
	ck_assert_int_eq(c.observe_all_started, 1);
	ck_assert_int_ge(c.observe_started, 1);
	/* Stop waits for the producer's word, not for the 5 s timeout. */
	ck_assert_int_eq(tt_consumer_call(&c, CM_DISABLE, NULL, -1, NULL, 0),
	    0);
	WAIT_UNTIL(in->stopped);
	ck_assert_int_eq(in->stopped, 1);
	tt_spin(base, 100);
	ck_assert_int_eq(c.enable_done, 0);
	clock_gettime(CLOCK_MONOTONIC, &a);
	ck_assert_int_eq(tt_producer_notify(&p, TT_P_STOPPED, in->id), 0);
	ck_assert_int_eq(tt_wait(base, &c.enable_done, 3000), 0);
	clock_gettime(CLOCK_MONOTONIC, &b);
	ck_assert_int_lt(b.tv_sec - a.tv_sec, 3);
	ck_assert_int_ge(c.observe_stopped, 1);
	tt_consumer_close(&c);
	tt_producer_close(&p);
	tt_config_free(cfg);
}
END_TEST

START_TEST(test_deferred_start)
{
	struct tt_producer	 p;
	struct tt_consumer	 c;
	struct tt_instance	*in;
	Perfetto__Protos__TraceConfig *cfg = tt_config_new(256, 0, ds1);

	cfg->has_deferred_start = 1;
	cfg->deferred_start = 1;
	connect_producer(&p, "tt.producer", "tt.ds");
	ck_assert_int_eq(tt_consumer_connect(&c, base, td.consumer_sock), 0);
	ck_assert_int_eq(tt_consumer_enable(&c, cfg, -1), 0);
	WAIT_UNTIL(tt_producer_instance(&p, "tt.ds") != NULL);
	in = tt_producer_instance(&p, "tt.ds");
	ck_assert_ptr_nonnull(in);
	ck_assert_int_eq(in->setup, 1);
	ck_assert_int_eq(in->started, 0);
	ck_assert_int_eq(tt_consumer_call(&c, CM_START, NULL, -1, NULL, 0),
	    0);
	ck_assert_ptr_nonnull(wait_started(&p, "tt.ds"));
	disable_and_wait(&c);
	tt_consumer_close(&c);
	tt_producer_close(&p);
	tt_config_free(cfg);
}
END_TEST

START_TEST(test_producer_filters)
{
	struct tt_producer	 p1, p2;
	struct tt_consumer	 c;
	Perfetto__Protos__TraceConfig *cfg = tt_config_new(256, 0, ds1);
	Perfetto__Protos__TraceConfig *cfg2 = tt_config_new(256, 0, ds1);
	Perfetto__Protos__ChangeTraceConfigRequest ch =
	    PERFETTO__PROTOS__CHANGE_TRACE_CONFIG_REQUEST__INIT;
	Perfetto__Protos__TraceConfig__DataSource *d;

	connect_producer(&p1, "app.one", "tt.ds");
	connect_producer(&p2, "app.two", "tt.ds");
	d = cfg->data_sources[0];
	d->n_producer_name_filter = 1;
	d->producer_name_filter = calloc(1, sizeof(char *));
	d->producer_name_filter[0] = strdup("app.one");
	ck_assert_int_eq(tt_consumer_connect(&c, base, td.consumer_sock), 0);
	ck_assert_int_eq(tt_consumer_enable(&c, cfg, -1), 0);
	ck_assert_ptr_nonnull(wait_started(&p1, "tt.ds"));
	tt_spin(base, 100);
	ck_assert_ptr_null(tt_producer_instance(&p2, "tt.ds"));
	/* A regex that takes in app.two too, changed on the fly. */
	d = cfg2->data_sources[0];
	d->n_producer_name_regex_filter = 1;
	d->producer_name_regex_filter = calloc(1, sizeof(char *));
	d->producer_name_regex_filter[0] = strdup("app\\.t.*");
	ch.trace_config = cfg2;
	ck_assert_int_eq(tt_consumer_call(&c, CM_CHANGE_CONFIG, &ch.base, -1, NULL,
	    0), 0);
	ck_assert_ptr_nonnull(wait_started(&p2, "tt.ds"));
	disable_and_wait(&c);
	tt_consumer_close(&c);
	tt_producer_close(&p1);
	tt_producer_close(&p2);
	tt_config_free(cfg);
	tt_config_free(cfg2);
}
END_TEST

START_TEST(test_late_producer_and_unregister)
{
	struct tt_producer	 p;
	struct tt_consumer	 c;
	struct tt_instance	*in;
	Perfetto__Protos__TraceConfig *cfg = tt_config_new(256, 0, ds1);
	Perfetto__Protos__UnregisterDataSourceRequest ur =
	    PERFETTO__PROTOS__UNREGISTER_DATA_SOURCE_REQUEST__INIT;
	uint8_t			 buf[64];
	size_t			 len;

	ck_assert_int_eq(tt_consumer_connect(&c, base, td.consumer_sock), 0);
	ck_assert_int_eq(tt_consumer_enable(&c, cfg, -1), 0);
	tt_spin(base, 100);
	/* An app started after the session joins it. */
	connect_producer(&p, "tt.late", "tt.ds");
	in = wait_started(&p, "tt.ds");
	ck_assert_ptr_nonnull(in);
	ur.data_source_name = (char *)"tt.ds";
	len = perfetto__protos__unregister_data_source_request__pack(&ur, buf);
	ck_assert_int_eq(tt_producer_call(&p, TT_P_UNREGISTER, buf, len), 0);
	WAIT_UNTIL(in->stopped);
	ck_assert_int_eq(in->stopped, 1);
	/* Registering it again brings a new instance into the session. */
	ck_assert_int_eq(tt_producer_register(&p, "tt.ds", 0, 0), 0);
	WAIT_UNTIL(tt_producer_instance(&p, "tt.ds") != in &&
	    tt_producer_instance(&p, "tt.ds")->started);
	ck_assert_ptr_ne(tt_producer_instance(&p, "tt.ds"), in);
	ck_assert_int_eq(tt_producer_instance(&p, "tt.ds")->started, 1);
	disable_and_wait(&c);
	tt_consumer_close(&c);
	tt_producer_close(&p);
	tt_config_free(cfg);
}
END_TEST

START_TEST(test_buffers_by_name)
{
	struct tt_producer	 p;
	struct tt_consumer	 c;
	struct tt_instance	*in;
	struct tt_reply		 r;
	Perfetto__Protos__TraceConfig *cfg = tt_config_new(64, 0, ds1);
	Perfetto__Protos__QueryServiceStateResponse *q;

	cfg->buffers = realloc(cfg->buffers, 2 * sizeof(*cfg->buffers));
	cfg->buffers[1] = calloc(1, sizeof(**cfg->buffers));
	perfetto__protos__trace_config__buffer_config__init(cfg->buffers[1]);
	cfg->buffers[1]->has_size_kb = 1;
	cfg->buffers[1]->size_kb = 128;
	cfg->buffers[1]->name = strdup("second");
	cfg->n_buffers = 2;
	cfg->data_sources[0]->config->target_buffer_name = strdup("second");
	cfg->unique_session_name = strdup("named");
	connect_producer(&p, "tt.producer", "tt.ds");
	ck_assert_int_eq(tt_consumer_connect(&c, base, td.consumer_sock), 0);
	ck_assert_int_eq(tt_consumer_enable(&c, cfg, -1), 0);
	in = wait_started(&p, "tt.ds");
	ck_assert_ptr_nonnull(in);
	ck_assert_int_eq(tt_consumer_call(&c, CM_QUERY, NULL, -1, &r, 0), 0);
	q = perfetto__protos__query_service_state_response__unpack(NULL,
	    r.lens[0], r.data);
	ck_assert_ptr_nonnull(q);
	ck_assert_uint_eq(q->service_state->n_tracing_sessions, 1);
	ck_assert_str_eq(q->service_state->tracing_sessions[0]->
	    unique_session_name, "named");
	ck_assert_uint_eq(q->service_state->tracing_sessions[0]->
	    n_buffer_size_kb, 2);
	ck_assert_uint_eq(q->service_state->tracing_sessions[0]->
	    buffer_size_kb[1], 128);
	ck_assert_int_gt(q->service_state->tracing_sessions[0]->
	    start_realtime_ns, 0);
	/* The second buffer's global id is the first's + 1 here. */
	ck_assert_uint_eq(in->target_buffer, 2);
	perfetto__protos__query_service_state_response__free_unpacked(q, NULL);
	tt_reply_free(&r);
	disable_and_wait(&c);
	tt_consumer_close(&c);
	tt_producer_close(&p);
	tt_config_free(cfg);
}
END_TEST

START_TEST(test_capabilities_and_unsupported)
{
	struct tt_consumer	 c;
	struct tt_reply		 r;
	Perfetto__Protos__QueryCapabilitiesResponse *qc;
	Perfetto__Protos__SaveTraceForBugreportResponse *sb;

	ck_assert_int_eq(tt_consumer_connect(&c, base, td.consumer_sock), 0);
	ck_assert_int_eq(tt_consumer_call(&c, CM_CAPABILITIES, NULL, -1, &r, 0), 0);
	qc = perfetto__protos__query_capabilities_response__unpack(NULL, r.len,
	    r.data);
	ck_assert_ptr_nonnull(qc);
	ck_assert_int_eq(qc->capabilities->has_query_capabilities, 1);
	ck_assert_uint_eq(qc->capabilities->n_observable_events, 2);
	perfetto__protos__query_capabilities_response__free_unpacked(qc, NULL);
	tt_reply_free(&r);
	ck_assert_int_eq(tt_consumer_call(&c, CM_BUGREPORT, NULL, -1, &r, 0),
	    0);
	sb = perfetto__protos__save_trace_for_bugreport_response__unpack(NULL,
	    r.len, r.data);
	ck_assert_ptr_nonnull(sb);
	ck_assert_int_eq(sb->success, 0);
	ck_assert_ptr_nonnull(sb->msg);
	perfetto__protos__save_trace_for_bugreport_response__free_unpacked(sb,
	    NULL);
	tt_reply_free(&r);
	/* Calls that need a session fail cleanly without one. */
	ck_assert_int_eq(tt_consumer_call(&c, CM_STATS, NULL, -1, NULL, 0),
	    -1);
	ck_assert_int_eq(tt_consumer_call(&c, CM_FLUSH, NULL, -1, NULL, 0),
	    -1);
	ck_assert_int_eq(tt_consumer_call(&c, CM_FREE, NULL, -1, NULL, 0), 0);
	tt_consumer_close(&c);
}
END_TEST

START_TEST(test_clone_session)
{
	struct tt_producer	 p;
	struct tt_consumer	 c, c2;
	struct tt_instance	*in;
	struct shm_writer	*w;
	struct tt_trace		 t;
	Perfetto__Protos__TraceConfig *cfg = tt_config_new(256, 0, ds1);
	Perfetto__Protos__CloneSessionRequest req =
	    PERFETTO__PROTOS__CLONE_SESSION_REQUEST__INIT;
	Perfetto__Protos__CloneSessionResponse *res;

	cfg->unique_session_name = strdup("to-clone");
	connect_producer(&p, "tt.producer", "tt.ds");
	ck_assert_int_eq(tt_consumer_connect(&c, base, td.consumer_sock), 0);
	ck_assert_int_eq(tt_consumer_enable(&c, cfg, -1), 0);
	in = wait_started(&p, "tt.ds");
	ck_assert_ptr_nonnull(in);
	w = tt_producer_writer(&p, in->target_buffer);
	tt_write_packets(w, "cl", 0, 10, 0);
	tt_producer_commit(&p, w);
	tt_write_packets(w, "cl", 10, 3, 0);	/* only the flush brings these */

	ck_assert_int_eq(tt_consumer_connect(&c2, base, td.consumer_sock), 0);
	req.selector_case =
	    PERFETTO__PROTOS__CLONE_SESSION_REQUEST__SELECTOR_SESSION_ID;
	req.session_id = 999;
	res = clone_session(&c2, &req);
	ck_assert_int_eq(res->success, 0);
	ck_assert_ptr_nonnull(res->error);
	perfetto__protos__clone_session_response__free_unpacked(res, NULL);
	req.selector_case =
	    PERFETTO__PROTOS__CLONE_SESSION_REQUEST__SELECTOR_UNIQUE_SESSION_NAME;
	req.unique_session_name = (char *)"to-clone";
	res = clone_session(&c2, &req);
	ck_assert_int_eq(res->success, 1);
	ck_assert_int_eq(res->was_write_into_file, 0);
	perfetto__protos__clone_session_response__free_unpacked(res, NULL);
	read_trace(&c2, &t);
	ck_assert_uint_eq(tt_trace_count(&t, "cl", NULL, 0), 13);
	ck_assert_uint_eq(t.nconfig, 1);
	tt_trace_free(&t);
	/* The source is untouched by the clone's read and keeps going. */
	tt_write_packets(w, "cl", 13, 2, 0);
	tt_producer_commit(&p, w);
	disable_and_wait(&c);
	read_trace(&c, &t);
	ck_assert_uint_eq(tt_trace_count(&t, "cl", NULL, 0), 15);
	tt_trace_free(&t);
	tt_consumer_close(&c2);
	tt_consumer_close(&c);
	tt_producer_close(&p);
	tt_config_free(cfg);
}
END_TEST

START_TEST(test_producer_provided_smb)
{
	struct tt_producer	 p;
	struct tt_consumer	 c;
	struct tt_instance	*in;
	struct shm_writer	*w;
	struct tt_trace		 t;
	Perfetto__Protos__TraceConfig *cfg = tt_config_new(256, 0, ds1);
	int			 accepted = 0;

	ck_assert_int_eq(tt_producer_connect_own_smb(&p, base,
	    td.producer_sock, "tt.own", 128 * 1024, &accepted), 0);
	ck_assert_int_eq(accepted, 1);
	ck_assert_int_eq(tt_producer_register(&p, "tt.ds", 0, 0), 0);
	ck_assert_int_eq(tt_consumer_connect(&c, base, td.consumer_sock), 0);
	ck_assert_int_eq(tt_consumer_enable(&c, cfg, -1), 0);
	in = wait_started(&p, "tt.ds");
	ck_assert_ptr_nonnull(in);
	ck_assert_uint_eq(p.smb_size, 128 * 1024);	/* still ours */
	w = tt_producer_writer(&p, in->target_buffer);
	tt_write_packets(w, "own", 0, 40, 100);
	tt_producer_commit(&p, w);
	disable_and_wait(&c);
	read_trace(&c, &t);
	ck_assert_uint_eq(tt_trace_count(&t, "own", NULL, 0), 40);
	tt_trace_free(&t);
	tt_consumer_close(&c);
	tt_producer_close(&p);
	tt_config_free(cfg);
}
END_TEST

/* A chunk sent inside CommitData (no SMB involved). */
static void
commit_inline(struct tt_producer *p, uint32_t buffer, uint16_t writer,
    uint32_t chunk_id, const char *str)
{
	Perfetto__Protos__CommitDataRequest req =
	    PERFETTO__PROTOS__COMMIT_DATA_REQUEST__INIT;
	Perfetto__Protos__CommitDataRequest__ChunksToMove m =
	    PERFETTO__PROTOS__COMMIT_DATA_REQUEST__CHUNKS_TO_MOVE__INIT, *mp = &m;
	uint8_t		 chunk[128], *buf;
	uint16_t	 packets = shm_packets_make(1, 0);
	size_t		 n = 0, len = strlen(str);

	memcpy(chunk, &chunk_id, 4);
	memcpy(chunk + 4, &writer, 2);
	memcpy(chunk + 6, &packets, 2);
	n = 8;
	shm_write_redundant_varint(chunk + n, (uint32_t)(len + 5));
	n += 4;
	chunk[n++] = 0xa2; chunk[n++] = 0x38;		/* for_testing */
	chunk[n++] = (uint8_t)(len + 2);
	chunk[n++] = 0x0a; chunk[n++] = (uint8_t)len;	/* str */
	memcpy(chunk + n, str, len);
	n += len;
	m.has_target_buffer = 1;
	m.target_buffer = buffer;
	m.has_data = 1;
	m.data.data = chunk;
	m.data.len = n;
	req.n_chunks_to_move = 1;
	req.chunks_to_move = &mp;
	len = perfetto__protos__commit_data_request__get_packed_size(&req);
	buf = malloc(len);
	perfetto__protos__commit_data_request__pack(&req, buf);
	ck_assert_int_eq(tt_producer_call(p, TT_P_COMMIT, buf, len), 0);
	free(buf);
}

START_TEST(test_inline_chunks)
{
	struct tt_producer	 p;
	struct tt_consumer	 c;
	struct tt_instance	*in;
	struct shm_writer	*w;
	struct tt_trace		 t;
	Perfetto__Protos__TraceConfig *cfg = tt_config_new(256, 0, ds1);

	connect_producer(&p, "tt.producer", "tt.ds");
	ck_assert_int_eq(tt_consumer_connect(&c, base, td.consumer_sock), 0);
	ck_assert_int_eq(tt_consumer_enable(&c, cfg, -1), 0);
	in = wait_started(&p, "tt.ds");
	ck_assert_ptr_nonnull(in);
	w = tt_producer_writer(&p, in->target_buffer);
	commit_inline(&p, in->target_buffer, shm_writer_id(w), 0, "inline");
	/* A writer not registered (yet) is accepted, as upstream. */
	commit_inline(&p, in->target_buffer, 999, 0, "late");
	/* A writer registered for another buffer is not. */
	ck_assert_int_eq(tt_producer_writer_announce(&p, 998,
	    in->target_buffer + 1), 0);
	commit_inline(&p, in->target_buffer, 998, 0, "inline");
	disable_and_wait(&c);
	read_trace(&c, &t);
	ck_assert_uint_eq(tt_trace_count(&t, "inline", NULL, 0), 1);
	ck_assert_uint_eq(tt_trace_count(&t, "late", NULL, 0), 1);
	tt_trace_free(&t);
	tt_consumer_close(&c);
	tt_producer_close(&p);
	tt_config_free(cfg);
}
END_TEST

/* SMB geometry from the producer's hints, within upstream's limits. */
START_TEST(test_smb_hints)
{
	static const struct {
		uint32_t	size, page;
		size_t		want_size, want_page_kb;
	} cases[] = {
		{ 0, 0, 256 * 1024, 4 },			/* defaults */
		{ 1024 * 1024, 16384, 1024 * 1024, 16 },	/* honoured */
		{ 64 << 20, 65536, 32 << 20, 32 },		/* capped */
		{ 1024 * 1024, 12288, 256 * 1024, 4 },		/* invalid page */
		{ 6000, 4096, 256 * 1024, 4 },			/* not a multiple */
	};
	struct tt_producer	 p;
	struct tt_consumer	 c;
	static const char	*ds[] = { "tt.ds", NULL };
	Perfetto__Protos__TraceConfig *cfg = tt_config_new(64, 0, ds);
	size_t			 i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ck_assert_int_eq(tt_producer_connect_hints(&p, base,
		    td.producer_sock, "tt.hints", cases[i].size,
		    cases[i].page), 0);
		ck_assert_int_eq(tt_producer_register(&p, "tt.ds", 0, 0), 0);
		ck_assert_int_eq(tt_consumer_connect(&c, base,
		    td.consumer_sock), 0);
		ck_assert_int_eq(tt_consumer_enable(&c, cfg, -1), 0);
		ck_assert_ptr_nonnull(wait_started(&p, "tt.ds"));
		ck_assert_uint_eq(p.smb_size, cases[i].want_size);
		ck_assert_uint_eq(p.page_size_kb, cases[i].want_page_kb);
		disable_and_wait(&c);
		tt_consumer_close(&c);
		tt_producer_close(&p);
	}
	tt_config_free(cfg);
}
END_TEST

static Suite *
rpc_suite(void)
{
	Suite	*s = suite_create("traced_rpc");
	TCase	*tc = tcase_create("rpc");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_flush);
	tcase_add_test(tc, test_observe_and_notify);
	tcase_add_test(tc, test_deferred_start);
	tcase_add_test(tc, test_producer_filters);
	tcase_add_test(tc, test_late_producer_and_unregister);
	tcase_add_test(tc, test_buffers_by_name);
	tcase_add_test(tc, test_capabilities_and_unsupported);
	tcase_add_test(tc, test_clone_session);
	tcase_add_test(tc, test_producer_provided_smb);
	tcase_add_test(tc, test_inline_chunks);
	tcase_add_test(tc, test_smb_hints);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner	*sr = srunner_create(rpc_suite());
	int	 failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
