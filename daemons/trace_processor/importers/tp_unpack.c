/*
 * Decompression: compressed packets, TracePacket.compressed_packets (field
 * 50, deflate in a zlib or gzip wrapper) and zstd_compressed_packets
 * (field 133, one zstd frame), each holding a Trace, a run of packets;
 * and whole gzip'd files.
 *
 * Decompressing is most of what a compressed trace costs over a plain
 * one, and depends on nothing but the compressed bytes. So when a trace
 * is read from a file (tp_load_fd), a second thread does it ahead of the
 * tokenizer, reading the file on its own (pread):
 *   - a gzip'd file: in chunks (as read(2) gives them, or cut shorter
 *     where their output passes a few MB), each queued with what it
 *     inflates to, in the pieces tp_parse would make (the same function
 *     makes them); the tokenizer takes the chunks in order;
 *   - any other: split into packets as tp_proto_feed splits it, the
 *     compressed ones queued decompressed, in file order; the tokenizer
 *     takes the one of the offset it has reached, or decompresses it
 *     itself when the thread has none for it (behind, given up, or split
 *     otherwise), with the same function.
 * Either way the same bytes are tokenized, in the same order.
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
#include "tp_unpack.h"

/* Largest decompressed payload; larger ones are cut there. */
#define MAX_UNPACKED	(256u << 20)

/* What the thread may hold decompressed before the tokenizer takes it. */
#define AHEAD_SLOTS	16
#define AHEAD_BYTES	(24u << 20)
/* The file's bytes looked at before the thread gives up finding a
 * compressed packet (those a service writes first may be plain). */
#define AHEAD_PROBE	(4u << 20)

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

int
tp_gunzip_run(z_stream *z, uint8_t *out, const uint8_t *buf, size_t len,
    int *done, int (*fn)(void *, const uint8_t *, size_t), void *arg,
    const char **msg)
{
	int rc, full = 0;

	z->next_in = (uint8_t *)(uintptr_t)buf;
	z->avail_in = (uInt)len;
	/* On while input is left, or the last piece was full: the end of a
	 * match may still be due, with no input left. */
	while ((z->avail_in > 0 || full) && !*done) {
		z->next_out = out;
		z->avail_out = TP_GUNZIP_PIECE;
		rc = inflate(z, Z_NO_FLUSH);
		if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR) {
			*msg = z->msg != NULL ? z->msg : "?";
			return -1;
		}
		if (z->next_out != out &&
		    fn(arg, out, (size_t)(z->next_out - out)) == -1)
			return -2;
		if (rc == Z_STREAM_END)
			*done = 1;
		full = z->avail_out == 0;
		if (rc == Z_BUF_ERROR && z->next_out == out)
			break;
	}
	return 0;
}

void
tp_gz_chunk_free(struct tp_gz_chunk *c)
{
	if (c == NULL)
		return;
	free(c->in);
	free(c->out);
	free(c->pieces);
	free(c->corrupt);
	free(c);
}

/* ---- ahead, on a second thread ---- */

/* A queued packet decompressed, or (gzip) a chunk of the file. */
struct unpacked {
	uint64_t	 off;		/* of the compressed bytes in the file */
	size_t		 len;
	uint32_t	 field;
	int		 rc;
	uint8_t		*out;
	size_t		 n;		/* bytes held: out's, or chunk's */
	struct tp_gz_chunk *chunk;
};

struct tp_unpack_ahead {
	pthread_t	 th;
	pthread_mutex_t	 mu;
	pthread_cond_t	 cv;		/* the queue moved, or stop */
	int		 fd;
	int		 gzip;		/* a gzip'd file, read in chunks */
	uint64_t	 size;		/* of the file */
	struct unpacked	 q[AHEAD_SLOTS];
	size_t		 head, count, bytes;
	int		 done, stop;
	int		 eof;		/* gzip: the file read to its end */
	uint64_t	 taken, here;	/* for the debug line */
};

/* A window on the file, read ahead of where the splitter is. */
struct window {
	uint8_t		*b;
	size_t		 len, cap;
	uint64_t	 off;		/* of b[0] in the file */
};

/* The file's bytes [pos, pos + need) in the window: a pointer to them,
 * or NULL at a short read. */
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
	want = need > TP_READ_BLOCK ? need : TP_READ_BLOCK;
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

/* A piece a chunk inflates to, kept (tp_gunzip_run's fn). */
static int
chunk_piece(void *arg, const uint8_t *b, size_t n)
{
	struct tp_gz_chunk *c = arg;
	void *p;

	if (c->outlen + n > c->cap) {
		size_t cap = c->cap ? c->cap : TP_GUNZIP_PIECE;

		while (cap < c->outlen + n)
			cap *= 2;
		if ((p = realloc(c->out, cap)) == NULL)
			return -1;
		c->out = p;
		c->cap = cap;
	}
	if (c->npieces == c->piecescap) {
		size_t cap = c->piecescap ? c->piecescap * 2 : 8;

		if ((p = realloc(c->pieces, cap * sizeof(*c->pieces))) == NULL)
			return -1;
		c->pieces = p;
		c->piecescap = cap;
	}
	memcpy(c->out + c->outlen, b, n);
	c->outlen += n;
	c->pieces[c->npieces++] = n;
	return 0;
}

/*
 * The thread, for a gzip'd file: chunks of it (TP_READ_BLOCK bytes, as
 * tp_load_fd reads) each with what it inflates to, fed GZ_STEP bytes at a
 * time so that a chunk whose output passes GZ_OUT_MAX is queued there, the
 * rest of its bytes in the next: a queue of small entries keeps the thread
 * ahead in little memory, and a gzip bomb is held a part at a time. How
 * the file is cut changes nothing the tokenizer makes.
 */
#define GZ_STEP		(16u << 10)
#define GZ_OUT_MAX	(2u << 20)
static void
ahead_gzip(struct tp_unpack_ahead *a)
{
	struct tp_gz_chunk *c = NULL;
	struct unpacked u;
	z_stream z;
	uint8_t *piece;
	const char *msg;
	uint64_t pos = 0;
	ssize_t r;
	int done = 0, rc, stop = 0;

	memset(&z, 0, sizeof(z));
	if ((piece = malloc(TP_GUNZIP_PIECE)) == NULL)
		return;
	if (inflateInit2(&z, 16 + 15) != Z_OK) {
		free(piece);
		return;
	}
	while (!stop && !ahead_stopped(a)) {
		if (c == NULL && ((c = calloc(1, sizeof(*c))) == NULL ||
		    (c->in = malloc(TP_READ_BLOCK)) == NULL))
			break;
		while ((r = pread(a->fd, c->in + c->inlen, GZ_STEP,
		    (off_t)pos)) == -1 && errno == EINTR)
			;
		if (r == 0) {
			pthread_mutex_lock(&a->mu);
			a->eof = 1;
			pthread_mutex_unlock(&a->mu);
			if (c->inlen == 0)
				break;
			stop = 1;
		} else if (r == -1) {
			c->read_errno = errno;
			stop = 1;
		} else {
			rc = tp_gunzip_run(&z, piece, c->in + c->inlen,
			    (size_t)r, &done, chunk_piece, c, &msg);
			c->inlen += (size_t)r;
			pos += (uint64_t)r;
			if (rc == -1 && (c->corrupt = strdup(msg)) == NULL)
				rc = -2;
			c->nomem = rc == -2;
			/* The tokenizer stops at an error: so does the
			 * thread. */
			stop = rc != 0;
			if (!stop && c->inlen + GZ_STEP <= TP_READ_BLOCK &&
			    c->outlen < GZ_OUT_MAX)
				continue;
		}
		memset(&u, 0, sizeof(u));
		u.chunk = c;
		u.n = c->inlen + c->outlen;
		if (ahead_put(a, &u) == -1)
			break;
		c = NULL;
	}
	tp_gz_chunk_free(c);
	inflateEnd(&z);
	free(piece);
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
	uint64_t pos = 0, key, plen, found = 0;
	size_t hn;

	if (a->gzip) {
		ahead_gzip(a);
		goto out;
	}
	while (pos < a->size && !ahead_stopped(a)) {
		hn = a->size - pos < 20 ? (size_t)(a->size - pos) : 20;
		if ((h = window_at(a->fd, &w, pos, hn)) == NULL ||
		    (q = pb_varint_untrusted(h, h + hn, &key)) == NULL ||
		    (key & 7) != PB_LEN ||
		    (q = pb_varint_untrusted(q, h + hn, &plen)) == NULL)
			break;
		pos += (uint64_t)(q - h);
		if ((key >> 3) != 1 || plen > TP_MAX_PACKET ||
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
		if (pos >= AHEAD_PROBE && found == 0)
			break;
	}
	free(w.b);
out:
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

	/* Off for tests that compare with the tokenizer alone. Only from
	 * the trace's first byte: offsets in the file are then the
	 * tokenizer's, and a gzip'd file is taken for one. */
	if (tp->ahead != NULL || tp->bytes_in > 0 ||
	    (v != NULL && strcmp(v, "0") == 0))
		return;
	if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode) ||
	    pread(fd, magic, 2, 0) != 2)
		return;
	if ((a = calloc(1, sizeof(*a))) == NULL)
		return;
	/* A gzip'd file's packets are left to the tokenizer. */
	a->gzip = magic[0] == 0x1f && magic[1] == 0x8b;
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

	if (!keep) {
		free(u->out);
		tp_gz_chunk_free(u->chunk);
	}
	a->bytes -= u->n;
	a->head = (a->head + 1) % AHEAD_SLOTS;
	a->count--;
	pthread_cond_broadcast(&a->cv);
}

/* The queue's head, waited for while the thread may still queue one;
 * NULL once it is done and the queue empty. The lock held. */
static struct unpacked *
ahead_head(struct tp_unpack_ahead *a)
{
	while (a->count == 0 && !a->done)
		pthread_cond_wait(&a->cv, &a->mu);
	return a->count > 0 ? &a->q[a->head] : NULL;
}

int
tp_unpack_ahead_take(struct tp *tp, uint64_t off, uint32_t field,
    size_t len, uint8_t **out, size_t *n, int *rc)
{
	struct tp_unpack_ahead *a = tp->ahead;
	struct unpacked *u;
	int got = 0;

	if (a == NULL || a->gzip)
		return 0;
	pthread_mutex_lock(&a->mu);
	while ((u = ahead_head(a)) != NULL) {
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

int
tp_unpack_ahead_gzip(const struct tp *tp)
{
	return tp->ahead != NULL && tp->ahead->gzip;
}

struct tp_gz_chunk *
tp_unpack_ahead_chunk(struct tp *tp, int *eof)
{
	struct tp_unpack_ahead *a = tp->ahead;
	struct tp_gz_chunk *c = NULL;
	struct unpacked *u;

	pthread_mutex_lock(&a->mu);
	if ((u = ahead_head(a)) != NULL) {
		c = u->chunk;
		ahead_pop(a, 1);
		a->taken++;
	}
	*eof = a->eof;
	pthread_mutex_unlock(&a->mu);
	return c;
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
	log_debug("%s: %llu decompressed ahead, %llu here", a->gzip ?
	    "gzip'd file's chunks" : "compressed packets",
	    (unsigned long long)a->taken, (unsigned long long)a->here);
	tp->unpacked_ahead += a->taken;
	pthread_cond_destroy(&a->cv);
	pthread_mutex_destroy(&a->mu);
	free(a);
	tp->ahead = NULL;
}
