/*
 * The producer's chunk arbiter: finds free chunks for writers with
 * compare-and-swap on page headers (no lock), allocates writer ids, and
 * batches released chunks and patches into commits.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "shm_arbiter.h"
#include "shm_arbiter_int.h"

#define SHM_PATCH_BATCH		64	/* chunk patch entries per commit */

static void
shm_sleep_us(unsigned us)
{
	struct timespec ts;

	ts.tv_sec = us / 1000000;
	ts.tv_nsec = (long)(us % 1000000) * 1000;
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

static uint64_t
shm_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

struct shm_arbiter *
shm_arbiter_new(void *base, size_t size, const struct shm_arbiter_config *cfg,
    const char **cause)
{
	struct shm_arbiter *arb;
	size_t page_size;

	if ((arb = calloc(1, sizeof(*arb))) == NULL) {
		*cause = "out of memory";
		return NULL;
	}
	page_size = cfg->page_size ? cfg->page_size : SHM_PAGE_SIZE_DEFAULT;
	if (shm_abi_init(&arb->abi, base, size, page_size, cause) == -1)
		goto fail;
	arb->layout = cfg->layout ? cfg->layout : SHM_LAYOUT_DIV1;
	if (arb->layout > SHM_LAYOUT_DIV14) {
		*cause = "invalid page layout";
		goto fail;
	}
	arb->batch_chunks = cfg->batch_chunks ? cfg->batch_chunks : 1;
	arb->stall_max_ms = cfg->stall_max_ms ? cfg->stall_max_ms : 1000;
	arb->commit_cb = cfg->commit_cb;
	arb->commit_arg = cfg->commit_arg;
	arb->cap_moves = arb->abi.num_pages * SHM_MAX_CHUNKS_PER_PAGE;
	arb->cap_patches = SHM_PATCH_BATCH;
	arb->moves = calloc(arb->cap_moves, sizeof(*arb->moves));
	arb->patches = calloc(arb->cap_patches, sizeof(*arb->patches));
	if (arb->moves == NULL || arb->patches == NULL) {
		*cause = "out of memory";
		goto fail;
	}
	arb->next_writer_id = 1;
	pthread_mutex_init(&arb->lock, NULL);
	return arb;
fail:
	free(arb->moves);
	free(arb->patches);
	free(arb);
	return NULL;
}

void
shm_arbiter_free(struct shm_arbiter *arb)
{
	if (arb == NULL)
		return;
	pthread_mutex_destroy(&arb->lock);
	free(arb->moves);
	free(arb->patches);
	free(arb);
}

struct shm_abi *
shm_arbiter_abi(struct shm_arbiter *arb)
{
	return &arb->abi;
}

void
shm_arbiter_stats(struct shm_arbiter *arb, struct shm_arbiter_stats *st)
{
	pthread_mutex_lock(&arb->lock);
	*st = arb->stats;
	st->chunks_acquired = atomic_load(&arb->chunks_acquired);
	st->stalls = atomic_load(&arb->stalls);
	st->exhausted = atomic_load(&arb->exhausted);
	pthread_mutex_unlock(&arb->lock);
}

/* Hands the batch to the callback. Lock held. */
static void
shm_arbiter_commit_locked(struct shm_arbiter *arb, uint64_t flush_id)
{
	struct shm_commit c;

	if (arb->nmoves == 0 && arb->npatches == 0 && flush_id == 0)
		return;
	c.moves = arb->moves;
	c.nmoves = arb->nmoves;
	c.patches = arb->patches;
	c.npatches = arb->npatches;
	c.flush_request_id = flush_id;
	arb->stats.chunks_committed += arb->nmoves;
	if (arb->commit_cb != NULL)
		arb->commit_cb(&c, arb->commit_arg);
	arb->nmoves = 0;
	arb->npatches = 0;
}

void
shm_arbiter_flush(struct shm_arbiter *arb, uint64_t flush_request_id)
{
	pthread_mutex_lock(&arb->lock);
	shm_arbiter_commit_locked(arb, flush_request_id);
	pthread_mutex_unlock(&arb->lock);
}

void
shm_arbiter_queue(struct shm_arbiter *arb, const struct shm_commit_move *mv,
    const struct shm_commit_patch *patches, size_t npatches)
{
	size_t i;

	pthread_mutex_lock(&arb->lock);
	if (mv != NULL) {
		if (arb->nmoves == arb->cap_moves)
			shm_arbiter_commit_locked(arb, 0);
		arb->moves[arb->nmoves++] = *mv;
	}
	for (i = 0; i < npatches; i++) {
		if (arb->npatches == arb->cap_patches)
			shm_arbiter_commit_locked(arb, 0);
		arb->patches[arb->npatches++] = patches[i];
		arb->stats.patches_sent += patches[i].npatches;
	}
	if (arb->nmoves + arb->npatches >= arb->batch_chunks)
		shm_arbiter_commit_locked(arb, 0);
	pthread_mutex_unlock(&arb->lock);
}

/* One pass over the pages from the last hit; 0 and *out on success. */
static int
shm_arbiter_scan(struct shm_arbiter *arb, uint32_t chunk_id,
    uint16_t writer_id, uint16_t packets, struct shm_chunk *out)
{
	struct shm_abi *abi = &arb->abi;
	size_t i, page, start;
	uint32_t free_chunks;
	unsigned idx;

	start = atomic_load_explicit(&arb->page_hint, memory_order_relaxed);
	for (i = 0; i < abi->num_pages; i++) {
		page = (start + i) % abi->num_pages;
		if (atomic_load_explicit(&shm_abi_page(abi, page)->bitmap,
		    memory_order_relaxed) == 0)
			(void)shm_abi_try_partition(abi, page, arb->layout);
		free_chunks = shm_abi_free_chunks(abi, page);
		while (free_chunks) {
			idx = (unsigned)__builtin_ctz(free_chunks);
			free_chunks &= free_chunks - 1;
			if (shm_abi_acquire_for_writing(abi, page, idx, chunk_id,
			    writer_id, packets, out) == 0) {
				atomic_store_explicit(&arb->page_hint, page,
				    memory_order_relaxed);
				atomic_fetch_add_explicit(&arb->chunks_acquired,
				    1, memory_order_relaxed);
				return 0;
			}
		}
	}
	return -1;
}

int
shm_arbiter_get_chunk(struct shm_arbiter *arb, uint32_t chunk_id,
    uint16_t writer_id, uint16_t packets, enum shm_exhausted_policy policy,
    struct shm_chunk *out)
{
	uint64_t deadline = 0;
	unsigned backoff_us = 50;
	int stalled = 0;

	for (;;) {
		if (shm_arbiter_scan(arb, chunk_id, writer_id, packets,
		    out) == 0)
			return 0;
		if (policy != SHM_POLICY_STALL)
			break;
		if (!stalled) {
			stalled = 1;
			atomic_fetch_add(&arb->stalls, 1);
			deadline = shm_now_ms() + arb->stall_max_ms;
		} else if (shm_now_ms() >= deadline)
			break;
		/* The service frees chunks only once it hears about them. */
		shm_arbiter_flush(arb, 0);
		shm_sleep_us(backoff_us);
		if (backoff_us < 10000)
			backoff_us *= 2;
	}
	atomic_fetch_add(&arb->exhausted, 1);
	return -1;
}

int
shm_arbiter_writer_id_get(struct shm_arbiter *arb, uint16_t *idp)
{
	unsigned i, id;

	pthread_mutex_lock(&arb->lock);
	/* Round robin, so a freed id is not reused while its chunks linger. */
	for (i = 0; i < SHM_WRITER_ID_MAX; i++) {
		id = (arb->next_writer_id - 1 + i) % SHM_WRITER_ID_MAX + 1;
		if (!(arb->writer_ids[id / 64] & (1ull << (id % 64)))) {
			arb->writer_ids[id / 64] |= 1ull << (id % 64);
			arb->next_writer_id = id % SHM_WRITER_ID_MAX + 1;
			arb->stats.writers++;
			pthread_mutex_unlock(&arb->lock);
			*idp = (uint16_t)id;
			return 0;
		}
	}
	pthread_mutex_unlock(&arb->lock);
	return -1;
}

void
shm_arbiter_writer_id_put(struct shm_arbiter *arb, uint16_t id)
{
	pthread_mutex_lock(&arb->lock);
	if (arb->writer_ids[id / 64] & (1ull << (id % 64))) {
		arb->writer_ids[id / 64] &= ~(1ull << (id % 64));
		arb->stats.writers--;
	}
	pthread_mutex_unlock(&arb->lock);
}
