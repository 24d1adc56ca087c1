/*
 * SMB ABI: layout numbers from upstream's shared_memory_abi.h, state
 * transitions on a real memfd, the memfd seals, and hostile chunk headers.
 */
#include "config.h"

#include <sys/mman.h>

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

#include "shm_test.h"

START_TEST(test_abi_layout)
{
	/* Offsets and sizes a Perfetto SDK producer writes at. */
	ck_assert_uint_eq(sizeof(struct shm_page_header), 8);
	ck_assert_uint_eq(offsetof(struct shm_page_header, bitmap), 0);
	ck_assert_uint_eq(sizeof(struct shm_chunk_header), 8);
	ck_assert_uint_eq(offsetof(struct shm_chunk_header, chunk_id), 0);
	ck_assert_uint_eq(offsetof(struct shm_chunk_header, writer_id), 4);
	ck_assert_uint_eq(offsetof(struct shm_chunk_header, packets), 6);
	ck_assert_uint_eq(SHM_LAYOUT_MASK, 0x70000000u);
	ck_assert_uint_eq(SHM_LAYOUT_SHIFT, 28);
	ck_assert_uint_eq(SHM_ALL_CHUNKS_MASK, 0x0fffffffu);
	ck_assert_uint_eq(SHM_CHUNK_FIRST_CONTINUES, 1);
	ck_assert_uint_eq(SHM_CHUNK_LAST_CONTINUES, 2);
	ck_assert_uint_eq(SHM_CHUNK_NEEDS_PATCHING, 4);
	ck_assert_uint_eq(SHM_PACKET_SIZE_DROP, (1u << 28) - 1);
	ck_assert_uint_eq(SHM_WRITER_ID_MAX, (1u << 15) - 1);
	ck_assert_uint_eq(SHM_MAX_PACKETS_PER_CHUNK, (1u << 10) - 1);
	/* packets: count in bits 0..9, flags in 10..15 (the C++ bitfield). */
	ck_assert_uint_eq(shm_packets_make(5, 3), 5 | (3 << 10));
	ck_assert_uint_eq(shm_packets_count(0xffff), 1023);
	ck_assert_uint_eq(shm_packets_flags(0xffff), 63);
	ck_assert_uint_eq(shm_layout_nchunks[0], 0);
	ck_assert_uint_eq(shm_layout_nchunks[1], 1);
	ck_assert_uint_eq(shm_layout_nchunks[2], 2);
	ck_assert_uint_eq(shm_layout_nchunks[3], 4);
	ck_assert_uint_eq(shm_layout_nchunks[4], 7);
	ck_assert_uint_eq(shm_layout_nchunks[5], 14);
	ck_assert_uint_eq(shm_layout_nchunks[6], 0);
	ck_assert_uint_eq(shm_layout_nchunks[7], 0);
}
END_TEST

START_TEST(test_chunk_sizes)
{
	/* align4((page_size - 8) / n), n = 1, 2, 4, 7, 14. */
	static const struct {
		size_t	 page;
		uint16_t sz[5];
	} t[] = {
		{ 4096, { 4088, 2044, 1020, 584, 292 } },
		{ 8192, { 8184, 4092, 2044, 1168, 584 } },
		{ 16384, { 16376, 8188, 4092, 2336, 1168 } },
		{ 32768, { 32760, 16380, 8188, 4680, 2340 } },
		{ 65536, { 65528, 32764, 16380, 9360, 4680 } },
	};
	size_t i;
	unsigned l;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		for (l = 1; l <= 5; l++)
			ck_assert_uint_eq(shm_chunk_size(t[i].page, l),
			    t[i].sz[l - 1]);
	ck_assert_uint_eq(shm_chunk_size(4096, 0), 0);
	ck_assert_uint_eq(shm_chunk_size(4096, 6), 0);
	ck_assert_uint_eq(shm_chunk_size(4096, 7), 0);
	ck_assert_uint_eq(shm_chunk_size(2048, 1), 0);
	ck_assert_uint_eq(shm_chunk_size(131072, 1), 0);
}
END_TEST

START_TEST(test_redundant_varint)
{
	uint8_t b[4];

	shm_write_redundant_varint(b, 5);
	ck_assert(b[0] == 0x85 && b[1] == 0x80 && b[2] == 0x80 && b[3] == 0);
	shm_write_redundant_varint(b, 300);
	ck_assert(b[0] == 0xac && b[1] == 0x82 && b[2] == 0x80 && b[3] == 0);
	shm_write_redundant_varint(b, SHM_PACKET_SIZE_DROP);
	ck_assert(b[0] == 0xff && b[1] == 0xff && b[2] == 0xff && b[3] == 0x7f);
}
END_TEST

START_TEST(test_abi_init_geometry)
{
	struct shm_region r;
	struct shm_abi abi;
	const char *cause = NULL;

	ck_assert_int_eq(shm_region_create(&r, 65536, "t", &cause), 0);
	ck_assert_int_eq(shm_abi_init(&abi, r.base, 65536, 4096, &cause), 0);
	ck_assert_uint_eq(abi.num_pages, 16);
	ck_assert_int_eq(shm_abi_init(&abi, r.base, 65536, 65536, &cause), 0);
	ck_assert_int_eq(shm_abi_init(&abi, r.base, 65536, 2048, &cause), -1);
	ck_assert_int_eq(shm_abi_init(&abi, r.base, 65536, 6144, &cause), -1);
	ck_assert_int_eq(shm_abi_init(&abi, r.base, 65536, 131072, &cause), -1);
	ck_assert_int_eq(shm_abi_init(&abi, r.base, 40960, 16384, &cause), -1);
	ck_assert_int_eq(shm_abi_init(&abi, r.base + 8, 4096, 4096, &cause), -1);
	ck_assert_ptr_nonnull(cause);
	shm_region_close(&r);
}
END_TEST

START_TEST(test_state_transitions)
{
	struct shm_region r;
	struct shm_abi abi;
	struct shm_chunk c, c2, rd;
	const struct shm_chunk_header *h;
	const char *cause = NULL;
	uint32_t bm;
	unsigned i;

	ck_assert_int_eq(shm_region_create(&r, 8192, "t", &cause), 0);
	ck_assert_int_eq(shm_abi_init(&abi, r.base, 8192, 4096, &cause), 0);
	/* Unpartitioned: nothing to acquire. */
	ck_assert_int_eq(shm_abi_acquire_for_writing(&abi, 0, 0, 1, 1, 0, &c),
	    -1);
	ck_assert_int_eq(shm_abi_try_partition(&abi, 0, SHM_LAYOUT_DIV4), 0);
	ck_assert_int_eq(shm_abi_try_partition(&abi, 0, SHM_LAYOUT_DIV1), -1);
	ck_assert_uint_eq(shm_abi_page_bitmap(&abi, 0), 3u << 28);
	ck_assert_uint_eq(shm_abi_free_chunks(&abi, 0), 0xf);

	ck_assert_int_eq(shm_abi_acquire_for_writing(&abi, 0, 2, 77, 5,
	    shm_packets_make(1, SHM_CHUNK_FIRST_CONTINUES), &c), 0);
	ck_assert_ptr_eq(c.begin, r.base + 8 + 2 * 1020);
	ck_assert_uint_eq(c.size, 1020);
	ck_assert_uint_eq(shm_abi_page_bitmap(&abi, 0),
	    (3u << 28) | (SHM_CHUNK_BEING_WRITTEN << 4));
	/* Header bytes as a producer in another process would see them. */
	ck_assert_uint_eq(c.begin[0], 77);
	ck_assert_uint_eq(c.begin[4], 5);
	ck_assert_uint_eq(c.begin[6], 1);
	ck_assert_uint_eq(c.begin[7], SHM_CHUNK_FIRST_CONTINUES << 2);
	ck_assert_int_eq(shm_abi_acquire_for_writing(&abi, 0, 2, 1, 1, 0, &c2),
	    -1);
	ck_assert_int_eq(shm_abi_acquire_for_writing(&abi, 0, 4, 1, 1, 0, &c2),
	    -1);
	ck_assert_uint_eq(shm_chunk_packets_inc(&c), 2);
	shm_chunk_set_flags(&c, SHM_CHUNK_NEEDS_PATCHING);
	shm_chunk_clear_flags(&c, SHM_CHUNK_FIRST_CONTINUES);
	ck_assert_uint_eq(shm_chunk_packets_load(&c),
	    shm_packets_make(2, SHM_CHUNK_NEEDS_PATCHING));
	/* Service cannot take a chunk that is still being written. */
	ck_assert_int_eq(shm_abi_acquire_for_reading(&abi, 0, 2, &rd), -1);
	ck_assert_int_eq(shm_abi_release_complete(&abi, &c), 0);
	ck_assert_int_eq(shm_abi_release_complete(&abi, &c), -1);
	ck_assert_uint_eq(shm_bitmap_state(shm_abi_page_bitmap(&abi, 0), 2),
	    SHM_CHUNK_COMPLETE);
	ck_assert_int_eq(shm_abi_acquire_for_reading(&abi, 0, 2, &rd), 0);
	ck_assert_ptr_eq(rd.begin, c.begin);
	ck_assert_uint_eq(shm_bitmap_state(shm_abi_page_bitmap(&abi, 0), 2),
	    SHM_CHUNK_BEING_READ);
	/* Another chunk in use keeps the page partitioned. */
	ck_assert_int_eq(shm_abi_acquire_for_writing(&abi, 0, 0, 1, 1, 0, &c2),
	    0);
	ck_assert_int_eq(shm_abi_release_free(&abi, &rd), 0);
	h = (const struct shm_chunk_header *)(const void *)rd.begin;
	ck_assert_uint_eq(h->chunk_id, 0);
	ck_assert_uint_eq(h->writer_id, 0);
	ck_assert_uint_eq(h->packets, 0);
	ck_assert_uint_eq(shm_abi_page_bitmap(&abi, 0),
	    (3u << 28) | SHM_CHUNK_BEING_WRITTEN);
	ck_assert_int_eq(shm_abi_release_complete(&abi, &c2), 0);
	ck_assert_int_eq(shm_abi_acquire_for_reading(&abi, 0, 0, &rd), 0);
	ck_assert_int_eq(shm_abi_release_free(&abi, &rd), 0);
	/* The last free chunk unpartitions the page. */
	ck_assert_uint_eq(shm_abi_page_bitmap(&abi, 0), 0);

	/* 14 chunks: every state bit pair in use. */
	ck_assert_int_eq(shm_abi_try_partition(&abi, 1, SHM_LAYOUT_DIV14), 0);
	for (i = 0; i < 14; i++) {
		ck_assert_int_eq(shm_abi_acquire_for_writing(&abi, 1, i, i, 1,
		    0, &c), 0);
		ck_assert_ptr_eq(c.begin, r.base + 4096 + 8 + i * 292);
		ck_assert_int_eq(shm_abi_release_complete(&abi, &c), 0);
	}
	bm = shm_abi_page_bitmap(&abi, 1);
	ck_assert_uint_eq(bm, (5u << 28) | 0x0fffffffu);
	ck_assert_int_eq(shm_abi_acquire_for_writing(&abi, 1, 14, 1, 1, 0, &c),
	    -1);
	shm_region_close(&r);
}
END_TEST

START_TEST(test_region_seals)
{
	struct shm_region a, b;
	const char *cause = NULL;
	int fd, dupfd, p[2];

	ck_assert_int_eq(shm_region_create(&a, 16384, "t", &cause), 0);
	ck_assert_int_eq(fcntl(a.fd, F_GET_SEALS) & (F_SEAL_SHRINK |
	    F_SEAL_GROW | F_SEAL_SEAL), F_SEAL_SHRINK | F_SEAL_GROW |
	    F_SEAL_SEAL);
	ck_assert_int_eq(ftruncate(a.fd, 4096), -1);
	ck_assert_int_eq(errno, EPERM);
	ck_assert_int_eq(ftruncate(a.fd, 65536), -1);
	dupfd = dup(a.fd);
	ck_assert_int_eq(shm_region_map_untrusted(&b, dupfd, 0, 1, &cause), 0);
	ck_assert_uint_eq(b.size, 16384);
	a.base[100] = 42;
	ck_assert_uint_eq(b.base[100], 42);	/* same memory */
	shm_region_close(&b);
	dupfd = dup(a.fd);
	ck_assert_int_eq(shm_region_map_untrusted(&b, dupfd, 8192, 1, &cause),
	    -1);
	close(dupfd);
	shm_region_close(&a);

	/* An unsealed memfd is refused when a seal is required. */
	fd = memfd_create("x", MFD_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, 8192), 0);
	ck_assert_int_eq(shm_region_map_untrusted(&b, fd, 0, 1, &cause), -1);
	ck_assert_int_eq(shm_region_map_untrusted(&b, fd, 0, 0, &cause), 0);
	shm_region_close(&b);
	/* Not whole pages. */
	fd = memfd_create("y", MFD_CLOEXEC);
	ck_assert_int_eq(ftruncate(fd, 5000), 0);
	ck_assert_int_eq(shm_region_map_untrusted(&b, fd, 0, 0, &cause), -1);
	close(fd);
	/* Not a file at all. */
	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(shm_region_map_untrusted(&b, p[0], 0, 0, &cause), -1);
	close(p[0]);
	close(p[1]);
	ck_assert_int_eq(shm_region_create(&a, 5000, "t", &cause), -1);
}
END_TEST

/* Puts a chunk header straight into shared memory, as a hostile producer. */
static uint8_t *
raw_chunk(struct shm_abi *abi, size_t page, unsigned layout, unsigned idx)
{
	return abi->base + page * abi->page_size + 8 +
	    idx * shm_chunk_size(abi->page_size, layout);
}

static void
raw_set(struct shm_abi *abi, size_t page, uint32_t bitmap)
{
	atomic_store(&shm_abi_page(abi, page)->bitmap, bitmap);
}

static void
raw_header(uint8_t *c, uint32_t chunk_id, uint16_t writer, uint16_t packets)
{
	memcpy(c, &chunk_id, 4);
	memcpy(c + 4, &writer, 2);
	memcpy(c + 6, &packets, 2);
}

START_TEST(test_hostile_headers)
{
	struct shm_region r;
	struct shm_abi abi;
	struct shm_chunk_view v;
	const char *cause;
	uint8_t *c;

	ck_assert_int_eq(shm_region_create(&r, 16384, "t", &cause), 0);
	ck_assert_int_eq(shm_abi_init(&abi, r.base, 16384, 4096, &cause), 0);

	/* Page and chunk index out of range. */
	ck_assert_int_eq(shm_chunk_acquire_untrusted(&abi, 4, 0, &v, &cause),
	    -1);
	ck_assert_int_eq(shm_chunk_acquire_untrusted(&abi, 0xffffffffu, 0, &v,
	    &cause), -1);
	ck_assert_int_eq(shm_chunk_acquire_untrusted(&abi, 0, 14, &v, &cause),
	    -1);
	/* Unpartitioned page, reserved layouts. */
	ck_assert_int_eq(shm_chunk_acquire_untrusted(&abi, 0, 0, &v, &cause),
	    -1);
	raw_set(&abi, 0, (6u << 28) | 3);
	ck_assert_int_eq(shm_chunk_acquire_untrusted(&abi, 0, 0, &v, &cause),
	    -1);
	ck_assert_str_eq(cause, "reserved page layout");
	raw_set(&abi, 0, (7u << 28) | 3);
	ck_assert_int_eq(shm_chunk_acquire_untrusted(&abi, 0, 0, &v, &cause),
	    -1);
	/* Bit 31 set (reserved): the layout read is 0 or garbage either way. */
	raw_set(&abi, 0, 0x80000003u);
	ck_assert_int_eq(shm_chunk_acquire_untrusted(&abi, 0, 0, &v, &cause),
	    -1);
	/* Index beyond the layout (2 chunks, ask for #5, marked complete). */
	raw_set(&abi, 0, (2u << 28) | 0x0fffffffu);
	ck_assert_int_eq(shm_chunk_acquire_untrusted(&abi, 0, 5, &v, &cause),
	    -1);
	ck_assert_str_eq(cause, "chunk index beyond the page layout");
	/* States other than complete. */
	raw_set(&abi, 0, (1u << 28) | SHM_CHUNK_FREE);
	ck_assert_int_eq(shm_chunk_acquire_untrusted(&abi, 0, 0, &v, &cause),
	    -1);
	raw_set(&abi, 0, (1u << 28) | SHM_CHUNK_BEING_WRITTEN);
	ck_assert_int_eq(shm_chunk_acquire_untrusted(&abi, 0, 0, &v, &cause),
	    -1);
	raw_set(&abi, 0, (1u << 28) | SHM_CHUNK_BEING_READ);
	ck_assert_int_eq(shm_chunk_acquire_untrusted(&abi, 0, 0, &v, &cause),
	    -1);
	/* Writer id 0, above 32767, 0xffff: rejected and freed. */
	c = raw_chunk(&abi, 0, 1, 0);
	raw_header(c, 1, 0, shm_packets_make(1, 0));
	raw_set(&abi, 0, (1u << 28) | SHM_CHUNK_COMPLETE);
	ck_assert_int_eq(shm_chunk_acquire_untrusted(&abi, 0, 0, &v, &cause),
	    -1);
	ck_assert_str_eq(cause, "writer id out of range");
	ck_assert_uint_eq(shm_abi_page_bitmap(&abi, 0), 0);
	raw_header(c, 1, 0x8000, shm_packets_make(1, 0));
	raw_set(&abi, 0, (1u << 28) | SHM_CHUNK_COMPLETE);
	ck_assert_int_eq(shm_chunk_acquire_untrusted(&abi, 0, 0, &v, &cause),
	    -1);
	raw_header(c, 1, 0xffff, shm_packets_make(1, 0));
	raw_set(&abi, 0, (1u << 28) | SHM_CHUNK_COMPLETE);
	ck_assert_int_eq(shm_chunk_acquire_untrusted(&abi, 0, 0, &v, &cause),
	    -1);
	/* More packets than a 292-byte chunk can hold. */
	c = raw_chunk(&abi, 1, 5, 13);
	raw_header(c, 1, 1, shm_packets_make(1023, 0));
	raw_set(&abi, 1, (5u << 28) | (SHM_CHUNK_COMPLETE << 26));
	ck_assert_int_eq(shm_chunk_acquire_untrusted(&abi, 1, 13, &v, &cause),
	    -1);
	ck_assert_str_eq(cause, "more packets than the chunk can hold");
	/* Unknown flag bits are masked; a good header passes. */
	raw_header(c, 99, 3, shm_packets_make(2, 0x38 | SHM_CHUNK_LAST_CONTINUES));
	raw_set(&abi, 1, (5u << 28) | (SHM_CHUNK_COMPLETE << 26));
	ck_assert_int_eq(shm_chunk_acquire_untrusted(&abi, 1, 13, &v, &cause),
	    0);
	ck_assert_uint_eq(v.flags, SHM_CHUNK_LAST_CONTINUES);
	ck_assert_uint_eq(v.chunk_id, 99);
	ck_assert_uint_eq(v.writer_id, 3);
	ck_assert_uint_eq(v.npackets, 2);
	ck_assert_uint_eq(v.payload_size, 284);
	ck_assert_ptr_eq(v.payload, c + 8);
	ck_assert_int_eq(v.complete, 1);
	/* The producer meddling with a chunk being read: release says so. */
	raw_set(&abi, 1, (5u << 28) | (SHM_CHUNK_COMPLETE << 26));
	ck_assert_int_eq(shm_chunk_read_done(&abi, &v), -1);

	/* Scraping: peeks at being-written and complete chunks only. */
	raw_header(c, 5, 3, shm_packets_make(3, 0));
	raw_set(&abi, 1, (5u << 28) | (SHM_CHUNK_BEING_WRITTEN << 26));
	ck_assert_int_eq(shm_chunk_peek_untrusted(&abi, 1, 13, &v, &cause), 0);
	ck_assert_int_eq(v.complete, 0);
	ck_assert_uint_eq(shm_abi_page_bitmap(&abi, 1),
	    (5u << 28) | (SHM_CHUNK_BEING_WRITTEN << 26));
	ck_assert_int_eq(shm_chunk_peek_untrusted(&abi, 1, 12, &v, &cause), 1);
	ck_assert_int_eq(shm_chunk_peek_untrusted(&abi, 2, 0, &v, &cause), 1);
	raw_set(&abi, 2, (7u << 28) | 1);
	ck_assert_int_eq(shm_chunk_peek_untrusted(&abi, 2, 0, &v, &cause), -1);
	raw_header(c, 5, 0, shm_packets_make(3, 0));
	ck_assert_int_eq(shm_chunk_peek_untrusted(&abi, 1, 13, &v, &cause), -1);
	shm_region_close(&r);
}
END_TEST

START_TEST(test_chunk_from_bytes)
{
	struct shm_chunk_view v;
	const char *cause;
	uint8_t b[300];

	memset(b, 0, sizeof(b));
	raw_header(b, 9, 2, shm_packets_make(1, SHM_CHUNK_LAST_CONTINUES));
	ck_assert_int_eq(shm_chunk_view_from_bytes_untrusted(b, sizeof(b), 0,
	    &v, &cause), 0);
	ck_assert_uint_eq(v.chunk_id, 9);
	ck_assert_uint_eq(v.writer_id, 2);
	ck_assert_uint_eq(v.payload_size, 292);
	ck_assert_ptr_eq(v.payload, b + 8);
	ck_assert_int_eq(v.complete, 0);
	ck_assert_int_eq(shm_chunk_view_from_bytes_untrusted(b, 8, 1, &v,
	    &cause), -1);
	ck_assert_int_eq(shm_chunk_view_from_bytes_untrusted(b, 70000, 1, &v,
	    &cause), -1);
	raw_header(b, 9, 0, shm_packets_make(1, 0));
	ck_assert_int_eq(shm_chunk_view_from_bytes_untrusted(b, sizeof(b), 1,
	    &v, &cause), -1);
	raw_header(b, 9, 1, shm_packets_make(293, 0));
	ck_assert_int_eq(shm_chunk_view_from_bytes_untrusted(b, sizeof(b), 1,
	    &v, &cause), -1);
}
END_TEST

Suite *
abi_suite(void)
{
	Suite *s = suite_create("libshm_abi");
	TCase *tc = tcase_create("abi");

	tcase_add_test(tc, test_abi_layout);
	tcase_add_test(tc, test_chunk_sizes);
	tcase_add_test(tc, test_redundant_varint);
	tcase_add_test(tc, test_abi_init_geometry);
	tcase_add_test(tc, test_state_transitions);
	tcase_add_test(tc, test_region_seals);
	tcase_add_test(tc, test_hostile_headers);
	tcase_add_test(tc, test_chunk_from_bytes);
	suite_add_tcase(s, tc);
	return s;
}
