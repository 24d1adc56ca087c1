/*
 * Test service and decoders shared by the libshm suites.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "libshm/pbw.h"
#include "shm_test.h"

void
svc_init(struct svc *s, size_t smb_size, size_t page_size, size_t tb_size,
    enum trace_buffer_policy policy)
{
	const char *cause = NULL;

	memset(s, 0, sizeof(*s));
	pthread_mutex_init(&s->mu, NULL);
	s->producer_id = 7;
	s->uid = 1000;
	if (smb_size) {
		ck_assert_msg(shm_region_create(&s->region, smb_size, "test",
		    &cause) == 0, "%s", cause);
		ck_assert_msg(shm_abi_init(&s->abi_store, s->region.base,
		    smb_size, page_size, &cause) == 0, "%s", cause);
		s->abi = &s->abi_store;
	}
	s->tb = trace_buffer_new(tb_size, policy, &cause);
	ck_assert_msg(s->tb != NULL, "%s", cause);
}

void
svc_fini(struct svc *s)
{
	trace_buffer_free(s->tb);
	shm_region_close(&s->region);
	pthread_mutex_destroy(&s->mu);
}

struct shm_arbiter *
svc_arbiter(struct svc *s, unsigned layout, unsigned batch_chunks)
{
	struct shm_arbiter_config cfg;
	struct shm_arbiter *arb;
	const char *cause = NULL;

	memset(&cfg, 0, sizeof(cfg));
	cfg.page_size = s->abi->page_size;
	cfg.layout = layout;
	cfg.batch_chunks = batch_chunks;
	cfg.stall_max_ms = 200;
	cfg.commit_cb = svc_commit_cb;
	cfg.commit_arg = s;
	arb = shm_arbiter_new(s->region.base, s->region.size, &cfg, &cause);
	ck_assert_msg(arb != NULL, "%s", cause);
	return arb;
}

static void
svc_apply_move(struct svc *s, const struct shm_commit_move *m)
{
	struct shm_chunk_view v;
	const char *cause = NULL;

	if (shm_chunk_acquire_untrusted(s->abi, m->page, m->chunk, &v,
	    &cause) == -1) {
		s->rejected++;
		return;
	}
	(void)trace_buffer_copy_chunk_untrusted(s->tb, s->producer_id, s->uid,
	    &v);
	ck_assert_int_eq(shm_chunk_read_done(s->abi, &v), 0);
	s->moves++;
}

static void
svc_apply_patch(struct svc *s, const struct shm_commit_patch *p)
{
	(void)trace_buffer_patch_chunk_untrusted(s->tb, s->producer_id,
	    p->writer_id, p->chunk_id, p->patches, p->npatches,
	    p->has_more_patches);
	s->patches += p->npatches;
}

void
svc_commit_cb(const struct shm_commit *c, void *arg)
{
	struct svc *s = arg;
	size_t i;

	pthread_mutex_lock(&s->mu);
	if (s->hold) {
		for (i = 0; i < c->nmoves; i++) {
			ck_assert(s->nheld_moves < 4096);
			s->held_moves[s->nheld_moves++] = c->moves[i];
		}
		for (i = 0; i < c->npatches; i++) {
			ck_assert(s->nheld_patches < 512);
			s->held_patches[s->nheld_patches++] = c->patches[i];
		}
	} else {
		for (i = 0; i < c->nmoves; i++)
			svc_apply_move(s, &c->moves[i]);
		for (i = 0; i < c->npatches; i++)
			svc_apply_patch(s, &c->patches[i]);
	}
	pthread_mutex_unlock(&s->mu);
}

void
svc_release(struct svc *s)
{
	size_t i;

	pthread_mutex_lock(&s->mu);
	for (i = 0; i < s->nheld_moves; i++)
		svc_apply_move(s, &s->held_moves[i]);
	for (i = 0; i < s->nheld_patches; i++)
		svc_apply_patch(s, &s->held_patches[i]);
	s->nheld_moves = s->nheld_patches = 0;
	s->hold = 0;
	pthread_mutex_unlock(&s->mu);
}

void
pkts_read(struct trace_buffer *tb, struct pkts *ps)
{
	struct trace_buffer_packet p;
	struct pkt *k;
	size_t i, off;

	trace_buffer_begin_read(tb);
	while (trace_buffer_read_next(tb, &p)) {
		if (ps->n == ps->cap) {
			ps->cap = ps->cap ? ps->cap * 2 : 64;
			ps->v = realloc(ps->v, ps->cap * sizeof(*ps->v));
			ck_assert(ps->v != NULL);
		}
		k = &ps->v[ps->n++];
		k->len = p.size;
		k->data = malloc(p.size ? p.size : 1);
		ck_assert(k->data != NULL);
		for (i = 0, off = 0; i < p.nslices; i++) {
			memcpy(k->data + off, p.slices[i].data, p.slices[i].len);
			off += p.slices[i].len;
		}
		ck_assert_uint_eq(off, p.size);
		k->nslices = p.nslices;
		k->dropped = p.previous_packet_dropped;
		k->producer_id = p.producer_id;
		k->writer_id = p.writer_id;
		k->uid = p.uid;
	}
}

void
pkts_free(struct pkts *ps)
{
	size_t i;

	for (i = 0; i < ps->n; i++)
		free(ps->v[i].data);
	free(ps->v);
	memset(ps, 0, sizeof(*ps));
}

uint8_t
pattern_byte(uint64_t seq, size_t i)
{
	return (uint8_t)(seq * 31 + i * 7 + (i >> 8));
}

void
test_packet_write(struct pbw *w, uint64_t seq, size_t len)
{
	uint8_t buf[256];
	size_t i, n;

	pbw_varint(w, 1, seq);
	pbw_tag_varint(w, pbw_tag(2, PBW_WT_BYTES), len);
	while (len > 0) {
		n = len < sizeof(buf) ? len : sizeof(buf);
		for (i = 0; i < n; i++)
			buf[i] = pattern_byte(seq, i);
		pbw_append(w, buf, n);
		len -= n;
	}
}

static int
read_varint(const uint8_t **pp, const uint8_t *end, uint64_t *v)
{
	const uint8_t *p = *pp;
	unsigned shift = 0;

	*v = 0;
	while (p < end && shift < 64) {
		*v |= (uint64_t)(*p & 0x7f) << shift;
		if (!(*p++ & 0x80)) {
			*pp = p;
			return 0;
		}
		shift += 7;
	}
	return -1;
}

int64_t
test_packet_check(const uint8_t *p, size_t len)
{
	const uint8_t *end = p + len;
	uint64_t tag, seq, blen, i;

	if (read_varint(&p, end, &tag) == -1 || tag != 0x08 ||
	    read_varint(&p, end, &seq) == -1 ||
	    read_varint(&p, end, &tag) == -1 || tag != 0x12 ||
	    read_varint(&p, end, &blen) == -1 || blen != (uint64_t)(end - p))
		return -1;
	/* The pattern restarts every 256 bytes (the writer's buffer). */
	for (i = 0; i < blen; i++)
		if (p[i] != pattern_byte(seq, i % 256))
			return -1;
	return (int64_t)seq;
}

int
proto_check(const uint8_t *p, size_t len, int depth)
{
	const uint8_t *end = p + len;
	uint64_t tag, v;
	int n = 0, r;

	if (depth > 32)
		return -1;
	while (p < end) {
		if (read_varint(&p, end, &tag) == -1)
			return -1;
		switch (tag & 7) {
		case 0:
			if (read_varint(&p, end, &v) == -1)
				return -1;
			break;
		case 1:
			if (end - p < 8)
				return -1;
			p += 8;
			break;
		case 5:
			if (end - p < 4)
				return -1;
			p += 4;
			break;
		case 2:
			if (read_varint(&p, end, &v) == -1 ||
			    v > (uint64_t)(end - p))
				return -1;
			if ((tag >> 3) >= 3) {
				if ((r = proto_check(p, (size_t)v,
				    depth + 1)) == -1)
					return -1;
				n += r;
			}
			n++;
			p += v;
			break;
		default:
			return -1;
		}
	}
	return n;
}
