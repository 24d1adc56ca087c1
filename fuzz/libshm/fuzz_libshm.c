/*
 * Fuzz target: the service side of the data path. The input is a hostile
 * producer: the first part becomes the SMB (page headers, chunk headers,
 * packets), the rest a list of commits (chunk moves, scrapes, patches).
 * Everything goes through shm_chunk_*_untrusted into a small trace buffer
 * (small so that it wraps), which is read back and checked for sanity.
 *
 * Built as a libFuzzer target with --enable-fuzzing; with FARO_FUZZ_MAIN it
 * is a standalone smoke run over pseudo-random inputs (make check).
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libshm/shm_abi.h"
#include "libshm/trace_buffer.h"

#define FZ_PAGE		4096u
#define FZ_PAGES	4u
#define FZ_SMB		(FZ_PAGE * FZ_PAGES)

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static uint8_t fz_smb[FZ_SMB] __attribute__((aligned(4096)));

static void
fz_read_all(struct trace_buffer *tb)
{
	struct trace_buffer_packet p;
	size_t i, sum;

	trace_buffer_begin_read(tb);
	while (trace_buffer_read_next(tb, &p)) {
		sum = 0;
		for (i = 0; i < p.nslices; i++) {
			/* Touch every byte: ASan checks the slices. */
			if (p.slices[i].len)
				sum += p.slices[i].data[0] +
				    p.slices[i].data[p.slices[i].len - 1];
			if (p.slices[i].len > 65536)
				abort();
		}
		(void)sum;
		if (p.nslices == 0 || p.size == 0)
			abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct trace_buffer *tb;
	struct shm_chunk_view v;
	struct shm_patch patch;
	struct shm_abi abi;
	const char *cause;
	size_t smb_len, off;
	uint8_t op;

	if (size < 1)
		return 0;
	/* First byte: how much of the SMB the input fills (the rest: ops). */
	smb_len = (size_t)data[0] * 64;
	data++;
	size--;
	if (smb_len > size)
		smb_len = size;
	if (smb_len > FZ_SMB)
		smb_len = FZ_SMB;
	memset(fz_smb, 0, sizeof(fz_smb));
	memcpy(fz_smb, data, smb_len);
	data += smb_len;
	size -= smb_len;
	if (shm_abi_init(&abi, fz_smb, FZ_SMB, FZ_PAGE, &cause) == -1)
		abort();
	tb = trace_buffer_new(16384, size > 0 && (data[0] & 1) ?
	    TRACE_BUFFER_DISCARD : TRACE_BUFFER_RING, &cause);
	if (tb == NULL)
		abort();
	for (off = 0; off + 3 <= size; off += 3) {
		op = data[off];
		switch (op & 7) {
		case 0:		/* commit: move a chunk */
		case 1:
			if (shm_chunk_acquire_untrusted(&abi, data[off + 1] & 7,
			    data[off + 2] & 15, &v, &cause) == 0) {
				(void)trace_buffer_copy_chunk_untrusted(tb,
				    (uint16_t)(1 + (op >> 7)), 1000, &v);
				(void)shm_chunk_read_done(&abi, &v);
			}
			break;
		case 2:		/* scrape */
			if (shm_chunk_peek_untrusted(&abi, data[off + 1] & 7,
			    data[off + 2] & 15, &v, &cause) == 0)
				(void)trace_buffer_copy_chunk_untrusted(tb, 1,
				    1000, &v);
			break;
		case 3:		/* patch */
			patch.offset = (uint32_t)data[off + 1] * 17;
			memcpy(patch.data, data + off, 3);
			patch.data[3] = op;
			(void)trace_buffer_patch_chunk_untrusted(tb, 1,
			    (uint16_t)(data[off + 2] & 3), data[off + 1] & 7,
			    &patch, 1, op & 8);
			break;
		case 4:		/* the producer rewrites a page header */
			atomic_store(&shm_abi_page(&abi, data[off + 1] &
			    3)->bitmap, (uint32_t)data[off + 2] << 24 |
			    (uint32_t)op << 16 | data[off + 2]);
			break;
		case 5:		/* or a byte of a chunk */
			fz_smb[((size_t)data[off + 1] << 8 | data[off + 2]) %
			    FZ_SMB] = op;
			break;
		case 6:		/* the producer disconnects */
			if (data[off + 1] & 1)
				trace_buffer_producer_gone(tb,
				    (uint16_t)(1 + (op >> 7)));
			else
				fz_read_all(tb);
			break;
		default:	/* read back; sometimes a clone too */
			if (data[off + 1] & 1) {
				struct trace_buffer *cl;

				if ((cl = trace_buffer_clone(tb, &cause)) ==
				    NULL)
					abort();
				fz_read_all(cl);
				trace_buffer_free(cl);
			}
			fz_read_all(tb);
			break;
		}
	}
	fz_read_all(tb);
	trace_buffer_free(tb);
	return 0;
}

#ifdef FARO_FUZZ_MAIN
/*
 * Smoke run: valid-looking SMBs (pages partitioned, complete chunks with
 * plausible packets) then mutated, so the parsers see near-misses.
 */
static uint64_t fz_state = 0x9e3779b97f4a7c15ull;

static uint32_t
fz_rand(void)
{
	fz_state ^= fz_state << 13;
	fz_state ^= fz_state >> 7;
	fz_state ^= fz_state << 17;
	return (uint32_t)(fz_state >> 16);
}

int
main(int argc, char **argv)
{
	static uint8_t in[1 + FZ_SMB + 3 * 512];
	unsigned iters = argc > 1 ? (unsigned)atoi(argv[1]) : 20000, it, i, n;
	size_t off, len;
	uint8_t *smb;

	for (it = 0; it < iters; it++) {
		memset(in, 0, sizeof(in));
		in[0] = 255;
		smb = in + 1;
		for (i = 0; i < FZ_PAGES; i++) {
			uint32_t layout = 1 + fz_rand() % 5, bm;
			unsigned nch = shm_layout_nchunks[layout], c;
			uint16_t csz = shm_chunk_size(FZ_PAGE, layout);

			bm = layout << 28;
			for (c = 0; c < nch; c++) {
				uint8_t *ch = smb + i * FZ_PAGE + 8 + c * csz;
				uint32_t id = fz_rand() % 4;
				uint16_t wr = (uint16_t)(1 + fz_rand() % 3);
				uint16_t np = 0;

				bm |= (fz_rand() % 4 ? 3u : fz_rand() % 4) <<
				    (2 * c);
				off = 8;
				while (off + 4 < csz && fz_rand() % 4) {
					len = fz_rand() % (csz - off);
					len = len > 4 ? len - 4 : 0;
					shm_write_redundant_varint(ch + off,
					    (uint32_t)len);
					off += 4 + len;
					np++;
				}
				memcpy(ch, &id, 4);
				memcpy(ch + 4, &wr, 2);
				np |= (uint16_t)((fz_rand() % 8) << 10);
				memcpy(ch + 6, &np, 2);
			}
			memcpy(smb + i * FZ_PAGE, &bm, 4);
		}
		n = fz_rand() % 64;
		for (i = 0; i < n; i++)
			smb[fz_rand() % FZ_SMB] = (uint8_t)fz_rand();
		for (i = 0; i < 512; i++) {
			in[1 + FZ_SMB + 3 * i] = (uint8_t)(fz_rand() % 3 ?
			    (fz_rand() & 0x80) : fz_rand());
			in[2 + FZ_SMB + 3 * i] = (uint8_t)fz_rand();
			in[3 + FZ_SMB + 3 * i] = (uint8_t)fz_rand();
		}
		len = 1 + FZ_SMB + 3 * (fz_rand() % 512);
		/* in[0] = 255: 16320 bytes of SMB come from the input. */
		LLVMFuzzerTestOneInput(in, len);
		/* With a directory argument: keep the first inputs as seeds. */
		if (argc > 2 && it < 64) {
			char path[4096];
			FILE *f;

			snprintf(path, sizeof(path), "%s/seed-%u", argv[2], it);
			if ((f = fopen(path, "wb")) != NULL) {
				fwrite(in, 1, len, f);
				fclose(f);
			}
		}
	}
	printf("fuzz_libshm: %u inputs\n", iters);
	return 0;
}
#endif
