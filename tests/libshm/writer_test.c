/*
 * Producer path end to end: pbw encoding, trace writer -> SMB (memfd) ->
 * commits -> trace buffer -> read-back; fragments, back-fill, patches,
 * SMB exhaustion, scraping, writer ids and concurrent writers.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libshm/pbw.h"
#include "shm_test.h"

START_TEST(test_pbw_flat)
{
	static const uint8_t want[] = {
		0x08, 0x96, 0x01,		/* 1: varint 150 */
		0x10, 0x01,			/* 2: sint -1 */
		0x18, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0x01,				/* 3: int32 -1 */
		0x25, 0x78, 0x56, 0x34, 0x12,	/* 4: fixed32 */
		0x29, 1, 0, 0, 0, 0, 0, 0, 0,	/* 5: fixed64 1 */
		0x31, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f, /* 6: double 1.0 */
		0x3d, 0, 0, 0x80, 0x3f,		/* 7: float 1.0 */
		0x42, 0x02, 'h', 'i',		/* 8: string */
		0x4a, 0x85, 0x80, 0x80, 0x00,	/* 9: nested, 5 bytes */
		0x08, 0x01, 0x10, 0x96, 0x01,
		0x50, 0x01,			/* 10: bool */
		0x58, 0x03,			/* 11: sint32 -2 */
	};
	uint8_t buf[128];
	struct pbw w;

	pbw_init_flat(&w, buf, sizeof(buf));
	pbw_varint(&w, 1, 150);
	pbw_sint64(&w, 2, -1);
	pbw_int32(&w, 3, -1);
	pbw_fixed32(&w, 4, 0x12345678);
	pbw_fixed64(&w, 5, 1);
	pbw_double(&w, 6, 1.0);
	pbw_float(&w, 7, 1.0f);
	pbw_string(&w, 8, "hi");
	ck_assert_int_eq(pbw_nested_begin(&w, 9), 0);
	pbw_varint(&w, 1, 1);
	pbw_varint(&w, 2, 150);
	pbw_nested_end(&w);
	pbw_bool(&w, 10, 1);
	pbw_sint32(&w, 11, -2);
	ck_assert_uint_eq(w.error, 0);
	ck_assert_uint_eq(pbw_written(&w), sizeof(want));
	ck_assert_mem_eq(buf, want, sizeof(want));

	/* Overflow is reported, never written past the end. */
	pbw_init_flat(&w, buf, 8);
	pbw_string(&w, 1, "0123456789");
	ck_assert(w.error & PBW_ERR_OVERFLOW);
	/* Depth limit and unbalanced ends are reported. */
	{
		int i;

		pbw_init_flat(&w, buf, sizeof(buf));
		for (i = 0; i < PBW_MAX_DEPTH; i++)
			ck_assert_int_eq(pbw_nested_begin(&w, 3), 0);
		ck_assert_int_eq(pbw_nested_begin(&w, 3), -1);
		ck_assert(w.error & PBW_ERR_DEPTH);
		for (i = 0; i < PBW_MAX_DEPTH + 1; i++)
			pbw_nested_end(&w);
		ck_assert_uint_eq(w.depth, 0);
		ck_assert(proto_check(buf, pbw_written(&w), 0) >= 0);
		pbw_nested_end(&w);
		ck_assert(w.error & PBW_ERR_UNBALANCED);
	}
}
END_TEST

/* Writes n test packets of size len(i), flushes, reads back, checks. */
static void
roundtrip(struct svc *s, struct shm_writer *w, size_t n,
    size_t (*len)(size_t), struct pkts *ps)
{
	struct pbw *p;
	size_t i;

	for (i = 0; i < n; i++) {
		p = shm_writer_packet_begin(w);
		test_packet_write(p, i, len(i));
		shm_writer_packet_end(w);
	}
	shm_writer_flush(w);
	pkts_read(s->tb, ps);
	for (i = 0; i < ps->n; i++) {
		ck_assert_int_eq(test_packet_check(ps->v[i].data, ps->v[i].len),
		    (int64_t)i);
		ck_assert_uint_eq(ps->v[i].writer_id, shm_writer_id(w));
		ck_assert_uint_eq(ps->v[i].producer_id, s->producer_id);
		ck_assert_uint_eq(ps->v[i].uid, s->uid);
	}
}

static size_t len40(size_t i) { (void)i; return 34; }
/* Header (4) + tag, seq (<128), tag, 2-byte length = 9: fills 4080. */
static size_t len_exact(size_t i) { (void)i; return 4080 - 9; }
static size_t len_huge(size_t i) { return 100000 + i * 1000; }
static size_t len_mixed(size_t i) { return (i % 5 == 0) ? 20000 + i : 10 + i; }

START_TEST(test_small_packets)
{
	struct trace_buffer_stats st;
	struct shm_arbiter *arb;
	struct shm_writer *w;
	struct pkts ps = { 0 };
	struct svc s;
	const char *cause;
	size_t i;

	svc_init(&s, 65536, 4096, 1 << 20, TRACE_BUFFER_RING);
	arb = svc_arbiter(&s, 0, 1);
	w = shm_writer_new(arb, 1, SHM_POLICY_STALL, &cause);
	ck_assert_ptr_nonnull(w);
	roundtrip(&s, w, 1000, len40, &ps);
	ck_assert_uint_eq(ps.n, 1000);
	for (i = 0; i < ps.n; i++)
		ck_assert_int_eq(ps.v[i].dropped, 0);
	trace_buffer_stats(s.tb, &st);
	/* ~42 bytes a packet with its prefix: packed, no chunk wasted. */
	ck_assert_uint_le(st.chunks_written, 1000 * 42 / 4080 + 2);
	ck_assert_uint_gt(st.readaheads_succeeded, 0);	/* some straddle */
	ck_assert_uint_eq(st.chunks_read, st.chunks_written);
	ck_assert_uint_eq(st.abi_violations, 0);
	ck_assert_uint_eq(s.rejected, 0);
	pkts_free(&ps);
	/* Destructive: nothing left. */
	pkts_read(s.tb, &ps);
	ck_assert_uint_eq(ps.n, 0);
	shm_writer_free(w);
	shm_arbiter_free(arb);
	svc_fini(&s);
}
END_TEST

START_TEST(test_exact_chunk_packets)
{
	struct trace_buffer_stats st;
	struct shm_arbiter *arb;
	struct shm_writer *w;
	struct pkts ps = { 0 };
	struct svc s;
	const char *cause;
	size_t i;

	svc_init(&s, 65536, 4096, 1 << 20, TRACE_BUFFER_RING);
	arb = svc_arbiter(&s, 0, 1);
	w = shm_writer_new(arb, 1, SHM_POLICY_STALL, &cause);
	roundtrip(&s, w, 5, len_exact, &ps);
	ck_assert_uint_eq(ps.n, 5);
	for (i = 0; i < ps.n; i++) {
		ck_assert_uint_eq(ps.v[i].len, 4076);
		ck_assert_uint_eq(ps.v[i].nslices, 1);	/* no fragment */
	}
	trace_buffer_stats(s.tb, &st);
	ck_assert_uint_eq(st.chunks_written, 5);
	ck_assert_uint_eq(st.readaheads_succeeded, 0);
	pkts_free(&ps);
	shm_writer_free(w);
	shm_arbiter_free(arb);
	svc_fini(&s);
}
END_TEST

START_TEST(test_huge_packets)
{
	struct trace_buffer_stats st;
	struct shm_arbiter *arb;
	struct shm_writer *w;
	struct pkts ps = { 0 };
	struct svc s;
	const char *cause;
	size_t i;

	/* Packets larger than the whole 32 KiB SMB: it drains as we write. */
	svc_init(&s, 32768, 4096, 4 << 20, TRACE_BUFFER_RING);
	arb = svc_arbiter(&s, SHM_LAYOUT_DIV4, 1);
	w = shm_writer_new(arb, 1, SHM_POLICY_STALL, &cause);
	roundtrip(&s, w, 8, len_huge, &ps);
	ck_assert_uint_eq(ps.n, 8);
	for (i = 0; i < ps.n; i++) {
		ck_assert_uint_gt(ps.v[i].nslices, 90);	/* 1012-byte chunks */
		ck_assert_int_eq(ps.v[i].dropped, 0);
	}
	trace_buffer_stats(s.tb, &st);
	ck_assert_uint_eq(st.readaheads_succeeded, 8);
	ck_assert_uint_eq(st.abi_violations, 0);
	ck_assert_uint_eq(st.chunks_read, st.chunks_written);
	pkts_free(&ps);
	shm_writer_free(w);
	shm_arbiter_free(arb);

	svc_fini(&s);
	svc_init(&s, 65536, 4096, 4 << 20, TRACE_BUFFER_RING);
	arb = svc_arbiter(&s, SHM_LAYOUT_DIV14, 3);
	w = shm_writer_new(arb, 1, SHM_POLICY_STALL, &cause);
	roundtrip(&s, w, 60, len_mixed, &ps);
	ck_assert_uint_eq(ps.n, 60);
	pkts_free(&ps);
	shm_writer_free(w);
	shm_arbiter_free(arb);
	svc_fini(&s);
}
END_TEST

/* A packet of nested messages whose sizes end up in earlier chunks. */
static void
write_nested(struct pbw *p, size_t big)
{
	uint8_t blob[512];
	size_t n;

	memset(blob, 0xab, sizeof(blob));
	pbw_varint(p, 1, 42);
	pbw_nested_begin(p, 3);
	pbw_varint(p, 1, 1);
	pbw_nested_begin(p, 4);
	pbw_nested_begin(p, 5);
	pbw_string(p, 2, "deep");
	pbw_nested_end(p);
	for (n = 0; n < big; n += sizeof(blob))
		pbw_bytes(p, 2, blob, sizeof(blob));
	pbw_nested_end(p);
	pbw_varint(p, 1, 2);
	pbw_nested_end(p);
	pbw_varint(p, 2, 7);
}

/* Finds the 4 bytes a held patch targets, in the SMB. */
static const uint8_t *
held_patch_target(struct svc *s, const struct shm_commit_patch *cp)
{
	const struct shm_chunk_header *h;
	const uint8_t *c;
	size_t i;
	uint16_t csize;

	for (i = 0; i < s->nheld_moves; i++) {
		csize = shm_chunk_size(s->abi->page_size, SHM_LAYOUT_DIV1);
		c = s->abi->base + s->held_moves[i].page * s->abi->page_size +
		    8 + s->held_moves[i].chunk * csize;
		h = (const void *)c;
		if (h->chunk_id == cp->chunk_id && h->writer_id == cp->writer_id) {
			ck_assert(shm_packets_flags(h->packets) &
			    SHM_CHUNK_NEEDS_PATCHING);
			return c + 8 + cp->patches[0].offset;
		}
	}
	return NULL;
}

START_TEST(test_nested_patches)
{
	struct trace_buffer_stats st;
	struct shm_arbiter *arb;
	struct shm_writer *w;
	struct pkts ps = { 0 };
	struct pbw *p;
	struct svc s;
	const uint8_t *t;
	const char *cause;
	size_t i, npatch;
	int ok;

	svc_init(&s, 262144, 4096, 4 << 20, TRACE_BUFFER_RING);
	arb = svc_arbiter(&s, SHM_LAYOUT_DIV1, 1);
	w = shm_writer_new(arb, 1, SHM_POLICY_STALL, &cause);

	/* Hold commits to look at the SMB the way the service would. */
	s.hold = 1;
	p = shm_writer_packet_begin(w);
	write_nested(p, 20000);
	shm_writer_packet_end(w);
	ck_assert_uint_gt(s.nheld_patches, 0);
	npatch = 0;
	for (i = 0; i < s.nheld_patches; i++) {
		t = held_patch_target(&s, &s.held_patches[i]);
		ck_assert_ptr_nonnull(t);
		/* Still zero in shared memory: only the patch carries it. */
		ck_assert(t[0] == 0 && t[1] == 0 && t[2] == 0 && t[3] == 0);
		npatch += s.held_patches[i].npatches;
	}
	/* Once the packet is over, nothing more is pending. */
	ck_assert_uint_eq(s.held_patches[s.nheld_patches - 1].has_more_patches,
	    0);
	/* Packet header size + 2 nested sizes were in the first chunk. */
	ck_assert_uint_eq(npatch, 2);

	/* Moves without patches: the packet must not come out. */
	{
		size_t np = s.nheld_patches;

		s.nheld_patches = 0;
		svc_release(&s);
		shm_writer_flush(w);
		pkts_read(s.tb, &ps);
		ck_assert_uint_eq(ps.n, 0);
		s.nheld_patches = np;
		svc_release(&s);
	}
	pkts_read(s.tb, &ps);
	ck_assert_uint_eq(ps.n, 1);
	ck_assert_int_ge(proto_check(ps.v[0].data, ps.v[0].len, 0), 0);
	trace_buffer_stats(s.tb, &st);
	ck_assert_uint_eq(st.patches_succeeded, 2);
	ck_assert_uint_eq(st.patches_failed, 0);
	pkts_free(&ps);

	/*
	 * Siblings that each straddle a chunk boundary under deep parents:
	 * filled patch slots must leave before new ones are taken.
	 */
	p = shm_writer_packet_begin(w);
	for (i = 0; i < PBW_MAX_DEPTH - 1; i++)
		pbw_nested_begin(p, 3);
	for (i = 0; i < 40; i++) {
		uint8_t blob[700];

		memset(blob, (int)i, sizeof(blob));
		pbw_nested_begin(p, 4);
		pbw_bytes(p, 2, blob, sizeof(blob));
		pbw_nested_end(p);
	}
	shm_writer_packet_end(w);
	shm_writer_flush(w);
	pkts_read(s.tb, &ps);
	ck_assert_uint_eq(ps.n, 1);
	ck_assert_int_eq(proto_check(ps.v[0].data, ps.v[0].len, 0), 15 + 80);
	pkts_free(&ps);

	/* Many nested packets with the service applying as it goes. */
	for (i = 0; i < 50; i++) {
		p = shm_writer_packet_begin(w);
		write_nested(p, (i * 977) % 9000);
		shm_writer_packet_end(w);
	}
	shm_writer_flush(w);
	pkts_read(s.tb, &ps);
	ck_assert_uint_eq(ps.n, 50);
	ok = 1;
	for (i = 0; i < ps.n; i++)
		if (proto_check(ps.v[i].data, ps.v[i].len, 0) < 0)
			ok = 0;
	ck_assert(ok);
	pkts_free(&ps);
	shm_writer_free(w);
	shm_arbiter_free(arb);
	svc_fini(&s);
}
END_TEST

START_TEST(test_drop_policy)
{
	struct trace_buffer_stats st;
	struct shm_arbiter_stats as;
	struct shm_arbiter *arb;
	struct shm_writer *w;
	struct pkts ps = { 0 };
	struct pbw *p;
	struct svc s;
	const char *cause;
	size_t i, ndropped;

	svc_init(&s, 16384, 4096, 1 << 20, TRACE_BUFFER_RING);
	arb = svc_arbiter(&s, SHM_LAYOUT_DIV1, 1);
	w = shm_writer_new(arb, 1, SHM_POLICY_DROP, &cause);
	s.hold = 1;		/* the service does not drain: SMB fills up */
	for (i = 0; i < 40; i++) {
		p = shm_writer_packet_begin(w);
		test_packet_write(p, i, 1000);
		shm_writer_packet_end(w);
	}
	ck_assert_uint_gt(shm_writer_dropped_packets(w), 0);
	ndropped = shm_writer_dropped_packets(w);
	ck_assert_int_eq(shm_writer_take_dropped(w), 1);
	ck_assert_int_eq(shm_writer_take_dropped(w), 0);
	shm_arbiter_stats(arb, &as);
	ck_assert_uint_gt(as.exhausted, 0);
	svc_release(&s);	/* now it drains */
	for (; i < 60; i++) {
		p = shm_writer_packet_begin(w);
		test_packet_write(p, i, 1000);
		shm_writer_packet_end(w);
	}
	shm_writer_flush(w);
	ck_assert_uint_eq(shm_writer_dropped_packets(w), ndropped);
	pkts_read(s.tb, &ps);
	trace_buffer_stats(s.tb, &st);
	ck_assert_uint_ge(st.trace_writer_packet_loss, 1);
	/* Everything that came out is intact; after the hole, a flag. */
	{
		int64_t prev = -1, seq;
		int saw_gap = 0;

		for (i = 0; i < ps.n; i++) {
			seq = test_packet_check(ps.v[i].data, ps.v[i].len);
			ck_assert_int_ge(seq, 0);
			ck_assert_int_gt(seq, prev);
			if (seq != prev + 1) {
				ck_assert_int_eq(ps.v[i].dropped, 1);
				saw_gap = 1;
			}
			prev = seq;
		}
		ck_assert(saw_gap);
		ck_assert_int_eq(prev, 59);
		ck_assert_uint_eq(ps.n + ndropped, 60);
	}
	pkts_free(&ps);

	/* A fragmented packet cut by exhaustion is thrown away whole. */
	s.hold = 1;
	p = shm_writer_packet_begin(w);
	test_packet_write(p, 1000, 50000);
	shm_writer_packet_end(w);
	svc_release(&s);
	p = shm_writer_packet_begin(w);
	test_packet_write(p, 1001, 10);
	shm_writer_packet_end(w);
	shm_writer_flush(w);
	pkts_read(s.tb, &ps);
	ck_assert_uint_eq(ps.n, 1);
	ck_assert_int_eq(test_packet_check(ps.v[0].data, ps.v[0].len), 1001);
	ck_assert_int_eq(ps.v[0].dropped, 1);
	pkts_free(&ps);
	shm_writer_free(w);
	shm_arbiter_free(arb);
	svc_fini(&s);
}
END_TEST

/* Packet sizes swept across the chunk boundary, alone and in pairs. */
static size_t sweep_len;
static size_t len_sweep(size_t i) { return i % 2 ? sweep_len : 10; }

START_TEST(test_boundary_sweep)
{
	struct shm_arbiter *arb;
	struct shm_writer *w;
	struct pkts ps = { 0 };
	struct svc s;
	const char *cause;

	svc_init(&s, 16384, 4096, 1 << 20, TRACE_BUFFER_RING);
	arb = svc_arbiter(&s, SHM_LAYOUT_DIV1, 1);
	w = shm_writer_new(arb, 1, SHM_POLICY_STALL, &cause);
	for (sweep_len = 4040; sweep_len < 4100; sweep_len++) {
		roundtrip(&s, w, 6, len_sweep, &ps);
		ck_assert_msg(ps.n == 6, "len %zu: %zu packets", sweep_len,
		    ps.n);
		pkts_free(&ps);
	}
	shm_writer_free(w);
	shm_arbiter_free(arb);
	svc_fini(&s);
}
END_TEST

/* Every page size and layout, packets from tiny to multi-chunk. */
START_TEST(test_all_geometries)
{
	static const size_t pages[] = { 4096, 8192, 16384, 32768, 65536 };
	struct trace_buffer_stats st;
	struct shm_arbiter *arb;
	struct shm_writer *w;
	struct pkts ps = { 0 };
	struct svc s;
	const char *cause;
	size_t i, pg;
	unsigned layout;

	for (pg = 0; pg < sizeof(pages) / sizeof(pages[0]); pg++) {
		for (layout = SHM_LAYOUT_DIV1; layout <= SHM_LAYOUT_DIV14;
		    layout++) {
			svc_init(&s, pages[pg] * 4, pages[pg], 8 << 20,
			    TRACE_BUFFER_RING);
			arb = svc_arbiter(&s, layout, 2);
			w = shm_writer_new(arb, 1, SHM_POLICY_STALL, &cause);
			roundtrip(&s, w, 60, len_mixed, &ps);
			ck_assert_msg(ps.n == 60, "page %zu layout %u: %zu",
			    pages[pg], layout, ps.n);
			for (i = 0; i < ps.n; i++)
				ck_assert_int_eq(ps.v[i].dropped, 0);
			trace_buffer_stats(s.tb, &st);
			ck_assert_uint_eq(st.abi_violations, 0);
			ck_assert_uint_eq(s.rejected, 0);
			pkts_free(&ps);
			shm_writer_free(w);
			shm_arbiter_free(arb);
			svc_fini(&s);
		}
	}
}
END_TEST

static void *
release_later(void *arg)
{
	struct svc *s = arg;

	usleep(50 * 1000);
	svc_release(s);
	return NULL;
}

START_TEST(test_stall_policy)
{
	struct shm_arbiter_stats as;
	struct shm_arbiter *arb;
	struct shm_writer *w;
	struct pkts ps = { 0 };
	struct pbw *p;
	struct svc s;
	pthread_t t;
	const char *cause;
	size_t i;

	svc_init(&s, 16384, 4096, 1 << 20, TRACE_BUFFER_RING);
	arb = svc_arbiter(&s, SHM_LAYOUT_DIV1, 1);
	w = shm_writer_new(arb, 1, SHM_POLICY_STALL, &cause);
	s.hold = 1;
	ck_assert_int_eq(pthread_create(&t, NULL, release_later, &s), 0);
	/* 5 chunks' worth into 4: the writer waits for the service. */
	for (i = 0; i < 20; i++) {
		p = shm_writer_packet_begin(w);
		test_packet_write(p, i, 1000);
		shm_writer_packet_end(w);
	}
	pthread_join(t, NULL);
	shm_writer_flush(w);
	shm_arbiter_stats(arb, &as);
	ck_assert_uint_ge(as.stalls, 1);
	ck_assert_uint_eq(as.exhausted, 0);
	ck_assert_uint_eq(shm_writer_dropped_packets(w), 0);
	pkts_read(s.tb, &ps);
	ck_assert_uint_eq(ps.n, 20);
	pkts_free(&ps);

	/* Nobody drains: the stall is bounded, then packets drop. */
	s.hold = 1;
	for (i = 0; i < 20; i++) {
		p = shm_writer_packet_begin(w);
		test_packet_write(p, i, 1000);
		shm_writer_packet_end(w);
	}
	ck_assert_uint_gt(shm_writer_dropped_packets(w), 0);
	shm_arbiter_stats(arb, &as);
	ck_assert_uint_ge(as.exhausted, 1);
	svc_release(&s);
	shm_writer_free(w);
	shm_arbiter_free(arb);
	svc_fini(&s);
}
END_TEST

static void
scrape_cb(const struct shm_chunk_view *v, void *arg)
{
	struct svc *s = arg;

	ck_assert_int_eq(trace_buffer_copy_chunk_untrusted(s->tb,
	    s->producer_id, s->uid, v), 0);
}

START_TEST(test_scrape_then_commit)
{
	struct trace_buffer_stats st;
	struct shm_arbiter *arb;
	struct shm_writer *w;
	struct pkts ps = { 0 };
	struct pbw *p;
	struct svc s;
	const char *cause;
	size_t i;

	svc_init(&s, 16384, 4096, 1 << 20, TRACE_BUFFER_RING);
	arb = svc_arbiter(&s, SHM_LAYOUT_DIV1, 1);
	w = shm_writer_new(arb, 1, SHM_POLICY_STALL, &cause);
	for (i = 0; i < 3; i++) {
		p = shm_writer_packet_begin(w);
		test_packet_write(p, i, 100);
		shm_writer_packet_end(w);
	}
	/* Scrape: finished packets are all visible (count ahead). */
	ck_assert_uint_eq(shm_abi_scrape_untrusted(s.abi, scrape_cb, &s), 0);
	pkts_read(s.tb, &ps);
	ck_assert_uint_eq(ps.n, 3);
	ck_assert_int_eq(test_packet_check(ps.v[2].data, ps.v[2].len), 2);
	pkts_free(&ps);
	/* A packet being written is not. */
	p = shm_writer_packet_begin(w);
	test_packet_write(p, 3, 100);
	ck_assert_uint_eq(shm_abi_scrape_untrusted(s.abi, scrape_cb, &s), 0);
	pkts_read(s.tb, &ps);
	ck_assert_uint_eq(ps.n, 0);
	shm_writer_packet_end(w);
	/* The commit brings the rest, without repeating what was read. */
	shm_writer_flush(w);
	pkts_read(s.tb, &ps);
	ck_assert_uint_eq(ps.n, 1);
	ck_assert_int_eq(test_packet_check(ps.v[0].data, ps.v[0].len), 3);
	ck_assert_int_eq(ps.v[0].dropped, 0);
	trace_buffer_stats(s.tb, &st);
	ck_assert_uint_eq(st.chunks_rewritten, 1);
	ck_assert_uint_eq(st.chunks_written, 1);
	pkts_free(&ps);
	shm_writer_free(w);
	shm_arbiter_free(arb);
	svc_fini(&s);
}
END_TEST

START_TEST(test_writer_ids)
{
	struct shm_arbiter_stats as;
	struct shm_arbiter *arb;
	struct shm_writer **ws, *w;
	struct svc s;
	const char *cause;
	size_t i;
	uint16_t first;

	svc_init(&s, 16384, 4096, 65536, TRACE_BUFFER_RING);
	arb = svc_arbiter(&s, 0, 1);
	ws = calloc(SHM_WRITER_ID_MAX, sizeof(*ws));
	for (i = 0; i < SHM_WRITER_ID_MAX; i++) {
		ws[i] = shm_writer_new(arb, 1, SHM_POLICY_DROP, &cause);
		ck_assert_ptr_nonnull(ws[i]);
		ck_assert_uint_eq(shm_writer_id(ws[i]), i + 1);
	}
	ck_assert_ptr_null(shm_writer_new(arb, 1, SHM_POLICY_DROP, &cause));
	ck_assert_str_eq(cause, "all writer ids in use");
	shm_arbiter_stats(arb, &as);
	ck_assert_uint_eq(as.writers, SHM_WRITER_ID_MAX);
	shm_writer_free(ws[9]);
	w = shm_writer_new(arb, 1, SHM_POLICY_DROP, &cause);
	ck_assert_uint_eq(shm_writer_id(w), 10);
	shm_writer_free(w);
	for (i = 0; i < SHM_WRITER_ID_MAX; i++)
		if (i != 9)
			shm_writer_free(ws[i]);
	free(ws);
	/* Freed ids are not reused at once. */
	w = shm_writer_new(arb, 1, SHM_POLICY_DROP, &cause);
	first = shm_writer_id(w);
	shm_writer_free(w);
	w = shm_writer_new(arb, 1, SHM_POLICY_DROP, &cause);
	ck_assert_uint_ne(shm_writer_id(w), first);
	shm_writer_free(w);
	shm_arbiter_free(arb);
	svc_fini(&s);
}
END_TEST

#define MT_THREADS	4
#define MT_PACKETS	3000

struct mt_arg {
	struct shm_arbiter	*arb;
	enum shm_exhausted_policy policy;
	size_t			 npackets;
	uint64_t		 dropped;
	uint16_t		 id;
};

static void *
mt_writer(void *arg)
{
	struct mt_arg *a = arg;
	struct shm_writer *w;
	struct pbw *p;
	const char *cause;
	size_t i;

	w = shm_writer_new(a->arb, 1, a->policy, &cause);
	if (w == NULL)
		return NULL;
	a->id = shm_writer_id(w);
	for (i = 0; i < a->npackets; i++) {
		p = shm_writer_packet_begin(w);
		test_packet_write(p, i, (i * 131) % 3000 + (i % 97 == 0 ?
		    9000 : 0));
		shm_writer_packet_end(w);
	}
	shm_writer_flush(w);
	a->dropped = shm_writer_dropped_packets(w);
	shm_writer_free(w);
	return NULL;
}

START_TEST(test_multithread_writers)
{
	struct trace_buffer_stats st;
	struct mt_arg args[MT_THREADS];
	pthread_t t[MT_THREADS];
	struct shm_arbiter *arb;
	struct pkts ps = { 0 };
	struct svc s;
	int64_t next[MT_THREADS] = { 0 }, seq;
	size_t i, j;

	svc_init(&s, 65536, 4096, 64 << 20, TRACE_BUFFER_RING);
	arb = svc_arbiter(&s, SHM_LAYOUT_DIV4, 2);
	memset(args, 0, sizeof(args));
	for (i = 0; i < MT_THREADS; i++) {
		args[i].arb = arb;
		args[i].policy = SHM_POLICY_STALL;
		args[i].npackets = MT_PACKETS;
		ck_assert_int_eq(pthread_create(&t[i], NULL, mt_writer,
		    &args[i]), 0);
	}
	for (i = 0; i < MT_THREADS; i++)
		pthread_join(t[i], NULL);
	pkts_read(s.tb, &ps);
	ck_assert_uint_eq(ps.n, MT_THREADS * MT_PACKETS);
	for (i = 0; i < ps.n; i++) {
		for (j = 0; j < MT_THREADS; j++)
			if (args[j].id == ps.v[i].writer_id)
				break;
		ck_assert_uint_lt(j, MT_THREADS);
		seq = test_packet_check(ps.v[i].data, ps.v[i].len);
		/* In order within each writer, nothing lost. */
		ck_assert_int_eq(seq, next[j]);
		next[j]++;
		ck_assert_int_eq(ps.v[i].dropped, 0);
	}
	trace_buffer_stats(s.tb, &st);
	ck_assert_uint_eq(st.abi_violations, 0);
	ck_assert_uint_eq(st.chunks_overwritten, 0);
	ck_assert_uint_eq(s.rejected, 0);
	pkts_free(&ps);
	shm_arbiter_free(arb);
	svc_fini(&s);
}
END_TEST

/*
 * Many writers fighting over a small SMB of 292-byte chunks (CAS contention
 * on page headers), half of them dropping: what comes out is intact, in
 * order per writer, and every hole is flagged.
 */
START_TEST(test_multithread_contention)
{
	struct mt_arg args[MT_THREADS];
	pthread_t t[MT_THREADS];
	struct shm_arbiter *arb;
	struct pkts ps = { 0 };
	struct svc s;
	int64_t next[MT_THREADS] = { 0 }, seq;
	size_t i, j, got[MT_THREADS] = { 0 };

	svc_init(&s, 16384, 4096, 64 << 20, TRACE_BUFFER_RING);
	arb = svc_arbiter(&s, SHM_LAYOUT_DIV14, 1);
	memset(args, 0, sizeof(args));
	for (i = 0; i < MT_THREADS; i++) {
		args[i].arb = arb;
		args[i].policy = i % 2 ? SHM_POLICY_DROP : SHM_POLICY_STALL;
		args[i].npackets = 1500;
		ck_assert_int_eq(pthread_create(&t[i], NULL, mt_writer,
		    &args[i]), 0);
	}
	for (i = 0; i < MT_THREADS; i++)
		pthread_join(t[i], NULL);
	pkts_read(s.tb, &ps);
	for (i = 0; i < ps.n; i++) {
		for (j = 0; j < MT_THREADS; j++)
			if (args[j].id == ps.v[i].writer_id)
				break;
		ck_assert_uint_lt(j, MT_THREADS);
		seq = test_packet_check(ps.v[i].data, ps.v[i].len);
		ck_assert_int_ge(seq, next[j]);
		if (seq != next[j])
			ck_assert_int_eq(ps.v[i].dropped, 1);
		next[j] = seq + 1;
		got[j]++;
	}
	for (j = 0; j < MT_THREADS; j++) {
		/* Stalling writers lose nothing here (the service keeps up). */
		if (args[j].policy == SHM_POLICY_STALL)
			ck_assert_uint_eq(got[j], 1500);
		ck_assert_uint_le(got[j] + args[j].dropped, 1500);
		ck_assert_uint_gt(got[j], 0);
	}
	ck_assert_uint_eq(s.rejected, 0);
	pkts_free(&ps);
	shm_arbiter_free(arb);
	svc_fini(&s);
}
END_TEST

Suite *
writer_suite(void)
{
	Suite *s = suite_create("libshm_writer");
	TCase *tc = tcase_create("writer");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_pbw_flat);
	tcase_add_test(tc, test_small_packets);
	tcase_add_test(tc, test_exact_chunk_packets);
	tcase_add_test(tc, test_huge_packets);
	tcase_add_test(tc, test_all_geometries);
	tcase_add_test(tc, test_boundary_sweep);
	tcase_add_test(tc, test_nested_patches);
	tcase_add_test(tc, test_drop_policy);
	tcase_add_test(tc, test_stall_policy);
	tcase_add_test(tc, test_scrape_then_commit);
	tcase_add_test(tc, test_writer_ids);
	tcase_add_test(tc, test_multithread_writers);
	tcase_add_test(tc, test_multithread_contention);
	suite_add_tcase(s, tc);
	return s;
}
