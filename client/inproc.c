/*
 * The in-process mode: the app traces itself into a file, no traced
 * anywhere. libfaro plays the service's part for its own writers, with
 * the service's own pieces from libshm:
 *
 *   app threads: shm_writer (as always) -> a private SMB (same ABI)
 *        |  a chunk is full or flushed: the arbiter's commit callback, on
 *        |  the writer's thread, moves it at once (traced's CommitData)
 *        v
 *   trace_buffer (traced's central buffer): fragments joined, patches
 *        |  applied, whole packets in order per writer
 *        v  libfaro thread: every tick, when a quarter full, at the end
 *   the file: a Trace (each packet as field 1) whose packets carry what
 *        the service would stamp (trusted_packet_sequence_id per writer,
 *        trusted_uid, trusted_pid), between two service ClockSnapshots,
 *        with TraceStats last
 *
 * One session, from faro_init to faro_shutdown: each data source the app
 * registers gets an instance at once (faro_ds_register waits for it), with
 * a DataSourceConfig made here: target buffer 1 and, for track_event, the
 * app's TrackEventConfig. What writers hold in chunks not yet full reaches
 * the file at faro_shutdown, which stops the session.
 */
#include "config.h"

#include <sys/mman.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "protos/perfetto/config/data_source_config.pb-c.h"
#include "protos/perfetto/config/track_event/track_event_config.pb-c.h"

#include "faro_int.h"
#include "base/log.h"
#include "libipc/producer_endpoint.h"
#include "libshm/trace_buffer.h"

#define INPROC_TARGET_BUFFER	1
#define INPROC_PRODUCER_ID	1
#define INPROC_SEQ_SERVICE	1	/* the service's own sequence, as traced */
#define INPROC_BUFFER_SMBS	4	/* central buffer: this many SMBs */

static struct {
	int			 fd;
	uint8_t			*smb;
	size_t			 smb_size;
	struct shm_arbiter	*arb;
	uint8_t			*te_cfg;	/* serialized TrackEventConfig */
	size_t			 te_cfg_len;
	uint64_t		 next_id;	/* data source instance ids */
	uint32_t		 uid;
	int			 failed;	/* the file took an error */
	uint64_t		 file_off;	/* bytes in the file */

	pthread_mutex_t		 mtx;		/* tb and pending */
	struct trace_buffer	*tb;
	size_t			 pending;	/* committed since the drain */

	/* libfaro thread: packets taken from tb, written after unlocking. */
	uint8_t			*stage;
	size_t			 stage_len, stage_cap;
} ip = { .fd = -1, .mtx = PTHREAD_MUTEX_INITIALIZER };

/* ---- the file ---- */

static int
stage_put(const void *p, size_t len)
{
	uint8_t *n;
	size_t cap;

	if (ip.stage_len + len > ip.stage_cap) {
		cap = ip.stage_cap ? ip.stage_cap : 64 * 1024;
		while (cap < ip.stage_len + len)
			cap *= 2;
		if ((n = realloc(ip.stage, cap)) == NULL)
			return -1;
		ip.stage = n;
		ip.stage_cap = cap;
	}
	memcpy(ip.stage + ip.stage_len, p, len);
	ip.stage_len += len;
	return 0;
}

/* One packet: the framing, its pieces, the service's trailer. */
static void
stage_packet(const struct trace_buffer_slice *s, size_t n, size_t size,
    uint32_t seq, int dropped)
{
	uint8_t hdr[PBW_PACKET_HDR_MAX], tr[PBW_PACKET_TRAILER_MAX];
	size_t hlen, tlen, mark = ip.stage_len;

	tlen = pbw_packet_trailer(tr, (int32_t)ip.uid, seq, faro_g.pid,
	    dropped);
	hlen = pbw_trace_packet_header(hdr, size + tlen);
	if (stage_put(hdr, hlen) == -1)
		goto fail;
	for (size_t i = 0; i < n; i++)
		if (stage_put(s[i].data, s[i].len) == -1)
			goto fail;
	if (stage_put(tr, tlen) == 0)
		return;
fail:
	ip.stage_len = mark;	/* out of memory: the packet is lost whole */
}

/*
 * Writes the staged packets. A failed write leaves the file cut after
 * the last whole batch, still a valid trace, and ends the writing.
 */
static void
stage_write(void)
{
	size_t off = 0;
	ssize_t n;

	while (off < ip.stage_len && !ip.failed) {
		n = write(ip.fd, ip.stage + off, ip.stage_len - off);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0) {
			log_warn("%s: write", __func__);
			ip.failed = 1;
			if (ftruncate(ip.fd, (off_t)ip.file_off) == -1)
				log_warn("%s: ftruncate", __func__);
			break;
		}
		off += (size_t)n;
	}
	if (!ip.failed)
		ip.file_off += ip.stage_len;
	ip.stage_len = 0;
}

/* A packet made here (in buf), on the service's sequence. */
static void
stage_service(const uint8_t *buf, const struct pbw *w)
{
	struct trace_buffer_slice s = { buf, pbw_written(w) };

	if (!(w->error & PBW_ERR_OVERFLOW))
		stage_packet(&s, 1, s.len, INPROC_SEQ_SERVICE, 0);
}

static uint64_t
clock_ns(clockid_t c)
{
	struct timespec ts;

	if (clock_gettime(c, &ts) == -1)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The clocks traced snapshots, so trace_processor relates them. */
static void
stage_clock_snapshot(void)
{
	static const struct {
		clockid_t	clk;
		uint32_t	id;	/* BuiltinClock */
	} clocks[] = {
		{ CLOCK_BOOTTIME, 6 }, { CLOCK_REALTIME_COARSE, 2 },
		{ CLOCK_MONOTONIC_COARSE, 4 }, { CLOCK_MONOTONIC_RAW, 5 },
		{ CLOCK_REALTIME, 1 }, { CLOCK_MONOTONIC, 3 },
	};
	uint8_t buf[256];
	struct pbw w;
	uint64_t boot = clock_ns(CLOCK_BOOTTIME);

	pbw_init_flat(&w, buf, sizeof(buf));
	pbw_varint(&w, 8, boot);			/* timestamp */
	pbw_nested_begin(&w, 6);			/* clock_snapshot */
	for (size_t i = 0; i < sizeof(clocks) / sizeof(clocks[0]); i++) {
		pbw_nested_begin(&w, 1);		/* clocks */
		pbw_varint(&w, 1, clocks[i].id);
		pbw_varint(&w, 2, i == 0 ? boot : clock_ns(clocks[i].clk));
		pbw_nested_end(&w);
	}
	pbw_varint(&w, 2, 6);				/* primary_trace_clock */
	pbw_nested_end(&w);
	stage_service(buf, &w);
}

/* The central buffer's stats, as the service reports them. */
static void
stage_stats(void)
{
	struct trace_buffer_stats st;
	uint8_t buf[256];
	struct pbw w;

	trace_buffer_stats(ip.tb, &st);
	pbw_init_flat(&w, buf, sizeof(buf));
	pbw_nested_begin(&w, 35);			/* trace_stats */
	pbw_nested_begin(&w, 1);			/* buffer_stats */
	pbw_varint(&w, 12, st.buffer_size);
	pbw_varint(&w, 1, st.bytes_written);
	pbw_varint(&w, 2, st.chunks_written);
	pbw_varint(&w, 3, st.chunks_overwritten);
	pbw_varint(&w, 13, st.bytes_overwritten);
	pbw_varint(&w, 18, st.chunks_discarded);
	pbw_varint(&w, 5, st.patches_succeeded);
	pbw_varint(&w, 6, st.patches_failed);
	pbw_varint(&w, 8, st.readaheads_failed);
	pbw_varint(&w, 9, st.abi_violations);
	pbw_varint(&w, 19, st.trace_writer_packet_loss);
	pbw_nested_end(&w);
	pbw_varint(&w, 2, 1);				/* producers_connected */
	pbw_varint(&w, 3, 1);				/* producers_seen */
	pbw_varint(&w, 4, faro_g.nds);		/* data_sources_registered */
	pbw_varint(&w, 6, 1);				/* tracing_sessions */
	pbw_varint(&w, 7, 1);				/* total_buffers */
	pbw_nested_end(&w);
	stage_service(buf, &w);
}

/*
 * libfaro thread: every whole packet the buffer holds goes to the file
 * (staged under the lock, written without it).
 */
void
inproc_drain(void)
{
	struct trace_buffer_packet pk;

	if (ip.tb == NULL)
		return;
	pthread_mutex_lock(&ip.mtx);
	trace_buffer_begin_read(ip.tb);
	while (trace_buffer_read_next(ip.tb, &pk) == 1)
		if (pk.size > 0)
			stage_packet(pk.slices, pk.nslices, pk.size,
			    INPROC_SEQ_SERVICE + pk.writer_id,
			    pk.previous_packet_dropped);
	ip.pending = 0;
	pthread_mutex_unlock(&ip.mtx);
	stage_write();
}

/* ---- the service's side of the SMB ---- */

/*
 * The arbiter's commit callback, on the thread that filled the chunk:
 * chunks are copied out and freed at once, patches applied.
 */
static void
inproc_commit(const struct shm_commit *c, void *arg)
{
	struct shm_abi *abi = shm_arbiter_abi(ip.arb);
	struct shm_chunk_view v;
	const struct shm_commit_patch *p;
	const char *why;
	int wake;

	pthread_mutex_lock(&ip.mtx);
	for (size_t i = 0; i < c->nmoves; i++) {
		if (shm_chunk_acquire_untrusted(abi, c->moves[i].page,
		    c->moves[i].chunk, &v, &why) == -1) {
			trace_buffer_note_abi_violation(ip.tb);
			continue;
		}
		trace_buffer_copy_chunk_untrusted(ip.tb, INPROC_PRODUCER_ID,
		    ip.uid, &v);
		ip.pending += v.payload_size;
		if (shm_chunk_read_done(abi, &v) == -1)
			trace_buffer_note_abi_violation(ip.tb);
	}
	for (size_t i = 0; i < c->npatches; i++) {
		p = &c->patches[i];
		trace_buffer_patch_chunk_untrusted(ip.tb, INPROC_PRODUCER_ID,
		    p->writer_id, p->chunk_id, p->patches, p->npatches,
		    p->has_more_patches);
	}
	wake = ip.pending > trace_buffer_size(ip.tb) / 4;
	pthread_mutex_unlock(&ip.mtx);
	if (wake)
		faro_loop_wake();
}

struct shm_arbiter *
inproc_arbiter(void)
{
	return ip.arb;
}

/* ---- setup and the end ---- */

/*
 * faro_init, before the libfaro thread starts: the file, the SMB, its
 * arbiter, the central buffer, the first clock snapshot.
 */
int
inproc_open(const char *path, const struct faro_init_args *a,
    const char **cause)
{
	struct shm_arbiter_config ac;
	Perfetto__Protos__TrackEventConfig *tec;
	size_t page = a->smb_page_size ? a->smb_page_size :
	    SHM_PAGE_SIZE_DEFAULT;

	/* The app's config is checked here, not when a session uses it. */
	if (a->track_event_config_len > 0) {
		if (a->track_event_config == NULL ||
		    (tec = perfetto__protos__track_event_config__unpack(NULL,
		    a->track_event_config_len, a->track_event_config)) ==
		    NULL) {
			*cause = "track_event_config does not decode";
			return -1;
		}
		perfetto__protos__track_event_config__free_unpacked(tec, NULL);
		if ((ip.te_cfg = malloc(a->track_event_config_len)) == NULL)
			goto nomem;
		memcpy(ip.te_cfg, a->track_event_config,
		    a->track_event_config_len);
		ip.te_cfg_len = a->track_event_config_len;
	}
	ip.smb_size = a->smb_size ? a->smb_size : FARO_SMB_SIZE_DEFAULT;
	ip.smb_size = (ip.smb_size + page - 1) / page * page;
	if ((ip.smb = mmap(NULL, ip.smb_size, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)) == MAP_FAILED) {
		ip.smb = NULL;
		goto nomem;
	}
	memset(&ac, 0, sizeof(ac));
	ac.page_size = page;
	ac.batch_chunks = 1;
	ac.stall_max_ms = a->stall_max_ms;
	ac.commit_cb = inproc_commit;
	if ((ip.arb = shm_arbiter_new(ip.smb, ip.smb_size, &ac, cause)) ==
	    NULL ||
	    (ip.tb = trace_buffer_new(ip.smb_size * INPROC_BUFFER_SMBS,
	    TRACE_BUFFER_RING, cause)) == NULL)
		goto fail;
	if ((ip.fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0600)) == -1) {
		*cause = "cannot open the output file";
		goto fail;
	}
	ip.uid = (uint32_t)getuid();
	ip.pending = 0;
	ip.failed = 0;
	ip.file_off = 0;
	ip.next_id = 0;
	stage_clock_snapshot();
	stage_write();
	return 0;
nomem:
	*cause = "out of memory";
fail:
	inproc_free();
	return -1;
}

/*
 * libfaro thread: data source ds gets its instance of the session, as if
 * the service had set it up and started it.
 */
int
inproc_ds_start(struct faro_ds *ds)
{
	Perfetto__Protos__DataSourceConfig *cfg;
	uint8_t *buf;
	size_t cap = strlen(ds->name) + ip.te_cfg_len + 64;
	struct pbw w;
	uint64_t id = ++ip.next_id;

	if ((buf = malloc(cap)) == NULL)
		return -1;
	pbw_init_flat(&w, buf, cap);
	pbw_string(&w, 1, ds->name);			/* name */
	pbw_varint(&w, 2, INPROC_TARGET_BUFFER);	/* target_buffer */
	pbw_varint(&w, 4, 1);			/* tracing_session_id */
	if (ip.te_cfg_len > 0 && strcmp(ds->name, "track_event") == 0)
		pbw_bytes(&w, 113, ip.te_cfg, ip.te_cfg_len);
	cfg = perfetto__protos__data_source_config__unpack(NULL,
	    pbw_written(&w), buf);
	free(buf);
	if (cfg == NULL)
		return -1;
	faro_ds_ep_ops.setup(NULL, id, cfg, NULL);
	faro_ds_ep_ops.start(NULL, id, cfg, NULL);
	perfetto__protos__data_source_config__free_unpacked(cfg, NULL);
	return 0;
}

/*
 * libfaro thread, the instances torn down (their writers flushed and
 * freed): what waited for more goes out, then the closing packets.
 */
void
inproc_finish(void)
{
	if (ip.tb == NULL || ip.fd == -1)
		return;
	if (ip.arb != NULL)
		shm_arbiter_flush(ip.arb, 0);
	pthread_mutex_lock(&ip.mtx);
	trace_buffer_producer_gone(ip.tb, INPROC_PRODUCER_ID);
	pthread_mutex_unlock(&ip.mtx);
	inproc_drain();
	stage_clock_snapshot();
	stage_stats();
	stage_write();
	if (fsync(ip.fd) == -1 && errno != EINVAL)
		log_warn("%s: fsync", __func__);
	close(ip.fd);
	ip.fd = -1;
}

/* faro_shutdown, the libfaro thread gone (or faro_init failing). */
void
inproc_free(void)
{
	if (ip.fd != -1)
		close(ip.fd);
	ip.fd = -1;
	if (ip.arb != NULL)
		shm_arbiter_free(ip.arb);
	ip.arb = NULL;
	if (ip.smb != NULL)
		munmap(ip.smb, ip.smb_size);
	ip.smb = NULL;
	if (ip.tb != NULL)
		trace_buffer_free(ip.tb);
	ip.tb = NULL;
	free(ip.te_cfg);
	ip.te_cfg = NULL;
	ip.te_cfg_len = 0;
	free(ip.stage);
	ip.stage = NULL;
	ip.stage_len = ip.stage_cap = 0;
}
