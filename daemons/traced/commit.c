/*
 * Moving producer data into central buffers: CommitData (chunks to move,
 * patches, flush acknowledgements) and scraping of SMBs when a producer
 * cannot commit any more (it died, a flush timed out, the session stops).
 *
 * Every number here comes from a producer and is checked before use:
 * page and chunk indexes by the ABI reader, the target buffer against the
 * buffers granted to the producer, the writer id against the buffer it
 * registered for, if it did. As upstream, a writer not registered (yet) is
 * accepted: the SDK sends RegisterTraceWriter asynchronously and may commit
 * before the service has read it. A producer that breaks a rule
 * loses that chunk, which is counted (TraceStats.chunks_discarded,
 * patches_discarded); nobody else's data is touched.
 */
#include "config.h"

#include <inttypes.h>
#include <string.h>

#include "base/log.h"
#include "traced.h"
#include "libshm/trace_buffer.h"
#include "protos/perfetto/common/commit_data_request.pb-c.h"

typedef Perfetto__Protos__CommitDataRequest	CommitDataRequest;

static void
commit_reject(struct tproducer *p, const char *why)
{
	p->chunks_rejected++;
	p->svc->stats.chunks_discarded++;
	/* Rate limit: one line per producer per power of two. */
	if ((p->chunks_rejected & (p->chunks_rejected - 1)) == 0)
		log_warnx("%s: producer %u: chunk rejected (%s), "
		    "%" PRIu64 " so far", __func__, p->id, why,
		    p->chunks_rejected);
}

/*
 * Is (writer, buffer) a pair this producer may commit? The buffer must be
 * granted; a writer registered for another buffer may not write here.
 */
static int
commit_writer_ok(struct tproducer *p, uint16_t writer, uint32_t buffer,
    const char **why)
{
	int	wb;

	if (buffer == 0 || buffer >= TRACED_MAX_BUFFER_IDS ||
	    p->svc->buffers[buffer] == NULL) {
		*why = "no such target buffer";
		return 0;
	}
	if (!service_producer_may_write(p, (uint16_t)buffer)) {
		*why = "target buffer not granted to this producer";
		return 0;
	}
	if ((wb = service_writer_buffer(p, writer)) != -1 &&
	    (uint32_t)wb != buffer) {
		*why = "writer registered for another buffer";
		return 0;
	}
	return 1;
}

static void
commit_move(struct tproducer *p,
    const Perfetto__Protos__CommitDataRequest__ChunksToMove *m)
{
	struct shm_chunk_view	 v;
	const char		*why;
	int			 ok;

	if (m->has_data) {
		/* A chunk sent over the socket (producers without an SMB). */
		if (!m->has_target_buffer || shm_chunk_view_from_bytes_untrusted(
		    m->data.data, m->data.len, !(m->has_chunk_incomplete &&
		    m->chunk_incomplete), &v, &why) == -1) {
			commit_reject(p, m->has_target_buffer ? why :
			    "no target buffer");
			return;
		}
		if (!commit_writer_ok(p, v.writer_id, m->target_buffer, &why)) {
			commit_reject(p, why);
			return;
		}
		trace_buffer_copy_chunk_untrusted(
		    p->svc->buffers[m->target_buffer], p->id, p->uid, &v);
		return;
	}
	if (p->smb == NULL || !m->has_page || !m->has_chunk ||
	    !m->has_target_buffer) {
		commit_reject(p, "no SMB or incomplete move");
		return;
	}
	if (shm_chunk_acquire_untrusted(&p->smb->abi, m->page, m->chunk, &v,
	    &why) == -1) {
		/* Shown in the target buffer's stats too, when it is ours. */
		if (m->target_buffer > 0 &&
		    m->target_buffer < TRACED_MAX_BUFFER_IDS &&
		    p->svc->buffers[m->target_buffer] != NULL &&
		    service_producer_may_write(p, (uint16_t)m->target_buffer))
			trace_buffer_note_abi_violation(
			    p->svc->buffers[m->target_buffer]);
		commit_reject(p, why);
		return;
	}
	ok = commit_writer_ok(p, v.writer_id, m->target_buffer, &why);
	if (ok)
		trace_buffer_copy_chunk_untrusted(
		    p->svc->buffers[m->target_buffer], p->id, p->uid, &v);
	/* Hand the chunk back to the producer either way. */
	if (shm_chunk_read_done(&p->smb->abi, &v) == -1 && ok)
		why = "chunk state changed while read", ok = 0;
	if (!ok)
		commit_reject(p, why);
}

static void
commit_patch(struct tproducer *p,
    const Perfetto__Protos__CommitDataRequest__ChunkToPatch *cp)
{
	struct shm_patch	 patches[SHM_MAX_PATCHES_PER_CHUNK];
	const char		*why;
	size_t			 i, n = 0;

	if (!cp->has_writer_id || cp->writer_id == 0 ||
	    cp->writer_id > SHM_WRITER_ID_MAX || !cp->has_chunk_id ||
	    !commit_writer_ok(p, (uint16_t)cp->writer_id, cp->target_buffer,
	    &why) || cp->n_patches > SHM_MAX_PATCHES_PER_CHUNK) {
		p->patches_rejected += cp->n_patches ? cp->n_patches : 1;
		p->svc->stats.patches_discarded += cp->n_patches ?
		    cp->n_patches : 1;
		return;
	}
	for (i = 0; i < cp->n_patches; i++) {
		const Perfetto__Protos__CommitDataRequest__ChunkToPatch__Patch
		    *pt = cp->patches[i];

		if (!pt->has_data || pt->data.len != SHM_PATCH_SIZE) {
			p->patches_rejected++;
			p->svc->stats.patches_discarded++;
			continue;
		}
		patches[n].offset = pt->offset;
		memcpy(patches[n].data, pt->data.data, SHM_PATCH_SIZE);
		n++;
	}
	/*
	 * The buffer looks the chunk up by this producer's id: a patch
	 * naming another producer's chunk cannot match it.
	 */
	if (trace_buffer_patch_chunk_untrusted(
	    p->svc->buffers[cp->target_buffer], p->id,
	    (uint16_t)cp->writer_id, cp->chunk_id, patches, n,
	    cp->has_more_patches) == -1) {
		p->patches_rejected += n;
		p->svc->stats.patches_discarded += n;
	}
}

void
commit_data_untrusted(struct tproducer *p, const CommitDataRequest *req)
{
	size_t	i;

	for (i = 0; i < req->n_chunks_to_move; i++)
		commit_move(p, req->chunks_to_move[i]);
	for (i = 0; i < req->n_chunks_to_patch; i++)
		commit_patch(p, req->chunks_to_patch[i]);
	if (req->has_flush_request_id && req->flush_request_id != 0)
		flush_ack(p, req->flush_request_id);
}

struct commit_scrape_arg {
	struct tproducer	*p;
	struct tsession		*s;
};

static void
commit_scrape_chunk(const struct shm_chunk_view *v, void *arg)
{
	struct commit_scrape_arg	*a = arg;
	struct tproducer		*p = a->p;
	int				 wb;

	/* Only chunks of writers bound to this session's buffers. */
	wb = service_writer_buffer(p, v->writer_id);
	if (wb <= 0 || wb >= TRACED_MAX_BUFFER_IDS ||
	    p->svc->buffer_owner[wb] != a->s ||
	    !service_producer_may_write(p, (uint16_t)wb))
		return;
	trace_buffer_copy_chunk_untrusted(p->svc->buffers[wb], p->id, p->uid,
	    v);
}

/*
 * Copies what p's writers left in its SMB for session s: complete chunks
 * not yet committed and chunks still being written. Chunk states are not
 * changed: a live producer keeps writing and commits later, and the buffer
 * then merges the commit with the scraped copy.
 */
void
commit_scrape(struct tproducer *p, struct tsession *s)
{
	struct commit_scrape_arg	a = { p, s };
	unsigned			bad;

	if (p->smb == NULL || !p->scraping)
		return;
	bad = shm_abi_scrape_untrusted(&p->smb->abi, commit_scrape_chunk, &a);
	if (bad > 0) {
		p->chunks_rejected += bad;
		p->svc->stats.chunks_discarded += bad;
	}
}
