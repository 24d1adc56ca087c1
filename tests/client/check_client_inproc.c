/*
 * libfaro's in-process mode: no traced anywhere, the app writes its own
 * trace file. The file is decoded with our protos (framing, trusted
 * fields, service packets) and loaded by our trace_processor, whose
 * counts of slices, counters and arguments must be exact: packets that
 * span chunks (fragments, patches) included.
 */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <check.h>

#include <faro/faro.h>
#include <faro/data_source.h>
#include <faro/track_event.h>

#include "protos/perfetto/config/track_event/track_event_config.pb-c.h"
#include "cc_tp.h"
#include "traced_test.h"

#define INPROC_CATEGORIES(C)						\
	C(ia, "inproc.a", "enabled", NULL)				\
	C(ib, "inproc.b", "disabled by the config", NULL)		\
	C(islow, "inproc.slow", "tagged slow", "slow")

FARO_TE_CATEGORIES_DECLARE(INPROC_CATEGORIES)
FARO_TE_CATEGORIES_DEFINE(INPROC_CATEGORIES)

#define ROUNDS		300
#define THREADS		3	/* the main one and two more */
#define BIG_EVERY	50	/* a packet larger than a chunk */
#define BIG_LEN		20000
#define DS_PACKETS	100

static char		 dir[64], path[128];
static struct faro_track ctr;
static char		 big[BIG_LEN + 1];

static void
setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/faro-inproc.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	memset(big, 'x', BIG_LEN);
}

/* The test's trace: in $CC_KEEPDIR (kept, e.g. for other tools) or dir. */
static void
use_file(const char *name)
{
	snprintf(path, sizeof(path), "%s/%s", getenv("CC_KEEPDIR") ?
	    getenv("CC_KEEPDIR") : dir, name);
}

static void
teardown(void)
{
	faro_shutdown();
	if (getenv("CC_KEEPDIR") == NULL)
		unlink(path);
	rmdir(dir);
}

/* A TrackEventConfig that leaves inproc.b out, serialized. */
static uint8_t *
te_config(size_t *len)
{
	static char *disabled[] = { (char *)"inproc.b" };
	Perfetto__Protos__TrackEventConfig c;
	uint8_t *buf;

	perfetto__protos__track_event_config__init(&c);
	c.disabled_categories = disabled;
	c.n_disabled_categories = 1;
	*len = perfetto__protos__track_event_config__get_packed_size(&c);
	ck_assert_ptr_nonnull(buf = malloc(*len + 1));
	perfetto__protos__track_event_config__pack(&c, buf);
	return buf;
}

static void
init_inproc(void)
{
	struct faro_init_args a = { .struct_size = sizeof(a) };
	const char *cause = NULL;
	uint8_t *cfg;
	size_t len;

	cfg = te_config(&len);
	a.output = path;
	a.socket = "/nonexistent/producer";	/* never used */
	a.track_event_config = cfg;
	a.track_event_config_len = len;
	ck_assert_msg(faro_init(&a, &cause) == 0, "faro_init: %s", cause);
	free(cfg);
	ck_assert_int_eq(FARO_TE_REGISTER(INPROC_CATEGORIES), 0);
	faro_counter_track_init(&ctr, "inproc_ctr", NULL);
}

static void
emit(int rounds)
{
	for (int i = 0; i < rounds; i++) {
		FARO_TE_BEGIN(ia, "work", FARO_ARG_INT("i", i),
		    FARO_ARG_STRING("s", "v"));
		FARO_TE_INSTANT(ia, "tick");
		FARO_TE_INSTANT(ib, "disabled");
		FARO_TE_INSTANT(islow, "slow");
		if (i % BIG_EVERY == 0)
			FARO_TE_INSTANT(ia, "big", FARO_ARG_STRING("blob",
			    big));
		FARO_TE_END(ia);
		FARO_TE_COUNTER_INT(ia, &ctr, i);
	}
}

static void *
emit_thread(void *arg)
{
	faro_thread_track_name((const char *)arg);
	emit(ROUNDS);
	return NULL;
}

/* ---- a custom data source in the same session ---- */

static int ds_setups, ds_target;

static void *
ds_setup(struct faro_ds *ds, unsigned inst, const struct faro_ds_config *c,
    void *user)
{
	ds_setups++;
	ds_target = (int)c->target_buffer;
	return NULL;
}

static void
ds_write(struct faro_ds_ctx *ctx, void *arg)
{
	struct faro_msg *p = faro_ctx_packet_begin(ctx);

	faro_msg_uint(p, 8, faro_now_ns());
	faro_msg_nested_begin(p, 900);			/* for_testing */
	faro_msg_string(p, 1, "inproc");		/* str */
	faro_msg_uint(p, 2, *(uint32_t *)arg);		/* seq_value */
	faro_msg_nested_end(p);
	faro_ctx_packet_end(ctx);
}

static off_t
file_size(void)
{
	struct stat st;

	return stat(path, &st) == 0 ? st.st_size : -1;
}

START_TEST(test_inproc_file)
{
	struct faro_ds_args da = { .struct_size = sizeof(da) };
	const Perfetto__Protos__TracePacket *pk;
	static const char *const names[] = { "inproc-one", "inproc-two" };
	pthread_t th[THREADS - 1];
	struct faro_ds *ds;
	struct tt_trace t;
	off_t head;
	uint8_t *data;
	size_t len, nprod = 0;
	long nbig = THREADS * ((ROUNDS + BIG_EVERY - 1) / BIG_EVERY);

	use_file("inproc.pftrace");
	init_inproc();
	/* Registration starts the session's instance before returning. */
	ck_assert_uint_ne(faro_cat_ia.enabled, 0);
	ck_assert_uint_eq(faro_cat_ib.enabled, 0);
	ck_assert_uint_eq(faro_cat_islow.enabled, 0);
	ck_assert_int_eq(faro_connected(), 0);
	da.on_setup = ds_setup;
	ck_assert_ptr_nonnull(ds = faro_ds_register("inproc.ds", &da, NULL));
	ck_assert_uint_eq(faro_ds_active(ds), 1);
	ck_assert_int_eq(ds_setups, 1);
	ck_assert_int_eq(ds_target, 1);
	head = file_size();
	ck_assert_int_gt(head, 0);	/* the first clock snapshot */

	for (int i = 0; i < THREADS - 1; i++)
		ck_assert_int_eq(pthread_create(&th[i], NULL, emit_thread,
		    (void *)(uintptr_t)names[i]), 0);
	emit(ROUNDS);
	for (uint32_t i = 0; i < DS_PACKETS; i++)
		faro_ds_trace(ds, ds_write, &i);
	for (int i = 0; i < THREADS - 1; i++)
		pthread_join(th[i], NULL);
	/* Full chunks reach the file while the app runs. */
	for (int i = 0; i < 100 && file_size() <= head + 100000; i++)
		usleep(10000);
	ck_assert_int_gt(file_size(), head + 100000);
	faro_shutdown();

	ck_assert_int_eq(tt_read_file(path, &data, &len), 0);
	ck_assert_int_eq(tt_trace_parse(&t, data, len), 0);
	free(data);
	ck_assert_int_eq(t.bad_trusted, 0);
	ck_assert_uint_eq(tt_trace_count(&t, "inproc", NULL, 0), DS_PACKETS);
	/* Service packets first and last: clock snapshots, then stats. */
	pk = t.trace->packet[0];
	ck_assert_int_eq(pk->data_case,
	    PERFETTO__PROTOS__TRACE_PACKET__DATA_CLOCK_SNAPSHOT);
	ck_assert_uint_eq(pk->trusted_packet_sequence_id, 1);
	ck_assert_int_eq(t.trace->packet[t.npackets - 2]->data_case,
	    PERFETTO__PROTOS__TRACE_PACKET__DATA_CLOCK_SNAPSHOT);
	ck_assert_int_eq(t.trace->packet[t.npackets - 1]->data_case,
	    PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACE_STATS);
	for (size_t i = 1; i + 2 < t.npackets; i++) {
		pk = t.trace->packet[i];
		ck_assert_uint_gt(pk->trusted_packet_sequence_id, 1);
		ck_assert_int_eq(pk->trusted_pid, getpid());
		ck_assert(!pk->has_previous_packet_dropped);
		nprod++;
	}
	ck_assert_uint_gt(nprod, THREADS * ROUNDS * 4);
	tt_trace_free(&t);

	ck_assert_int_eq(cc_tp_query(path, "select count(*) from slice "
	    "where name = 'work' and dur > 0"), THREADS * ROUNDS);
	ck_assert_int_eq(cc_tp_query(path, "select count(*) from slice "
	    "where name = 'tick' and dur = 0"), THREADS * ROUNDS);
	ck_assert_int_eq(cc_tp_query(path, "select count(*) from slice "
	    "where name in ('disabled', 'slow')"), 0);
	ck_assert_int_eq(cc_tp_query(path, "select count(*) from slice"),
	    THREADS * ROUNDS * 2 + nbig);
	/* Each blob arrives whole, from fragments over several chunks. */
	ck_assert_int_eq(cc_tp_query(path, "select count(*) from args a "
	    "join slice s using(arg_set_id) where s.name = 'big' and "
	    "a.key = 'debug.blob' and length(a.string_value) = 20000"),
	    nbig);
	ck_assert_int_eq(cc_tp_query(path, "select count(*) from args a "
	    "join slice s using(arg_set_id)"), THREADS * ROUNDS * 2 + nbig);
	ck_assert_int_eq(cc_tp_query(path, "select count(*) from counter c "
	    "join counter_track t on c.track_id = t.id where "
	    "t.name = 'inproc_ctr'"), THREADS * ROUNDS);
	ck_assert_int_eq(cc_tp_query(path, "select sum(value) from counter c "
	    "join counter_track t on c.track_id = t.id where "
	    "t.name = 'inproc_ctr'"), THREADS * (ROUNDS - 1) * ROUNDS / 2);
	ck_assert_int_eq(cc_tp_query(path, "select count(distinct utid) from "
	    "thread_track t join slice s on s.track_id = t.id"), THREADS);
	ck_assert_int_eq(cc_tp_query(path, "select count(*) from thread "
	    "where name in ('inproc-one', 'inproc-two')"), 2);
	ck_assert_int_eq(cc_tp_query(path, "select count(*) from process "
	    "where name like 'check_client%'"), 1);
	ck_assert_int_eq(cc_tp_query(path, "select count(*) from stats where "
	    "name = 'traced_buf_trace_writer_packet_loss' and value > 0"), 0);
}
END_TEST

/* FARO_OUTPUT alone turns an unchanged app into an in-process one. */
START_TEST(test_inproc_env)
{
	struct faro_init_args a = { .struct_size = sizeof(a) };
	struct tt_trace t;
	uint8_t *data;
	size_t len;

	use_file("inproc-env.pftrace");
	ck_assert_int_eq(setenv("FARO_OUTPUT", path, 1), 0);
	a.socket = "/nonexistent/producer";
	ck_assert_int_eq(faro_init(&a, NULL), 0);
	unsetenv("FARO_OUTPUT");
	ck_assert_int_eq(FARO_TE_REGISTER(INPROC_CATEGORIES), 0);
	faro_counter_track_init(&ctr, "inproc_ctr", NULL);
	/* No config: every category but the slow one. */
	ck_assert_uint_ne(faro_cat_ib.enabled, 0);
	ck_assert_uint_eq(faro_cat_islow.enabled, 0);
	emit(10);
	faro_shutdown();
	ck_assert_int_eq(tt_read_file(path, &data, &len), 0);
	ck_assert_int_eq(tt_trace_parse(&t, data, len), 0);
	free(data);
	ck_assert_int_eq(t.bad_trusted, 0);
	tt_trace_free(&t);
	ck_assert_int_eq(cc_tp_query(path, "select count(*) from slice where "
	    "name = 'disabled'"), 10);
	ck_assert_int_eq(cc_tp_query(path, "select count(*) from slice where "
	    "name = 'work'"), 10);
}
END_TEST

/* Bad settings fail faro_init cleanly; a good one works after. */
START_TEST(test_inproc_bad_args)
{
	struct faro_init_args a = { .struct_size = sizeof(a) };
	static const uint8_t junk[] = { 0x0a, 0x7f, 0x01 };
	char bad[160];
	const char *cause = NULL;

	use_file("inproc-bad.pftrace");
	a.output = path;
	a.track_event_config = junk;
	a.track_event_config_len = sizeof(junk);
	ck_assert_int_eq(faro_init(&a, &cause), -1);
	ck_assert_ptr_nonnull(cause);
	snprintf(bad, sizeof(bad), "%s/no/such/dir/f", dir);
	a.output = bad;
	a.track_event_config = NULL;
	a.track_event_config_len = 0;
	ck_assert_int_eq(faro_init(&a, &cause), -1);
	a.output = path;
	ck_assert_int_eq(faro_init(&a, &cause), 0);
	faro_shutdown();
	ck_assert_int_gt(file_size(), 0);
}
END_TEST

static Suite *
inproc_suite(void)
{
	Suite *s = suite_create("client_inproc");
	TCase *tc = tcase_create("inproc");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_inproc_file);
	tcase_add_test(tc, test_inproc_env);
	tcase_add_test(tc, test_inproc_bad_args);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(inproc_suite());
	int nfail;

	srunner_run_all(sr, CK_NORMAL);
	nfail = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nfail == 0 ? 0 : 1;
}
