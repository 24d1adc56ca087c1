/*
 * Internals shared by the arbiter (shm_arbiter.c) and the trace writer
 * (shm_writer.c). Not installed, not for other modules.
 */
#ifndef FARO_SHM_ARBITER_INT_H
#define FARO_SHM_ARBITER_INT_H

#include <pthread.h>
#include <stdatomic.h>

#include "shm_arbiter.h"

struct shm_arbiter {
	struct shm_abi		 abi;
	unsigned		 layout;
	unsigned		 batch_chunks;
	unsigned		 stall_max_ms;
	shm_commit_cb		 commit_cb;
	void			*commit_arg;
	_Atomic size_t		 page_hint;	/* where the last chunk was */
	_Atomic uint64_t	 chunks_acquired;
	_Atomic uint64_t	 stalls;
	_Atomic uint64_t	 exhausted;

	pthread_mutex_t		 lock;		/* everything below */
	uint64_t		 writer_ids[(SHM_WRITER_ID_MAX + 1) / 64];
	unsigned		 next_writer_id;
	struct shm_commit_move	*moves;
	size_t			 nmoves, cap_moves;
	struct shm_commit_patch	*patches;
	size_t			 npatches, cap_patches;
	struct shm_arbiter_stats stats;
};

int	shm_arbiter_get_chunk(struct shm_arbiter *, uint32_t chunk_id,
	    uint16_t writer_id, uint16_t packets, enum shm_exhausted_policy,
	    struct shm_chunk *);
void	shm_arbiter_queue(struct shm_arbiter *, const struct shm_commit_move *,
	    const struct shm_commit_patch *, size_t npatches);
int	shm_arbiter_writer_id_get(struct shm_arbiter *, uint16_t *);
void	shm_arbiter_writer_id_put(struct shm_arbiter *, uint16_t);

#endif
