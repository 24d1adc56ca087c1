/*
 * check_tp_engine: the engine API on traces built here byte by byte.
 * Splitting a trace into chunks anywhere, compressing packets, gzipping the
 * file must not change the tables; damaged, hostile and out-of-order input
 * must end in counted drops or a clear error, never a crash.
 */
#include "config.h"

#include <sys/wait.h>

#include <check.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>
#include <zstd.h>

#include "tp.h"
#include "tp_int.h"
#include "metrics/pbbuf.h"

/* Appends m as field id of b and frees m. */
static void
put_msg(struct pbbuf *b, uint32_t id, struct pbbuf *m)
{
	pbb_bytes(b, id, m->buf, m->len);
	pbb_free(m);
}

/* A Trace: a thread track, then n begin/end pairs with interned names. */
static struct pbbuf
trace_build(int n, int reverse)
{
	struct pbbuf t = { 0 }, pk = { 0 }, m = { 0 }, s = { 0 }, e = { 0 };
	int i;

	pbb_uint(&s, 1, 5);		/* ThreadDescriptor.pid */
	pbb_uint(&s, 2, 6);		/* tid */
	pbb_bytes(&s, 5, "worker", 6);	/* thread_name */
	pbb_uint(&m, 1, 42);		/* TrackDescriptor.uuid */
	put_msg(&m, 4, &s);
	put_msg(&pk, 60, &m);
	put_msg(&t, 1, &pk);
	for (i = 0; i < n; i++) {
		int k = reverse ? n - 1 - i : i;
		int j;

		for (j = 0; j < 2; j++) {
			pbb_uint(&pk, 8, 1000 + (uint64_t)k * 100 + (uint64_t)j * 50);
			pbb_uint(&pk, 10, 7);	/* sequence id */
			if (i == 0 && j == 0) {
				pbb_uint(&pk, 13, 3);
				pbb_uint(&e, 1, 1);	/* EventName.iid */
				pbb_bytes(&e, 2, "interned", 8);
				put_msg(&m, 2, &e);	/* event_names */
				put_msg(&pk, 12, &m);	/* interned_data */
			}
			pbb_uint(&m, 9, j == 0 ? 1 : 2);	/* type */
			pbb_uint(&m, 11, 42);		/* track_uuid */
			if (j == 0) {
				if (k % 2)
					pbb_uint(&m, 10, 1);	/* name_iid */
				else
					pbb_bytes(&m, 23, "plain", 5);
			}
			put_msg(&pk, 11, &m);
			put_msg(&t, 1, &pk);
		}
	}
	ck_assert_int_eq(t.oom, 0);
	return t;
}

static char *
query1(struct tp *tp, const char *sql)
{
	sqlite3_stmt *st;
	char *r = NULL;

	ck_assert_int_eq(sqlite3_prepare_v2(tp_db(tp), sql, -1, &st, NULL),
	    SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		r = strdup(sqlite3_column_text(st, 0) ?
		    (const char *)sqlite3_column_text(st, 0) : "NULL");
	sqlite3_finalize(st);
	ck_assert_ptr_nonnull(r);
	return r;
}

/* The first cell of sql's first row is want. */
static void
query_is(struct tp *tp, const char *sql, const char *want)
{
	char *v = query1(tp, sql);

	ck_assert_str_eq(v, want);
	free(v);
}

#define SUMMARY "SELECT COUNT(*) || ':' || SUM(dur) || ':' || " \
	"GROUP_CONCAT(name || '@' || ts, ',') FROM (SELECT * FROM slice " \
	"ORDER BY ts)"

static char *
load_chunked(const uint8_t *p, size_t n, size_t chunk, size_t window)
{
	struct tp_config cfg;
	struct tp *tp;
	char *err = NULL, *r;
	size_t off;

	tp_config_init(&cfg);
	if (window)
		cfg.sort_window_bytes = window;
	tp = tp_new(&cfg, &err);
	ck_assert_msg(tp != NULL, "tp_new: %s", err ? err : "?");
	for (off = 0; off < n; off += chunk) {
		size_t l = n - off < chunk ? n - off : chunk;

		ck_assert_msg(tp_parse(tp, p + off, l) == 0, "tp_parse: %s",
		    tp_error(tp));
	}
	ck_assert_int_eq(tp_eof(tp), 0);
	r = query1(tp, SUMMARY);
	tp_free(tp);
	return r;
}

START_TEST(test_chunking)
{
	struct pbbuf t = trace_build(50, 0);
	char *whole = load_chunked(t.buf, t.len, t.len, 0);
	static const size_t sizes[] = { 1, 2, 3, 7, 64, 4096 };
	size_t i;

	ck_assert_str_eq(strstr(whole, ":") ? "ok" : "no", "ok");
	ck_assert(strncmp(whole, "50:2500:", 8) == 0);
	ck_assert(strstr(whole, "interned@1100") != NULL);
	ck_assert(strstr(whole, "plain@1000") != NULL);
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		char *r = load_chunked(t.buf, t.len, sizes[i], 0);

		ck_assert_msg(strcmp(r, whole) == 0, "chunk %zu differs",
		    sizes[i]);
		free(r);
	}
	free(whole);
	free(t.buf);
}
END_TEST

START_TEST(test_sorting_and_window)
{
	/* Reversed pairs sort back into place within a large window... */
	struct pbbuf fwd = trace_build(40, 0), rev = trace_build(40, 1);
	char *a = load_chunked(fwd.buf, fwd.len, fwd.len, 0);
	char *b = load_chunked(rev.buf, rev.len, 1000, 0);
	struct tp_config cfg;
	struct tp *tp;
	char *err = NULL, *v;

	ck_assert_str_eq(a, b);
	/* ...but a window of one packet must drop and count them. */
	tp_config_init(&cfg);
	cfg.sort_window_bytes = 1;
	tp = tp_new(&cfg, &err);
	ck_assert_ptr_nonnull(tp);
	ck_assert_int_eq(tp_parse(tp, rev.buf, rev.len), 0);
	ck_assert_int_eq(tp_eof(tp), 0);
	v = query1(tp, "SELECT value FROM stats WHERE name ="
	    " 'sorter_push_event_out_of_order'");
	ck_assert_int_gt(atoi(v), 0);
	ck_assert_int_gt(tp_error_stats(tp), 0);
	free(v);
	tp_free(tp);
	free(a);
	free(b);
	free(fwd.buf);
	free(rev.buf);
}
END_TEST

/* Appends an instant on track 42 (sequence 7) at ts named name. */
static void
put_instant(struct pbbuf *t, uint64_t ts, const char *name)
{
	struct pbbuf pk = { 0 }, m = { 0 };

	pbb_uint(&pk, 8, ts);
	pbb_uint(&pk, 10, 7);
	pbb_uint(&m, 9, 3);			/* TYPE_INSTANT */
	pbb_uint(&m, 11, 42);
	pbb_bytes(&m, 23, name, strlen(name));
	put_msg(&pk, 11, &m);
	put_msg(t, 1, &pk);
}

/*
 * Appends an instant on track 42 of sequence seq at ts, named by its
 * sequence's interned name 1, "s<seq>", which the first one sets.
 */
static void
put_seq_instant(struct pbbuf *t, uint32_t seq, uint64_t ts, int first)
{
	struct pbbuf pk = { 0 }, m = { 0 }, e = { 0 };
	char name[16];

	pbb_uint(&pk, 8, ts);
	pbb_uint(&pk, 10, seq);
	pbb_uint(&pk, 13, first ? 3 : 2);	/* cleared, needs state */
	if (first) {
		snprintf(name, sizeof(name), "s%u", (unsigned)seq);
		pbb_uint(&e, 1, 1);		/* EventName.iid */
		pbb_bytes(&e, 2, name, strlen(name));
		put_msg(&m, 2, &e);		/* event_names */
		put_msg(&pk, 12, &m);		/* interned_data */
	}
	pbb_uint(&m, 9, 3);			/* TYPE_INSTANT */
	pbb_uint(&m, 11, 42);
	pbb_uint(&m, 10, 1);			/* name_iid */
	put_msg(&pk, 11, &m);
	put_msg(t, 1, &pk);
}

/* Appends a TracingServiceEvent with field id set (3: flushed, 4: read). */
static void
put_service_event(struct pbbuf *t, uint32_t id)
{
	struct pbbuf pk = { 0 }, m = { 0 };

	pbb_uint(&m, id, 1);
	put_msg(&pk, 69, &m);
	put_msg(t, 1, &pk);
}

/* Two flushes, then a completed read, as the service writes them. */
static void
put_read_pass(struct pbbuf *t)
{
	put_service_event(t, 3);
	put_service_event(t, 3);
	put_service_event(t, 4);
}

/* FtraceStats of phase (1: start, 2: end) for cpus 0 and 1: entries n,
 * the other counters 0. */
static void
put_ftrace_stats(struct pbbuf *t, int phase, uint64_t n)
{
	struct pbbuf pk = { 0 }, fs = { 0 }, cs = { 0 };
	uint64_t cpu;

	pbb_uint(&fs, 1, (uint64_t)phase);
	for (cpu = 0; cpu < 2; cpu++) {
		pbb_uint(&cs, 1, cpu);
		pbb_uint(&cs, 2, n);			/* entries */
		put_msg(&fs, 2, &cs);
	}
	put_msg(&pk, 34, &fs);				/* ftrace_stats */
	put_msg(t, 1, &pk);
}

/*
 * The stats table lists every stat upstream knows, as its lists them:
 * the session's 9 single stats (no machine), then the host's 269 (at 0
 * when nothing counted them), then the indexed ones in the order first
 * set; row ids from 0, and upstream's key numbers. An empty file is no
 * trace: only the session's.
 */
START_TEST(test_stats_rows)
{
	struct pbbuf t = trace_build(0, 0);
	struct tp *tp;
	char *err = NULL;

	/* Every counter has its key, indexed as it is counted. */
	ck_assert(tp_stats_keys_complete());
	put_ftrace_stats(&t, 1, 5);
	put_instant(&t, 100, "a");
	put_ftrace_stats(&t, 2, 7);
	ck_assert_ptr_nonnull(tp = tp_new(NULL, &err));
	ck_assert_int_eq(tp_parse(tp, t.buf, t.len), 0);
	ck_assert_int_eq(tp_eof(tp), 0);
	query_is(tp, "SELECT COUNT(*) || ':' || MIN(id) || ':' || MAX(id)"
	    " FROM stats", "322:0:321");
	query_is(tp, "SELECT COUNT(*) || ':' || MAX(id) FROM stats"
	    " WHERE machine_id IS NULL", "9:8");
	query_is(tp, "SELECT COUNT(*) || ':' || MAX(id) FROM stats WHERE"
	    " machine_id = 0 AND trace_id = 0 AND idx IS NULL", "269:277");
	query_is(tp, "SELECT key || ':' || severity || ':' || source FROM"
	    " stats WHERE name = 'sorter_push_event_out_of_order'",
	    "249:error:trace");
	query_is(tp, "SELECT GROUP_CONCAT(name || idx || '=' || value, ',')"
	    " FROM (SELECT * FROM stats WHERE name LIKE 'ftrace_cpu_entries%'"
	    " OR name LIKE 'ftrace_cpu_bytes%' ORDER BY id)",
	    "ftrace_cpu_entries_begin0=5,ftrace_cpu_bytes_begin0=0,"
	    "ftrace_cpu_entries_begin1=5,ftrace_cpu_bytes_begin1=0,"
	    "ftrace_cpu_entries_end0=7,ftrace_cpu_bytes_end0=0,"
	    "ftrace_cpu_entries_delta0=2,ftrace_cpu_bytes_delta0=0,"
	    "ftrace_cpu_entries_end1=7,ftrace_cpu_bytes_end1=0,"
	    "ftrace_cpu_entries_delta1=2,ftrace_cpu_bytes_delta1=0");
	tp_free(tp);

	ck_assert_ptr_nonnull(tp = tp_new(NULL, &err));
	ck_assert_int_eq(tp_eof(tp), 0);
	query_is(tp, "SELECT COUNT(*) || ':' || COUNT(machine_id) FROM stats",
	    "9:0");
	tp_free(tp);
	free(t.buf);
}
END_TEST

/*
 * What a read of the service's buffers delivers late (one sequence's
 * chunks after another's newer ones) is kept, as upstream keeps it: no
 * byte or time window, only the service's marks release records, and
 * they release what came before the previous completed read.
 */
START_TEST(test_sorting_service_marks)
{
	struct pbbuf t = trace_build(0, 0), ring = trace_build(0, 0);
	struct tp *tp;
	char *err = NULL, *v;
	int i;

	put_instant(&t, 100, "a");
	put_read_pass(&t);		/* nothing before the first read */
	put_instant(&t, 50, "b");	/* late: older than a, still placed */
	put_read_pass(&t);		/* b, the oldest, came after the mark */
	put_instant(&t, 200, "c");
	put_read_pass(&t);		/* b and a leave; c stays */
	put_instant(&t, 150, "d");	/* after a: placed */
	put_instant(&t, 90, "e");	/* older than a, which left: dropped */
	ck_assert_ptr_nonnull(tp = tp_new(NULL, &err));
	ck_assert_int_eq(tp_parse(tp, t.buf, t.len), 0);
	ck_assert_int_eq(tp_eof(tp), 0);
	query_is(tp, "SELECT GROUP_CONCAT(name || '@' || ts, ',') FROM "
	    "(SELECT * FROM slice ORDER BY ts)", "b@50,a@100,d@150,c@200");
	query_is(tp, "SELECT value FROM stats WHERE name ="
	    " 'sorter_push_event_out_of_order'", "1");
	tp_free(tp);

	/* A ring-buffer trace (one read at the end): sorted whole, however
	 * late a sequence's packets come. */
	for (i = 0; i < 2000; i++)
		put_instant(&ring, 1000000 + (uint64_t)i, "new");
	for (i = 0; i < 2000; i++)
		put_instant(&ring, 1000 + (uint64_t)i, "old");
	put_read_pass(&ring);
	ck_assert_ptr_nonnull(tp = tp_new(NULL, &err));
	ck_assert_int_eq(tp_parse(tp, ring.buf, ring.len), 0);
	ck_assert_int_eq(tp_eof(tp), 0);
	v = query1(tp, "SELECT COUNT(*) || ':' || MIN(ts) FROM slice");
	ck_assert_str_eq(v, "4000:1000");
	free(v);
	ck_assert_int_eq(tp_error_stats(tp), 0);
	tp_free(tp);
	free(t.buf);
	free(ring.buf);
}
END_TEST

/*
 * The sorter's copies fill blocks of 1 MiB; a longer record has a block of
 * its own spanning several; a block names the contexts of its records'
 * sequences once, up to a count. Two series of instants interleaved (one
 * going back in time: late records across many blocks), on more
 * sequences than a block names, and two records longer than a block
 * leave in time order, all of them, each whole and with its sequence's
 * state (the names its sequence interned).
 */
START_TEST(test_sorting_blocks)
{
	struct pbbuf t = trace_build(0, 0);
	struct tp *tp;
	char *err = NULL, *big;
	size_t nbig = 3u << 20;
	int i, n = 60000;

	ck_assert_ptr_nonnull(big = malloc(nbig + 1));
	memset(big, 'x', nbig);
	big[nbig] = '\0';
	for (i = 0; i < n; i++) {
		if (i == n / 3)
			put_instant(&t, 1000100, big);
		if (i == n / 2)
			put_instant(&t, 1500000, big + nbig / 2);
		put_seq_instant(&t, 7 + (uint32_t)(i % 100), i % 2 ?
		    1000000 + (uint64_t)i : 1000000 + 2 * (uint64_t)n -
		    (uint64_t)i, i < 100);
	}
	ck_assert_ptr_nonnull(tp = tp_new(NULL, &err));
	ck_assert_int_eq(tp_parse(tp, t.buf, t.len), 0);
	ck_assert_int_eq(tp_eof(tp), 0);
	/* (names are cut to 1023 bytes) */
	query_is(tp, "SELECT COUNT(*) || ':' || SUM(LENGTH(name) > 1000)"
	    " || ':' || MAX(LENGTH(name)) || ':' || MIN(ts) || ':' ||"
	    " MAX(ts) FROM slice", "60002:2:1023:1000001:1500000");
	query_is(tp, "SELECT COUNT(*) FROM slice a JOIN slice b"
	    " ON b.id = a.id + 1 WHERE b.ts < a.ts", "0");
	query_is(tp, "SELECT GROUP_CONCAT(ts) FROM slice WHERE"
	    " LENGTH(name) = 1023", "1000100,1500000");
	/* Instant i at 1000000 + i (odd i) or + 2n - i, on sequence
	 * 7 + i % 100. */
	query_is(tp, "SELECT COUNT(*) FROM (SELECT name, ts - 1000000 AS d"
	    " FROM slice WHERE LENGTH(name) < 1000) WHERE name = 's' ||"
	    " (7 + (CASE WHEN d < 60000 THEN d ELSE 120000 - d END) % 100)",
	    "60000");
	ck_assert_int_eq(tp_error_stats(tp), 0);
	tp_free(tp);
	free(big);
	free(t.buf);
}
END_TEST

/*
 * The tables of t loaded plainly, and of one packet holding z (zlen
 * bytes) as field id, fed 333 bytes at a time: the same?
 */
static int
same_as_wrapped(const struct pbbuf *t, uint32_t id, const uint8_t *z,
    size_t zlen)
{
	struct pbbuf outer = { 0 }, pk = { 0 };
	char *a, *b;
	int same;

	pbb_bytes(&pk, id, z, zlen);
	put_msg(&outer, 1, &pk);
	a = load_chunked(t->buf, t->len, t->len, 0);
	b = load_chunked(outer.buf, outer.len, 333, 0);
	same = strcmp(a, b) == 0;
	free(a);
	free(b);
	free(outer.buf);
	return same;
}

/*
 * Legacy microsecond timestamps that leave int64's range once in
 * nanoseconds (absolute, or a delta past it) saturate, as upstream's: a
 * negative one drops its event, counted as track_event_invalid_timestamp,
 * a positive one stays at the end of time; no overflow.
 */
START_TEST(test_te_timestamp_overflow)
{
	static const int64_t bad[] = { -9223372036854776LL,
	    9223372036854776LL };
	struct pbbuf t = trace_build(0, 0), pk = { 0 }, m = { 0 };
	struct tp *tp;
	char *err = NULL, *v;
	size_t i;

	put_instant(&t, 1000, "good");
	for (i = 0; i < 2; i++) {
		pbb_uint(&pk, 10, 7);
		pbb_uint(&m, 16, (uint64_t)bad[i]);	/* timestamp_absolute_us */
		pbb_uint(&m, 9, 3);
		pbb_uint(&m, 11, 42);
		pbb_bytes(&m, 23, "bad", 3);
		put_msg(&pk, 11, &m);
		put_msg(&t, 1, &pk);
	}
	/* A delta that runs past the range from a valid absolute. */
	pbb_uint(&pk, 10, 7);
	pbb_uint(&m, 16, 1000);
	pbb_uint(&m, 1, (uint64_t)INT64_MAX);	/* timestamp_delta_us */
	pbb_uint(&m, 9, 3);
	pbb_uint(&m, 11, 42);
	pbb_bytes(&m, 23, "bad", 3);
	put_msg(&pk, 11, &m);
	put_msg(&t, 1, &pk);
	ck_assert_ptr_nonnull(tp = tp_new(NULL, &err));
	ck_assert_int_eq(tp_parse(tp, t.buf, t.len), 0);
	ck_assert_int_eq(tp_eof(tp), 0);
	v = query1(tp, "SELECT GROUP_CONCAT(name || '@' || ts) FROM slice");
	ck_assert_str_eq(v, "good@1000,bad@9223372036854775807,"
	    "bad@9223372036854775807");
	free(v);
	v = query1(tp, "SELECT value FROM stats WHERE name ="
	    " 'track_event_invalid_timestamp'");
	ck_assert_str_eq(v, "1");
	free(v);
	tp_free(tp);
	free(t.buf);
}
END_TEST

START_TEST(test_compressed_packets)
{
	struct pbbuf t = trace_build(30, 0);
	uLongf zl = compressBound(t.len);
	uint8_t *z = malloc(zl);

	ck_assert_int_eq(compress(z, &zl, t.buf, t.len), Z_OK);
	ck_assert(same_as_wrapped(&t, 50, z, zl));	/* compressed_packets */
	free(z);
	free(t.buf);
}
END_TEST

/* zstd_compressed_packets (133), as upstream's service writes with zstd;
 * a cut frame is counted, not fatal. */
START_TEST(test_zstd_compressed_packets)
{
	struct pbbuf t = trace_build(30, 0);
	size_t zl = ZSTD_compressBound(t.len);
	uint8_t *z = malloc(zl);

	zl = ZSTD_compress(z, zl, t.buf, t.len, 3);
	ck_assert(!ZSTD_isError(zl));
	ck_assert(same_as_wrapped(&t, 133, z, zl));
	ck_assert(!same_as_wrapped(&t, 133, z, zl / 2));
	free(z);
	free(t.buf);
}
END_TEST

/* b compressed as field 50 (deflate) or 133 (zstd) holds it. */
static uint8_t *
zip(uint32_t field, const struct pbbuf *b, size_t *zl)
{
	uLongf dl = compressBound(b->len);
	uint8_t *z;

	if (field == 50) {
		ck_assert_ptr_nonnull(z = malloc(dl));
		ck_assert_int_eq(compress(z, &dl, b->buf, b->len), Z_OK);
		*zl = dl;
	} else {
		*zl = ZSTD_compressBound(b->len);
		ck_assert_ptr_nonnull(z = malloc(*zl));
		*zl = ZSTD_compress(z, *zl, b->buf, b->len, 3);
		ck_assert(!ZSTD_isError(*zl));
	}
	return z;
}

/*
 * t's packets wrapped k at a time, each group a compressed packet (deflate
 * and zstd in turn): the third group cut short (a decode error), a plain
 * packet after every fourth, the seventh holding another group inside
 * (nested: decompressed where it is found). *ngroups: the top-level ones.
 */
static struct pbbuf
wrap_groups(const struct pbbuf *t, int k, int *ngroups)
{
	struct pbbuf out = { 0 }, grp = { 0 }, pk = { 0 }, inner = { 0 };
	size_t pos = 0, end, zl;
	uint64_t len;
	uint8_t *z;
	uint32_t field;
	int n = 0, shift;

	*ngroups = 0;
	while (pos < t->len) {
		end = pos + 1;		/* past the key: field 1, length */
		for (len = 0, shift = 0; t->buf[end] & 0x80; shift += 7)
			len |= (uint64_t)(t->buf[end++] & 0x7f) << shift;
		len |= (uint64_t)t->buf[end++] << shift;
		end += len;
		pbb_raw(&grp, t->buf + pos, end - pos);
		pos = end;
		if (++n < k && pos < t->len)
			continue;
		n = 0;
		if (*ngroups == 6) {
			z = zip(50, &grp, &zl);
			pbb_bytes(&pk, 50, z, zl);
			put_msg(&inner, 1, &pk);
			free(z);
			pbb_free(&grp);
			grp = inner;
			memset(&inner, 0, sizeof(inner));
		}
		field = *ngroups % 2 == 0 ? 50 : 133;
		z = zip(field, &grp, &zl);
		pbb_bytes(&pk, field, z, *ngroups == 2 ? zl / 2 : zl);
		put_msg(&out, 1, &pk);
		free(z);
		pbb_free(&grp);
		memset(&grp, 0, sizeof(grp));
		if (*ngroups % 4 == 3)
			put_instant(&out, 900, "plain");
		(*ngroups)++;
	}
	ck_assert_int_eq(out.oom, 0);
	return out;
}

#define STATS_SUMMARY "SELECT GROUP_CONCAT(name || '=' || value, ',')" \
	" FROM (SELECT name, value FROM stats WHERE value != 0 AND name" \
	" NOT LIKE '%duration%' ORDER BY name, idx)"

/* Every row of every table, but the load's durations, as text. */
static char *
dump_tables(struct tp *tp)
{
	sqlite3_str *out = sqlite3_str_new(NULL);
	sqlite3_stmt *tl, *st;
	char *sql;
	int i;

	ck_assert_int_eq(sqlite3_prepare_v2(tp_db(tp), "SELECT name FROM"
	    " sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite%'"
	    " ORDER BY name", -1, &tl, NULL), SQLITE_OK);
	while (sqlite3_step(tl) == SQLITE_ROW) {
		const char *t = (const char *)sqlite3_column_text(tl, 0);

		ck_assert_ptr_nonnull(sql = sqlite3_mprintf("SELECT * FROM"
		    " \"%w\"%s", t, strcmp(t, "stats") == 0 ?
		    " WHERE name NOT LIKE '%duration%'" : ""));
		ck_assert_int_eq(sqlite3_prepare_v2(tp_db(tp), sql, -1, &st,
		    NULL), SQLITE_OK);
		sqlite3_str_appendf(out, "%s:\n", t);
		while (sqlite3_step(st) == SQLITE_ROW) {
			for (i = 0; i < sqlite3_column_count(st); i++)
				sqlite3_str_appendf(out, "%s|",
				    sqlite3_column_text(st, i) != NULL ?
				    (const char *)sqlite3_column_text(st, i) :
				    "NULL");
			sqlite3_str_appendchar(out, 1, '\n');
		}
		sqlite3_finalize(st);
		sqlite3_free(sql);
	}
	sqlite3_finalize(tl);
	ck_assert_int_eq(sqlite3_str_errcode(out), SQLITE_OK);
	return sqlite3_str_finish(out);
}

/* A second thread of tp_load_file: the variable whose "0" turns it
 * off, and what it reports it did. */
struct second {
	const char	*env;
	uint64_t	(*done)(const struct tp *);
};

static const struct second unpack_ahead = { "FARO_TP_UNPACK_AHEAD",
    tp_unpacked_ahead };
static const struct second parse_beside = { "FARO_TP_PARSE_THREAD",
    tp_parsed_beside };

/*
 * Loads path with or without the second thread th: slices and stats,
 * the error when the load failed, then every table.
 */
static char *
load_path(const char *path, const struct second *th, int on, uint64_t *done)
{
	struct tp *tp;
	char *err = NULL, *a, *b, *d, *r;
	int rc;

	if (on)
		unsetenv(th->env);
	else
		setenv(th->env, "0", 1);
	ck_assert_ptr_nonnull(tp = tp_new(NULL, &err));
	rc = tp_load_file(tp, path);
	a = query1(tp, SUMMARY);
	b = query1(tp, STATS_SUMMARY);
	d = dump_tables(tp);
	*done = th->done(tp);
	ck_assert_int_ne(asprintf(&r, "%s\n%s\n%s\n%s", a, b, rc == 0 ?
	    "ok" : tp_error(tp), d), -1);
	tp_free(tp);
	free(a);
	free(b);
	sqlite3_free(d);
	unsetenv(th->env);
	return r;
}

/*
 * The file of buf loaded without the second thread th, then three times
 * with it under load (two processes spinning beside): the same tables,
 * stats and error each time, as much done by the thread each time
 * (*want). The first.
 */
static char *
same_threaded(const uint8_t *buf, size_t len, const struct second *th,
    uint64_t *want)
{
	char path[] = "/tmp/check_tp_thread.XXXXXX";
	char *alone, *with;
	uint64_t done;
	pid_t hog[2];
	int fd, i;

	ck_assert_int_ge(fd = mkstemp(path), 0);
	ck_assert_int_eq(write(fd, buf, len), (ssize_t)len);
	close(fd);
	alone = load_path(path, th, 0, &done);
	ck_assert_uint_eq(done, 0);
	for (i = 0; i < 2; i++)
		if ((hog[i] = fork()) == 0)
			for (;;)
				;
	for (i = 0; i < 3; i++) {
		with = load_path(path, th, 1, &done);
		ck_assert_str_eq(with, alone);
		if (i == 0)
			*want = done;
		ck_assert_uint_eq(done, *want);
		free(with);
	}
	for (i = 0; i < 2; i++) {
		kill(hog[i], SIGKILL);
		waitpid(hog[i], NULL, 0);
	}
	unlink(path);
	return alone;
}

/*
 * A file of compressed packets: each top-level one decompressed on the
 * second thread; after a thousand plain packets (as a service may write
 * first) too; cut anywhere, the same as the tokenizer alone.
 */
START_TEST(test_compressed_ahead)
{
	struct pbbuf t = trace_build(3000, 0), w, pre = { 0 };
	uint64_t taken;
	char *r;
	int ngroups, i;

	w = wrap_groups(&t, 9, &ngroups);
	ck_assert_int_gt(ngroups, 600);
	r = same_threaded(w.buf, w.len, &unpack_ahead, &taken);
	ck_assert_uint_eq(taken, (uint64_t)ngroups);
	/* The cut group is two errors (its stream, the packet cut in it);
	 * the plain packets are there. */
	ck_assert_msg(strstr(r, "proto_decode_errors=2") != NULL, "%s",
	    strchr(r, '\n'));
	ck_assert_ptr_nonnull(strstr(r, "plain@900"));
	free(r);
	for (i = 0; i < 1000; i++)
		put_instant(&pre, 800, "first");
	pbb_raw(&pre, w.buf, w.len);
	ck_assert_int_eq(pre.oom, 0);
	r = same_threaded(pre.buf, pre.len, &unpack_ahead, &taken);
	ck_assert_uint_eq(taken, (uint64_t)ngroups);
	free(r);
	for (i = 1; i < 12; i++) {
		r = same_threaded(w.buf, w.len * (size_t)i / 12 + (size_t)i,
		    &unpack_ahead, &taken);
		free(r);
	}
	pbb_free(&pre);
	free(w.buf);
	free(t.buf);
}
END_TEST

/* buf gzip'd at level (deflate's), into a malloc'd *gz of *n bytes. */
static uint8_t *
gzip_buf(const uint8_t *buf, size_t len, int level, size_t *n)
{
	size_t cap = len + len / 100 + 4096;
	uint8_t *gz = malloc(cap);
	z_stream zs;

	ck_assert_ptr_nonnull(gz);
	memset(&zs, 0, sizeof(zs));
	ck_assert_int_eq(deflateInit2(&zs, level, Z_DEFLATED, 16 + 15, 8,
	    Z_DEFAULT_STRATEGY), Z_OK);
	zs.next_in = (uint8_t *)(uintptr_t)buf;
	zs.avail_in = (uInt)len;
	zs.next_out = gz;
	zs.avail_out = (uInt)cap;
	ck_assert_int_eq(deflate(&zs, Z_FINISH), Z_STREAM_END);
	*n = zs.total_out;
	deflateEnd(&zs);
	return gz;
}

/*
 * A gzip'd file of 4.5 MB (stored, not compressed: one chunk a MB read):
 * inflated on the second thread, chunk by chunk; damaged near its end,
 * the same error after the same rows. A bomb (a packet of 40 MB of zeros
 * in 40 KB): queued in parts of a few MB.
 */
START_TEST(test_gzip_ahead)
{
	struct pbbuf t = trace_build(120000, 0), b = { 0 }, pk = { 0 };
	uint64_t taken;
	size_t n, i;
	uint8_t *gz, *zeros;
	char *r;

	gz = gzip_buf(t.buf, t.len, Z_NO_COMPRESSION, &n);
	r = same_threaded(gz, n, &unpack_ahead, &taken);
	ck_assert_msg(strstr(r, "\nok") != NULL, "%s", strchr(r, '\n'));
	ck_assert_uint_eq(taken, (n + (1u << 20) - 1) >> 20);
	ck_assert_uint_ge(taken, 4);
	free(r);
	/* Cut anywhere: what came before the cut, both ways. */
	for (i = 1; i < 6; i++) {
		r = same_threaded(gz, n * i / 6 + i, &unpack_ahead, &taken);
		free(r);
	}
	/* The CRC at the end no longer matches. */
	gz[n - 4096] ^= 0xff;
	r = same_threaded(gz, n, &unpack_ahead, &taken);
	ck_assert_msg(strstr(r, "gunzip: corrupt data") != NULL, "%s",
	    strchr(r, '\n'));
	free(r);
	free(gz);

	ck_assert_ptr_nonnull(zeros = calloc(1, 40u << 20));
	free(t.buf);
	t = trace_build(100, 0);
	pbb_raw(&b, t.buf, t.len);
	pbb_bytes(&pk, 2047, zeros, 40u << 20);	/* a field no one reads */
	put_msg(&b, 1, &pk);
	ck_assert_int_eq(b.oom, 0);
	gz = gzip_buf(b.buf, b.len, 9, &n);
	ck_assert_uint_lt(n, 1u << 20);
	r = same_threaded(gz, n, &unpack_ahead, &taken);
	ck_assert_msg(strstr(r, "\nok") != NULL, "%s", strchr(r, '\n'));
	ck_assert_uint_ge(taken, 2);
	free(r);
	free(gz);
	free(zeros);
	pbb_free(&b);
	free(t.buf);
}
END_TEST

/* Appends packet pk, on sequence seq (machine: its id, 0 none), at ts
 * when not 0. */
static void
put_packet(struct pbbuf *t, uint32_t field, struct pbbuf *m, uint32_t seq,
    uint64_t ts, uint32_t machine)
{
	struct pbbuf pk = { 0 };

	if (ts != 0)
		pbb_uint(&pk, 8, ts);
	pbb_uint(&pk, 10, seq);
	if (machine != 0)
		pbb_uint(&pk, 98, machine);	/* machine_id */
	put_msg(&pk, field, m);
	put_msg(t, 1, &pk);
}

/* An FtraceEvent of cpu at ts, by k: a sched_switch, a print of a
 * counter, or a sched_wakeup. */
static void
put_ftrace_event(struct pbbuf *b, uint64_t ts, uint32_t cpu, int k)
{
	struct pbbuf e = { 0 }, m = { 0 };
	uint32_t prev = 100 + (uint32_t)(k + (int)cpu) % 7, next;
	char s[32];

	next = 100 + (prev - 99) % 7;
	pbb_uint(&e, 1, ts);
	pbb_uint(&e, 2, prev);
	if (k % 3 == 0) {
		snprintf(s, sizeof(s), "t%u", prev);
		pbb_bytes(&m, 1, s, strlen(s));		/* prev_comm */
		pbb_uint(&m, 2, prev);
		pbb_uint(&m, 3, 120);
		pbb_uint(&m, 4, k % 2);			/* prev_state */
		snprintf(s, sizeof(s), "t%u", next);
		pbb_bytes(&m, 5, s, strlen(s));		/* next_comm */
		pbb_uint(&m, 6, next);
		pbb_uint(&m, 7, 120);
		put_msg(&e, 4, &m);			/* sched_switch */
	} else if (k % 5 == 0) {
		snprintf(s, sizeof(s), "C|%u|load|%d\n", prev, k);
		pbb_uint(&m, 1, 0xffff);		/* ip */
		pbb_bytes(&m, 2, s, strlen(s));		/* buf */
		put_msg(&e, 3, &m);			/* print */
	} else {
		snprintf(s, sizeof(s), "t%u", next);
		pbb_bytes(&m, 1, s, strlen(s));		/* comm */
		pbb_uint(&m, 2, next);
		pbb_uint(&m, 3, 120);
		pbb_uint(&m, 5, cpu);			/* target_cpu */
		put_msg(&e, 17, &m);			/* sched_wakeup */
	}
	put_msg(b, 2, &e);
}

/* A bundle of cpu from base: n events, then nc compact sched switches
 * and as many wakings, 97 ns apart. */
static void
put_bundle(struct pbbuf *t, uint32_t cpu, uint64_t base, int n, int nc,
    int lost, int first)
{
	struct pbbuf b = { 0 }, cs = { 0 };
	int k;

	pbb_uint(&b, 1, cpu);
	if (lost)
		pbb_uint(&b, 3, 1);		/* lost_events */
	if (first)
		pbb_uint(&b, 10, base - 1);	/* previous_bundle_end */
	for (k = 0; k < n; k++)
		put_ftrace_event(&b, base + (uint64_t)k * 100 + cpu, cpu, k);
	pbb_bytes(&cs, 5, "idle", 4);		/* intern_table */
	pbb_bytes(&cs, 5, "t101", 4);
	for (k = 0; k < nc; k++) {
		pbb_uint(&cs, 1, k == 0 ? base + 31 : 97);	/* switch ts */
		pbb_uint(&cs, 2, 0);				/* prev_state */
		pbb_uint(&cs, 3, k % 2 ? 101 : 0);		/* next_pid */
		pbb_uint(&cs, 4, 120);
		pbb_uint(&cs, 6, (uint64_t)(k % 2));		/* comm index */
		pbb_uint(&cs, 7, k == 0 ? base + 33 : 97);	/* waking ts */
		pbb_uint(&cs, 8, 101);
		pbb_uint(&cs, 9, cpu);
		pbb_uint(&cs, 10, 120);
		pbb_uint(&cs, 11, 1);
	}
	put_msg(&b, 4, &cs);			/* compact_sched */
	put_packet(t, 1, &b, 2, 0, 0);
}

/* A ClockSnapshot of BOOTTIME and MONOTONIC at boot time ts. */
static void
put_clock_snapshot(struct pbbuf *t, uint64_t ts)
{
	struct pbbuf s = { 0 }, c = { 0 };

	pbb_uint(&c, 1, 6);			/* BOOTTIME */
	pbb_uint(&c, 2, ts);
	put_msg(&s, 1, &c);
	pbb_uint(&c, 1, 3);			/* MONOTONIC */
	pbb_uint(&c, 2, ts - 5000);
	put_msg(&s, 1, &c);
	put_packet(t, 6, &s, 1, 0, 0);
}

/* A process tree (machine: whose) and a sys_stats at ts. */
static void
put_procs(struct pbbuf *t, uint64_t ts, int p, uint32_t machine)
{
	struct pbbuf tree = { 0 }, pr = { 0 }, ss = { 0 }, mv = { 0 };
	char s[32];
	int i;

	for (i = 0; i < 7; i++) {
		pbb_uint(&pr, 1, 100 + (uint64_t)i);	/* Process.pid */
		pbb_uint(&pr, 2, 1);			/* ppid */
		snprintf(s, sizeof(s), "/bin/t%d", 100 + i);
		pbb_bytes(&pr, 3, s, strlen(s));	/* cmdline */
		put_msg(&tree, 1, &pr);
		pbb_uint(&pr, 1, 200 + (uint64_t)i);	/* Thread.tid */
		pbb_uint(&pr, 3, 100 + (uint64_t)i);	/* tgid */
		snprintf(s, sizeof(s), "w%d.%d", i, p);
		pbb_bytes(&pr, 2, s, strlen(s));	/* name */
		put_msg(&tree, 2, &pr);
	}
	put_packet(t, 2, &tree, 3, ts, machine);
	pbb_uint(&mv, 1, 1);			/* MEMINFO_MEM_TOTAL */
	pbb_uint(&mv, 2, 1000 + (uint64_t)p);
	put_msg(&ss, 1, &mv);			/* meminfo */
	put_packet(t, 7, &ss, 3, ts + 10, machine);
}

/*
 * An ftrace trace as traced_probes and the service write it, a release
 * of the sorter in each of 40 periods: bundles of four cpus (a fifth
 * from period 20), process trees and sys_stats, flushes and completed
 * reads. Whatever the tokenizer cannot go on with beside the parse
 * thread comes in too: clock snapshots, a cpu's data loss, track events
 * on new sequences with interned data, a remote machine's packets.
 */
static struct pbbuf
ftrace_periods(void)
{
	struct pbbuf t = trace_build(0, 0);
	uint64_t base;
	uint32_t cpu;
	int p;

	put_clock_snapshot(&t, 1000000);
	for (p = 0; p < 40; p++) {
		base = 1000000 + (uint64_t)p * 100000;
		/* First, while the thread parses the period before. */
		if (p % 7 == 3)
			put_clock_snapshot(&t, base);
		if (p % 4 == 1)
			put_procs(&t, base + 50000, p, p % 8 == 5 ? 7 : 0);
		if (p % 9 == 5)
			put_seq_instant(&t, 50 + (uint32_t)p, base + 60000, 1);
		for (cpu = 0; cpu < (p < 20 ? 4u : 5u); cpu++)
			put_bundle(&t, cpu, base, 120, 5, p == 13 && cpu == 2,
			    p == 0 || (p == 20 && cpu == 4));
		put_read_pass(&t);
	}
	ck_assert_int_eq(t.oom, 0);
	return t;
}

/*
 * What the sorter releases is parsed on the second thread while the
 * tokenizer reads on: the same tables as on one thread, under load, the
 * file whole or cut anywhere; most records go to the thread.
 */
START_TEST(test_parse_beside)
{
	struct pbbuf t = ftrace_periods();
	uint64_t done;
	char *r;
	int i;

	r = same_threaded(t.buf, t.len, &parse_beside, &done);
	/* 40 periods of 4 or 5 cpus: 120 events and 10 compact records. */
	ck_assert_uint_gt(done, 40 * 4 * 130 / 2);
	ck_assert_msg(strstr(r, "\nok") != NULL, "%s", strchr(r, '\n'));
	ck_assert_ptr_nonnull(strstr(r, "ftrace_cpu_has_data_loss"));
	ck_assert_ptr_nonnull(strstr(r, "all_data_source_flushed_ns"));
	ck_assert_ptr_nonnull(strstr(r, "s55@"));
	free(r);
	for (i = 1; i < 8; i++) {
		r = same_threaded(t.buf, t.len * (size_t)i / 8 + (size_t)i,
		    &parse_beside, &done);
		free(r);
	}
	free(t.buf);
}
END_TEST

/*
 * Releases of 320k records each, more than the thread parses while the
 * tokenizer reads the next: the tokenizer stops to wait once it runs
 * too far ahead, then goes on; the same tables.
 */
START_TEST(test_parse_beside_backlog)
{
	struct pbbuf t = trace_build(0, 0);
	uint64_t base, done;
	uint32_t cpu;
	char *r;
	int p;

	put_clock_snapshot(&t, 1000000);
	for (p = 0; p < 8; p++) {
		base = 1000000 + (uint64_t)p * 10000000;
		for (cpu = 0; cpu < 4; cpu++)
			put_bundle(&t, cpu, base, 10, 40000, 0, p == 0);
		put_read_pass(&t);
	}
	ck_assert_int_eq(t.oom, 0);
	r = same_threaded(t.buf, t.len, &parse_beside, &done);
	/* All but the last two releases' records, and what the end holds. */
	ck_assert_uint_gt(done, 6 * 4 * 80000);
	ck_assert_msg(strstr(r, "\nok") != NULL, "%s", strchr(r, '\n'));
	free(r);
	free(t.buf);
}
END_TEST

START_TEST(test_gzip_file)
{
	struct pbbuf t = trace_build(30, 0);
	z_stream zs;
	uint8_t *gz = malloc(t.len + 1024);
	char *a, *b;

	memset(&zs, 0, sizeof(zs));
	ck_assert_int_eq(deflateInit2(&zs, 6, Z_DEFLATED, 16 + 15, 8,
	    Z_DEFAULT_STRATEGY), Z_OK);
	zs.next_in = t.buf;
	zs.avail_in = (uInt)t.len;
	zs.next_out = gz;
	zs.avail_out = (uInt)(t.len + 1024);
	ck_assert_int_eq(deflate(&zs, Z_FINISH), Z_STREAM_END);
	a = load_chunked(t.buf, t.len, t.len, 0);
	b = load_chunked(gz, zs.total_out, 17, 0);
	ck_assert_str_eq(a, b);
	deflateEnd(&zs);
	free(a);
	free(b);
	free(gz);
	free(t.buf);
}
END_TEST

START_TEST(test_truncated)
{
	/* A trace cut short keeps what came before the cut. */
	struct pbbuf t = trace_build(20, 0);
	struct tp *tp;
	char *err = NULL, *v;

	tp = tp_new(NULL, &err);
	ck_assert_int_eq(tp_parse(tp, t.buf, t.len - 5), 0);
	ck_assert_int_eq(tp_eof(tp), 0);
	v = query1(tp, "SELECT COUNT(*) FROM slice");
	ck_assert_int_eq(atoi(v), 20);		/* the last one stays open */
	free(v);
	v = query1(tp, "SELECT dur FROM slice ORDER BY ts DESC LIMIT 1");
	ck_assert_str_eq(v, "-1");
	free(v);
	v = query1(tp, "SELECT value FROM stats WHERE name ="
	    " 'proto_decode_errors'");
	ck_assert_str_eq(v, "1");
	free(v);
	tp_free(tp);
	free(t.buf);
}
END_TEST

START_TEST(test_unknown_format)
{
	static const uint8_t bin[] = { 0x00, 0x01, 0x02, 0xff };
	struct tp *tp;
	char *err = NULL;

	tp = tp_new(NULL, &err);
	ck_assert_int_eq(tp_parse(tp, bin, sizeof(bin)), -1);
	ck_assert(strstr(tp_error(tp), "format") != NULL);
	tp_free(tp);

	/* A top-level field that is not length-delimited. */
	tp = tp_new(NULL, &err);
	ck_assert_int_eq(tp_parse(tp, "\x0a\x00\x0d\x01\x02\x03\x04", 7), -1);
	ck_assert(strstr(tp_error(tp), "Perfetto") != NULL);
	tp_free(tp);
}
END_TEST

START_TEST(test_hostile_proto)
{
	/* Valid framing around random packet bodies: everything the
	 * importers reach must cope. */
	uint32_t seed = 99;
	int round;

	for (round = 0; round < 300; round++) {
		struct pbbuf t = { 0 };
		struct tp *tp;
		char *err = NULL;
		int i;

		for (i = 0; i < 20; i++) {
			uint8_t body[96];
			size_t n, k;

			seed = seed * 1103515245 + 12345;
			n = (seed >> 8) % sizeof(body);
			for (k = 0; k < n; k++) {
				seed = seed * 1103515245 + 12345;
				body[k] = (uint8_t)(seed >> 16);
			}
			/* Bias towards real packet fields. */
			if (n > 2 && (seed & 1)) {
				static const uint8_t tags[] = { 0x5a, 0xe2,
				    0x0a, 0x12, 0x62, 0x32, 0x92, 0x3a };

				body[0] = tags[(seed >> 4) % sizeof(tags)];
				if (body[0] == 0xe2 || body[0] == 0x92) {
					body[1] = body[0] == 0xe2 ? 0x03 : 0x03;
				}
			}
			pbb_bytes(&t, 1, body, n);
		}
		tp = tp_new(NULL, &err);
		ck_assert_ptr_nonnull(tp);
		(void)tp_parse(tp, t.buf, t.len);
		ck_assert_int_eq(tp_eof(tp), 0);
		free(query1(tp, "SELECT COUNT(*) FROM slice"));
		tp_free(tp);
		free(t.buf);
	}
}
END_TEST

START_TEST(test_json_chunking)
{
	static const char json[] =
	    "{\"traceEvents\":[{\"ph\":\"B\",\"pid\":1,\"tid\":2,\"ts\":1,"
	    "\"name\":\"a}]\\\"b\",\"args\":{\"x\":[1,{\"y\":\"]}\"}]}},"
	    "{\"ph\":\"E\",\"pid\":1,\"tid\":2,\"ts\":3},"
	    "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":1.5,\"dur\":0.5,"
	    "\"name\":\"c\"}],\"metadata\":{\"traceEvents\":[]}}";
	char *whole = load_chunked((const uint8_t *)json, strlen(json),
	    strlen(json), 0);
	size_t c;

	ck_assert_str_eq(whole, "2:2500:a}]\"b@1000,c@1500");
	for (c = 1; c < 9; c++) {
		char *r = load_chunked((const uint8_t *)json, strlen(json), c,
		    0);

		ck_assert_str_eq(r, whole);
		free(r);
	}
	free(whole);
}
END_TEST

/* Imports doc whole: 0, or -1 when the import failed (parse or end). */
static int
import_doc(const char *doc, char **slices)
{
	struct tp *tp;
	char *err = NULL;
	int rc;

	tp = tp_new(NULL, &err);
	ck_assert_ptr_nonnull(tp);
	rc = tp_parse(tp, doc, strlen(doc));
	if (tp_eof(tp) == -1)
		rc = -1;
	if (rc == -1)
		ck_assert_msg(strstr(tp_error(tp), "JSON") != NULL, "%s",
		    tp_error(tp));
	*slices = query1(tp, "SELECT COUNT(*) FROM slice");
	tp_free(tp);
	return rc;
}

START_TEST(test_hostile_json)
{
	/* Odd but well-formed documents load; broken ones are errors. */
	static const struct {
		const char	*doc;
		int		 rc;
	} docs[] = {
		{ "[", 0 },
		{ "{\"traceEvents\":[{\"ph\":\"B\",\"ts\":", -1 },
		{ "{\"traceEvents\":[{\"ph\":\"X\",\"ts\":1e400,"
		    "\"dur\":-5}]}", 0 },
		{ "[{\"ph\":\"B\",\"ts\":1,\"name\":\"\\u12\"}]", -1 },
		{ "[{\"ph\":\"C\",\"ts\":1,\"args\":{\"v\":\"nan\"}}]", 0 },
		{ "[{\"ph\":\"s\",\"ts\":1},{\"ph\":\"f\",\"ts\":2,"
		    "\"id\":{}}]", 0 },
		{ "[{\"ph\":\"M\",\"name\":\"thread_name\",\"args\":5}]", 0 },
		{ "[{\"ph\":\"E\",\"ts\":-1}]", 0 },
		{ "{\"traceEvents\":{\"ph\":\"B\"}}", -1 },
	};
	char *v;
	char deep[5000];
	size_t i;

	for (i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		ck_assert_msg(import_doc(docs[i].doc, &v) == docs[i].rc,
		    "%s", docs[i].doc);
		free(v);
	}
	/* Nesting deeper than the parser allows: dropped and counted. */
	memset(deep, '[', sizeof(deep));
	memcpy(deep, "[{\"ph\":\"X\",\"ts\":1,\"args\":", 25);
	{
		struct tp *tp;
		char *err = NULL;

		tp = tp_new(NULL, &err);
		ck_assert_int_eq(tp_parse(tp, deep, sizeof(deep)), 0);
		ck_assert_int_eq(tp_parse(tp, "]", 1), 0);
		ck_assert_int_eq(tp_eof(tp), 0);
		v = query1(tp, "SELECT COUNT(*) FROM slice");
		ck_assert_str_eq(v, "0");
		free(v);
		tp_free(tp);
	}
}
END_TEST

/*
 * A JSON trace that does not parse is an error, as upstream's importer
 * decides; only a bare events array cut short keeps what came whole.
 */
START_TEST(test_json_strict)
{
	static const char *const broken[] = {
		"{\"traceEvents\":[]} x",			/* after the end */
		"[] ]",
		"{\"traceEvents\" []}",			/* no colon */
		"{traceEvents:[]}",				/* key not a string */
		"{\"traceEvents\":[1]}",			/* not an event */
		"{\"traceEvents\":[{\"ph\":\"X\",,\"ts\":1}]}",	/* bad event */
		"[{\"ph\":\"X\" \"ts\":1}]",
		"[{\"ph\":\"X\",\"ts\":1},,{\"ph\":\"X\",\"ts\":2}]",
		"{\"traceEvents\":[],\"metadata\":{\"a\":]}}",	/* ']' */
		"{\"traceEvents\":[],\"x\":?}",
		"{\"traceEvents\":[{\"ph\":\"X\",\"ts\":1,\"dur\":1}]",
		"{\"displayTimeUnit\":5}",
		"{\"systemTraceEvents\":[]}",
		"{",
	};
	static const struct {
		const char	*doc;
		const char	*slices;
	} kept[] = {
		/* Cut short inside the array: the whole events stay. */
		{ "[{\"ph\":\"X\",\"ts\":1,\"dur\":1,\"pid\":1,\"tid\":1},"
		    "{\"ph\":\"X\",\"ts\":2,\"d", "1" },
		/* A trailing comma in an event, as upstream's parser takes. */
		{ "[{\"ph\":\"X\",\"ts\":1,\"dur\":1,\"pid\":1,\"tid\":1,"
		    "\"args\":{\"a\":[1,2,],}},]", "1" },
		/* A trailing comma before ']', as upstream accepts. */
		{ "{\"traceEvents\":[{\"ph\":\"X\",\"ts\":1,\"dur\":1,"
		    "\"pid\":1,\"tid\":1},],\"metadata\":{\"k\":[1,{}]},"
		    "\"otherData\":\"a]}\"}\n", "1" },
	};
	char *v;
	size_t i;

	for (i = 0; i < sizeof(broken) / sizeof(broken[0]); i++) {
		ck_assert_msg(import_doc(broken[i], &v) == -1, "loaded: %s",
		    broken[i]);
		free(v);
	}
	for (i = 0; i < sizeof(kept) / sizeof(kept[0]); i++) {
		ck_assert_msg(import_doc(kept[i].doc, &v) == 0, "refused: %s",
		    kept[i].doc);
		ck_assert_str_eq(v, kept[i].slices);
		free(v);
	}
}
END_TEST

START_TEST(test_deep_track_chain)
{
	/* Each track the parent of the next, 50000 deep, and a loop: the
	 * resolution must stay bounded (no stack exhaustion). */
	struct pbbuf t = { 0 }, pk = { 0 }, m = { 0 };
	struct tp *tp;
	char *err = NULL, *v;
	uint64_t i;

	for (i = 1; i <= 50000; i++) {
		pbb_uint(&m, 1, i);			/* uuid */
		pbb_uint(&m, 5, i == 1 ? 50000 : i - 1);	/* parent: a loop */
		pbb_bytes(&m, 2, "t", 1);
		put_msg(&pk, 60, &m);
		put_msg(&t, 1, &pk);
	}
	pbb_uint(&pk, 8, 10);
	pbb_uint(&pk, 10, 1);
	pbb_uint(&m, 9, 3);
	pbb_uint(&m, 11, 50000);
	pbb_bytes(&m, 23, "deep", 4);
	put_msg(&pk, 11, &m);
	put_msg(&t, 1, &pk);
	tp = tp_new(NULL, &err);
	ck_assert_int_eq(tp_parse(tp, t.buf, t.len), 0);
	ck_assert_int_eq(tp_eof(tp), 0);
	v = query1(tp, "SELECT COUNT(*) FROM slice WHERE name = 'deep'");
	ck_assert_str_eq(v, "1");
	free(v);
	tp_free(tp);
	free(t.buf);
}
END_TEST

START_TEST(test_hostile_systrace)
{
	static const char *const docs[] = {
		"#\n [001] 1.0: x: y\n",		/* no task before the cpu */
		"# t\n-1 [0] 1.5: sched_switch: prev_pid=\n",
		"# t\na-1 (x) [000] 9.9:\n",
		"# t\na-1 [000] 99999999999999999999.1: print: B|1|x\n",
		"# t\na-1 [000] 1.0: tracing_mark_write: C|1|n|\n",
		"# t\na-1 [4097] 1.0: cpu_idle: state=1 cpu_id=99999\n",
	};
	size_t i;

	for (i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		size_t n = strlen(docs[i]);
		char *copy = malloc(n);		/* exact size for ASan */
		struct tp *tp;
		char *err = NULL;

		memcpy(copy, docs[i], n);
		tp = tp_new(NULL, &err);
		ck_assert_int_eq(tp_parse(tp, copy, n), 0);
		ck_assert_int_eq(tp_eof(tp), 0);
		free(query1(tp, "SELECT COUNT(*) FROM ftrace_event"));
		tp_free(tp);
		free(copy);
	}
}
END_TEST

/*
 * Threads and processes are columnar tables priced by their size: a join
 * that filters threads starts from them, not from every sched slice.
 */
START_TEST(test_thread_tables)
{
	static const char doc[] =
	    "# tracer: nop\n"
	    "  <idle>-0 [000] 1.000000: sched_switch: prev_comm=swapper/0"
	    " prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=kworker/0:1"
	    " next_pid=10 next_prio=120\n"
	    "  kworker/0:1-10 [000] 1.100000: sched_switch:"
	    " prev_comm=kworker/0:1 prev_pid=10 prev_prio=120 prev_state=S"
	    " ==> next_comm=app next_pid=20 next_prio=120\n"
	    "  app-20 [000] 1.200000: sched_switch: prev_comm=app prev_pid=20"
	    " prev_prio=120 prev_state=S ==> next_comm=kworker/0:1"
	    " next_pid=10 next_prio=120\n"
	    "  kworker/0:1-10 [000] 1.300000: sched_switch:"
	    " prev_comm=kworker/0:1 prev_pid=10 prev_prio=120 prev_state=S"
	    " ==> next_comm=swapper/0 next_pid=0 next_prio=120\n";
	const char *join = "SELECT COUNT(*) FROM sched JOIN thread"
	    " USING (utid) WHERE thread.name LIKE 'kwork%'";
	sqlite3_stmt *st;
	struct tp *tp;
	char *err = NULL, *sql;

	tp = tp_new(NULL, &err);
	ck_assert_int_eq(tp_parse(tp, doc, sizeof(doc) - 1), 0);
	ck_assert_int_eq(tp_eof(tp), 0);
	/* Upstream's columns, in its order. */
	query_is(tp, "SELECT GROUP_CONCAT(name) FROM pragma_table_info("
	    "'thread')", "utid,id,tid,name,start_ts,end_ts,upid,"
	    "is_main_thread,is_idle,machine_id,arg_set_id");
	query_is(tp, "SELECT GROUP_CONCAT(utid || ':' || tid || ':' || name)"
	    " FROM thread WHERE id > 0", "1:10:kworker/0:1,2:20:app");
	query_is(tp, join, "2");
	sql = sqlite3_mprintf("EXPLAIN QUERY PLAN %s", join);
	ck_assert_int_eq(sqlite3_prepare_v2(tp_db(tp), sql, -1, &st, NULL),
	    SQLITE_OK);
	ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
	ck_assert_msg(strncmp((const char *)sqlite3_column_text(st, 3),
	    "SCAN thread", 11) == 0, "the join starts from %s",
	    sqlite3_column_text(st, 3));
	sqlite3_finalize(st);
	sqlite3_free(sql);
	tp_free(tp);
}
END_TEST

START_TEST(test_api_misuse)
{
	struct tp *tp;
	char *err = NULL;

	tp = tp_new(NULL, &err);
	ck_assert_int_eq(tp_eof(tp), 0);
	ck_assert_int_eq(tp_eof(tp), 0);
	ck_assert_int_eq(tp_parse(tp, "[", 1), -1);
	ck_assert(strstr(tp_error(tp), "complete") != NULL);
	ck_assert_int_eq(tp_load_file(tp, "/nonexistent/trace"), -1);
	tp_free(tp);
}
END_TEST

/*
 * A trace read as it is recorded: parse, checkpoint, evict, parse on.
 * The slices left are those of a full import that end at or after the
 * horizon, with their ids; the queries in between see released rows;
 * a record older than a checkpoint released is dropped and counted.
 */
START_TEST(test_checkpoint_evict)
{
	struct pbbuf t = trace_build(100, 0), rev = trace_build(40, 1);
	struct tp_config cfg;
	struct tp *full, *inc;
	char *err = NULL, *a, *b;
	size_t half = t.len / 2 + 3;

	tp_config_init(&cfg);
	ck_assert_ptr_nonnull(full = tp_new(&cfg, &err));
	ck_assert_int_eq(tp_parse(full, t.buf, t.len), 0);
	ck_assert_int_eq(tp_eof(full), 0);
	ck_assert_ptr_nonnull(inc = tp_new(&cfg, &err));
	ck_assert_int_eq(tp_parse(inc, t.buf, half), 0);
	/* Nothing released yet: the window holds the records. */
	ck_assert_int_eq(tp_checkpoint(inc, INT64_MIN), 0);
	a = query1(inc, "SELECT COUNT() FROM slice");
	ck_assert_str_eq(a, "0");
	free(a);
	/* Up to 3000: slices 0..19 begin before, slice 19 still open. */
	ck_assert_int_eq(tp_checkpoint(inc, 3000), 0);
	a = query1(inc, "SELECT COUNT() || ':' || SUM(dur >= 0) || ':' ||"
	    " MAX(id) FROM slice");
	ck_assert_str_eq(a, "20:20:19");
	free(a);
	ck_assert_int_eq(tp_checkpoint(inc, INT64_MAX), 0);
	ck_assert_int_eq(tp_evict_before(inc, 3000), 0);
	/* Evicting again, or an older horizon, changes nothing. */
	ck_assert_int_eq(tp_evict_before(inc, 2000), 0);
	a = query1(inc, "SELECT MIN(id) || ':' || MIN(ts) FROM slice");
	ck_assert_str_eq(a, "20:3000");
	free(a);
	ck_assert_int_eq(tp_parse(inc, t.buf + half, t.len - half), 0);
	ck_assert_int_eq(tp_checkpoint(inc, INT64_MAX), 0);
	a = query1(full, "SELECT GROUP_CONCAT(id || '/' || ts || '/' || dur"
	    " || '/' || name || '/' || depth, ',') FROM (SELECT * FROM slice"
	    " WHERE ts + dur >= 3000 ORDER BY id)");
	b = query1(inc, "SELECT GROUP_CONCAT(id || '/' || ts || '/' || dur"
	    " || '/' || name || '/' || depth, ',') FROM (SELECT * FROM slice"
	    " ORDER BY id)");
	ck_assert_str_eq(a, b);
	free(a);
	free(b);
	a = query1(inc, "SELECT start_ts || ':' || end_ts FROM trace_bounds");
	ck_assert_str_eq(a, "3000:10950");
	free(a);
	tp_free(inc);

	/* Late records: the second half of a reversed trace is older than
	 * what the checkpoint released. */
	ck_assert_ptr_nonnull(inc = tp_new(&cfg, &err));
	ck_assert_int_eq(tp_parse(inc, rev.buf, rev.len / 2), 0);
	ck_assert_int_eq(tp_checkpoint(inc, INT64_MAX), 0);
	ck_assert_int_eq(tp_parse(inc, rev.buf + rev.len / 2,
	    rev.len - rev.len / 2), 0);
	ck_assert_int_eq(tp_checkpoint(inc, INT64_MAX), 0);
	a = query1(inc, "SELECT value FROM stats WHERE name ="
	    " 'sorter_push_event_out_of_order'");
	ck_assert_int_gt(atoi(a), 10);
	free(a);
	tp_free(inc);
	tp_free(full);
	free(t.buf);
	free(rev.buf);
}
END_TEST

/* A trace of one packet holding FtraceEventBundle b (freed), loaded. */
static struct tp *
load_bundle(struct pbbuf *b)
{
	struct pbbuf t = { 0 }, pk = { 0 };
	struct tp_config cfg;
	struct tp *tp;
	char *err = NULL;

	put_msg(&pk, 1, b);				/* ftrace_events */
	put_msg(&t, 1, &pk);
	ck_assert_int_eq(t.oom, 0);
	tp_config_init(&cfg);
	ck_assert_ptr_nonnull(tp = tp_new(&cfg, &err));
	ck_assert_int_eq(tp_parse(tp, t.buf, t.len), 0);
	ck_assert_int_eq(tp_eof(tp), 0);
	free(t.buf);
	return tp;
}

/*
 * n sched_wakeup events (raw events only: no thread is made) of `kinds`
 * kinds of fields, event i of kind (i * 7919) % kinds + 1 in its pid and
 * comm: each row's args must be its own, however the remembered sets'
 * table is filled, evicted or grown.
 */
static void
ftrace_args_repeat(int n, int kinds)
{
	struct pbbuf b = { 0 }, e = { 0 }, wk = { 0 };
	struct tp *tp;
	char comm[16], want[32], sql[512];
	int i, pid;

	pbb_uint(&b, 1, 0);			/* FtraceEventBundle.cpu */
	for (i = 0; i < n; i++) {
		pid = (int)(((int64_t)i * 7919) % kinds) + 1;
		snprintf(comm, sizeof(comm), "p%d", pid);
		pbb_bytes(&wk, 1, comm, strlen(comm));	/* comm */
		pbb_uint(&wk, 2, (uint64_t)pid);	/* pid */
		pbb_uint(&wk, 3, 120);			/* prio */
		pbb_uint(&wk, 5, 1);			/* target_cpu */
		pbb_uint(&e, 1, 1000 + (uint64_t)i * 10);	/* timestamp */
		pbb_uint(&e, 2, 1);			/* pid */
		put_msg(&e, 17, &wk);			/* sched_wakeup */
		put_msg(&b, 2, &e);
	}
	tp = load_bundle(&b);
	snprintf(want, sizeof(want), "%d", n);
	query_is(tp, "SELECT COUNT(*) FROM ftrace_event", want);
	/* The event's time tells its kind: the args are its own. */
	snprintf(sql, sizeof(sql), "SELECT COUNT(*) FROM (SELECT ts,"
	    " EXTRACT_ARG(arg_set_id, 'pid') AS p,"
	    " EXTRACT_ARG(arg_set_id, 'comm') AS c FROM ftrace_event)"
	    " WHERE p = ((ts - 1000) / 10 * 7919) %% %d + 1 AND c = 'p' || p",
	    kinds);
	query_is(tp, sql, want);
	snprintf(want, sizeof(want), "%d", kinds);
	query_is(tp, "SELECT COUNT(DISTINCT arg_set_id) FROM ftrace_event",
	    want);
	snprintf(want, sizeof(want), "%d", kinds * 4);
	query_is(tp, "SELECT COUNT(*) FROM args", want);
	tp_free(tp);
}

/* More kinds than the first table holds (16384), in an order that
 * evicts. */
START_TEST(test_ftrace_args_repeat)
{
	ftrace_args_repeat(80000, 20000);
}
END_TEST

/* Most lookups missing for a while: the table grows meanwhile. */
START_TEST(test_ftrace_args_many_kinds)
{
	ftrace_args_repeat(300000, 150000);
}
END_TEST

/* A stored set of one int arg, v. */
static int64_t
one_arg_set(struct tp *tp, int64_t v)
{
	int64_t set = tp_arg_set_new(tp);

	tp_arg_int(tp, set, "v", "v", v, "int");
	return tp_arg_set_done(tp, set);
}

/* Whether key k (tag 1) is remembered as set id. */
static int
memo_has(struct tp *tp, const char *k, int64_t id)
{
	return tp_arg_memo_get(tp, 1, k, strlen(k), tp_arg_memo_hash(1, k,
	    strlen(k))) == id;
}

/*
 * A remembered set found again and again keeps its slot from keys that
 * come by once: each would-be replacement takes one of its hits (up to
 * three), and only then does it go.
 */
START_TEST(test_arg_memo_hot)
{
	char *err = NULL, keys[5][16];
	struct tp *tp = tp_new(NULL, &err);
	uint32_t ha = tp_arg_memo_hash(1, "a", 1), h;
	int64_t a = one_arg_set(tp, 1), b = one_arg_set(tp, 2);
	int i, n = 0;

	ck_assert(!memo_has(tp, "a", a));	/* makes the table */
	tp_arg_memo_put(tp, 1, "a", 1, ha, a);
	for (i = 0; i < 3; i++)
		ck_assert(memo_has(tp, "a", a));
	/* Keys of a's slot in the first table (16384 slots). */
	for (i = 0; n < 5; i++) {
		snprintf(keys[n], sizeof(keys[n]), "b%d", i);
		h = tp_arg_memo_hash(1, keys[n], strlen(keys[n]));
		if ((h & 16383) == (ha & 16383))
			n++;
	}
	for (i = 0; i < 3; i++) {
		tp_arg_memo_put(tp, 1, keys[i], strlen(keys[i]),
		    tp_arg_memo_hash(1, keys[i], strlen(keys[i])), b);
		ck_assert(!memo_has(tp, keys[i], b));
	}
	ck_assert(memo_has(tp, "a", a));	/* cooled, not gone; one hit */
	tp_arg_memo_put(tp, 1, keys[3], strlen(keys[3]),
	    tp_arg_memo_hash(1, keys[3], strlen(keys[3])), b);
	ck_assert(memo_has(tp, "a", a));
	tp_arg_memo_put(tp, 1, keys[3], strlen(keys[3]),
	    tp_arg_memo_hash(1, keys[3], strlen(keys[3])), b);
	tp_arg_memo_put(tp, 1, keys[4], strlen(keys[4]),
	    tp_arg_memo_hash(1, keys[4], strlen(keys[4])), b);
	ck_assert(!memo_has(tp, "a", a));
	ck_assert(memo_has(tp, keys[4], b));
	tp_free(tp);
}
END_TEST

/* A sched_wakeup of pid as field 17 of FtraceEvent e. */
static void
put_wakeup(struct pbbuf *e, uint32_t pid)
{
	struct pbbuf wk = { 0 };

	pbb_bytes(&wk, 1, "w", 1);		/* comm */
	pbb_uint(&wk, 2, pid);
	pbb_uint(&wk, 3, 120);			/* prio */
	pbb_uint(&wk, 5, 0);			/* target_cpu */
	put_msg(e, 17, &wk);
}

/*
 * The FtraceEvent wrapper, which the tokenizer reads for the parse: its
 * pid and common_flags in any order around the event, the first event
 * field only, and an event it holds none of or that is damaged counted
 * once as a tokenizer error, with the events around it kept.
 */
START_TEST(test_ftrace_wrapper)
{
	struct pbbuf b = { 0 }, e = { 0 }, g = { 0 };
	struct tp *tp;
	static const uint8_t bad_len[] = { 0x32, 0x7f };  /* field 6, 127 B */

	pbb_uint(&b, 1, 0);			/* FtraceEventBundle.cpu */
	/* pid and flags first, then the event. */
	pbb_uint(&e, 1, 1000);
	pbb_uint(&e, 2, 5);
	pbb_uint(&e, 5, 0x8);			/* common_flags */
	put_wakeup(&e, 50);
	put_msg(&b, 2, &e);
	/* No event at all. */
	pbb_uint(&e, 1, 1010);
	pbb_uint(&e, 2, 6);
	put_msg(&b, 2, &e);
	/* An event, then a field cut short. */
	pbb_uint(&e, 1, 1020);
	pbb_uint(&e, 2, 7);
	put_wakeup(&e, 70);
	pbb_raw(&e, bad_len, sizeof(bad_len));
	put_msg(&b, 2, &e);
	/* The event first, pid and flags after; a second event field is
	 * not read. */
	pbb_uint(&e, 1, 1030);
	put_wakeup(&e, 90);
	pbb_uint(&e, 2, 9);
	pbb_uint(&e, 5, 0x10);
	put_wakeup(&e, 91);
	put_msg(&b, 2, &e);
	/* A generic event, named by its own field; no pid, no flags. */
	pbb_uint(&e, 1, 1040);
	pbb_bytes(&g, 1, "my_event", 8);	/* event_name */
	put_msg(&e, 327, &g);			/* generic */
	put_msg(&b, 2, &e);
	tp = load_bundle(&b);
	query_is(tp, "SELECT GROUP_CONCAT(ts || ':' || name || ':' ||"
	    " IFNULL(tid, 'x') || ':' || common_flags || ':' ||"
	    " IFNULL(EXTRACT_ARG(arg_set_id, 'pid'), 'x'), ',') FROM"
	    " (SELECT * FROM ftrace_event LEFT JOIN thread USING (utid)"
	    " ORDER BY ts)", "1000:sched_wakeup:5:8:50,"
	    "1030:sched_wakeup:9:16:90,1040:my_event:0:0:x");
	query_is(tp, "SELECT value FROM stats"
	    " WHERE name = 'ftrace_bundle_tokenizer_errors'", "2");
	tp_free(tp);
}
END_TEST

/* A slice [ts, ts + 50] on track 42 of sequence 7 with flow id 7. */
static void
flow_slice(struct pbbuf *t, uint64_t ts, int first)
{
	struct pbbuf pk = { 0 }, m = { 0 }, s = { 0 };
	int j;

	if (first) {
		pbb_uint(&s, 1, 5);
		pbb_uint(&s, 2, 6);
		pbb_uint(&m, 1, 42);
		put_msg(&m, 4, &s);
		put_msg(&pk, 60, &m);
		put_msg(t, 1, &pk);
	}
	for (j = 0; j < 2; j++) {
		pbb_uint(&pk, 8, ts + (uint64_t)j * 50);
		pbb_uint(&pk, 10, 7);
		pbb_uint(&m, 9, j == 0 ? 1 : 2);
		pbb_uint(&m, 11, 42);
		if (j == 0) {
			pbb_bytes(&m, 23, "hop", 3);
			pbb_uint(&m, 36, 7);		/* flow_ids */
		}
		put_msg(&pk, 11, &m);
		put_msg(t, 1, &pk);
	}
}

/* Flows never point at an evicted slice, neither those in the table
 * nor a step still waiting for its next slice. */
START_TEST(test_evict_flows)
{
	struct pbbuf t = { 0 };
	struct tp *tp;
	char *err = NULL, *a;

	ck_assert_ptr_nonnull(tp = tp_new(NULL, &err));
	flow_slice(&t, 1000, 1);
	ck_assert_int_eq(tp_parse(tp, t.buf, t.len), 0);
	ck_assert_int_eq(tp_checkpoint(tp, INT64_MAX), 0);
	ck_assert_int_eq(tp_evict_before(tp, 2000), 0);
	t.len = 0;
	flow_slice(&t, 5000, 0);
	flow_slice(&t, 9000, 0);
	ck_assert_int_eq(tp_parse(tp, t.buf, t.len), 0);
	ck_assert_int_eq(tp_checkpoint(tp, INT64_MAX), 0);
	a = query1(tp, "SELECT COUNT() || ':' || SUM(slice_out IN (SELECT id"
	    " FROM slice) AND slice_in IN (SELECT id FROM slice)) || ':' ||"
	    " MIN(slice_out) || '>' || MIN(slice_in) FROM flow");
	ck_assert_str_eq(a, "1:1:1>2");
	free(a);
	/* The flow's start goes: the flow goes with it. */
	ck_assert_int_eq(tp_evict_before(tp, 6000), 0);
	a = query1(tp, "SELECT COUNT() FROM flow");
	ck_assert_str_eq(a, "0");
	free(a);
	a = query1(tp, "SELECT GROUP_CONCAT(id) FROM slice");
	ck_assert_str_eq(a, "2");
	free(a);
	tp_free(tp);
	free(t.buf);
}
END_TEST

/*
 * Ill-nested input: a complete child that ends after its parent (the E
 * at 50 us ends p while c runs to 100 us). Evicting before 60 us keeps
 * p, over but the parent of c that stays: no parent_id points at a slice
 * that is gone; g, over and a leaf, goes.
 */
START_TEST(test_evict_ill_nested)
{
	static const char json[] = "{\"traceEvents\":["
	    "{\"ph\":\"B\",\"pid\":1,\"tid\":1,\"ts\":0,\"name\":\"p\"},"
	    "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":90,"
	    "\"name\":\"c\"},"
	    "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":20,\"dur\":5,"
	    "\"name\":\"g\"},"
	    "{\"ph\":\"E\",\"pid\":1,\"tid\":1,\"ts\":50}]}";
	struct tp *tp;
	char *err = NULL, *a;

	ck_assert_ptr_nonnull(tp = tp_new(NULL, &err));
	ck_assert_int_eq(tp_parse(tp, json, sizeof(json) - 1), 0);
	ck_assert_int_eq(tp_checkpoint(tp, INT64_MAX), 0);
	a = query1(tp, "SELECT GROUP_CONCAT(name || ':' || (ts + dur) || ':'"
	    " || depth, ',') FROM (SELECT * FROM slice ORDER BY id)");
	ck_assert_str_eq(a, "p:50000:0,c:100000:1,g:25000:2");
	free(a);
	ck_assert_int_eq(tp_evict_before(tp, 60000), 0);
	a = query1(tp, "SELECT GROUP_CONCAT(name, ',') FROM (SELECT name"
	    " FROM slice ORDER BY id)");
	ck_assert_str_eq(a, "p,c");
	free(a);
	a = query1(tp, "SELECT COUNT() FROM slice WHERE parent_id IS NOT NULL"
	    " AND parent_id NOT IN (SELECT id FROM slice)");
	ck_assert_str_eq(a, "0");
	free(a);
	/* Once c is over too, both go. */
	ck_assert_int_eq(tp_evict_before(tp, 200000), 0);
	a = query1(tp, "SELECT COUNT() FROM slice");
	ck_assert_str_eq(a, "0");
	free(a);
	tp_free(tp);
}
END_TEST

static Suite *
engine_suite(void)
{
	Suite *s = suite_create("tp_engine");
	TCase *tc = tcase_create("core");

	/* The parse thread's tests load a few MB four times under CPU hogs. */
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_chunking);
	tcase_add_test(tc, test_sorting_and_window);
	tcase_add_test(tc, test_compressed_packets);
	tcase_add_test(tc, test_zstd_compressed_packets);
	tcase_add_test(tc, test_compressed_ahead);
	tcase_add_test(tc, test_parse_beside);
	tcase_add_test(tc, test_parse_beside_backlog);
	tcase_add_test(tc, test_gzip_ahead);
	tcase_add_test(tc, test_gzip_file);
	tcase_add_test(tc, test_truncated);
	tcase_add_test(tc, test_unknown_format);
	tcase_add_test(tc, test_hostile_proto);
	tcase_add_test(tc, test_json_chunking);
	tcase_add_test(tc, test_sorting_service_marks);
	tcase_add_test(tc, test_stats_rows);
	tcase_add_test(tc, test_sorting_blocks);
	tcase_add_test(tc, test_te_timestamp_overflow);
	tcase_add_test(tc, test_hostile_json);
	tcase_add_test(tc, test_json_strict);
	tcase_add_test(tc, test_deep_track_chain);
	tcase_add_test(tc, test_hostile_systrace);
	tcase_add_test(tc, test_thread_tables);
	tcase_add_test(tc, test_arg_memo_hot);
	tcase_add_test(tc, test_api_misuse);
	tcase_add_test(tc, test_checkpoint_evict);
	tcase_add_test(tc, test_ftrace_args_repeat);
	tcase_add_test(tc, test_ftrace_args_many_kinds);
	tcase_add_test(tc, test_ftrace_wrapper);
	tcase_add_test(tc, test_evict_flows);
	tcase_add_test(tc, test_evict_ill_nested);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(engine_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
