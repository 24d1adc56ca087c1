/*
 * Hostile producers: whatever one does to its SMB, its commits or the
 * socket, it loses only its own data, is counted, and traced keeps
 * serving the others.
 */
#include "config.h"

#include <sys/socket.h>
#include <sys/un.h>

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libipc/ipc_client.h"
#include "tt_fixture.h"
#include "protos/perfetto/ipc/consumer_port.pb-c.h"
#include "protos/perfetto/ipc/producer_port.pb-c.h"
#include "protos/perfetto/common/commit_data_request.pb-c.h"

static const char *ds1[] = { "tt.ds", NULL };

struct world {
	struct tt_producer	 good, evil;
	struct tt_consumer	 c;
	struct tt_instance	*gi, *ei;
	struct shm_writer	*gw, *ew;
	Perfetto__Protos__TraceConfig *cfg;
	size_t			 late;	/* packets "late" in the trace */
};

static void
world_up(struct world *w)
{
	memset(w, 0, sizeof(*w));
	w->cfg = tt_config_new(1024, 0, ds1);
	connect_producer(&w->good, "tt.good", "tt.ds");
	connect_producer(&w->evil, "tt.evil", "tt.ds");
	ck_assert_int_eq(tt_consumer_connect(&w->c, base, td.consumer_sock),
	    0);
	ck_assert_int_eq(tt_consumer_enable(&w->c, w->cfg, -1), 0);
	w->gi = wait_started(&w->good, "tt.ds");
	w->ei = wait_started(&w->evil, "tt.ds");
	ck_assert_ptr_nonnull(w->gi);
	ck_assert_ptr_nonnull(w->ei);
	w->gw = tt_producer_writer(&w->good, w->gi->target_buffer);
	w->ew = tt_producer_writer(&w->evil, w->ei->target_buffer);
	tt_write_packets(w->gw, "good", 0, 100, 50);
	tt_producer_commit(&w->good, w->gw);
}

/* The good producer's 100 packets are intact; returns stats counters. */
static void
world_check(struct world *w, uint64_t *chunks_discarded,
    uint64_t *invalid_packets, size_t *evil_packets)
{
	struct tt_trace	 t;
	uint8_t		 seen[100];
	size_t		 i;

	ck_assert_int_eq(tt_traced_alive(&td), 1);
	disable_and_wait(&w->c);
	read_trace(&w->c, &t);
	memset(seen, 0, sizeof(seen));
	ck_assert_uint_eq(tt_trace_count(&t, "good", seen, 100), 100);
	for (i = 0; i < 100; i++)
		ck_assert_int_eq(seen[i], 1);
	*evil_packets = tt_trace_count(&t, "evil", NULL, 0);
	w->late = tt_trace_count(&t, "late", NULL, 0);
	for (i = 0; i < t.npackets; i++) {
		Perfetto__Protos__TracePacket *pk = t.trace->packet[i];

		if (pk->data_case ==
		    PERFETTO__PROTOS__TRACE_PACKET__DATA_TRACE_STATS) {
			*chunks_discarded = pk->trace_stats->chunks_discarded;
			*invalid_packets = pk->trace_stats->invalid_packets;
		}
		/* Nobody's packet claims another producer's identity. */
		if (pk->data_case ==
		    PERFETTO__PROTOS__TRACE_PACKET__DATA_FOR_TESTING)
			ck_assert_int_eq(pk->trusted_uid, (int32_t)getuid());
	}
	tt_trace_free(&t);
}

static void
world_down(struct world *w)
{
	tt_consumer_close(&w->c);
	tt_producer_close(&w->evil);
	tt_producer_close(&w->good);
	tt_config_free(w->cfg);
}

static int
commit_raw(struct tt_producer *p, Perfetto__Protos__CommitDataRequest *req)
{
	uint8_t	*buf;
	size_t	 len = perfetto__protos__commit_data_request__get_packed_size(req);
	int	 rc;

	buf = malloc(len + 1);
	perfetto__protos__commit_data_request__pack(req, buf);
	rc = tt_producer_call(p, TT_P_COMMIT, buf, len);
	free(buf);
	return rc;
}

static int
move(struct tt_producer *p, uint32_t page, uint32_t chunk, uint32_t buffer)
{
	Perfetto__Protos__CommitDataRequest req =
	    PERFETTO__PROTOS__COMMIT_DATA_REQUEST__INIT;
	Perfetto__Protos__CommitDataRequest__ChunksToMove m =
	    PERFETTO__PROTOS__COMMIT_DATA_REQUEST__CHUNKS_TO_MOVE__INIT, *mp = &m;

	m.has_page = m.has_chunk = m.has_target_buffer = 1;
	m.page = page;
	m.chunk = chunk;
	m.target_buffer = buffer;
	req.n_chunks_to_move = 1;
	req.chunks_to_move = &mp;
	return commit_raw(p, &req);
}

/* Builds a COMPLETE chunk by hand in the last page of p's SMB. */
static uint32_t
forge_chunk(struct tt_producer *p, uint16_t writer_id, const char *str)
{
	struct shm_abi	 abi;
	struct shm_chunk ch;
	const char	*cause;
	uint8_t		 pkt[64], *pl;
	size_t		 n = 0, len = strlen(str);
	uint32_t	 page;

	ck_assert_int_eq(shm_abi_init(&abi, p->smb_base, p->smb_size,
	    p->page_size_kb * 1024, &cause), 0);
	page = (uint32_t)abi.num_pages - 1;
	while (shm_abi_page_bitmap(&abi, page) != 0 && page > 0)
		page--;
	ck_assert_int_eq(shm_abi_try_partition(&abi, page, SHM_LAYOUT_DIV1), 0);
	ck_assert_int_eq(shm_abi_acquire_for_writing(&abi, page, 0, 0,
	    writer_id, shm_packets_make(1, 0), &ch), 0);
	/* TracePacket{for_testing{str}} */
	pkt[n++] = 0xa2; pkt[n++] = 0x38;		/* field 900, bytes */
	pkt[n++] = (uint8_t)(len + 2);
	pkt[n++] = 0x0a; pkt[n++] = (uint8_t)len;
	memcpy(pkt + n, str, len);
	n += len;
	pl = shm_chunk_payload(&ch);
	shm_write_redundant_varint(pl, (uint32_t)n);
	memcpy(pl + 4, pkt, n);
	ck_assert_int_eq(shm_abi_release_complete(&abi, &ch), 0);
	return page;
}

START_TEST(test_bad_moves_and_writers)
{
	static const char *ds2[] = { "tt.ds2", NULL };
	struct world	 w;
	struct tt_consumer c2;
	struct tt_instance *gi2 = NULL;
	Perfetto__Protos__TraceConfig *cfg2 = tt_config_new(256, 0, ds2);
	uint64_t	 disc = 0, inv = 0;
	size_t		 evil;
	uint32_t	 page, tb, other;

	world_up(&w);
	tb = w.ei->target_buffer;
	/* Another session's buffer, granted to the good producer only. */
	ck_assert_int_eq(tt_producer_register(&w.good, "tt.ds2", 0, 0), 0);
	ck_assert_int_eq(tt_consumer_connect(&c2, base, td.consumer_sock), 0);
	ck_assert_int_eq(tt_consumer_enable(&c2, cfg2, -1), 0);
	gi2 = wait_started(&w.good, "tt.ds2");
	ck_assert_ptr_nonnull(gi2);
	other = gi2->target_buffer;
	ck_assert_uint_ne(other, tb);
	/* Out of range pages and chunks, buffers that do not exist. */
	ck_assert_int_eq(move(&w.evil, 999999, 0, tb), 0);
	ck_assert_int_eq(move(&w.evil, 0, 99, tb), 0);
	ck_assert_int_eq(move(&w.evil, 0, 0, 4000), 0);
	ck_assert_int_eq(move(&w.evil, 0, 0, 0), 0);
	/*
	 * A well formed chunk from a writer id not registered (yet): kept,
	 * as upstream, since the SDK registers writers asynchronously.
	 */
	page = forge_chunk(&w.evil, 77, "late");
	ck_assert_int_eq(move(&w.evil, page, 0, tb), 0);
	/* Into a buffer that exists but is not granted to it. */
	page = forge_chunk(&w.evil, 77, "evil");
	ck_assert_int_eq(move(&w.evil, page, 0, other), 0);
	/* The good producer's writer id, as evil's own: evil's data only. */
	page = forge_chunk(&w.evil, shm_writer_id(w.gw), "evil");
	ck_assert_int_eq(move(&w.evil, page, 0, other), 0);
	/* A writer registered for another buffer may not write into tb. */
	ck_assert_int_eq(tt_producer_writer_announce(&w.evil, 78, other), 0);
	page = forge_chunk(&w.evil, 78, "evil");
	ck_assert_int_eq(move(&w.evil, page, 0, tb), 0);
	world_check(&w, &disc, &inv, &evil);
	ck_assert_uint_eq(disc, 7);
	ck_assert_uint_eq(evil, 0);
	ck_assert_uint_eq(w.late, 1);
	tt_consumer_close(&c2);
	tt_config_free(cfg2);
	world_down(&w);
}
END_TEST

START_TEST(test_garbage_smb)
{
	struct world	w;
	uint64_t	disc = 0, inv = 0;
	size_t		evil, i, np;
	uint32_t	x = 12345;
	uint8_t		*m;

	world_up(&w);
	/* Random bytes over every free page, then commit all of them. */
	m = w.evil.smb_base;
	np = w.evil.smb_size / (w.evil.page_size_kb * 1024);
	for (i = 0; i < w.evil.smb_size; i++) {
		x = x * 1103515245 + 12345;
		m[i] = (uint8_t)(x >> 16);
	}
	for (i = 0; i < np; i++)
		for (uint32_t k = 0; k < 14; k++)
			ck_assert_int_eq(move(&w.evil, (uint32_t)i, k,
			    w.ei->target_buffer), 0);
	world_check(&w, &disc, &inv, &evil);
	ck_assert_uint_ge(disc, np);
	world_down(&w);
}
END_TEST

START_TEST(test_foreign_patches)
{
	struct world	w;
	Perfetto__Protos__CommitDataRequest req =
	    PERFETTO__PROTOS__COMMIT_DATA_REQUEST__INIT;
	Perfetto__Protos__CommitDataRequest__ChunkToPatch cp[8], *cpp[8];
	Perfetto__Protos__CommitDataRequest__ChunkToPatch__Patch pt, *ptp = &pt;
	Perfetto__Protos__RegisterTraceWriterRequest rw =
	    PERFETTO__PROTOS__REGISTER_TRACE_WRITER_REQUEST__INIT;
	uint8_t		ff[4] = { 0xff, 0xff, 0xff, 0xff }, buf[64];
	uint64_t	disc = 0, inv = 0;
	size_t		evil, len;
	uint32_t	i;

	world_up(&w);
	/* Evil claims the good writer's id for itself... */
	rw.has_trace_writer_id = rw.has_target_buffer = 1;
	rw.trace_writer_id = shm_writer_id(w.gw);
	rw.target_buffer = w.ei->target_buffer;
	len = perfetto__protos__register_trace_writer_request__pack(&rw, buf);
	ck_assert_int_eq(tt_producer_call(&w.evil, TT_P_REGWRITER, buf, len),
	    0);
	/* ...and patches "its" chunks 0..7 at every offset it likes. */
	perfetto__protos__commit_data_request__chunk_to_patch__patch__init(&pt);
	pt.has_offset = pt.has_data = 1;
	pt.offset = 0;
	pt.data.data = ff;
	pt.data.len = 4;
	for (i = 0; i < 8; i++) {
		perfetto__protos__commit_data_request__chunk_to_patch__init(
		    &cp[i]);
		cp[i].has_target_buffer = cp[i].has_writer_id = 1;
		cp[i].has_chunk_id = 1;
		cp[i].target_buffer = w.ei->target_buffer;
		cp[i].writer_id = shm_writer_id(w.gw);
		cp[i].chunk_id = i;
		cp[i].n_patches = 1;
		cp[i].patches = &ptp;
		cpp[i] = &cp[i];
	}
	req.n_chunks_to_patch = 8;
	req.chunks_to_patch = cpp;
	ck_assert_int_eq(commit_raw(&w.evil, &req), 0);
	world_check(&w, &disc, &inv, &evil);
	world_down(&w);
}
END_TEST

START_TEST(test_trusted_fields_dropped)
{
	struct world	 w;
	struct pbw	*b;
	uint64_t	 disc = 0, inv = 0;
	size_t		 evil;

	world_up(&w);
	/* Packets that try to set trusted_uid or a trace_config. */
	b = shm_writer_packet_begin(w.ew);
	pbw_varint(b, 3, 0);			/* trusted_uid */
	pbw_nested_begin(b, 900);
	pbw_string(b, 1, "evil");
	pbw_nested_end(b);
	shm_writer_packet_end(w.ew);
	b = shm_writer_packet_begin(w.ew);
	pbw_nested_begin(b, 900);
	pbw_string(b, 1, "evil");
	pbw_nested_end(b);
	pbw_nested_begin(b, 33);		/* trace_config */
	pbw_nested_end(b);
	shm_writer_packet_end(w.ew);
	/* Broken protobuf: a length past the end. */
	b = shm_writer_packet_begin(w.ew);
	pbw_nested_begin(b, 900);
	pbw_string(b, 1, "evil");
	pbw_nested_end(b);
	pbw_append(b, "\x12\x7f", 2);
	shm_writer_packet_end(w.ew);
	tt_producer_commit(&w.evil, w.ew);
	world_check(&w, &disc, &inv, &evil);
	ck_assert_uint_eq(evil, 0);
	ck_assert_uint_eq(inv, 3);
	world_down(&w);
}
END_TEST

START_TEST(test_huge_frame_and_garbage_socket)
{
	struct world		 w;
	struct sockaddr_un	 sun;
	struct pollfd		 pfd;
	uint8_t			 hdr[8] = { 0xff, 0xff, 0xff, 0x7f, 1, 2, 3, 4 };
	char			 junk[4096];
	uint64_t		 disc = 0, inv = 0;
	size_t			 evil;
	int			 s, i;

	world_up(&w);
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	ck_assert_uint_lt(strlen(td.producer_sock), sizeof(sun.sun_path));
	memcpy(sun.sun_path, td.producer_sock, strlen(td.producer_sock));
	for (i = 0; i < 2; i++) {
		s = socket(AF_UNIX, SOCK_STREAM, 0);
		ck_assert_int_eq(connect(s, (struct sockaddr *)&sun,
		    sizeof(sun)), 0);
		if (i == 0)	/* a 2 GiB frame */
			ck_assert_int_eq(write(s, hdr, sizeof(hdr)), 8);
		else {		/* a frame of garbage */
			memset(junk, 0xa5, sizeof(junk));
			junk[0] = 0x00; junk[1] = 0x08;
			junk[2] = junk[3] = 0;
			ck_assert_int_gt(write(s, junk, sizeof(junk)), 0);
		}
		/* traced hangs up on it. */
		pfd.fd = s;
		pfd.events = POLLIN;
		WAIT_UNTIL(poll(&pfd, 1, 0) == 1);
		ck_assert_int_eq(poll(&pfd, 1, 0), 1);
		ck_assert_int_le(read(s, junk, sizeof(junk)), 0);
		close(s);
	}
	world_check(&w, &disc, &inv, &evil);
	world_down(&w);
}
END_TEST

START_TEST(test_commit_flood)
{
	struct world	w;
	Perfetto__Protos__CommitDataRequest req =
	    PERFETTO__PROTOS__COMMIT_DATA_REQUEST__INIT;
	Perfetto__Protos__CommitDataRequest__ChunksToMove m[50], *mp[50];
	uint64_t	disc = 0, inv = 0;
	size_t		evil;
	int		i;

	world_up(&w);
	for (i = 0; i < 50; i++) {
		perfetto__protos__commit_data_request__chunks_to_move__init(
		    &m[i]);
		m[i].has_page = m[i].has_chunk = m[i].has_target_buffer = 1;
		m[i].page = (uint32_t)i;
		m[i].chunk = 13;
		m[i].target_buffer = w.ei->target_buffer;
		mp[i] = &m[i];
	}
	req.n_chunks_to_move = 50;
	req.chunks_to_move = mp;
	/* 4000 commits of 50 bogus moves, without waiting for replies. */
	for (i = 0; i < 4000; i++)
		ipc_client_invoke_msg(w.evil.cl, w.evil.sid,
		    w.evil.m[TT_P_COMMIT], &req.base, -1,
		    IPC_INVOKE_DROP_REPLY, NULL, NULL);
	tt_spin(base, 50);
	/* The service still answers others while it works through them. */
	ck_assert_int_eq(tt_consumer_call(&w.c, CM_CAPABILITIES, NULL, -1, NULL,
	    20000), 0);
	ck_assert_int_eq(tt_producer_sync(&w.evil), 0);
	world_check(&w, &disc, &inv, &evil);
	ck_assert_uint_ge(disc, 200000);
	world_down(&w);
}
END_TEST

START_TEST(test_bad_calls)
{
	struct tt_producer	p;
	uint8_t			junk[16];

	ck_assert_int_eq(tt_producer_connect(&p, base, td.producer_sock,
	    "tt.ok"), 0);
	/* InitializeConnection twice is refused. */
	ck_assert_int_eq(tt_producer_call(&p, TT_P_INIT, "", 0), -1);
	/* Malformed arguments are refused, the connection survives. */
	memset(junk, 0xff, sizeof(junk));
	ck_assert_int_eq(tt_producer_call(&p, TT_P_REGISTER, junk,
	    sizeof(junk)), -1);
	ck_assert_int_eq(tt_producer_sync(&p), 0);
	/* A data source without a name is refused with a cause. */
	ck_assert_int_eq(tt_producer_register(&p, "", 0, 0), 0);
	tt_producer_close(&p);
	ck_assert_int_eq(tt_traced_alive(&td), 1);
}
END_TEST

static Suite *
hostile_suite(void)
{
	Suite	*s = suite_create("traced_hostile");
	TCase	*tc = tcase_create("hostile");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 90);
	tcase_add_test(tc, test_bad_moves_and_writers);
	tcase_add_test(tc, test_garbage_smb);
	tcase_add_test(tc, test_foreign_patches);
	tcase_add_test(tc, test_trusted_fields_dropped);
	tcase_add_test(tc, test_huge_frame_and_garbage_socket);
	tcase_add_test(tc, test_commit_flood);
	tcase_add_test(tc, test_bad_calls);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner	*sr = srunner_create(hostile_suite());
	int	 failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
