/*
 * Compressed packets: TracePacket.compressed_packets (field 50, deflate
 * in a zlib or gzip wrapper) and zstd_compressed_packets (field 133, one
 * zstd frame), each holding a Trace: a run of packets.
 *
 * Decompressing is most of what a compressed trace costs over a plain
 * one, and depends on nothing but the packet's bytes. So when a trace is
 * read from a file (tp_load_fd), a second thread does it ahead of the
 * tokenizer: it reads the file on its own (pread), splits it into packets
 * as tp_proto_feed does and decompresses the compressed ones into a
 * queue, in file order. The tokenizer takes the one of the offset it has
 * reached, or decompresses it itself when the thread has none for it
 * (behind, given up, or split otherwise), with the same function: the
 * same bytes are tokenized either way, in the same order.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "base/log.h"
#include "tp_int.h"
#include "tp_proto.h"

/* Largest decompressed payload; larger ones are cut there. */
#define MAX_UNPACKED	(256u << 20)
/* Largest packet the splitter takes (tp_proto.c's MAX_PACKET). */
#define MAX_PACKET	(256u << 20)

/* What the thread may hold decompressed before the tokenizer takes it. */
#define AHEAD_SLOTS	16
#define AHEAD_BYTES	(64u << 20)
/* Packets looked at before the thread gives up finding a compressed one. */
#define AHEAD_PROBE	64
#define AHEAD_READ	(1u << 20)

/* Room after used bytes of *out, doubling *cap; -1 past MAX_UNPACKED. */
static int
grow_out(uint8_t **out, size_t *cap, size_t used)
{
	void *p;

	if (*out != NULL && used < *cap)
		return 0;
	if (*cap > MAX_UNPACKED)
		return -1;
	if (*out != NULL)
		*cap *= 2;
	if ((p = realloc(*out, *cap)) == NULL)
		return -1;
	*out = p;
	return 0;
}

static int
unpack_deflate(const uint8_t *buf, size_t len, uint8_t **out, size_t *n)
{
	z_stream z;
	size_t cap = len * 4 + 4096;
	int rc, ret = 0;

	memset(&z, 0, sizeof(z));
	/* 32 + 15: either wrapper, the largest window. */
	if (inflateInit2(&z, 32 + 15) != Z_OK)
		return 0;
	z.next_in = (uint8_t *)(uintptr_t)buf;
	z.avail_in = (uInt)len;
	for (;;) {
		if (grow_out(out, &cap, *n) == -1)
			break;
		z.next_out = *out + *n;
		z.avail_out = (uInt)(cap - *n);
		rc = inflate(&z, Z_NO_FLUSH);
		*n = cap - z.avail_out;
		if (rc == Z_STREAM_END)
			break;
		if (rc != Z_OK && !(rc == Z_BUF_ERROR && z.avail_out == 0)) {
			ret = -1;
			break;
		}
	}
	inflateEnd(&z);
	return ret;
}

static int
unpack_zstd(const uint8_t *buf, size_t len, uint8_t **out, size_t *n)
{
	ZSTD_DStream *zd;
	ZSTD_inBuffer in = { buf, len, 0 };
	ZSTD_outBuffer ob;
	size_t cap = len * 4 + 4096, rc;
	int ret = 0;

	if ((zd = ZSTD_createDStream()) == NULL)
		return 0;
	for (;;) {
		if (grow_out(out, &cap, *n) == -1)
			break;
		ob.dst = *out;
		ob.size = cap;
		ob.pos = *n;
		rc = ZSTD_decompressStream(zd, &ob, &in);
		*n = ob.pos;
		if (ZSTD_isError(rc) || (in.pos == in.size && *n < cap &&
		    rc != 0)) {
			/* corrupt, or a frame cut short */
			ret = -1;
			break;
		}
		if (rc == 0 && in.pos == in.size)
			break;
	}
	ZSTD_freeDStream(zd);
	return ret;
}

int
tp_unpack(uint32_t field, const uint8_t *buf, size_t len, uint8_t **out,
    size_t *n)
{
	*out = NULL;
	*n = 0;
	return field == TP_UNPACK_ZSTD ? unpack_zstd(buf, len, out, n) :
	    unpack_deflate(buf, len, out, n);
}

/* ---- ahead, on a second thread ---- */

struct unpacked {
	uint64_t	 off;		/* of the compressed bytes in the file */
	size_t		 len;
	uint32_t	 field;
	int		 rc;
	uint8_t		*out;
	size_t		 n;
};

struct tp_unpack_ahead {
	pthread_t	 th;
	pthread_mutex_t	 mu;
	pthread_cond_t	 cv;		/* the queue moved, or stop */
	int		 fd;
	uint64_t	 size;		/* of the file */
	struct unpacked	 q[AHEAD_SLOTS];
	size_t		 head, count, bytes;
	int		 done, stop;
	uint64_t	 taken, here;	/* for the debug line */
};

/* The file's bytes [pos, pos + need) in a window read ahead of it; a
 * pointer to them, or NULL at a short read. */
struct window {
	uint8_t		*b;
	size_t		 len, cap;
	uint64_t	 off;		/* of b[0] in the file */
};

static const uint8_t *
window_at(int fd, struct window *w, uint64_t pos, size_t need)
{
	size_t keep = 0, want;
	ssize_t r;
	void *p;

	if (pos >= w->off && pos + need <= w->off + w->len)
		return w->b + (pos - w->off);
	if (pos >= w->off && pos < w->off + w->len) {
		keep = (size_t)(w->off + w->len - pos);
		memmove(w->b, w->b + (pos - w->off), keep);
	}
	w->off = pos;
	w->len = keep;
	want = need > AHEAD_READ ? need : AHEAD_READ;
	if (w->cap < want) {
		if ((p = realloc(w->b, want)) == NULL)
			return NULL;
		w->b = p;
		w->cap = want;
	}
	while (w->len < need) {
		r = pread(fd, w->b + w->len, w->cap - w->len,
		    (off_t)(w->off + w->len));
		if (r == -1 && errno == EINTR)
			continue;
		if (r <= 0)
			return NULL;
		w->len += (size_t)r;
	}
	return w->b;
}

/* Queues a decompressed packet; 0, or -1 when told to stop. */
static int
ahead_put(struct tp_unpack_ahead *a, const struct unpacked *u)
{
	pthread_mutex_lock(&a->mu);
	while (!a->stop && (a->count == AHEAD_SLOTS ||
	    (a->count > 0 && a->bytes + u->n > AHEAD_BYTES)))
		pthread_cond_wait(&a->cv, &a->mu);
	if (a->stop) {
		pthread_mutex_unlock(&a->mu);
		return -1;
	}
	a->q[(a->head + a->count) % AHEAD_SLOTS] = *u;
	a->count++;
	a->bytes += u->n;
	pthread_cond_broadcast(&a->cv);
	pthread_mutex_unlock(&a->mu);
	return 0;
}

static int
ahead_stopped(struct tp_unpack_ahead *a)
{
	int stop;

	pthread_mutex_lock(&a->mu);
	stop = a->stop;
	pthread_mutex_unlock(&a->mu);
	return stop;
}

/*
 * The thread: the file's top-level fields as tp_proto_feed splits them
 * (length-delimited only; packets are field 1), each packet's payload
 * found as the tokenizer finds it (tp_proto_packet_scan).
 */
static void *
ahead_run(void *arg)
{
	struct tp_unpack_ahead *a = arg;
	struct window w = { NULL, 0, 0, 0 };
	struct unpacked u;
	struct tp_pkt pk;
	const uint8_t *h, *q, *pkt;
	uint64_t pos = 0, key, plen, seen = 0, found = 0;
	size_t hn;

	while (pos < a->size && !ahead_stopped(a)) {
		hn = a->size - pos < 20 ? (size_t)(a->size - pos) : 20;
		if ((h = window_at(a->fd, &w, pos, hn)) == NULL ||
		    (q = pb_varint_untrusted(h, h + hn, &key)) == NULL ||
		    (key & 7) != PB_LEN ||
		    (q = pb_varint_untrusted(q, h + hn, &plen)) == NULL)
			break;
		pos += (uint64_t)(q - h);
		if ((key >> 3) != 1 || plen > MAX_PACKET ||
		    plen > a->size - pos) {
			pos += plen;
			continue;
		}
		if ((pkt = window_at(a->fd, &w, pos, (size_t)plen)) == NULL)
			break;
		if (tp_proto_packet_scan(pkt, (size_t)plen, &pk) == 0 &&
		    (pk.data.id == TP_UNPACK_DEFLATE ||
		    pk.data.id == TP_UNPACK_ZSTD)) {
			memset(&u, 0, sizeof(u));
			u.off = pos + (uint64_t)(pk.data.data - pkt);
			u.len = pk.data.len;
			u.field = pk.data.id;
			u.rc = tp_unpack(u.field, pk.data.data, pk.data.len,
			    &u.out, &u.n);
			if (ahead_put(a, &u) == -1) {
				free(u.out);
				break;
			}
			found++;
		}
		pos += plen;
		/* A trace of plain packets: nothing to do ahead. */
		if (++seen == AHEAD_PROBE && found == 0)
			break;
	}
	free(w.b);
	pthread_mutex_lock(&a->mu);
	a->done = 1;
	pthread_cond_broadcast(&a->cv);
	pthread_mutex_unlock(&a->mu);
	return NULL;
}

void
tp_unpack_ahead_start(struct tp *tp, int fd)
{
	struct tp_unpack_ahead *a;
	const char *v = getenv("FARO_TP_UNPACK_AHEAD");
	struct stat sb;
	uint8_t magic[2];

	/* Off for tests that compare with the tokenizer alone. */
	if (tp->ahead != NULL || (v != NULL && strcmp(v, "0") == 0))
		return;
	/* A whole gzip'd file is decompressed as it is read: its packets'
	 * offsets are in what comes out. */
	if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode) ||
	    pread(fd, magic, 2, 0) != 2 ||
	    (magic[0] == 0x1f && magic[1] == 0x8b))
		return;
	if ((a = calloc(1, sizeof(*a))) == NULL)
		return;
	a->fd = fd;
	a->size = (uint64_t)sb.st_size;
	pthread_mutex_init(&a->mu, NULL);
	pthread_cond_init(&a->cv, NULL);
	if (pthread_create(&a->th, NULL, ahead_run, a) != 0) {
		pthread_cond_destroy(&a->cv);
		pthread_mutex_destroy(&a->mu);
		free(a);
		return;
	}
	tp->ahead = a;
}

/* Drops the queue's head; the lock held. */
static void
ahead_pop(struct tp_unpack_ahead *a, int keep)
{
	struct unpacked *u = &a->q[a->head];

	if (!keep)
		free(u->out);
	a->bytes -= u->n;
	a->head = (a->head + 1) % AHEAD_SLOTS;
	a->count--;
	pthread_cond_broadcast(&a->cv);
}

int
tp_unpack_ahead_take(struct tp *tp, uint64_t off, uint32_t field,
    size_t len, uint8_t **out, size_t *n, int *rc)
{
	struct tp_unpack_ahead *a = tp->ahead;
	struct unpacked *u;
	int got = 0;

	if (a == NULL)
		return 0;
	pthread_mutex_lock(&a->mu);
	for (;;) {
		while (a->count == 0 && !a->done)
			pthread_cond_wait(&a->cv, &a->mu);
		if (a->count == 0)
			break;
		u = &a->q[a->head];
		if (u->off < off) {
			/* One the tokenizer never reached (split otherwise). */
			ahead_pop(a, 0);
			continue;
		}
		if (u->off == off && u->field == field && u->len == len) {
			*out = u->out;
			*n = u->n;
			*rc = u->rc;
			ahead_pop(a, 1);
			got = 1;
		}
		break;
	}
	if (got)
		a->taken++;
	else
		a->here++;
	pthread_mutex_unlock(&a->mu);
	return got;
}

uint64_t
tp_unpacked_ahead(const struct tp *tp)
{
	return tp->unpacked_ahead;
}

void
tp_unpack_ahead_stop(struct tp *tp)
{
	struct tp_unpack_ahead *a = tp->ahead;

	if (a == NULL)
		return;
	pthread_mutex_lock(&a->mu);
	a->stop = 1;
	pthread_cond_broadcast(&a->cv);
	pthread_mutex_unlock(&a->mu);
	pthread_join(a->th, NULL);
	while (a->count > 0)
		ahead_pop(a, 0);
	log_debug("compressed packets: %llu decompressed ahead, %llu here",
	    (unsigned long long)a->taken, (unsigned long long)a->here);
	tp->unpacked_ahead += a->taken;
	pthread_cond_destroy(&a->cv);
	pthread_mutex_destroy(&a->mu);
	free(a);
	tp->ahead = NULL;
}
