/*
 * Central trace buffer with hand-made chunks: ring overwrite, discard,
 * ordering, gaps, chunk-id wrap, fragments, patches, hostile fragments,
 * and bounded bookkeeping.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "shm_test.h"

/* A chunk being composed in local memory. */
struct cb {
	uint8_t		buf[4080];
	size_t		off;
	uint16_t	n;
	uint16_t	psize;	/* payload size announced */
};

static void
cb_init(struct cb *c, uint16_t psize)
{
	memset(c, 0, sizeof(*c));
	c->psize = psize;
}

/* A packet (or fragment) whose content is 'len' bytes of tag. */
static void
cb_frag(struct cb *c, uint8_t tag, size_t len)
{
	ck_assert_uint_le(c->off + 4 + len, c->psize);
	shm_write_redundant_varint(c->buf + c->off, (uint32_t)len);
	memset(c->buf + c->off + 4, tag, len);
	c->off += 4 + len;
	c->n++;
}

static void
cb_raw(struct cb *c, const void *b, size_t len, int counts)
{
	memcpy(c->buf + c->off, b, len);
	c->off += len;
	c->n = (uint16_t)(c->n + counts);
}

static struct shm_chunk_view
cb_view(struct cb *c, uint16_t writer, uint32_t chunk_id, uint8_t flags,
    int complete)
{
	struct shm_chunk_view v;

	memset(&v, 0, sizeof(v));
	v.payload = c->buf;
	v.payload_size = c->psize;
	v.writer_id = writer;
	v.chunk_id = chunk_id;
	v.npackets = c->n;
	v.flags = flags;
	v.complete = (uint8_t)complete;
	return v;
}

/* Commits a chunk holding one packet of 'len' bytes of tag. */
static int
put1(struct trace_buffer *tb, uint16_t producer, uint16_t writer,
    uint32_t chunk_id, uint8_t tag, size_t len, uint16_t psize)
{
	struct shm_chunk_view v;
	struct cb c;

	cb_init(&c, psize);
	cb_frag(&c, tag, len);
	v = cb_view(&c, writer, chunk_id, 0, 1);
	return trace_buffer_copy_chunk_untrusted(tb, producer, 1000 + producer,
	    &v);
}

static struct trace_buffer *
tb_make(size_t size, enum trace_buffer_policy pol)
{
	struct trace_buffer *tb;
	const char *cause = NULL;

	tb = trace_buffer_new(size, pol, &cause);
	ck_assert_msg(tb != NULL, "%s", cause);
	return tb;
}

START_TEST(test_ring_overwrite)
{
	struct trace_buffer_stats st;
	struct trace_buffer *tb = tb_make(65536, TRACE_BUFFER_RING);
	struct pkts ps = { 0 };
	size_t i;

	/* Full 4080-byte chunks: 4128-byte records, 15 fit in 64 KiB. */
	for (i = 0; i < 40; i++)
		ck_assert_int_eq(put1(tb, 1, 1, (uint32_t)i, (uint8_t)i, 4076,
		    4080), 0);
	pkts_read(tb, &ps);
	trace_buffer_stats(tb, &st);
	ck_assert_uint_eq(ps.n, 15);
	ck_assert_uint_eq(ps.v[0].data[0], 25);
	ck_assert_int_eq(ps.v[0].dropped, 1);	/* older ones overwritten */
	for (i = 1; i < ps.n; i++) {
		ck_assert_uint_eq(ps.v[i].data[0], 25 + i);
		ck_assert_int_eq(ps.v[i].dropped, 0);
	}
	ck_assert_uint_eq(st.buffer_size, 65536);
	ck_assert_uint_eq(st.chunks_written, 40);
	ck_assert_uint_eq(st.chunks_overwritten, 25);
	ck_assert_uint_eq(st.bytes_overwritten, 25 * 4128);
	ck_assert_uint_eq(st.bytes_written, 40 * 4128);
	ck_assert_uint_eq(st.chunks_read, 15);
	ck_assert_uint_eq(st.bytes_read, 15 * 4128);
	ck_assert_uint_eq(st.write_wrap_count, 2);
	/* 65536 - 15 * 4128 = 3616 bytes of padding per lap. */
	ck_assert_uint_eq(st.padding_bytes_written, 2 * 3616);
	ck_assert_uint_eq(st.padding_bytes_cleared, 3616);
	pkts_free(&ps);
	/* Read chunks are overwritten without counting as lost. */
	for (i = 40; i < 50; i++)
		put1(tb, 1, 1, (uint32_t)i, (uint8_t)i, 4076, 4080);
	trace_buffer_stats(tb, &st);
	ck_assert_uint_eq(st.chunks_overwritten, 25);
	pkts_read(tb, &ps);
	ck_assert_uint_eq(ps.n, 10);
	ck_assert_int_eq(ps.v[0].dropped, 0);
	pkts_free(&ps);
	trace_buffer_free(tb);
}
END_TEST

/* Complete chunks keep only what their packets use. */
START_TEST(test_trimmed_records)
{
	struct trace_buffer_stats st;
	struct trace_buffer *tb = tb_make(65536, TRACE_BUFFER_RING);
	struct shm_chunk_view v;
	struct pkts ps = { 0 };
	struct cb c;
	size_t i;

	/* 100 bytes used of 4080: 1 KiB records, all 40 fit in 64 KiB. */
	for (i = 0; i < 40; i++)
		ck_assert_int_eq(put1(tb, 1, 1, (uint32_t)i, (uint8_t)i, 100,
		    4080), 0);
	trace_buffer_stats(tb, &st);
	ck_assert_uint_eq(st.bytes_written, 40 * 1024);
	ck_assert_uint_eq(st.chunks_overwritten, 0);
	/* 2000 bytes used: 2048-byte records. */
	for (i = 40; i < 44; i++)
		put1(tb, 1, 1, (uint32_t)i, (uint8_t)i, 1996, 4080);
	trace_buffer_stats(tb, &st);
	ck_assert_uint_eq(st.bytes_written, 40 * 1024 + 4 * 2048);
	pkts_read(tb, &ps);
	ck_assert_uint_eq(ps.n, 44);
	for (i = 0; i < ps.n; i++) {
		ck_assert_uint_eq(ps.v[i].data[0], i);
		ck_assert_uint_eq(ps.v[i].len, i < 40 ? 100 : 1996);
	}
	pkts_free(&ps);
	/* An unfinished (scraped) chunk is kept whole: it may still grow. */
	cb_init(&c, 4080);
	cb_frag(&c, 'u', 10);
	v = cb_view(&c, 2, 0, 0, 0);
	v.npackets = 2;
	ck_assert_int_eq(trace_buffer_copy_chunk_untrusted(tb, 1, 1, &v), 0);
	trace_buffer_stats(tb, &st);
	ck_assert_uint_eq(st.bytes_written, 40 * 1024 + 4 * 2048 + 4128);
	cb_frag(&c, 'w', 3000);
	v = cb_view(&c, 2, 0, 0, 1);
	ck_assert_int_eq(trace_buffer_copy_chunk_untrusted(tb, 1, 1, &v), 0);
	pkts_read(tb, &ps);
	ck_assert_uint_eq(ps.n, 2);
	ck_assert_uint_eq(ps.v[1].len, 3000);
	pkts_free(&ps);
	/* A patch past the kept bytes fails; a resend is a duplicate. */
	{
		struct shm_patch pa;

		cb_init(&c, 4080);
		cb_frag(&c, 'p', 10);
		v = cb_view(&c, 3, 0, SHM_CHUNK_NEEDS_PATCHING, 1);
		ck_assert_int_eq(trace_buffer_copy_chunk_untrusted(tb, 1, 1,
		    &v), 0);
		ck_assert_int_eq(trace_buffer_copy_chunk_untrusted(tb, 1, 1,
		    &v), 0);
		memset(&pa, 0, sizeof(pa));
		pa.offset = 3000;
		ck_assert_int_eq(trace_buffer_patch_chunk_untrusted(tb, 1, 3, 0,
		    &pa, 1, 0), -1);
		pa.offset = 4;
		pa.data[0] = 'q';
		ck_assert_int_eq(trace_buffer_patch_chunk_untrusted(tb, 1, 3, 0,
		    &pa, 1, 0), 0);
		pkts_read(tb, &ps);
		ck_assert_uint_eq(ps.n, 1);
		ck_assert_uint_eq(ps.v[0].data[0], 'q');
		pkts_free(&ps);
	}
	trace_buffer_free(tb);
}
END_TEST

START_TEST(test_discard)
{
	struct trace_buffer_stats st;
	struct trace_buffer *tb = tb_make(65536, TRACE_BUFFER_DISCARD);
	struct pkts ps = { 0 };
	size_t i, stored = 0;

	for (i = 0; i < 40; i++)
		if (put1(tb, 1, 1, (uint32_t)i, (uint8_t)i, 4076, 4080) == 0)
			stored++;
	ck_assert_uint_eq(stored, 15);
	trace_buffer_stats(tb, &st);
	ck_assert_uint_eq(st.chunks_discarded, 25);
	ck_assert_uint_eq(st.chunks_overwritten, 0);
	pkts_read(tb, &ps);
	ck_assert_uint_eq(ps.n, 15);
	for (i = 0; i < ps.n; i++) {
		ck_assert_uint_eq(ps.v[i].data[0], i);
		ck_assert_int_eq(ps.v[i].dropped, 0);
	}
	pkts_free(&ps);
	/* Once full, it stays closed. */
	ck_assert_int_eq(put1(tb, 1, 2, 0, 1, 10, 4080), -1);
	trace_buffer_free(tb);
}
END_TEST

START_TEST(test_reorder_and_gaps)
{
	static const uint32_t order[] = { 2, 0, 1, 4, 3 };
	struct trace_buffer_stats st;
	struct trace_buffer *tb = tb_make(1 << 20, TRACE_BUFFER_RING);
	struct pkts ps = { 0 };
	size_t i;

	for (i = 0; i < 5; i++)
		put1(tb, 1, 1, order[i], (uint8_t)order[i], 10, 1000);
	trace_buffer_stats(tb, &st);
	ck_assert_uint_eq(st.chunks_committed_out_of_order, 3);
	pkts_read(tb, &ps);
	ck_assert_uint_eq(ps.n, 5);
	for (i = 0; i < 5; i++) {
		ck_assert_uint_eq(ps.v[i].data[0], i);
		ck_assert_int_eq(ps.v[i].dropped, 0);
	}
	pkts_free(&ps);
	/* Chunk 5 never arrives: 6 follows a loss, 7 does not. */
	put1(tb, 1, 1, 6, 6, 10, 1000);
	put1(tb, 1, 1, 7, 7, 10, 1000);
	pkts_read(tb, &ps);
	ck_assert_uint_eq(ps.n, 2);
	ck_assert_int_eq(ps.v[0].dropped, 1);
	ck_assert_int_eq(ps.v[1].dropped, 0);
	pkts_free(&ps);
	/* A gap between chunks present in the same read. */
	put1(tb, 1, 1, 8, 8, 10, 1000);
	put1(tb, 1, 1, 10, 10, 10, 1000);
	put1(tb, 1, 1, 11, 11, 10, 1000);
	pkts_read(tb, &ps);
	ck_assert_uint_eq(ps.n, 3);
	ck_assert_int_eq(ps.v[0].dropped, 0);
	ck_assert_int_eq(ps.v[1].dropped, 1);
	ck_assert_uint_eq(ps.v[1].data[0], 10);
	ck_assert_int_eq(ps.v[2].dropped, 0);
	pkts_free(&ps);
	/* A chunk older than what was read is ignored (already consumed). */
	ck_assert_int_eq(put1(tb, 1, 1, 9, 9, 10, 1000), 0);
	pkts_read(tb, &ps);
	ck_assert_uint_eq(ps.n, 0);
	pkts_free(&ps);
	/* Chunk 0 again: the writer id went to a new writer. */
	put1(tb, 1, 1, 0, 'N', 10, 1000);
	put1(tb, 1, 1, 1, 'O', 10, 1000);
	pkts_read(tb, &ps);
	ck_assert_uint_eq(ps.n, 2);
	ck_assert_uint_eq(ps.v[0].data[0], 'N');
	ck_assert_int_eq(ps.v[0].dropped, 0);
	ck_assert_uint_eq(ps.v[1].data[0], 'O');
	pkts_free(&ps);
	trace_buffer_free(tb);
}
END_TEST

START_TEST(test_chunk_id_wrap)
{
	struct trace_buffer *tb = tb_make(1 << 20, TRACE_BUFFER_RING);
	struct shm_chunk_view v;
	struct pkts ps = { 0 };
	struct cb c;

	/* 0xfffffffe: packet A; 0xffffffff: packet B, starts C; 0: ends C. */
	put1(tb, 1, 1, 0xfffffffeu, 'A', 10, 1000);
	cb_init(&c, 1000);
	cb_frag(&c, 'B', 10);
	cb_frag(&c, 'C', 20);
	v = cb_view(&c, 1, 0xffffffffu, SHM_CHUNK_LAST_CONTINUES, 1);
	ck_assert_int_eq(trace_buffer_copy_chunk_untrusted(tb, 1, 1, &v), 0);
	cb_init(&c, 1000);
	cb_frag(&c, 'c', 30);
	cb_frag(&c, 'D', 5);
	v = cb_view(&c, 1, 0, SHM_CHUNK_FIRST_CONTINUES, 1);
	ck_assert_int_eq(trace_buffer_copy_chunk_untrusted(tb, 1, 1, &v), 0);
	put1(tb, 1, 1, 1, 'E', 10, 1000);
	pkts_read(tb, &ps);
	ck_assert_uint_eq(ps.n, 5);
	ck_assert_uint_eq(ps.v[0].data[0], 'A');
	ck_assert_uint_eq(ps.v[1].data[0], 'B');
	ck_assert_uint_eq(ps.v[2].len, 50);
	ck_assert_uint_eq(ps.v[2].nslices, 2);
	ck_assert_uint_eq(ps.v[2].data[0], 'C');
	ck_assert_uint_eq(ps.v[2].data[20], 'c');
	ck_assert_uint_eq(ps.v[3].data[0], 'D');
	ck_assert_uint_eq(ps.v[4].data[0], 'E');
	ck_assert_int_eq(ps.v[1].dropped, 0);
	ck_assert_int_eq(ps.v[2].dropped, 0);
	ck_assert_int_eq(ps.v[4].dropped, 0);
	pkts_free(&ps);
	trace_buffer_free(tb);
}
END_TEST

START_TEST(test_fragments)
{
	struct trace_buffer_stats st;
	struct trace_buffer *tb = tb_make(1 << 20, TRACE_BUFFER_RING);
	struct shm_chunk_view v;
	struct pkts ps = { 0 };
	struct cb c;

	cb_init(&c, 1000);
	cb_frag(&c, 'a', 10);
	cb_frag(&c, 'X', 900);
	v = cb_view(&c, 1, 0, SHM_CHUNK_LAST_CONTINUES, 1);
	trace_buffer_copy_chunk_untrusted(tb, 1, 1, &v);
	pkts_read(tb, &ps);
	ck_assert_uint_eq(ps.n, 1);	/* 'a' only; X waits */
	pkts_free(&ps);
	cb_init(&c, 1000);
	cb_frag(&c, 'Y', 996);
	v = cb_view(&c, 1, 1, SHM_CHUNK_FIRST_CONTINUES |
	    SHM_CHUNK_LAST_CONTINUES, 1);
	trace_buffer_copy_chunk_untrusted(tb, 1, 1, &v);
	pkts_read(tb, &ps);
	ck_assert_uint_eq(ps.n, 0);
	cb_init(&c, 1000);
	cb_frag(&c, 'Z', 5);
	cb_frag(&c, 'b', 7);
	v = cb_view(&c, 1, 2, SHM_CHUNK_FIRST_CONTINUES, 1);
	trace_buffer_copy_chunk_untrusted(tb, 1, 1, &v);
	pkts_read(tb, &ps);
	ck_assert_uint_eq(ps.n, 2);
	ck_assert_uint_eq(ps.v[0].len, 900 + 996 + 5);
	ck_assert_uint_eq(ps.v[0].nslices, 3);
	ck_assert_uint_eq(ps.v[0].data[899], 'X');
	ck_assert_uint_eq(ps.v[0].data[900], 'Y');
	ck_assert_uint_eq(ps.v[0].data[1896], 'Z');
	ck_assert_uint_eq(ps.v[1].data[0], 'b');
	trace_buffer_stats(tb, &st);
	ck_assert_uint_eq(st.readaheads_succeeded, 1);
	ck_assert_uint_ge(st.readaheads_failed, 2);
	ck_assert_uint_eq(st.chunks_read, 3);
	pkts_free(&ps);

	/* Chunk 4 never comes: the packet started in 3 is dropped once 5 is here. */
	cb_init(&c, 1000);
	cb_frag(&c, 'P', 10);
	cb_frag(&c, 'Q', 10);
	v = cb_view(&c, 1, 3, SHM_CHUNK_LAST_CONTINUES, 1);
	trace_buffer_copy_chunk_untrusted(tb, 1, 1, &v);
	pkts_read(tb, &ps);
	ck_assert_uint_eq(ps.n, 1);
	pkts_free(&ps);
	put1(tb, 1, 1, 5, 'R', 10, 1000);
	pkts_read(tb, &ps);
	ck_assert_uint_eq(ps.n, 1);
	ck_assert_uint_eq(ps.v[0].data[0], 'R');
	ck_assert_int_eq(ps.v[0].dropped, 1);
	pkts_free(&ps);
	trace_buffer_free(tb);
}
END_TEST

/* Scraped while being written, then committed: nothing lost or repeated. */
START_TEST(test_scraped_then_committed)
{
	struct trace_buffer_stats st;
	struct trace_buffer *tb = tb_make(1 << 20, TRACE_BUFFER_RING);
	struct shm_chunk_view v;
	struct pkts ps = { 0 };
	struct cb c5, c6;

	cb_init(&c5, 1000);
	cb_frag(&c5, 'a', 5);
	cb_frag(&c5, 'b', 5);
	cb_frag(&c5, 'c', 5);	/* in progress when scraped */
	cb_init(&c6, 1000);
	cb_frag(&c6, 'd', 5);
	cb_frag(&c6, 'e', 5);	/* in progress when scraped */
	v = cb_view(&c5, 1, 5, 0, 0);
	ck_assert_int_eq(trace_buffer_copy_chunk_untrusted(tb, 1, 1, &v), 0);
	v = cb_view(&c6, 1, 6, 0, 0);
	ck_assert_int_eq(trace_buffer_copy_chunk_untrusted(tb, 1, 1, &v), 0);
	pkts_read(tb, &ps);
	ck_assert_uint_eq(ps.n, 2);	/* a, b: then chunk 5 may still grow */
	pkts_free(&ps);
	v = cb_view(&c5, 1, 5, 0, 1);
	ck_assert_int_eq(trace_buffer_copy_chunk_untrusted(tb, 1, 1, &v), 0);
	pkts_read(tb, &ps);
	ck_assert_uint_eq(ps.n, 2);	/* c, d */
	ck_assert_uint_eq(ps.v[0].data[0], 'c');
	ck_assert_uint_eq(ps.v[1].data[0], 'd');
	pkts_free(&ps);
	v = cb_view(&c6, 1, 6, 0, 1);
	ck_assert_int_eq(trace_buffer_copy_chunk_untrusted(tb, 1, 1, &v), 0);
	pkts_read(tb, &ps);
	ck_assert_uint_eq(ps.n, 1);
	ck_assert_uint_eq(ps.v[0].data[0], 'e');
	ck_assert_int_eq(ps.v[0].dropped, 0);
	pkts_free(&ps);
	trace_buffer_stats(tb, &st);
	ck_assert_uint_eq(st.chunks_rewritten, 2);
	ck_assert_uint_eq(st.chunks_read, 2);
	trace_buffer_free(tb);
}
END_TEST

/* A producer that went away leaves nothing held forever. */
START_TEST(test_producer_gone)
{
	struct trace_buffer *tb = tb_make(1 << 20, TRACE_BUFFER_RING);
	struct shm_chunk_view v;
	struct pkts ps = { 0 };
	struct cb c;

	/* Writer 1: a fragment whose continuation never comes. */
	cb_init(&c, 1000);
	cb_frag(&c, 'a', 5);
	cb_frag(&c, 'b', 5);
	v = cb_view(&c, 1, 0, SHM_CHUNK_LAST_CONTINUES, 1);
	trace_buffer_copy_chunk_untrusted(tb, 1, 1, &v);
	/* Writer 2: waiting for patches. */
	cb_init(&c, 1000);
	cb_frag(&c, 'c', 5);
	cb_frag(&c, 'd', 5);
	v = cb_view(&c, 2, 0, SHM_CHUNK_NEEDS_PATCHING |
	    SHM_CHUNK_LAST_CONTINUES, 1);
	trace_buffer_copy_chunk_untrusted(tb, 1, 1, &v);
	/* Writer 3: scraped while being written, then a later chunk. */
	cb_init(&c, 1000);
	cb_frag(&c, 'e', 5);
	cb_frag(&c, 'f', 5);
	v = cb_view(&c, 3, 0, 0, 0);
	v.npackets = 3;		/* 'f' finished, a third one under way */
	trace_buffer_copy_chunk_untrusted(tb, 1, 1, &v);
	/* Another producer's sequence is not affected. */
	cb_init(&c, 1000);
	cb_frag(&c, 'x', 5);
	cb_frag(&c, 'y', 5);
	v = cb_view(&c, 1, 0, SHM_CHUNK_LAST_CONTINUES, 1);
	trace_buffer_copy_chunk_untrusted(tb, 2, 1, &v);
	pkts_read(tb, &ps);
	ck_assert_uint_eq(ps.n, 5);	/* a, c, e, f, x */
	pkts_free(&ps);
	trace_buffer_producer_gone(tb, 1);
	pkts_read(tb, &ps);
	ck_assert_uint_eq(ps.n, 0);
	pkts_free(&ps);
	/* Everything of producer 1 is gone from the buffer; 2 still waits. */
	cb_init(&c, 1000);
	cb_frag(&c, 'z', 5);
	v = cb_view(&c, 1, 1, SHM_CHUNK_FIRST_CONTINUES, 1);
	trace_buffer_copy_chunk_untrusted(tb, 2, 1, &v);
	pkts_read(tb, &ps);
	ck_assert_uint_eq(ps.n, 1);
	ck_assert_uint_eq(ps.v[0].len, 10);
	ck_assert_uint_eq(ps.v[0].data[0], 'y');
	ck_assert_uint_eq(ps.v[0].data[5], 'z');
	pkts_free(&ps);
	{
		struct trace_buffer_stats st;

		trace_buffer_stats(tb, &st);
		ck_assert_uint_eq(st.chunks_read, 4);
	}
	trace_buffer_free(tb);
}
END_TEST

START_TEST(test_patches)
{
	struct trace_buffer_stats st;
	struct trace_buffer *tb = tb_make(1 << 20, TRACE_BUFFER_RING);
	struct shm_chunk_view v;
	struct shm_patch pa[2];
	struct pkts ps = { 0 };
	struct cb c;

	/*
	 * A whole packet, then one whose nested size field (payload offset
	 * 10) is still 0: only the last fragment waits for the patch.
	 */
	cb_init(&c, 1000);
	cb_frag(&c, 'z', 1);
	{
		uint8_t pkt[] = { 0x85, 0x80, 0x80, 0x00,	/* 5 bytes... */
		    0x1a, 0x00, 0x00, 0x00, 0x00 };		/* wrong size */
		uint8_t z[10] = { 0 };

		/* 4 + 1 + 4 + 3 = the nested message holds 3 bytes. */
		shm_write_redundant_varint(pkt, 7);
		cb_raw(&c, pkt, sizeof(pkt), 1);
		cb_raw(&c, "\x08\x01", 2, 0);
		(void)z;
	}
	v = cb_view(&c, 1, 0, SHM_CHUNK_NEEDS_PATCHING, 1);
	ck_assert_int_eq(trace_buffer_copy_chunk_untrusted(tb, 1, 1, &v), 0);
	put1(tb, 1, 1, 1, 'n', 10, 1000);
	pkts_read(tb, &ps);
	ck_assert_uint_eq(ps.n, 1);	/* 'z'; then the sequence waits */
	ck_assert_uint_eq(ps.v[0].data[0], 'z');
	pkts_free(&ps);

	pa[0].offset = 10;
	shm_write_redundant_varint(pa[0].data, 2);
	/* Wrong producer, wrong writer, wrong chunk: no effect. */
	ck_assert_int_eq(trace_buffer_patch_chunk_untrusted(tb, 2, 1, 0, pa, 1,
	    0), -1);
	ck_assert_int_eq(trace_buffer_patch_chunk_untrusted(tb, 1, 2, 0, pa, 1,
	    0), -1);
	ck_assert_int_eq(trace_buffer_patch_chunk_untrusted(tb, 1, 1, 7, pa, 1,
	    0), -1);
	/* Out of bounds: nothing applied, not even the good one. */
	pa[1].offset = 997;
	ck_assert_int_eq(trace_buffer_patch_chunk_untrusted(tb, 1, 1, 0, pa, 2,
	    0), -1);
	pa[1].offset = 0xfffffffeu;
	ck_assert_int_eq(trace_buffer_patch_chunk_untrusted(tb, 1, 1, 0, pa, 2,
	    0), -1);
	pkts_read(tb, &ps);
	ck_assert_uint_eq(ps.n, 0);
	/* More patches pending: still waiting. */
	ck_assert_int_eq(trace_buffer_patch_chunk_untrusted(tb, 1, 1, 0, pa, 1,
	    1), 0);
	pkts_read(tb, &ps);
	ck_assert_uint_eq(ps.n, 0);
	ck_assert_int_eq(trace_buffer_patch_chunk_untrusted(tb, 1, 1, 0, pa, 1,
	    0), 0);
	pkts_read(tb, &ps);
	ck_assert_uint_eq(ps.n, 2);
	ck_assert_uint_eq(ps.v[0].len, 7);
	ck_assert_int_eq(proto_check(ps.v[0].data, ps.v[0].len, 0), 1);
	ck_assert_uint_eq(ps.v[1].data[0], 'n');
	trace_buffer_stats(tb, &st);
	ck_assert_uint_eq(st.patches_failed, 5);
	ck_assert_uint_eq(st.patches_succeeded, 2);
	/* A chunk gone from the buffer (read) can no longer be patched. */
	ck_assert_int_eq(trace_buffer_patch_chunk_untrusted(tb, 1, 1, 0, pa, 1,
	    0), -1);
	pkts_free(&ps);
	trace_buffer_free(tb);
}
END_TEST

/* One hostile fragment per case; the next chunk must still be read. */
START_TEST(test_hostile_fragments)
{
	static const struct {
		uint8_t	b[8];
		size_t	len;
		int	loss;	/* counted as writer packet loss, not ABI */
	} bad[] = {
		{ { 0xe9, 0x87, 0x80, 0x00 }, 4, 0 },	/* 1001 > payload */
		{ { 0x80, 0x80, 0x80, 0x80, 0x01 }, 5, 0 }, /* 5-byte varint */
		{ { 0xff, 0xff, 0xff, 0x7f }, 4, 1 },	/* drop marker */
		{ { 0xff, 0xff, 0xff, 0xff, 0x0f }, 5, 0 },
	};
	struct trace_buffer_stats st;
	struct trace_buffer *tb = tb_make(1 << 20, TRACE_BUFFER_RING);
	struct shm_chunk_view v;
	struct pkts ps = { 0 };
	struct cb c;
	uint32_t id = 0;
	uint64_t abi = 0, loss = 0;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cb_init(&c, 1000);
		cb_frag(&c, 'g', 3);
		cb_raw(&c, bad[i].b, bad[i].len, 1);
		cb_frag(&c, 'h', 3);	/* unreachable after the bad one */
		v = cb_view(&c, 1, id++, 0, 1);
		ck_assert_int_eq(trace_buffer_copy_chunk_untrusted(tb, 1, 1,
		    &v), 0);
		put1(tb, 1, 1, id++, 'k', 3, 1000);
		pkts_read(tb, &ps);
		ck_assert_uint_eq(ps.n, 2);
		ck_assert_uint_eq(ps.v[0].data[0], 'g');
		ck_assert_uint_eq(ps.v[1].data[0], 'k');
		ck_assert_int_eq(ps.v[1].dropped, 1);
		pkts_free(&ps);
		abi += !bad[i].loss;
		loss += bad[i].loss;
		trace_buffer_stats(tb, &st);
		ck_assert_uint_eq(st.abi_violations, abi);
		ck_assert_uint_eq(st.trace_writer_packet_loss, loss);
	}
	/* Size prefix cut by the end of the payload. */
	cb_init(&c, 1000);
	memset(c.buf, 0x80, sizeof(c.buf));
	c.off = 998;
	cb_raw(&c, "\x80\x80", 2, 1);
	c.n = 1;
	memset(c.buf, 0, 998);
	c.buf[0] = 0xe2;	/* 0x762 = 994 + 4 = 998: then a cut prefix */
	c.buf[1] = 0x87;
	c.buf[2] = 0x80;
	c.buf[3] = 0x00;
	c.n = 2;
	v = cb_view(&c, 1, id++, 0, 1);
	trace_buffer_copy_chunk_untrusted(tb, 1, 1, &v);
	pkts_read(tb, &ps);
	ck_assert_uint_eq(ps.n, 1);
	ck_assert_uint_eq(ps.v[0].len, 994);
	pkts_free(&ps);
	trace_buffer_stats(tb, &st);
	ck_assert_uint_eq(st.abi_violations, ++abi);
	/* More packets claimed than present: zero bytes are empty packets. */
	cb_init(&c, 1000);
	cb_frag(&c, 'm', 3);
	c.n = 50;
	v = cb_view(&c, 1, id++, 0, 1);
	trace_buffer_copy_chunk_untrusted(tb, 1, 1, &v);
	pkts_read(tb, &ps);
	ck_assert_uint_eq(ps.n, 1);
	pkts_free(&ps);

	/* Bad chunk headers handed in directly. */
	cb_init(&c, 1000);
	cb_frag(&c, 'x', 3);
	v = cb_view(&c, 0, 1, 0, 1);
	ck_assert_int_eq(trace_buffer_copy_chunk_untrusted(tb, 1, 1, &v), -1);
	v = cb_view(&c, 0x8000, 1, 0, 1);
	ck_assert_int_eq(trace_buffer_copy_chunk_untrusted(tb, 1, 1, &v), -1);
	v = cb_view(&c, 1, 1000, 0, 1);
	v.npackets = 1024;
	ck_assert_int_eq(trace_buffer_copy_chunk_untrusted(tb, 1, 1, &v), -1);
	v.npackets = 1;
	v.payload_size = 0;
	ck_assert_int_eq(trace_buffer_copy_chunk_untrusted(tb, 1, 1, &v), -1);
	abi += 4;
	/* Rewrites that shrink or change size are refused. */
	v = cb_view(&c, 5, 0, 0, 0);
	v.npackets = 3;
	ck_assert_int_eq(trace_buffer_copy_chunk_untrusted(tb, 1, 1, &v), 0);
	v.payload_size = 900;
	ck_assert_int_eq(trace_buffer_copy_chunk_untrusted(tb, 1, 1, &v), -1);
	v = cb_view(&c, 5, 0, 0, 0);
	v.npackets = 3;
	ck_assert_int_eq(trace_buffer_copy_chunk_untrusted(tb, 1, 1, &v), 0);
	v = cb_view(&c, 5, 0, 0, 1);
	v.npackets = 1;
	ck_assert_int_eq(trace_buffer_copy_chunk_untrusted(tb, 1, 1, &v), -1);
	abi += 2;
	trace_buffer_stats(tb, &st);
	ck_assert_uint_eq(st.abi_violations, abi);

	/* Violations found before the buffer (bad SMB headers) count too. */
	trace_buffer_note_abi_violation(tb);
	trace_buffer_stats(tb, &st);
	ck_assert_uint_eq(st.abi_violations, abi + 1);
	trace_buffer_free(tb);

	/* A chunk larger than the whole buffer. */
	tb = tb_make(4096, TRACE_BUFFER_RING);
	cb_init(&c, 4080);
	cb_frag(&c, 'x', 3);
	v = cb_view(&c, 1, 0, 0, 1);
	ck_assert_int_eq(trace_buffer_copy_chunk_untrusted(tb, 1, 1, &v), -1);
	trace_buffer_stats(tb, &st);
	ck_assert_uint_eq(st.abi_violations, 1);
	trace_buffer_free(tb);
}
END_TEST

START_TEST(test_sequences_and_identity)
{
	struct trace_buffer *tb = tb_make(1 << 20, TRACE_BUFFER_RING);
	struct pkts ps = { 0 };
	size_t i, na = 0, nb = 0;

	/* Same writer id, two producers: two sequences, each its own uid. */
	for (i = 0; i < 10; i++) {
		put1(tb, 1, 3, (uint32_t)i, 'a', 5, 500);
		put1(tb, 2, 3, (uint32_t)i, 'b', 5, 500);
	}
	pkts_read(tb, &ps);
	ck_assert_uint_eq(ps.n, 20);
	for (i = 0; i < ps.n; i++) {
		if (ps.v[i].data[0] == 'a') {
			ck_assert_uint_eq(ps.v[i].producer_id, 1);
			ck_assert_uint_eq(ps.v[i].uid, 1001);
			na++;
		} else {
			ck_assert_uint_eq(ps.v[i].producer_id, 2);
			ck_assert_uint_eq(ps.v[i].uid, 1002);
			nb++;
		}
		ck_assert_uint_eq(ps.v[i].writer_id, 3);
		ck_assert_int_eq(ps.v[i].dropped, 0);
	}
	ck_assert_uint_eq(na, 10);
	ck_assert_uint_eq(nb, 10);
	pkts_free(&ps);
	trace_buffer_free(tb);
}
END_TEST

START_TEST(test_bounded_bookkeeping)
{
	struct trace_buffer_stats st;
	struct trace_buffer *tb = tb_make(1 << 20, TRACE_BUFFER_RING);
	struct pkts ps = { 0 };
	size_t before, i, ndropped = 0;

	before = trace_buffer_overhead(tb);
	ck_assert_uint_lt(before, (1 << 20) / 20);	/* < 5% */
	/* 300 sequences, 200 chunks each, interleaved: far more than fit. */
	for (i = 0; i < 60000; i++)
		ck_assert_int_eq(put1(tb, (uint16_t)(1 + i % 3),
		    (uint16_t)(1 + (i / 3) % 100), (uint32_t)(i / 300), 'q', 4,
		    200), 0);
	ck_assert_uint_eq(trace_buffer_overhead(tb), before);
	trace_buffer_stats(tb, &st);
	ck_assert_uint_eq(st.chunks_written, 60000);
	ck_assert_uint_eq(st.chunks_discarded, 0);
	/* 1 KiB minimum records: exactly the last 1024 survive. */
	ck_assert_uint_eq(st.chunks_overwritten, 60000 - 1024);
	pkts_read(tb, &ps);
	ck_assert_uint_eq(ps.n, 1024);
	for (i = 0; i < ps.n; i++) {
		ck_assert_uint_eq(ps.v[i].data[0], 'q');
		ndropped += ps.v[i].dropped;
	}
	/* Each sequence lost its start: its first packet says so, once. */
	ck_assert_uint_eq(ndropped, 300);
	pkts_free(&ps);
	before = trace_buffer_overhead(tb);	/* with the read slices */

	/* A flood of one-chunk sequences: bounded, counted, never grows. */
	for (i = 0; i < 60000; i++)
		(void)put1(tb, (uint16_t)(10 + i % 3), (uint16_t)(1 + (i / 3) %
		    SHM_WRITER_ID_MAX), 0, 'f', 4, 200);
	ck_assert_uint_eq(trace_buffer_overhead(tb), before);
	trace_buffer_stats(tb, &st);
	ck_assert_uint_eq(st.chunks_written + st.chunks_discarded, 120000);
	pkts_read(tb, &ps);
	ck_assert_uint_gt(ps.n, 0);
	ck_assert_uint_le(ps.n, 1024);
	for (i = 0; i < ps.n; i++)
		ck_assert_uint_eq(ps.v[i].data[0], 'f');
	pkts_free(&ps);
	trace_buffer_free(tb);
}
END_TEST

START_TEST(test_clone)
{
	struct trace_buffer_stats st;
	struct trace_buffer *tb = tb_make(65536, TRACE_BUFFER_RING), *cl;
	struct pkts ps = { 0 }, pc = { 0 };
	const char *cause = NULL;
	size_t i;

	for (i = 0; i < 20; i++)
		put1(tb, 1, 1, (uint32_t)i, (uint8_t)i, 4076, 4080);
	/* Read a few first: the clone keeps the read position. */
	{
		struct trace_buffer_packet p;

		trace_buffer_begin_read(tb);
		ck_assert_int_eq(trace_buffer_read_next(tb, &p), 1);
		ck_assert_uint_eq(p.slices[0].data[0], 5);
	}
	cl = trace_buffer_clone(tb, &cause);
	ck_assert_ptr_nonnull(cl);
	trace_buffer_stats(cl, &st);
	ck_assert_uint_eq(st.chunks_written, 20);
	ck_assert_uint_eq(st.chunks_read, 0);
	/* Independent: new data in the source is not in the copy. */
	put1(tb, 1, 1, 20, 20, 4076, 4080);
	pkts_read(tb, &ps);
	pkts_read(cl, &pc);
	ck_assert_uint_eq(ps.n, 15);
	ck_assert_uint_eq(pc.n, 14);
	for (i = 0; i < pc.n; i++)
		ck_assert_uint_eq(pc.v[i].data[0], 6 + i);
	pkts_free(&ps);
	pkts_free(&pc);
	trace_buffer_free(tb);
	trace_buffer_free(cl);
}
END_TEST

Suite *
buffer_suite(void)
{
	Suite *s = suite_create("libshm_trace_buffer");
	TCase *tc = tcase_create("buffer");

	tcase_add_test(tc, test_ring_overwrite);
	tcase_add_test(tc, test_trimmed_records);
	tcase_add_test(tc, test_discard);
	tcase_add_test(tc, test_reorder_and_gaps);
	tcase_add_test(tc, test_chunk_id_wrap);
	tcase_add_test(tc, test_fragments);
	tcase_add_test(tc, test_scraped_then_committed);
	tcase_add_test(tc, test_producer_gone);
	tcase_add_test(tc, test_patches);
	tcase_add_test(tc, test_hostile_fragments);
	tcase_add_test(tc, test_sequences_and_identity);
	tcase_add_test(tc, test_bounded_bookkeeping);
	tcase_add_test(tc, test_clone);
	suite_add_tcase(s, tc);
	return s;
}
