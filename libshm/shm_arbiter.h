/*
 * Producer side of the SMB: the arbiter that hands chunks to trace writers,
 * the trace writer, and the batched commits that become CommitData IPCs.
 *
 *   thread A: shm_writer --+                          +--> commit callback
 *   thread B: shm_writer --+--> shm_arbiter (SMB) ----+    (client turns it
 *   thread C: shm_writer --+    chunks: CAS on page        into CommitData)
 *                               headers, no lock
 *
 * A writer belongs to one thread and one data source instance and carries a
 * 16-bit writer id (1..32767) allocated by the arbiter; the client announces
 * it with RegisterTraceWriter. Writers fill chunks with packets through the
 * streaming proto writer (pbw.h); a full chunk is released COMPLETE and
 * queued for commit. Packet sizes whose chunk was already released travel as
 * patches with a later commit; until patched they stay zero in the SMB.
 *
 * Thread safety: arbiter functions are thread safe; a writer is used by one
 * thread at a time.
 */
#ifndef FARO_SHM_ARBITER_H
#define FARO_SHM_ARBITER_H

#include <stddef.h>
#include <stdint.h>

#include "shm_abi.h"
#include "pbw.h"

/* One entry of CommitDataRequest.chunks_to_move. */
struct shm_commit_move {
	uint32_t	page;
	uint32_t	chunk;
	uint32_t	target_buffer;
};

/* One CommitDataRequest.ChunkToPatch.Patch: 4 bytes at payload offset. */
struct shm_patch {
	uint32_t	offset;		/* from the start of the chunk payload */
	uint8_t		data[SHM_PATCH_SIZE];
};

#define SHM_MAX_PATCHES_PER_CHUNK PBW_MAX_DEPTH

/* One CommitDataRequest.ChunkToPatch. */
struct shm_commit_patch {
	uint32_t	target_buffer;
	uint32_t	chunk_id;
	uint16_t	writer_id;
	uint8_t		has_more_patches;
	uint8_t		npatches;
	struct shm_patch patches[SHM_MAX_PATCHES_PER_CHUNK];
};

/* A CommitDataRequest: moves first, then patches (the service's order). */
struct shm_commit {
	const struct shm_commit_move	*moves;
	size_t				 nmoves;
	const struct shm_commit_patch	*patches;
	size_t				 npatches;
	uint64_t			 flush_request_id; /* 0: none */
};

/*
 * Called with the arbiter's commit lock held, on whatever thread filled the
 * batch: copy what you need (e.g. build the IPC) and return quickly; do not
 * call back into the arbiter. Batches arrive in order.
 */
typedef void (*shm_commit_cb)(const struct shm_commit *, void *arg);

/* What a writer does when the SMB has no free chunk. */
enum shm_exhausted_policy {
	SHM_POLICY_DROP = 0,	/* drop packets until a chunk frees up */
	SHM_POLICY_STALL = 1,	/* commit, retry with backoff (bounded), then drop */
};

struct shm_arbiter_config {
	size_t		 page_size;	/* 0: SHM_PAGE_SIZE_DEFAULT */
	unsigned	 layout;	/* chunks per page, 0: SHM_LAYOUT_DIV1 */
	unsigned	 batch_chunks;	/* commit when this many moves are queued;
					   0: 1 (commit every chunk at once) */
	unsigned	 stall_max_ms;	/* STALL gives up after this; 0: 1000 */
	shm_commit_cb	 commit_cb;
	void		*commit_arg;
};

struct shm_arbiter;
struct shm_writer;

/*
 * An arbiter over an SMB of 'size' bytes at 'base' (mapped from the service's
 * fd). NULL and *cause on bad geometry or allocation failure.
 */
struct shm_arbiter *shm_arbiter_new(void *base, size_t size,
	    const struct shm_arbiter_config *, const char **cause);

/* Frees the arbiter; every writer must have been freed first. */
void	shm_arbiter_free(struct shm_arbiter *);

/*
 * Hands the queued moves and patches to the commit callback now, even if
 * empty when flush_request_id != 0 (the answer to a service Flush).
 */
void	shm_arbiter_flush(struct shm_arbiter *, uint64_t flush_request_id);

struct shm_abi *shm_arbiter_abi(struct shm_arbiter *);

/* Totals since creation, for stats and tests. */
struct shm_arbiter_stats {
	uint64_t	chunks_acquired;
	uint64_t	chunks_committed;
	uint64_t	patches_sent;
	uint64_t	stalls;		/* acquisitions that had to wait */
	uint64_t	exhausted;	/* acquisitions that gave up */
	uint32_t	writers;	/* live writers */
};
void	shm_arbiter_stats(struct shm_arbiter *, struct shm_arbiter_stats *);

/*
 * A new writer for 'target_buffer' (the service's buffer id from the data
 * source config). NULL and *cause when the 32767 writer ids are in use or
 * on allocation failure. No allocation happens after this.
 */
struct shm_writer *shm_writer_new(struct shm_arbiter *, uint32_t target_buffer,
	    enum shm_exhausted_policy, const char **cause);

/* Flushes (shm_writer_flush) and releases the writer id. */
void	shm_writer_free(struct shm_writer *);

uint16_t shm_writer_id(const struct shm_writer *);
uint32_t shm_writer_target_buffer(const struct shm_writer *);

/*
 * Starts a packet and returns the proto writer to fill it (pbw.h). The
 * returned stream stays valid until shm_writer_packet_end. Never fails: if
 * the SMB is exhausted (DROP policy, or STALL gave up) the packet is written
 * into a scratch area and lost, and counted.
 */
struct pbw *shm_writer_packet_begin(struct shm_writer *);

/*
 * Finishes the packet: closes any nested message still open, back-fills the
 * size prefix, and queues ready patches.
 */
void	shm_writer_packet_end(struct shm_writer *);

/*
 * A whole packet already encoded, at once: the same as packet_begin, an
 * append and packet_end, with less bookkeeping when it fits in the chunk
 * held (the small packets TrackEvent writes most).
 */
void	shm_writer_packet_copy(struct shm_writer *, const void *, size_t len);

/*
 * Returns 1 once after packets were lost to SMB exhaustion, so the caller can
 * set TracePacket.previous_packet_dropped on the next packet. (The service
 * also sees it: the writer leaves a SHM_PACKET_SIZE_DROP marker.)
 */
int	shm_writer_take_dropped(struct shm_writer *);

/*
 * Packets lost to SMB exhaustion since creation: the caller's packets,
 * each once, whether it went to garbage or was sacrificed as the loss
 * marker. Packets written between shm_writer_overhead(w, 1) and (w, 0)
 * are the caller's own bookkeeping (a sequence restarting after a loss):
 * when lost they count in shm_writer_overhead_lost instead, so that
 * dropped_packets says how much of the app's data is missing.
 */
uint64_t shm_writer_dropped_packets(const struct shm_writer *);
void	shm_writer_overhead(struct shm_writer *, int on);
uint64_t shm_writer_overhead_lost(const struct shm_writer *);
/* A packet the caller gave up on (its preamble was lost): counted, marked. */
void	shm_writer_count_lost(struct shm_writer *);

/*
 * Releases the current chunk (even if partly filled) and commits everything
 * queued. Call between packets (e.g. on a service Flush for the data source).
 */
void	shm_writer_flush(struct shm_writer *);

#endif
