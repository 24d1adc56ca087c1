/*
 * check_tplive: trace_processor --live against a real traced and a real
 * producer. The producer writes TrackEvent slices in rounds; between
 * rounds the /metrics page (fetched over HTTP) must show the counters
 * moving: packets received, slices per name. A small window must evict
 * old packets and keep memory bounded.
 */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/buffer.h>

#include "tt_fixture.h"
#include "http_client.h"
#include "metrics/metrics.h"
#include "libshm/pbw.h"
#include "rpc/httpd.h"
#include "rpc/live.h"
#include "rpc/rpc.h"
#include "tp.h"

/* Writes a thread track and n "work" slices of dur ns each from t. */
static void
write_slices(struct shm_writer *w, uint64_t t, int n, uint64_t dur)
{
	struct pbw *b;
	int i;

	b = shm_writer_packet_begin(w);
	pbw_nested_begin(b, 60);		/* track_descriptor */
	pbw_varint(b, 1, 42);			/* uuid */
	pbw_nested_begin(b, 4);			/* thread */
	pbw_varint(b, 1, 7);			/* pid */
	pbw_varint(b, 2, 8);			/* tid */
	pbw_string(b, 5, "worker");
	pbw_nested_end(b);
	pbw_nested_end(b);
	shm_writer_packet_end(w);
	for (i = 0; i < n; i++) {
		b = shm_writer_packet_begin(w);
		pbw_varint(b, 8, t + (uint64_t)i * 2 * dur);	/* timestamp */
		pbw_nested_begin(b, 11);			/* track_event */
		pbw_varint(b, 9, 1);				/* SLICE_BEGIN */
		pbw_varint(b, 11, 42);
		pbw_string(b, 23, "work");
		pbw_nested_end(b);
		shm_writer_packet_end(w);
		b = shm_writer_packet_begin(w);
		pbw_varint(b, 8, t + (uint64_t)i * 2 * dur + dur);
		pbw_nested_begin(b, 11);
		pbw_varint(b, 9, 2);				/* SLICE_END */
		pbw_varint(b, 11, 42);
		pbw_nested_end(b);
		shm_writer_packet_end(w);
	}
}

/* One value from an OpenMetrics page, -1 if the sample is missing. */
static long long
om_value(const char *page, const char *sample)
{
	const char *p = page;
	size_t n = strlen(sample);

	while ((p = strstr(p, sample)) != NULL) {
		if ((p == page || p[-1] == '\n') && p[n] == ' ')
			return atoll(p + n + 1);
		p += n;
	}
	return -1;
}

/* The HTTP request runs on a thread while this one runs the loop. */
struct fetch {
	int			 port;
	struct http_reply	 r;
	int			 rc;
	int			 done;
};

static void *
fetch_run(void *arg)
{
	struct fetch *f = arg;

	f->rc = http_request(f->port, "GET", "/metrics", NULL, NULL, 0, &f->r);
	__atomic_store_n(&f->done, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

static char *
scrape(int port)
{
	struct fetch f;
	pthread_t th;
	char *page;

	memset(&f, 0, sizeof(f));
	f.port = port;
	ck_assert_int_eq(pthread_create(&th, NULL, fetch_run, &f), 0);
	for (int i = 0; i < 4000 && !__atomic_load_n(&f.done,
	    __ATOMIC_SEQ_CST); i++)
		tt_spin(base, 5);
	pthread_join(th, NULL);
	ck_assert_int_eq(f.rc, 0);
	ck_assert_int_eq(f.r.status, 200);
	page = strdup((const char *)f.r.body);
	/* OpenMetrics ends with # EOF. */
	ck_assert_ptr_nonnull(strstr(page, "\n# EOF\n"));
	http_reply_free(&f.r);
	return page;
}

static const char *
write_config(const char *dir)
{
	static char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/live.pbtxt", dir);
	ck_assert_ptr_nonnull(f = fopen(path, "w"));
	fprintf(f, "buffers { size_kb: 1024 fill_policy: RING_BUFFER }\n"
	    "data_sources { config { name: \"tt.te\" } }\n");
	fclose(f);
	return path;
}

/* live reaches traced through a link we can point at a new traced. */
static char	link_path[512];

static void
link_to_traced(void)
{
	if (link_path[0] == '\0')
		snprintf(link_path, sizeof(link_path), "%s.live-link", td.dir);
	unlink(link_path);
	ck_assert_int_eq(symlink(td.consumer_sock, link_path), 0);
}

static void
live_up_refresh(struct live **l, struct httpd **h, struct metrics **mx,
    size_t window_bytes, uint32_t refresh_ms)
{
	struct tp_config cfg;
	struct live_opts o;
	char *err = NULL;

	tp_config_init(&cfg);
	*mx = metrics_new(&err);
	ck_assert_msg(*mx != NULL, "%s", err);
	live_opts_init(&o);
	link_to_traced();
	o.consumer_sock = link_path;
	o.config_path = write_config(td.dir);
	o.period_ms = 50;
	o.window_bytes = window_bytes;
	o.refresh_ms = refresh_ms;
	*l = live_new(base, &cfg, *mx, &o, &err);
	ck_assert_msg(*l != NULL, "%s", err);
	*h = httpd_new(base, "127.0.0.1", 0, live_rpc(*l), &err);
	ck_assert_msg(*h != NULL, "%s", err);
	httpd_set_metrics(*h, live_render, *l);
}

/* Every scrape sees the latest window. */
/* Undoes live_up. */
static void
live_down(struct live *l, struct httpd *h, struct metrics *mx)
{
	httpd_free(h);
	live_free(l);
	metrics_free(mx);
}

static void
live_up(struct live **l, struct httpd **h, struct metrics **mx,
    size_t window_bytes)
{
	live_up_refresh(l, h, mx, window_bytes, 0);
}

START_TEST(test_live_counters_move)
{
	struct tt_producer p;
	struct tt_instance *in;
	struct shm_writer *w;
	struct live *l;
	struct httpd *h;
	struct metrics *mx;
	struct live_stats st;
	char *page;
	long long pk1, pk2, n1, n2;
	int port;

	connect_producer(&p, "tt.producer", "tt.te");
	live_up(&l, &h, &mx, 64u << 20);
	port = httpd_port(h);
	in = wait_started(&p, "tt.te");
	ck_assert_ptr_nonnull(in);
	w = tt_producer_writer(&p, in->target_buffer);

	write_slices(w, 1000, 10, 100);
	tt_producer_commit(&p, w);
	WAIT_UNTIL((live_get_stats(l, &st), st.packets >= 21));
	page = scrape(port);
	pk1 = om_value(page, "faro_live_packets_total");
	n1 = om_value(page,
	    "faro_linux_slices_slice_count{name=\"work\"}");
	ck_assert_int_ge(pk1, 21);
	ck_assert_msg(n1 == 10, "page:\n%s", page);
	ck_assert_int_eq(om_value(page, "faro_live_tracing"), 1);
	free(page);

	write_slices(w, 100000, 15, 300);
	tt_producer_commit(&p, w);
	WAIT_UNTIL((live_get_stats(l, &st), st.packets >= (uint64_t)pk1 + 31));
	page = scrape(port);
	pk2 = om_value(page, "faro_live_packets_total");
	n2 = om_value(page,
	    "faro_linux_slices_slice_count{name=\"work\"}");
	ck_assert_int_gt(pk2, pk1);
	ck_assert_msg(n2 == 25, "page:\n%s", page);
	ck_assert_int_eq(om_value(page,
	    "faro_linux_slices_slice_max_ns{name=\"work\"}"), 300);
	free(page);

	live_down(l, h, mx);
	tt_producer_close(&p);
}
END_TEST

START_TEST(test_live_window_bounded)
{
	struct tt_producer p;
	struct tt_instance *in;
	struct shm_writer *w;
	struct live *l;
	struct httpd *h;
	struct metrics *mx;
	struct live_stats st;
	char *page;
	int round;

	connect_producer(&p, "tt.producer", "tt.te");
	/* A window of 4 KiB: far less than what the rounds write. */
	live_up(&l, &h, &mx, 4096);
	in = wait_started(&p, "tt.te");
	ck_assert_ptr_nonnull(in);
	w = tt_producer_writer(&p, in->target_buffer);
	for (round = 0; round < 10; round++) {
		uint64_t before;

		live_get_stats(l, &st);
		before = st.packets;
		write_slices(w, 1000 + (uint64_t)round * 100000, 50, 100);
		tt_producer_commit(&p, w);
		WAIT_UNTIL((live_get_stats(l, &st), st.packets >= before + 101));
		ck_assert_uint_le(st.window_bytes, 4096);
	}
	live_get_stats(l, &st);
	ck_assert_uint_ge(st.packets, 1010);
	ck_assert_uint_gt(st.evicted, 0);
	ck_assert_uint_eq(st.packets - st.evicted, st.window_packets);
	page = scrape(httpd_port(h));
	ck_assert_int_gt(om_value(page, "faro_live_evicted_packets_total"), 0);
	/* Only what the window holds is counted. */
	ck_assert_int_lt(om_value(page,
	    "faro_linux_slices_slice_count{name=\"work\"}"), 100);
	free(page);
	live_down(l, h, mx);
	tt_producer_close(&p);
}
END_TEST

START_TEST(test_live_refresh_period)
{
	struct tt_producer p;
	struct tt_instance *in;
	struct shm_writer *w;
	struct live *l;
	struct httpd *h;
	struct metrics *mx;
	struct live_stats st;
	char *page;
	long long pk1;

	connect_producer(&p, "tt.producer", "tt.te");
	/* Re-import at most once a minute: the second scrape is cached. */
	live_up_refresh(&l, &h, &mx, 1u << 20, 60000);
	in = wait_started(&p, "tt.te");
	ck_assert_ptr_nonnull(in);
	w = tt_producer_writer(&p, in->target_buffer);
	write_slices(w, 1000, 4, 100);
	tt_producer_commit(&p, w);
	WAIT_UNTIL((live_get_stats(l, &st), st.packets >= 9));
	page = scrape(httpd_port(h));
	pk1 = om_value(page, "faro_live_packets_total");
	ck_assert_int_eq(om_value(page,
	    "faro_linux_slices_slice_count{name=\"work\"}"), 4);
	ck_assert_int_eq(om_value(page, "faro_live_refreshes_total"), 1);
	free(page);
	write_slices(w, 50000, 6, 100);
	tt_producer_commit(&p, w);
	WAIT_UNTIL((live_get_stats(l, &st), st.packets >= (uint64_t)pk1 + 13));
	page = scrape(httpd_port(h));
	/* The counters move; the metrics wait for the next refresh. */
	ck_assert_int_gt(om_value(page, "faro_live_packets_total"), pk1);
	ck_assert_int_eq(om_value(page,
	    "faro_linux_slices_slice_count{name=\"work\"}"), 4);
	ck_assert_int_eq(om_value(page, "faro_live_refreshes_total"), 1);
	free(page);
	live_down(l, h, mx);
	tt_producer_close(&p);
}
END_TEST

START_TEST(test_live_traced_restart)
{
	struct tt_producer p;
	struct tt_instance *in;
	struct shm_writer *w;
	struct live *l;
	struct httpd *h;
	struct metrics *mx;
	struct live_stats st;
	char *page;

	connect_producer(&p, "tt.producer", "tt.te");
	live_up(&l, &h, &mx, 1u << 20);
	WAIT_UNTIL((live_get_stats(l, &st), st.tracing));
	ck_assert_int_eq(st.tracing, 1);
	in = wait_started(&p, "tt.te");
	ck_assert_ptr_nonnull(in);
	w = tt_producer_writer(&p, in->target_buffer);
	write_slices(w, 1000, 5, 100);
	tt_producer_commit(&p, w);
	WAIT_UNTIL((live_get_stats(l, &st), st.packets >= 11));
	page = scrape(httpd_port(h));
	ck_assert_int_eq(om_value(page,
	    "faro_linux_slices_slice_count{name=\"work\"}"), 5);
	free(page);
	/* traced goes away: live notices and keeps serving. */
	ck_assert_int_eq(tt_traced_stop(&td), 0);
	WAIT_UNTIL((live_get_stats(l, &st), !st.connected));
	ck_assert_int_eq(st.connected, 0);
	ck_assert_int_eq(st.tracing, 0);
	tt_producer_close(&p);
	/* Back again (at the same path): a new session starts by itself,
	 * in a fresh engine (its sequences and clocks are new). */
	ck_assert_int_eq(tt_traced_start(&td, NULL), 0);
	link_to_traced();
	WAIT_UNTIL((live_get_stats(l, &st), st.tracing));
	ck_assert_int_eq(st.tracing, 1);
	/* (The new engine may sit where the old one was: ask its tables.) */
	{
		sqlite3_stmt *q;

		ck_assert_int_eq(sqlite3_prepare_v2(rpc_db(live_rpc(l)),
		    "SELECT COUNT() FROM slice", -1, &q, NULL), SQLITE_OK);
		ck_assert_int_eq(sqlite3_step(q), SQLITE_ROW);
		ck_assert_int_eq(sqlite3_column_int(q, 0), 0);
		sqlite3_finalize(q);
	}
	ck_assert_uint_eq(st.window_packets, 0);
	ck_assert_uint_eq(st.evicted, st.packets);
	page = scrape(httpd_port(h));
	ck_assert_int_eq(om_value(page,
	    "faro_linux_slices_slice_count{name=\"work\"}"), -1);
	free(page);
	live_down(l, h, mx);
	unlink(link_path);
	link_path[0] = '\0';
}
END_TEST

/*
 * A producer that runs far longer than the window (1 s): the engine
 * follows the window, so old slices leave, the slice count stays within
 * what the window can hold, and the engine's memory stops growing while
 * the session goes on; the metrics move from refresh to refresh.
 */
START_TEST(test_live_long_run_bounded)
{
	enum { ROUNDS = 36, SLICES = 1000 };
	struct tp_config cfg;
	struct live_opts o;
	struct tt_producer p;
	struct tt_instance *in;
	struct shm_writer *w;
	struct live *l;
	struct httpd *h;
	struct metrics *mx;
	struct live_stats st;
	size_t eb[ROUNDS], mid = 0, late = 0;
	long long last_count = -1, moved = 0, count = 0;
	char *err = NULL, *page;
	sqlite3_stmt *q;
	int round, i;

	connect_producer(&p, "tt.producer", "tt.te");
	tp_config_init(&cfg);
	ck_assert_ptr_nonnull(mx = metrics_new(&err));
	live_opts_init(&o);
	link_to_traced();
	o.consumer_sock = link_path;
	o.config_path = write_config(td.dir);
	o.period_ms = 50;
	o.window_s = 1;
	o.refresh_ms = 0;
	ck_assert_ptr_nonnull(l = live_new(base, &cfg, mx, &o, &err));
	ck_assert_ptr_nonnull(h = httpd_new(base, "127.0.0.1", 0,
	    live_rpc(l), &err));
	httpd_set_metrics(h, live_render, l);
	in = wait_started(&p, "tt.te");
	ck_assert_ptr_nonnull(in);
	w = tt_producer_writer(&p, in->target_buffer);
	for (round = 0; round < ROUNDS; round++) {
		uint64_t before;

		live_get_stats(l, &st);
		before = st.packets;
		write_slices(w, 1000000 + (uint64_t)round * 10000000, SLICES,
		    100);
		tt_producer_commit(&p, w);
		WAIT_UNTIL((live_get_stats(l, &st),
		    st.packets >= before + 2 * SLICES + 1));
		tt_spin(base, 100);
		page = scrape(httpd_port(h));
		count = om_value(page,
		    "faro_linux_slices_slice_count{name=\"work\"}");
		eb[round] = (size_t)om_value(page, "faro_live_engine_bytes");
		ck_assert_int_gt((long long)eb[round], 0);
		if (last_count != -1 && count != last_count)
			moved++;
		last_count = count;
		free(page);
	}
	/* The window holds ~1 s of rounds, far fewer than were written. */
	ck_assert_int_gt(count, 0);
	ck_assert_int_lt(count, (long long)ROUNDS * SLICES / 2);
	ck_assert_int_gt(moved, 0);
	live_get_stats(l, &st);
	ck_assert_uint_gt(st.evicted, 0);
	/* The first rounds' rows are gone from the engine itself. */
	ck_assert_int_eq(sqlite3_prepare_v2(rpc_db(live_rpc(l)),
	    "SELECT MIN(ts) FROM slice", -1, &q, NULL), SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(q), SQLITE_ROW);
	ck_assert_int_gt(sqlite3_column_int64(q, 0), 1000000 + 5 * 10000000);
	sqlite3_finalize(q);
	/* Memory: the last third of the run needs no more than the second
	 * (an engine that kept everything would grow by half). */
	for (i = ROUNDS / 3; i < 2 * ROUNDS / 3; i++)
		if (eb[i] > mid)
			mid = eb[i];
	for (i = 2 * ROUNDS / 3; i < ROUNDS; i++)
		if (eb[i] > late)
			late = eb[i];
	ck_assert_msg(late <= mid + mid / 5, "engine bytes %zu then %zu",
	    mid, late);
	live_down(l, h, mx);
	tt_producer_close(&p);
}
END_TEST

/*
 * Data written just now, still in the producer's chunk (not committed):
 * live flushes before it reads, so the data comes in, and what was
 * written before the Flush is released at once, real timestamps and all
 * (waiting LIVE_LAG_NS instead would leave it out of this scrape).
 */
START_TEST(test_live_flush_release)
{
	struct tt_producer p;
	struct tt_instance *in;
	struct shm_writer *w;
	struct live *l;
	struct httpd *h;
	struct metrics *mx;
	struct live_stats st;
	struct timespec now;
	char *page;

	connect_producer(&p, "tt.producer", "tt.te");
	live_up(&l, &h, &mx, 1u << 20);
	in = wait_started(&p, "tt.te");
	ck_assert_ptr_nonnull(in);
	w = tt_producer_writer(&p, in->target_buffer);
	clock_gettime(CLOCK_BOOTTIME, &now);
	write_slices(w, (uint64_t)now.tv_sec * 1000000000ULL +
	    (uint64_t)now.tv_nsec, 5, 100);
	WAIT_UNTIL((live_get_stats(l, &st), st.packets >= 11));
	ck_assert_int_gt(p.flushes, 0);
	page = scrape(httpd_port(h));
	ck_assert_msg(om_value(page,
	    "faro_linux_slices_slice_count{name=\"work\"}") == 5, "page:\n%s",
	    page);
	free(page);
	live_down(l, h, mx);
	tt_producer_close(&p);
}
END_TEST

static Suite *
live_suite(void)
{
	Suite *s = suite_create("tplive");
	TCase *tc = tcase_create("live");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_live_counters_move);
	tcase_add_test(tc, test_live_window_bounded);
	tcase_add_test(tc, test_live_refresh_period);
	tcase_add_test(tc, test_live_traced_restart);
	tcase_add_test(tc, test_live_long_run_bounded);
	tcase_add_test(tc, test_live_flush_release);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(live_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
