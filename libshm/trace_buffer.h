/*
 * Central trace buffer: where traced keeps the chunks producers commit, one
 * per BufferConfig of a session, until a consumer reads them out.
 *
 * The memory is one ring of exactly the configured size (rounded up to 4
 * KiB) holding chunk records back to back; bookkeeping (an index by
 * (producer, writer, chunk id) and a table of sequences) is sized once from
 * the ring size and never grows with what producers send.
 *
 *   ring  +-----+------------+-----+---------+-----+-------------+-------+
 *         | hdr | chunk A/7  | hdr | B/3     | hdr | A/8         |padding|
 *         +-----+------------+-----+---------+-----+-------------+-------+
 *                                                        ^ write position
 *   sequence (producer A, writer 1): chunk 7 <-> chunk 8 (chunk-id order)
 *
 * Fill policies: RING_BUFFER overwrites the oldest records (counting what
 * was lost unread); DISCARD refuses everything once a record would have to
 * overwrite unread data.
 *
 * Read-back walks each sequence (producer id, writer id) in chunk-id order
 * (wrapping at 2^32) and returns whole packets only: fragments are stitched
 * across contiguous chunks; a packet with a missing fragment waits, or is
 * dropped (readaheads_failed) once a later chunk of its sequence shows the
 * missing one will not come; after any loss in the sequence the next packet
 * carries previous_packet_dropped. A chunk scraped while still being written
 * holds its sequence until its commit arrives (it may still grow). Reading
 * is destructive: a packet is returned once.
 *
 * Sizes: a complete chunk is stored trimmed to the bytes its packets use
 * (flushed chunks are often mostly empty); a chunk record takes at least 1
 * KiB of ring, which bounds the bookkeeping to about 4.3% of the ring.
 *
 * Everything taken from a producer (chunk header fields, packet sizes, patch
 * offsets) is untrusted: a bad chunk is counted in abi_violations and
 * skipped, never followed.
 *
 * Not thread safe: traced calls it from its one event loop.
 */
#ifndef FARO_TRACE_BUFFER_H
#define FARO_TRACE_BUFFER_H

#include <stddef.h>
#include <stdint.h>

#include "libshm/shm_abi.h"
#include "libshm/shm_arbiter.h"	/* struct shm_patch */

/* BufferConfig.FillPolicy values. */
enum trace_buffer_policy {
	TRACE_BUFFER_UNSPECIFIED = 0,	/* = RING_BUFFER */
	TRACE_BUFFER_RING = 1,
	TRACE_BUFFER_DISCARD = 2,
};

/* TraceStats.BufferStats, field for field (proto field numbers noted). */
struct trace_buffer_stats {
	uint64_t	buffer_size;			/* 12 */
	uint64_t	bytes_written;			/*  1 */
	uint64_t	bytes_overwritten;		/* 13 */
	uint64_t	bytes_read;			/* 14 */
	uint64_t	padding_bytes_written;		/* 15 */
	uint64_t	padding_bytes_cleared;		/* 16 */
	uint64_t	chunks_written;			/*  2 */
	uint64_t	chunks_rewritten;		/* 10 */
	uint64_t	chunks_overwritten;		/*  3 */
	uint64_t	chunks_discarded;		/* 18 */
	uint64_t	chunks_read;			/* 17 */
	uint64_t	chunks_committed_out_of_order;	/* 11 */
	uint64_t	write_wrap_count;		/*  4 */
	uint64_t	patches_succeeded;		/*  5 */
	uint64_t	patches_failed;			/*  6 */
	uint64_t	readaheads_succeeded;		/*  7 */
	uint64_t	readaheads_failed;		/*  8 */
	uint64_t	abi_violations;			/*  9 */
	uint64_t	trace_writer_packet_loss;	/* 19 */
};

struct trace_buffer;

/*
 * A buffer of 'size' bytes (BufferConfig.size_kb * 1024; rounded up to 4
 * KiB; at least 4 KiB, at most 4 GiB - 4 KiB). NULL and *cause on bad
 * arguments or allocation failure.
 */
struct trace_buffer *trace_buffer_new(size_t size, enum trace_buffer_policy,
	    const char **cause);
void	trace_buffer_free(struct trace_buffer *);

/*
 * Copies one chunk committed (or scraped) by producer 'producer_id' running
 * as 'uid' (both from the socket, trusted). 'v' comes from
 * shm_chunk_acquire_untrusted or shm_chunk_peek_untrusted (or is built from
 * CommitData.data); the payload is copied once and only the copy is parsed.
 * A chunk already held (scraped earlier) is rewritten in place if it grew.
 * Returns 0 if stored, -1 if dropped (discard policy full, ABI violation);
 * either way the stats say why.
 */
int	trace_buffer_copy_chunk_untrusted(struct trace_buffer *,
	    uint16_t producer_id, uint32_t uid, const struct shm_chunk_view *v);

/*
 * Applies CommitData patches to chunk (producer_id, writer_id, chunk_id) if
 * it is still in the buffer: patches from another producer never match.
 * Each patch writes 4 bytes inside the chunk payload. With has_more == 0 the
 * chunk stops waiting for patches. Returns 0, or -1 if the chunk is gone or
 * a patch is out of bounds (patches_failed).
 */
int	trace_buffer_patch_chunk_untrusted(struct trace_buffer *,
	    uint16_t producer_id, uint16_t writer_id, uint32_t chunk_id,
	    const struct shm_patch *patches, size_t npatches, int has_more);

/*
 * The producer disconnected (call it after the last scrape of its SMB): its
 * sequences will get nothing more, so what waits for more (a fragment whose
 * continuation never came, patches, an unfinished scraped chunk) is
 * released or dropped now instead of held forever.
 */
void	trace_buffer_producer_gone(struct trace_buffer *, uint16_t producer_id);

/* One packet read back. Slices point into the buffer. */
struct trace_buffer_slice {
	const uint8_t	*data;
	size_t		 len;
};

struct trace_buffer_packet {
	const struct trace_buffer_slice	*slices;
	size_t				 nslices;
	size_t				 size;		/* sum of slice lengths */
	uint16_t			 producer_id;
	uint16_t			 writer_id;
	uint32_t			 uid;	/* of the sequence's producer */
	int				 previous_packet_dropped;
};

/*
 * Starts a read pass: reading resumes from the first sequence. (A pass ends
 * when trace_buffer_read_next returns 0.)
 */
void	trace_buffer_begin_read(struct trace_buffer *);

/*
 * Next whole packet: 1 and *p, or 0 when nothing more is readable now. The
 * slices stay valid until the next call on this buffer. traced stamps
 * trusted_uid = p->uid and trusted_packet_sequence_id from (producer_id,
 * writer_id).
 */
int	trace_buffer_read_next(struct trace_buffer *,
	    struct trace_buffer_packet *p);

void	trace_buffer_stats(const struct trace_buffer *,
	    struct trace_buffer_stats *);

/*
 * Counts an ABI violation found before the chunk reached the buffer (e.g.
 * shm_chunk_acquire_untrusted refused a chunk aimed at it), so the session's
 * BufferStats show it.
 */
void	trace_buffer_note_abi_violation(struct trace_buffer *);

/* Ring size in bytes (what buffer_size reports). */
size_t	trace_buffer_size(const struct trace_buffer *);

/*
 * A deep, independent copy (CloneSession): ring, index, sequences with their
 * read positions, and stats (the read counters restart at zero in the copy).
 * NULL and *cause when out of memory.
 */
struct trace_buffer *trace_buffer_clone(const struct trace_buffer *,
	    const char **cause);

/* Bytes of bookkeeping beside the ring (for memory accounting). */
size_t	trace_buffer_overhead(const struct trace_buffer *);

#endif
