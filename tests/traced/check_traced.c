/*
 * traced end to end: a real daemon, a test producer writing through its
 * SMB, a test consumer reading back or streaming to a file.
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/wait.h>

#include <check.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "tt_fixture.h"
#include "protos/perfetto/ipc/consumer_port.pb-c.h"

/* Producer with data source "tt.ds" started by a consumer session. */
static void
start_session(struct tt_producer *p, struct tt_consumer *c,
    Perfetto__Protos__TraceConfig *cfg, int fd)
{
	ck_assert_uint_gt(start_ds_session(p, c, cfg, fd)->target_buffer, 0);
}

START_TEST(test_end_to_end_read)
{
	struct tt_producer	 p;
	struct tt_consumer	 c;
	struct tt_instance	*in;
	struct shm_writer	*w;
	struct tt_trace		 t;
	static const char	*ds[] = { "tt.ds", NULL };
	Perfetto__Protos__TraceConfig *cfg = tt_config_new(1024, 0, ds);
	uint8_t			*trace, seen[300];
	size_t			 len, i;

	start_session(&p, &c, cfg, -1);
	ck_assert_uint_eq(p.smb_size, 256 * 1024);	/* hints were 0 */
	ck_assert_uint_eq(p.page_size_kb, 4);
	in = tt_producer_instance(&p, "tt.ds");
	w = tt_producer_writer(&p, in->target_buffer);
	ck_assert_ptr_nonnull(w);
	tt_write_packets(w, "e2e", 0, 300, 100);
	tt_producer_commit(&p, w);
	disable_and_wait(&c);
	ck_assert_int_eq(in->stopped, 1);

	ck_assert_int_eq(tt_consumer_read(&c, &trace, &len), 0);
	ck_assert_int_eq(tt_trace_parse(&t, trace, len), 0);
	memset(seen, 0, sizeof(seen));
	ck_assert_uint_eq(tt_trace_count(&t, "e2e", seen, 300), 300);
	for (i = 0; i < 300; i++)
		ck_assert_int_eq(seen[i], 1);
	ck_assert_int_eq(t.bad_trusted, 0);
	ck_assert_uint_eq(t.nconfig, 1);
	ck_assert_uint_ge(t.nclock, 1);
	ck_assert_uint_eq(t.nsysinfo, 1);
	ck_assert_uint_eq(t.nstats, 1);
	ck_assert_uint_eq(t.nuuid, 1);
	ck_assert_uint_ge(t.nsync, 1);
	ck_assert_uint_ge(t.nservice_events, 2);
	/* Producer packets carry the producer's uid and a sequence > 1. */
	for (i = 0; i < t.npackets; i++) {
		Perfetto__Protos__TracePacket *pk = t.trace->packet[i];

		if (pk->data_case !=
		    PERFETTO__PROTOS__TRACE_PACKET__DATA_FOR_TESTING)
			continue;
		ck_assert_int_eq(pk->trusted_uid, (int32_t)getuid());
		ck_assert_uint_gt(pk->trusted_packet_sequence_id, 1);
		ck_assert_int_eq(pk->trusted_pid, (int32_t)getpid());
	}
	tt_trace_free(&t);
	free(trace);

	/* A second read finds nothing new but is still a valid stream. */
	ck_assert_int_eq(tt_consumer_read(&c, &trace, &len), 0);
	ck_assert_int_eq(tt_trace_parse(&t, trace, len), 0);
	ck_assert_uint_eq(t.ntest, 0);
	tt_trace_free(&t);
	free(trace);
	ck_assert_int_eq(tt_consumer_call(&c, CM_FREE, NULL, -1, NULL, 0),
	    0);
	tt_consumer_close(&c);
	tt_producer_close(&p);
	tt_config_free(cfg);
}
END_TEST

START_TEST(test_write_into_file)
{
	struct tt_producer	 p;
	struct tt_consumer	 c;
	struct tt_instance	*in;
	struct shm_writer	*w;
	struct tt_trace		 t;
	struct stat		 st;
	static const char	*ds[] = { "tt.ds", NULL };
	Perfetto__Protos__TraceConfig *cfg = tt_config_new(256, 0, ds);
	char			 path[400];
	uint8_t			*trace, seen[2000];
	size_t			 len, i;
	off_t			 mid;
	int			 fd;

	/* 4 x the buffer, written in bursts: only streaming keeps it all. */
	cfg->has_write_into_file = 1;
	cfg->write_into_file = 1;
	cfg->has_file_write_period_ms = 1;
	cfg->file_write_period_ms = 100;
	snprintf(path, sizeof(path), "%s/out.pftrace", td.dir);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ne(fd, -1);
	start_session(&p, &c, cfg, fd);
	close(fd);
	in = tt_producer_instance(&p, "tt.ds");
	w = tt_producer_writer(&p, in->target_buffer);
	for (i = 0; i < 20; i++) {
		tt_write_packets(w, "file", i * 100, 100, 500);
		tt_producer_commit(&p, w);
		tt_spin(base, 60);
	}
	/* Periodic writes happen while tracing. */
	WAIT_UNTIL(stat(path, &st) == 0 && st.st_size > 0);
	mid = st.st_size;
	ck_assert_int_gt(mid, 0);
	disable_and_wait(&c);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_ge(st.st_size, mid);

	ck_assert_int_eq(tt_read_file(path, &trace, &len), 0);
	ck_assert_int_eq(tt_trace_parse(&t, trace, len), 0);
	memset(seen, 0, sizeof(seen));
	ck_assert_uint_eq(tt_trace_count(&t, "file", seen, 2000), 2000);
	ck_assert_uint_eq(t.nstats, 1);
	ck_assert_uint_eq(t.nconfig, 1);
	ck_assert_int_eq(t.bad_trusted, 0);
	tt_trace_free(&t);
	free(trace);
	tt_consumer_close(&c);
	tt_producer_close(&p);
	tt_config_free(cfg);
}
END_TEST

/* Packets larger than a chunk, a page and an IPC frame. */
START_TEST(test_big_packets)
{
	struct tt_producer	 p;
	struct tt_consumer	 c;
	struct tt_instance	*in;
	struct shm_writer	*w;
	struct tt_trace		 t;
	static const char	*ds[] = { "tt.ds", NULL };
	Perfetto__Protos__TraceConfig *cfg = tt_config_new(4096, 0, ds);
	size_t			 i;

	start_session(&p, &c, cfg, -1);
	in = tt_producer_instance(&p, "tt.ds");
	w = tt_producer_writer(&p, in->target_buffer);
	/* One at a time: each nearly fills the 256 KiB SMB. */
	for (i = 0; i < 3; i++) {
		tt_write_packets(w, "big", (uint32_t)i, 1, 200 * 1024);
		tt_producer_commit(&p, w);
	}
	tt_write_packets(w, "big", 3, 2, 10);
	tt_producer_commit(&p, w);
	disable_and_wait(&c);
	read_trace(&c, &t);
	ck_assert_uint_eq(tt_trace_count(&t, "big", NULL, 0), 5);
	for (i = 0; i < t.npackets; i++) {
		Perfetto__Protos__TracePacket *pk = t.trace->packet[i];

		if (pk->data_case ==
		    PERFETTO__PROTOS__TRACE_PACKET__DATA_FOR_TESTING &&
		    pk->for_testing->seq_value < 3)
			ck_assert_uint_eq(strlen(pk->for_testing->payload->
			    single_string), 200 * 1024);
	}
	tt_trace_free(&t);
	tt_consumer_close(&c);
	tt_producer_close(&p);
	tt_config_free(cfg);
}
END_TEST

/* SIGTERM with a session streaming to a file: the file is complete. */
START_TEST(test_sigterm_finishes_file)
{
	struct tt_producer	 p;
	struct tt_consumer	 c;
	struct tt_instance	*in;
	struct shm_writer	*w;
	struct tt_trace		 t;
	static const char	*ds[] = { "tt.ds", NULL };
	Perfetto__Protos__TraceConfig *cfg = tt_config_new(1024, 0, ds);
	char			 path[400];
	uint8_t			*trace;
	size_t			 len;
	int			 fd;

	cfg->has_write_into_file = cfg->write_into_file = 1;
	cfg->has_file_write_period_ms = 1;
	cfg->file_write_period_ms = 60000;	/* only the end writes */
	snprintf(path, sizeof(path), "/tmp/tt-sigterm.%d.pftrace",
	    (int)getpid());
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ne(fd, -1);
	start_session(&p, &c, cfg, fd);
	close(fd);
	in = tt_producer_instance(&p, "tt.ds");
	w = tt_producer_writer(&p, in->target_buffer);
	tt_write_packets(w, "term", 0, 200, 100);
	tt_producer_commit(&p, w);
	ck_assert_int_eq(tt_traced_stop(&td), 0);
	ck_assert_int_eq(tt_read_file(path, &trace, &len), 0);
	ck_assert_int_eq(tt_trace_parse(&t, trace, len), 0);
	ck_assert_uint_eq(tt_trace_count(&t, "term", NULL, 0), 200);
	ck_assert_uint_eq(t.nstats, 1);
	tt_trace_free(&t);
	free(trace);
	unlink(path);
	tt_consumer_close(&c);
	tt_producer_close(&p);
	tt_config_free(cfg);
	/* A fresh one for the fixture's teardown. */
	ck_assert_int_eq(tt_traced_start(&td, NULL), 0);
}
END_TEST

/*
 * TraceConfig.compression: the read yields compressed packet batches,
 * deflate (_i == 0) or zstd (_i == 1: deflate is set too, zstd wins, the
 * higher field number, as upstream).
 */
START_TEST(test_compression)
{
	struct tt_producer	 p;
	struct tt_consumer	 c;
	struct tt_instance	*in;
	struct shm_writer	*w;
	struct tt_trace		 t;
	static const char	*ds[] = { "tt.ds", NULL };
	Perfetto__Protos__TraceConfig *cfg = tt_config_new(1024, 0, ds);
	size_t			 ndeflate, nzstd;

	cfg->compression = calloc(1, sizeof(*cfg->compression));
	perfetto__protos__trace_config__compression_config__init(
	    cfg->compression);
	cfg->compression->deflate = calloc(1,
	    sizeof(*cfg->compression->deflate));
	perfetto__protos__trace_config__compression_config__deflate__init(
	    cfg->compression->deflate);
	if (_i == 1) {
		cfg->compression->zstd = calloc(1,
		    sizeof(*cfg->compression->zstd));
		perfetto__protos__trace_config__compression_config__zstd__init(
		    cfg->compression->zstd);
		cfg->compression->zstd->has_level = 1;
		cfg->compression->zstd->level = 19;
	}
	start_session(&p, &c, cfg, -1);
	in = tt_producer_instance(&p, "tt.ds");
	w = tt_producer_writer(&p, in->target_buffer);
	tt_write_packets(w, "zz", 0, 500, 200);
	tt_producer_commit(&p, w);
	disable_and_wait(&c);
	read_trace(&c, &t);
	ck_assert_uint_eq(t.ntest, 0);		/* all inside the batches */
	ck_assert_int_eq(tt_trace_count_compressed(&t, "zz", &ndeflate,
	    &nzstd), 500);
	ck_assert_uint_ge(_i ? nzstd : ndeflate, 1);
	ck_assert_uint_eq(_i ? ndeflate : nzstd, 0);
	tt_trace_free(&t);
	tt_consumer_close(&c);
	tt_producer_close(&p);
	tt_config_free(cfg);
}
END_TEST

static Suite *
traced_suite(void)
{
	Suite	*s = suite_create("traced");
	TCase	*tc = tcase_create("end_to_end");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_end_to_end_read);
	tcase_add_test(tc, test_write_into_file);
	tcase_add_test(tc, test_big_packets);
	tcase_add_test(tc, test_sigterm_finishes_file);
	tcase_add_loop_test(tc, test_compression, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner	*sr = srunner_create(traced_suite());
	int	 failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
