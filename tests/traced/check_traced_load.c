/*
 * traced under load (tt_load.h), repeated: libfaro producers writing
 * slices without pause and raw producers whose writers register late,
 * beside CPU-bound processes. In a discard buffer with room, what each
 * producer misses is exactly what it says it dropped, and nothing with
 * the stall policy; in a ring buffer that wraps, chunks written are
 * chunks read plus chunks overwritten. Producers registered before the
 * session, started by it all at once, lose nothing to the time between
 * their SetupDataSource and StartDataSource (which upstream's SDK v14
 * drops without a count).
 */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include <check.h>

#include "traced_test.h"
#include "tt_load.h"

#define RUNS	3

static struct tt_traced td;

static void
setup(void)
{
	signal(SIGPIPE, SIG_IGN);
	ck_assert_int_eq(tt_traced_start(&td, NULL), 0);
}

static void
teardown(void)
{
	ck_assert_int_eq(tt_traced_stop(&td), 0);
}

static void
load(const struct tt_load_opts *o, struct tt_load_result *r)
{
	char	err[256];

	ck_assert_msg(tt_load_run(&td, o, r, err, sizeof(err)) == 0, "%s",
	    err);
	ck_assert_uint_eq(r->nproducers, o->nfaro + o->nraw + o->nearly);
	ck_assert_uint_eq(r->duplicates, 0);
	ck_assert_uint_eq(r->bad_trusted, 0);
	ck_assert_uint_eq(r->trace_chunks_discarded, 0);
	ck_assert_int_eq(tt_traced_alive(&td), 1);
}

/* Each producer: what is missing is exactly what it says it dropped. */
static void
load_exact(const struct tt_load_result *r)
{
	int	i;

	for (i = 0; i < r->nproducers; i++)
		ck_assert_msg(r->p[i].found + r->p[i].dropped ==
		    r->p[i].written,
		    "producer %d (%s): %llu of %llu, says it dropped %llu", i,
		    r->p[i].early ? "early" : r->p[i].raw ? "raw" : "libfaro",
		    (unsigned long long)r->p[i].found,
		    (unsigned long long)r->p[i].written,
		    (unsigned long long)r->p[i].dropped);
	/* The service saw every loss the writers marked. */
	if (r->dropped > 0)
		ck_assert_uint_gt(r->writer_loss_marks, 0);
}

/*
 * libfaro's default drop policy (upstream's for TrackEvent): a burst
 * may outrun the SMB, and then every lost event is accounted for. The
 * raw producers stall instead and lose nothing.
 */
START_TEST(test_discard_exact)
{
	struct tt_load_opts	o = { .nfaro = 3, .nraw = 2, .nhogs = 2,
				    .slices = 50000, .packets = 50000,
				    .buffer_kb = 64 * 1024, .args = 1 };
	struct tt_load_result	r;
	int			i;

	load(&o, &r);
	load_exact(&r);
	for (i = o.nfaro; i < r.nproducers; i++)
		ck_assert_uint_eq(r.p[i].found, r.p[i].written);
	ck_assert_uint_eq(r.chunks_discarded, 0);
	ck_assert_uint_eq(r.chunks_overwritten, 0);
	ck_assert_uint_eq(r.chunks_written, r.chunks_read);
}
END_TEST

/* With the stall policy, a discard buffer with room keeps everything. */
START_TEST(test_discard_stall_keeps_all)
{
	struct tt_load_opts	o = { .nfaro = 3, .nraw = 2, .nhogs = 2,
				    .slices = 50000, .packets = 50000,
				    .buffer_kb = 64 * 1024, .stall = 1,
				    .args = 1 };
	struct tt_load_result	r;

	load(&o, &r);
	load_exact(&r);
	ck_assert_uint_eq(r.dropped, 0);
	ck_assert_uint_eq(r.found, r.written);
	ck_assert_uint_eq(r.chunks_written, r.chunks_read);
}
END_TEST

START_TEST(test_ring_adds_up)
{
	struct tt_load_opts	o = { .nfaro = 2, .nraw = 2, .nhogs = 2,
				    .slices = 20000, .packets = 20000,
				    .buffer_kb = 1024, .ring = 1, .args = 1 };
	struct tt_load_result	r;
	int			i;

	load(&o, &r);
	ck_assert_uint_gt(r.chunks_overwritten, 0);
	ck_assert_uint_eq(r.chunks_written, r.chunks_read +
	    r.chunks_overwritten);
	for (i = 0; i < r.nproducers; i++) {
		/* Overwritten data is missing, never made up. */
		ck_assert_uint_le(r.p[i].found + r.p[i].dropped,
		    r.p[i].written);
	}
	ck_assert_uint_gt(r.found, 0);
	ck_assert_uint_eq(r.duplicates, 0);
}
END_TEST

/*
 * Several apps connected before the session, each writing the moment it
 * is set up (as an app on upstream's SDK v14), CPU hogs beside: each
 * reads its setup and start at once, so none writes into the window the
 * SDK drops, and every packet is in the trace.
 */
START_TEST(test_start_at_once)
{
	struct tt_load_opts	o = { .nraw = 1, .nearly = 6, .nhogs = 2,
				    .packets = 20000, .buffer_kb = 64 * 1024 };
	struct tt_load_result	r;
	int			i;

	load(&o, &r);
	load_exact(&r);
	for (i = 0; i < r.nproducers; i++)
		ck_assert_msg(r.p[i].found == r.p[i].written,
		    "producer %d (%s): %llu of %llu", i, r.p[i].early ?
		    "early" : "raw", (unsigned long long)r.p[i].found,
		    (unsigned long long)r.p[i].written);
	ck_assert_uint_eq(r.dropped, 0);
	ck_assert_uint_eq(r.chunks_written, r.chunks_read);
}
END_TEST

static Suite *
load_suite(void)
{
	Suite	*s = suite_create("traced_load");
	TCase	*tc = tcase_create("load");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_discard_exact, 0, RUNS);
	tcase_add_loop_test(tc, test_discard_stall_keeps_all, 0, RUNS);
	tcase_add_test(tc, test_ring_adds_up);
	tcase_add_loop_test(tc, test_start_at_once, 0, RUNS);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner	*sr = srunner_create(load_suite());
	int	 failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
