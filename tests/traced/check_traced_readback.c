/*
 * What a session's read does to packets, end to end through a real
 * traced: TraceConfig.trace_filter on ReadBuffers and write_into_file,
 * with its FilterStats. (Compression is in check_traced.)
 */
#include "config.h"

#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libshm/pbw.h"
#include "traced.h"
#include "tt_fixture.h"

static const char *ds1[] = { "tt.ds", NULL };

/* The producer's writer in a session of cfg. */
static struct shm_writer *
start_session(struct tt_producer *p, struct tt_consumer *c,
    Perfetto__Protos__TraceConfig *cfg, int fd)
{
	return tt_producer_writer(p, start_ds_session(p, c, cfg,
	    fd)->target_buffer);
}

/* Bytecode words, then their checksum, as varints in malloc'd memory. */
static void
set_bytecode(ProtobufCBinaryData *d, const uint32_t *w, size_t n)
{
	d->data = malloc(5 * (n + 1));
	d->len = 0;
	for (size_t i = 0; i < n; i++)
		d->len = (size_t)(pbw_put_varint(d->data + d->len, w[i]) -
		    d->data);
	d->len = (size_t)(pbw_put_varint(d->data + d->len,
	    trace_filter_checksum(w, n)) - d->data);
}

#define F(id, op)	((uint32_t)(id) << 3 | (op))

/*
 * Trace.packet -> TracePacket: trusted_uid, timestamp, trusted sequence
 * id, trusted_pid, for_testing -> TestEvent: str (a filtered string),
 * payload -> TestPayload: nothing. seq_value and everything else go.
 */
static const uint32_t prog[] = {
	F(1, 3), 1, 0,
	F(3, 1), F(8, 1), F(10, 1), F(79, 1), F(900, 3), 2, 0,
	F(1, 4), F(5, 3), 3, 0,
	0,
};

static Perfetto__Protos__TraceConfig__TraceFilter *
filter_new(int v2)
{
	Perfetto__Protos__TraceConfig__TraceFilter *f;

	f = calloc(1, sizeof(*f));
	perfetto__protos__trace_config__trace_filter__init(f);
	if (v2) {
		f->has_bytecode_v2 = 1;
		set_bytecode(&f->bytecode_v2, prog,
		    sizeof(prog) / sizeof(prog[0]));
	} else {
		f->has_bytecode = 1;
		set_bytecode(&f->bytecode, prog, sizeof(prog) / sizeof(prog[0]));
	}
	return f;
}

static void
check_filtered(const struct tt_trace *t, size_t want, const char *str)
{
	const Perfetto__Protos__TraceStats__FilterStats *fs = NULL;
	size_t	i, n = 0;

	for (i = 0; i < t->npackets; i++) {
		Perfetto__Protos__TracePacket *pk = t->trace->packet[i];

		if (pk->data_case ==
		    PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACE_STATS)
			fs = pk->trace_stats->filter_stats;
		if (pk->data_case !=
		    PERFETTO__PROTOS__TRACE_PACKET__DATA_FOR_TESTING)
			continue;
		n++;
		ck_assert_str_eq(pk->for_testing->str, str);
		ck_assert_int_eq(pk->for_testing->has_seq_value, 0);
		/* the payload is kept, its fields are not */
		ck_assert_ptr_nonnull(pk->for_testing->payload);
		ck_assert_ptr_null(pk->for_testing->payload->single_string);
		ck_assert_uint_ge(pk->timestamp, 1000);
		ck_assert_int_eq(pk->trusted_pid, (int32_t)getpid());
	}
	ck_assert_uint_eq(n, want);
	ck_assert_int_eq(t->bad_trusted, 0);
	ck_assert_uint_eq(t->nconfig, 0);	/* not in the allow-list */
	ck_assert_uint_eq(t->nstats, 1);	/* passed through, as upstream */
	ck_assert_ptr_nonnull(fs);
	ck_assert_uint_ge(fs->input_packets, want);
	ck_assert_uint_eq(fs->errors, 0);
	ck_assert_uint_gt(fs->input_bytes, fs->output_bytes + want * 100);
	ck_assert_uint_gt(fs->time_taken_ns, 0);
	ck_assert_uint_eq(fs->n_bytes_discarded_per_buffer, 1);
	/* each packet lost its 100-byte payload string and seq_value */
	ck_assert_uint_ge(fs->bytes_discarded_per_buffer[0], want * 100);
}

/* bytecode (v1) on ReadBuffers. */
START_TEST(test_filter_read)
{
	struct tt_producer	 p;
	struct tt_consumer	 c;
	struct shm_writer	*w;
	struct tt_trace		 t;
	Perfetto__Protos__TraceConfig *cfg = tt_config_new(1024, 0, ds1);

	cfg->trace_filter = filter_new(0);
	w = start_session(&p, &c, cfg, -1);
	tt_write_packets(w, "flt", 0, 300, 100);
	tt_producer_commit(&p, w);
	disable_and_wait(&c);
	read_trace(&c, &t);
	check_filtered(&t, 300, "flt");
	tt_trace_free(&t);
	tt_consumer_close(&c);
	tt_producer_close(&p);
	tt_config_free(cfg);
}
END_TEST

/* bytecode_v2 with a string rule, into a file. */
START_TEST(test_filter_file)
{
	struct tt_producer	 p;
	struct tt_consumer	 c;
	struct shm_writer	*w;
	struct tt_trace		 t;
	Perfetto__Protos__TraceConfig *cfg = tt_config_new(1024, 0, ds1);
	Perfetto__Protos__TraceConfig__TraceFilter__StringFilterRule *r;
	char			 path[400];
	uint8_t			*data;
	size_t			 len;
	int			 fd;

	cfg->trace_filter = filter_new(1);
	cfg->trace_filter->string_filter_chain = calloc(1,
	    sizeof(*cfg->trace_filter->string_filter_chain));
	perfetto__protos__trace_config__trace_filter__string_filter_chain__init(
	    cfg->trace_filter->string_filter_chain);
	r = calloc(1, sizeof(*r));
	perfetto__protos__trace_config__trace_filter__string_filter_rule__init(
	    r);
	r->has_policy = 1;
	r->policy =
	    PERFETTO__PROTOS__TRACE_CONFIG__TRACE_FILTER__STRING_FILTER_POLICY__SFP_MATCH_REDACT_GROUPS;
	r->regex_pattern = strdup("user=(.*)");
	cfg->trace_filter->string_filter_chain->rules = calloc(1,
	    sizeof(r));
	cfg->trace_filter->string_filter_chain->rules[0] = r;
	cfg->trace_filter->string_filter_chain->n_rules = 1;
	cfg->has_write_into_file = cfg->write_into_file = 1;
	snprintf(path, sizeof(path), "%s/filtered.pftrace", td.dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ne(fd, -1);
	w = start_session(&p, &c, cfg, fd);
	close(fd);
	tt_write_packets(w, "user=alice", 0, 200, 100);
	tt_producer_commit(&p, w);
	disable_and_wait(&c);
	ck_assert_int_eq(tt_read_file(path, &data, &len), 0);
	ck_assert_int_eq(tt_trace_parse(&t, data, len), 0);
	check_filtered(&t, 200, "user=P60RE");
	ck_assert_ptr_null(memmem(data, len, "alice", 5));
	tt_trace_free(&t);
	free(data);
	tt_consumer_close(&c);
	tt_producer_close(&p);
	tt_config_free(cfg);
}
END_TEST

/* A corrupt bytecode refuses the session, saying why; traced lives on. */
START_TEST(test_filter_refused)
{
	struct tt_consumer	 c;
	Perfetto__Protos__TraceConfig *cfg = tt_config_new(1024, 0, ds1);

	cfg->trace_filter = filter_new(0);
	cfg->trace_filter->bytecode.data[cfg->trace_filter->bytecode.len - 1]
	    ^= 0x01;
	ck_assert_int_eq(tt_consumer_connect(&c, base, td.consumer_sock), 0);
	ck_assert_int_eq(tt_consumer_enable_wait_error(&c, cfg, -1, 5000), 0);
	ck_assert_msg(strstr(c.enable_error, "checksum") != NULL, "%s",
	    c.enable_error);
	ck_assert_int_eq(wait_state(&c, -1, 0), 0);
	tt_consumer_close(&c);
	tt_config_free(cfg);
}
END_TEST

/*
 * A clone is filtered like its source (_i == 0), unless it asks for
 * skip_trace_filter (_i == 1), as upstream.
 */
START_TEST(test_filter_clone)
{
	struct tt_producer	 p;
	struct tt_consumer	 c, c2;
	struct shm_writer	*w;
	struct tt_trace		 t;
	Perfetto__Protos__TraceConfig *cfg = tt_config_new(1024, 0, ds1);
	Perfetto__Protos__CloneSessionRequest req =
	    PERFETTO__PROTOS__CLONE_SESSION_REQUEST__INIT;
	Perfetto__Protos__CloneSessionResponse *res;
	size_t			 i, nseq = 0;

	cfg->trace_filter = filter_new(0);
	cfg->unique_session_name = strdup("filtered");
	w = start_session(&p, &c, cfg, -1);
	tt_write_packets(w, "cl", 0, 20, 10);
	tt_producer_commit(&p, w);
	ck_assert_int_eq(tt_consumer_connect(&c2, base, td.consumer_sock), 0);
	req.selector_case =
	    PERFETTO__PROTOS__CLONE_SESSION_REQUEST__SELECTOR_UNIQUE_SESSION_NAME;
	req.unique_session_name = (char *)"filtered";
	req.has_skip_trace_filter = 1;
	req.skip_trace_filter = _i;
	res = clone_session(&c2, &req);
	ck_assert_int_eq(res->success, 1);
	perfetto__protos__clone_session_response__free_unpacked(res, NULL);
	read_trace(&c2, &t);
	ck_assert_uint_eq(tt_trace_count(&t, "cl", NULL, 0), 20);
	for (i = 0; i < t.npackets; i++)
		if (t.trace->packet[i]->data_case ==
		    PERFETTO__PROTOS__TRACE_PACKET__DATA_FOR_TESTING &&
		    t.trace->packet[i]->for_testing->has_seq_value)
			nseq++;
	ck_assert_uint_eq(nseq, _i ? 20 : 0);
	ck_assert_uint_eq(t.nconfig, _i ? 1 : 0);
	tt_trace_free(&t);
	tt_consumer_close(&c2);
	tt_consumer_close(&c);
	tt_producer_close(&p);
	tt_config_free(cfg);
}
END_TEST

static Suite *
readback_suite(void)
{
	Suite	*s = suite_create("traced_readback");
	TCase	*tc = tcase_create("readback");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_filter_read);
	tcase_add_test(tc, test_filter_file);
	tcase_add_test(tc, test_filter_refused);
	tcase_add_loop_test(tc, test_filter_clone, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner	*sr = srunner_create(readback_suite());
	int	 failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
