/*
 * bench_libshm: MB/s through the whole data path in one process:
 * trace writer -> SMB (memfd) -> commit -> trace buffer -> read-back.
 * The commit callback plays traced (acquire, copy, release); read-back runs
 * every 64 commits, as a consumer draining the buffer would.
 *
 *   bench_libshm [total_mb]      (default 256 MB per packet size)
 *
 * The reference line is the floor of the same path: the bytes copied twice
 * (into the SMB, into the central buffer) with no framing or bookkeeping.
 *
 * Measure it in a non-ASan -O2 build.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "libshm/pbw.h"
#include "libshm/shm_abi.h"
#include "libshm/shm_arbiter.h"
#include "libshm/trace_buffer.h"

struct bsvc {
	struct shm_abi		 abi;
	struct trace_buffer	*tb;
	int			 writer_only;	/* free chunks, copy nothing */
	unsigned		 commits;
	uint64_t		 read_bytes, read_packets, sum;
};

static void
bench_drain(struct bsvc *s)
{
	struct trace_buffer_packet p;
	size_t i;

	trace_buffer_begin_read(s->tb);
	while (trace_buffer_read_next(s->tb, &p)) {
		s->read_packets++;
		s->read_bytes += p.size;
		for (i = 0; i < p.nslices; i++)
			s->sum += p.slices[i].data[0];
	}
}

static void
bench_commit(const struct shm_commit *c, void *arg)
{
	struct bsvc *s = arg;
	struct shm_chunk_view v;
	const char *cause;
	size_t i;

	for (i = 0; i < c->nmoves; i++) {
		if (shm_chunk_acquire_untrusted(&s->abi, c->moves[i].page,
		    c->moves[i].chunk, &v, &cause) == -1)
			continue;
		if (!s->writer_only)
			(void)trace_buffer_copy_chunk_untrusted(s->tb, 1, 0,
			    &v);
		(void)shm_chunk_read_done(&s->abi, &v);
	}
	for (i = 0; i < c->npatches && !s->writer_only; i++)
		(void)trace_buffer_patch_chunk_untrusted(s->tb, 1,
		    c->patches[i].writer_id, c->patches[i].chunk_id,
		    c->patches[i].patches, c->patches[i].npatches,
		    c->patches[i].has_more_patches);
	if (++s->commits % 64 == 0)
		bench_drain(s);
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double
bench_run(size_t payload, uint64_t total, int writer_only)
{
	struct shm_arbiter_config cfg;
	struct shm_region r;
	struct shm_arbiter *arb;
	struct shm_writer *w;
	struct bsvc s;
	struct pbw *p;
	const char *cause = NULL;
	uint8_t *blob;
	uint64_t n = 0, i;
	double t0, dt = 0, mbs = 0;
	int lap;

	memset(&s, 0, sizeof(s));
	s.writer_only = writer_only;
	blob = malloc(payload);
	memset(blob, 0x5a, payload);
	if (shm_region_create(&r, SHM_SIZE_DEFAULT, "bench", &cause) == -1 ||
	    shm_abi_init(&s.abi, r.base, r.size, 4096, &cause) == -1 ||
	    (s.tb = trace_buffer_new(32u << 20, TRACE_BUFFER_RING,
	    &cause)) == NULL) {
		fprintf(stderr, "bench_libshm: %s\n", cause);
		exit(1);
	}
	memset(&cfg, 0, sizeof(cfg));
	cfg.page_size = 4096;
	cfg.commit_cb = bench_commit;
	cfg.commit_arg = &s;
	if ((arb = shm_arbiter_new(r.base, r.size, &cfg, &cause)) == NULL ||
	    (w = shm_writer_new(arb, 1, SHM_POLICY_STALL, &cause)) == NULL) {
		fprintf(stderr, "bench_libshm: %s\n", cause);
		exit(1);
	}
	/*
	 * One packet: timestamp, a nested message holding the payload. A
	 * first untimed lap touches every page of the central buffer, as in
	 * a running traced; the timed one is the steady state.
	 */
	for (lap = 0; lap < 2; lap++) {
		n = (lap == 0 ? (40u << 20) : total) / (payload + 16);
		s.read_bytes = s.read_packets = 0;
		t0 = now_s();
		for (i = 0; i < n; i++) {
			p = shm_writer_packet_begin(w);
			pbw_varint(p, 8, i * 1000);
			pbw_nested_begin(p, 11);
			pbw_bytes(p, 2, blob, payload);
			pbw_nested_end(p);
			shm_writer_packet_end(w);
		}
		shm_writer_flush(w);
		bench_drain(&s);
		dt = now_s() - t0;
	}
	if (writer_only) {
		printf("payload %5zu B: writer alone (chunks freed, not "
		    "copied): %6.1f ns/packet, %7.1f MB/s\n", payload,
		    dt * 1e9 / (double)n, (double)n * (double)payload / 1e6 / dt);
		goto out;
	}
	mbs = (double)s.read_bytes / 1e6 / dt;
	printf("payload %5zu B: %9llu packets, %7.1f MB read back in %.3f s: "
	    "%7.1f MB/s, %6.2f Mpackets/s%s\n", payload,
	    (unsigned long long)s.read_packets, (double)s.read_bytes / 1e6, dt,
	    (double)s.read_bytes / 1e6 / dt, (double)s.read_packets / 1e6 / dt,
	    s.read_packets == n ? "" : " (LOST PACKETS)");
out:
	shm_writer_free(w);
	shm_arbiter_free(arb);
	trace_buffer_free(s.tb);
	shm_region_close(&r);
	free(blob);
	return mbs;
}

/*
 * Reference: the floor for this path, the same bytes copied twice (into the
 * SMB, then into the central buffer) and touched once on read-back, with no
 * framing or bookkeeping. Returns MB/s.
 */
static double
bench_reference(size_t payload, uint64_t total)
{
	uint8_t *smb, *ring, *blob;
	size_t ring_size = 32u << 20, smb_size = SHM_SIZE_DEFAULT, so = 0,
	    ro = 0, rec = payload + 16;
	uint64_t n, i, sum = 0;
	double t0, dt;

	smb = malloc(smb_size);
	ring = malloc(ring_size);
	blob = malloc(rec);
	memset(blob, 0x5a, rec);
	memset(smb, 0, smb_size);
	memset(ring, 0, ring_size);
	n = total / rec;
	t0 = now_s();
	for (i = 0; i < n; i++) {
		if (so + rec > smb_size)
			so = 0;
		if (ro + rec > ring_size)
			ro = 0;
		memcpy(smb + so, blob, rec);
		memcpy(ring + ro, smb + so, rec);
		sum += ring[ro];
		so += rec;
		ro += rec;
	}
	dt = now_s() - t0;
	free(smb);
	free(ring);
	free(blob);
	if (sum == 1)
		printf(" ");
	return (double)n * (double)rec / 1e6 / dt;
}

int
main(int argc, char **argv)
{
	uint64_t total = 256;
	double ref40, ref4k, r40, r4k;

	if (argc > 1)
		total = strtoull(argv[1], NULL, 10);
	total <<= 20;
	ref40 = bench_reference(40, total);
	ref4k = bench_reference(4096, total);
	printf("reference (2 x memcpy, no framing): 40 B %.1f MB/s, "
	    "4096 B %.1f MB/s\n", ref40, ref4k);
	r40 = bench_run(40, total, 0);
	r4k = bench_run(4096, total, 0);
	printf("ratio to reference: 40 B %.2f, 4096 B %.2f\n", r40 / ref40,
	    r4k / ref4k);
	bench_run(40, total, 1);
	bench_run(4096, total, 1);
	return 0;
}
