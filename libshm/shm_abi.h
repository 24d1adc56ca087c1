/*
 * Shared memory buffer (SMB) ABI: the memory a producer writes trace data
 * into and traced copies it out of. Byte-for-byte Perfetto's layout, because
 * Perfetto SDK producers write into the SMBs traced hands out.
 *
 * Overview
 * --------
 * One SMB per producer connection: a memfd (sealed against shrinking) mapped
 * by the producer and by traced. It is cut into pages of equal size (4, 8,
 * 16 or 32 KiB; 64 KiB accepted). A producer partitions each free page into
 * 1, 2, 4, 7 or 14 chunks; a chunk is written by one trace writer at a time
 * and holds a run of packets (TracePacket messages) or packet fragments.
 *
 *   SMB     +-----------------+-----------------+-----------------+
 *           |     page 0      |     page 1      |     page N-1    |
 *           +-----------------+-----------------+-----------------+
 *                   |
 *   page    +--------+-----------------+-----------------+-- ... --+
 *           | header | chunk 0         | chunk 1         |         |
 *           | 8 B    |                 |                 |         |
 *           +--------+-----------------+-----------------+-- ... --+
 *                           |
 *   chunk   +--------------+-----+---------+-----+---------+- ... -+
 *           | chunk header | len | packet  | len | packet  |  tail |
 *           | 8 B          | 4 B |         | 4 B |         | unused|
 *           +--------------+-----+---------+-----+---------+- ... -+
 *
 * Page header (8 bytes, little-endian):
 *   word 0, bits [31]     reserved (zero)
 *           bits [30:28]  layout: 0 not partitioned, 1..5 = 1, 2, 4, 7, 14
 *                         chunks, 6 and 7 reserved (invalid)
 *           bits [2i+1:2i] state of chunk i (i = 0..13)
 *   word 1  reserved
 * A chunk of layout L has size align_down4((page_size - 8) / nchunks(L)) and
 * starts at 8 + i * size within the page; the tail of the page past the last
 * chunk is unused.
 *
 * Chunk states, each moved by one side only, always by compare-and-swap on
 * the page header word:
 *
 *   FREE --(producer)--> BEING_WRITTEN --(producer)--> COMPLETE
 *    ^                                                    |
 *    +-----------(service)---- BEING_READ <--(service)----+
 *
 * When the last non-free chunk of a page goes back to FREE the whole word
 * becomes 0 (page no longer partitioned), so the producer may choose another
 * layout next time.
 *
 * Chunk header (8 bytes):
 *   offset 0  uint32 chunk_id   per-writer counter, wraps at 2^32
 *   offset 4  uint16 writer_id  1..32767, allocated by the producer's arbiter
 *   offset 6  uint16 packets    bits [9:0] packet (fragment) count,
 *                               bits [15:10] flags (SHM_CHUNK_*)
 * There is no producer id: traced knows it from the socket.
 *
 * Packets: each packet or fragment is a 4-byte size prefix followed by its
 * bytes. The prefix is a varint padded to 4 bytes (0x80 continuation on the
 * first three) so the writer can fill it in after the payload; a size of
 * SHM_PACKET_SIZE_DROP tells the service the writer gave the packet up (SMB
 * full). The count includes a packet as soon as it is started; only a
 * COMPLETE chunk's last packet is known to be finished.
 *
 * Everything in this file that reads an SMB on the service side treats the
 * memory as hostile: the producer may rewrite it at any moment.
 */
#ifndef FARO_SHM_ABI_H
#define FARO_SHM_ABI_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define SHM_PAGE_SIZE_MIN	4096u
#define SHM_PAGE_SIZE_MAX	65536u	/* chunk sizes must fit 16 bits */
#define SHM_PAGE_SIZE_DEFAULT	4096u
#define SHM_SIZE_DEFAULT	(256u * 1024)
#define SHM_SIZE_MAX		(32u * 1024 * 1024)

#define SHM_PAGE_HDR_SIZE	8u
#define SHM_CHUNK_HDR_SIZE	8u
#define SHM_CHUNK_ALIGN		4u
#define SHM_MAX_CHUNKS_PER_PAGE	14u
#define SHM_PACKET_HDR_SIZE	4u	/* redundant varint size prefix */
#define SHM_MAX_PACKETS_PER_CHUNK 1023u	/* 10-bit count */
#define SHM_PACKET_SIZE_DROP	0x0fffffffu /* largest 4-byte varint */

#define SHM_WRITER_ID_MAX	32767u	/* 0 is never a valid writer id */
#define SHM_PATCH_SIZE		4u	/* every patch rewrites one size prefix */

/* Page header word. */
#define SHM_LAYOUT_SHIFT	28
#define SHM_LAYOUT_MASK		0x70000000u
#define SHM_ALL_CHUNKS_MASK	0x0fffffffu
#define SHM_CHUNK_STATE_BITS	2
#define SHM_CHUNK_STATE_MASK	0x3u

enum shm_chunk_state {
	SHM_CHUNK_FREE = 0,
	SHM_CHUNK_BEING_WRITTEN = 1,
	SHM_CHUNK_BEING_READ = 2,
	SHM_CHUNK_COMPLETE = 3,
};

enum shm_page_layout {
	SHM_LAYOUT_NONE = 0,	/* free, not partitioned */
	SHM_LAYOUT_DIV1 = 1,
	SHM_LAYOUT_DIV2 = 2,
	SHM_LAYOUT_DIV4 = 3,
	SHM_LAYOUT_DIV7 = 4,
	SHM_LAYOUT_DIV14 = 5,
	SHM_LAYOUT_RESERVED1 = 6,
	SHM_LAYOUT_RESERVED2 = 7,
	SHM_NUM_LAYOUTS = 8,
};

/*
 * Chunk flags (the 6 high bits of chunk_header.packets): the first packet
 * continues from chunk_id - 1; the last one continues on chunk_id + 1; size
 * fields of the last one still to come as patches (CommitData).
 */
#define SHM_CHUNK_FIRST_CONTINUES	0x01u
#define SHM_CHUNK_LAST_CONTINUES	0x02u
#define SHM_CHUNK_NEEDS_PATCHING	0x04u
#define SHM_CHUNK_FLAGS_KNOWN		0x07u

#define SHM_PACKETS_COUNT_MASK	0x03ffu
#define SHM_PACKETS_FLAGS_SHIFT	10

struct shm_page_header {
	_Atomic uint32_t	bitmap;
	uint32_t		reserved;
};

struct shm_chunk_header {
	_Atomic uint32_t	chunk_id;
	_Atomic uint16_t	writer_id;
	_Atomic uint16_t	packets;	/* count | flags << 10 */
};

_Static_assert(sizeof(struct shm_page_header) == 8, "page header size");
_Static_assert(sizeof(struct shm_chunk_header) == 8, "chunk header size");
_Static_assert(sizeof(_Atomic uint32_t) == 4 && sizeof(_Atomic uint16_t) == 2,
    "atomics must be plain-sized to share memory with other processes");

/* Chunks per layout: {0, 1, 2, 4, 7, 14, 0, 0}. */
extern const uint8_t shm_layout_nchunks[SHM_NUM_LAYOUTS];

static inline unsigned
shm_bitmap_layout(uint32_t bitmap)
{
	return (bitmap & SHM_LAYOUT_MASK) >> SHM_LAYOUT_SHIFT;
}

static inline unsigned
shm_bitmap_nchunks(uint32_t bitmap)
{
	return shm_layout_nchunks[shm_bitmap_layout(bitmap)];
}

static inline enum shm_chunk_state
shm_bitmap_state(uint32_t bitmap, unsigned idx)
{
	return (enum shm_chunk_state)((bitmap >> (idx * SHM_CHUNK_STATE_BITS)) &
	    SHM_CHUNK_STATE_MASK);
}

static inline uint16_t
shm_packets_make(unsigned count, unsigned flags)
{
	return (uint16_t)((count & SHM_PACKETS_COUNT_MASK) |
	    (flags << SHM_PACKETS_FLAGS_SHIFT));
}

static inline unsigned
shm_packets_count(uint16_t packets)
{
	return packets & SHM_PACKETS_COUNT_MASK;
}

static inline unsigned
shm_packets_flags(uint16_t packets)
{
	return packets >> SHM_PACKETS_FLAGS_SHIFT;
}

/* Size of each chunk of 'layout' in a page of 'page_size' (0: invalid). */
uint16_t	shm_chunk_size(size_t page_size, unsigned layout);

/* Writes v as a varint padded to exactly 4 bytes (v < 2^28). */
static inline void
shm_write_redundant_varint(uint8_t *dst, uint32_t v)
{
	dst[0] = (uint8_t)((v & 0x7f) | 0x80);
	dst[1] = (uint8_t)(((v >> 7) & 0x7f) | 0x80);
	dst[2] = (uint8_t)(((v >> 14) & 0x7f) | 0x80);
	dst[3] = (uint8_t)((v >> 21) & 0x7f);
}

/*
 * A view of one SMB (either side). It does not own the memory.
 */
struct shm_abi {
	uint8_t		*base;
	size_t		 size;
	size_t		 page_size;
	size_t		 num_pages;
	uint16_t	 chunk_sizes[SHM_NUM_LAYOUTS];
};

/* A chunk acquired by one side, located by page and index. */
struct shm_chunk {
	uint8_t		*begin;		/* the chunk header; NULL if invalid */
	uint32_t	 page;
	uint16_t	 size;		/* including the header */
	uint8_t		 idx;
};

/*
 * Checks geometry (page size a multiple of 4 KiB in [4 KiB, 64 KiB], size a
 * non-zero multiple of it, base 4 KiB aligned). -1 and *cause on error.
 */
int	shm_abi_init(struct shm_abi *, void *base, size_t size,
	    size_t page_size, const char **cause);

static inline struct shm_page_header *
shm_abi_page(const struct shm_abi *abi, size_t page)
{
	return (struct shm_page_header *)(void *)(abi->base +
	    page * abi->page_size);
}

/* Acquire-load of the page header word. */
uint32_t shm_abi_page_bitmap(const struct shm_abi *, size_t page);

/* CAS a free (0) page to 'layout'. 0 on success, -1 if not free. */
int	shm_abi_try_partition(struct shm_abi *, size_t page, unsigned layout);

/* Bit i set if chunk i exists and is FREE. */
uint32_t shm_abi_free_chunks(const struct shm_abi *, size_t page);

/*
 * Producer: FREE -> BEING_WRITTEN, then writes the header (chunk_id,
 * writer_id, packets). 0 and *out on success, -1 if the chunk is not free.
 */
int	shm_abi_acquire_for_writing(struct shm_abi *, size_t page, unsigned idx,
	    uint32_t chunk_id, uint16_t writer_id, uint16_t packets,
	    struct shm_chunk *out);

/* Producer: BEING_WRITTEN -> COMPLETE. -1 if the state was not as expected. */
int	shm_abi_release_complete(struct shm_abi *, const struct shm_chunk *);

/* Service: COMPLETE -> BEING_READ. -1 if not COMPLETE or out of range. */
int	shm_abi_acquire_for_reading(struct shm_abi *, size_t page, unsigned idx,
	    struct shm_chunk *out);

/*
 * Service: BEING_READ -> FREE (clears the chunk header first; a page whose
 * chunks are all free becomes unpartitioned). -1 if the state was not
 * BEING_READ (the producer has no business touching it: caller counts it).
 */
int	shm_abi_release_free(struct shm_abi *, const struct shm_chunk *);

/* Producer-side header helpers on a chunk it holds in BEING_WRITTEN. */
uint16_t shm_chunk_packets_load(const struct shm_chunk *);
unsigned shm_chunk_packets_inc(const struct shm_chunk *);
void	 shm_chunk_set_flags(const struct shm_chunk *, unsigned flags);
void	 shm_chunk_clear_flags(const struct shm_chunk *, unsigned flags);

static inline uint8_t *
shm_chunk_payload(const struct shm_chunk *c)
{
	return c->begin + SHM_CHUNK_HDR_SIZE;
}

/*
 * Service side: a snapshot of a chunk header, read once from hostile memory
 * and validated. payload still points into the SMB: copy it once (never
 * parse it in place), the producer may rewrite it under us.
 */
struct shm_chunk_view {
	const uint8_t	*payload;
	uint32_t	 chunk_id;
	uint16_t	 writer_id;
	uint16_t	 payload_size;	/* chunk size - header, from the layout */
	uint16_t	 npackets;
	uint8_t		 flags;		/* SHM_CHUNK_FLAGS_KNOWN bits only */
	uint8_t		 complete;	/* 0: scraped while BEING_WRITTEN */
	uint32_t	 page;
	uint8_t		 idx;
};

/*
 * Service, on CommitData: moves chunk (page, idx) COMPLETE -> BEING_READ and
 * fills *v. On success the caller copies v->payload (e.g. with
 * trace_buffer_copy_chunk_untrusted) then calls shm_chunk_read_done().
 * Returns -1 and *cause when the page or chunk index is out of range, the
 * layout is invalid, the chunk is not COMPLETE, or the header is bad
 * (writer id 0 or > SHM_WRITER_ID_MAX, more packets than the payload can
 * hold); the caller counts an ABI violation. A chunk with a bad header that
 * was acquired is released back to FREE before returning.
 */
int	shm_chunk_acquire_untrusted(struct shm_abi *, uint32_t page,
	    uint32_t idx, struct shm_chunk_view *v, const char **cause);

/* BEING_READ -> FREE after the copy. -1 if the producer meddled. */
int	shm_chunk_read_done(struct shm_abi *, const struct shm_chunk_view *);

/*
 * Service, scraping (producer gone or flush timed out): reads chunk (page,
 * idx) without changing its state when it is BEING_WRITTEN (v->complete = 0:
 * its last packet is not finished) or COMPLETE (v->complete = 1). Returns 0
 * on success, 1 when the chunk holds nothing to scrape (free, being read,
 * no such chunk), -1 and *cause when the header is bad.
 */
int	shm_chunk_peek_untrusted(struct shm_abi *, uint32_t page, uint32_t idx,
	    struct shm_chunk_view *v, const char **cause);

/*
 * Service, a chunk that came as bytes (CommitData ChunksToMove.data, the
 * commits-over-IPC mode of producers without shared memory): the 8-byte
 * header then the payload, at most 65535 bytes; 'complete' is the opposite
 * of ChunksToMove.chunk_incomplete. v->payload points into data. Same
 * checks as shm_chunk_acquire_untrusted.
 */
int	shm_chunk_view_from_bytes_untrusted(const uint8_t *data, size_t len,
	    int complete, struct shm_chunk_view *v, const char **cause);

/*
 * Service, scraping a whole SMB: calls cb for every chunk that
 * shm_chunk_peek_untrusted reads successfully (typically: copy it into the
 * writer's target buffer). Returns the number of chunks with bad headers
 * (the caller counts them as ABI violations).
 */
unsigned shm_abi_scrape_untrusted(struct shm_abi *,
	    void (*cb)(const struct shm_chunk_view *, void *), void *arg);

/*
 * The memfd behind an SMB. The creator seals it against shrinking so the
 * other side can never fault on a truncated mapping.
 */
struct shm_region {
	int		 fd;
	uint8_t		*base;
	size_t		 size;
};

/*
 * memfd of 'size' bytes (multiple of 4 KiB), sealed F_SEAL_SHRINK |
 * F_SEAL_GROW | F_SEAL_SEAL like upstream's, mapped RW.
 */
int	shm_region_create(struct shm_region *, size_t size, const char *name,
	    const char **cause);

/*
 * Maps a descriptor received from the peer. The size comes from fstat and
 * must be a non-zero multiple of 4 KiB no larger than max_size (0: no limit).
 * With require_seal (the service taking a producer-provided buffer) the fd
 * must be a memfd carrying F_SEAL_SHRINK. Takes ownership of fd on success
 * only.
 */
int	shm_region_map_untrusted(struct shm_region *, int fd, size_t max_size,
	    int require_seal, const char **cause);

/* Unmaps and closes (safe on a zeroed or already closed region). */
void	shm_region_close(struct shm_region *);

#endif
