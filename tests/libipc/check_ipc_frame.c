/* Frame receiver and codec: splits, limits, garbage, padded varints. */
#include "config.h"

#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libipc/ipc_frame.h"

/* Builds a stream of frames: BindService names "svc0", "svc1", ... */
static size_t
make_stream(uint8_t *out, size_t cap, int nframes)
{
	size_t off = 0, len;
	char name[32];
	uint8_t *buf;
	const char *cause;
	int i;

	for (i = 0; i < nframes; i++) {
		Perfetto__Protos__IPCFrame f = PERFETTO__PROTOS__IPCFRAME__INIT;
		Perfetto__Protos__IPCFrame__BindService b =
		    PERFETTO__PROTOS__IPCFRAME__BIND_SERVICE__INIT;

		snprintf(name, sizeof(name), "svc%d", i);
		b.service_name = name;
		f.has_request_id = 1;
		f.request_id = (uint64_t)i + 1;
		f.msg_case = PERFETTO__PROTOS__IPCFRAME__MSG_MSG_BIND_SERVICE;
		f.msg_bind_service = &b;
		len = ipc_frame_encode(&f, &buf, &cause);
		ck_assert_uint_gt(len, 0);
		ck_assert_uint_le(off + len, cap);
		memcpy(out + off, buf, len);
		off += len;
		free(buf);
	}
	return off;
}

/* Feeds data in pieces of the given sizes (cycled), counts frames. */
static int
feed_split(const uint8_t *data, size_t len, const size_t *pieces,
    size_t npieces, int *got)
{
	struct ipc_frame_rx rx;
	struct ipc_frame_in in;
	const char *cause = NULL;
	size_t off = 0, k = 0, n;
	ssize_t took;
	char want[32];
	int r;

	ipc_frame_rx_init(&rx, 0);
	*got = 0;
	while (off < len) {
		n = pieces[k++ % npieces];
		if (n > len - off)
			n = len - off;
		while (n > 0) {
			took = ipc_frame_rx_feed(&rx, data + off, n, &cause);
			ck_assert_int_ge(took, 0);
			off += (size_t)took;
			n -= (size_t)took;
			while ((r = ipc_frame_rx_pop_untrusted(&rx, &in,
			    &cause)) == 1) {
				snprintf(want, sizeof(want), "svc%d", *got);
				ck_assert_int_eq(in.msg->msg_case,
				    PERFETTO__PROTOS__IPCFRAME__MSG_MSG_BIND_SERVICE);
				ck_assert_str_eq(
				    in.msg->msg_bind_service->service_name, want);
				ck_assert_uint_eq(in.msg->request_id,
				    (uint64_t)*got + 1);
				(*got)++;
				ipc_frame_in_free(&in);
			}
			if (r == -1) {
				ipc_frame_rx_free(&rx);
				return -1;
			}
		}
	}
	ipc_frame_rx_free(&rx);
	return 0;
}

START_TEST(test_every_split)
{
	uint8_t stream[4096];
	size_t len, a, b, pieces[3];
	int got;

	len = make_stream(stream, sizeof(stream), 5);
	/* Every split of the stream into three pieces at any two points. */
	for (a = 0; a <= len; a++) {
		for (b = a; b <= len; b++) {
			pieces[0] = a;
			pieces[1] = b - a;
			pieces[2] = len - b;
			{
				struct ipc_frame_rx rx;
				struct ipc_frame_in in;
				const char *cause;
				size_t i, off = 0;
				int r;

				ipc_frame_rx_init(&rx, 0);
				got = 0;
				for (i = 0; i < 3; i++) {
					ck_assert_int_eq(ipc_frame_rx_feed(&rx,
					    stream + off, pieces[i], &cause),
					    (ssize_t)pieces[i]);
					off += pieces[i];
					while ((r = ipc_frame_rx_pop_untrusted(
					    &rx, &in, &cause)) == 1) {
						got++;
						ipc_frame_in_free(&in);
					}
					ck_assert_int_eq(r, 0);
				}
				ck_assert_int_eq(got, 5);
				ipc_frame_rx_free(&rx);
			}
		}
	}
}
END_TEST

START_TEST(test_byte_at_a_time_and_bulk)
{
	static uint8_t stream[200 * 64];
	size_t len, one = 1, sizes[] = { 7, 1, 3, 4096, 2, 13 };
	size_t all;
	int got;

	len = make_stream(stream, sizeof(stream), 200);
	ck_assert_int_eq(feed_split(stream, len, &one, 1, &got), 0);
	ck_assert_int_eq(got, 200);
	ck_assert_int_eq(feed_split(stream, len, sizes, 6, &got), 0);
	ck_assert_int_eq(got, 200);
	all = len;
	ck_assert_int_eq(feed_split(stream, len, &all, 1, &got), 0);
	ck_assert_int_eq(got, 200);
}
END_TEST

START_TEST(test_zero_length_skipped)
{
	uint8_t stream[512], mixed[600];
	size_t len, one = 1;
	int got;

	len = make_stream(stream, sizeof(stream), 2);
	/* zero frame, frame 0, zero frame, zero frame, frame 1 */
	memset(mixed, 0, sizeof(mixed));
	{
		size_t f0 = 4 + stream[0];

		memcpy(mixed + 4, stream, f0);
		memcpy(mixed + 4 + f0 + 8, stream + f0, len - f0);
		ck_assert_int_eq(feed_split(mixed, len + 12, &one, 1, &got), 0);
		ck_assert_int_eq(got, 2);
	}
}
END_TEST

START_TEST(test_oversized)
{
	struct ipc_frame_rx rx;
	struct ipc_frame_in in;
	const char *cause = NULL;
	uint8_t hdr[4];
	uint32_t size;

	/* The largest allowed payload is accepted as pending... */
	size = IPC_FRAME_MAX - IPC_FRAME_HDR;
	memcpy(hdr, &size, 4);	/* the test hosts are little-endian */
	ipc_frame_rx_init(&rx, 0);
	ck_assert_int_eq(ipc_frame_rx_feed(&rx, hdr, 4, &cause), 4);
	ck_assert_int_eq(ipc_frame_rx_pop_untrusted(&rx, &in, &cause), 0);
	ipc_frame_rx_free(&rx);

	/* ...one byte more is refused from the header alone. */
	size++;
	memcpy(hdr, &size, 4);
	ipc_frame_rx_init(&rx, 0);
	ck_assert_int_eq(ipc_frame_rx_feed(&rx, hdr, 4, &cause), 4);
	ck_assert_int_eq(ipc_frame_rx_pop_untrusted(&rx, &in, &cause), -1);
	ck_assert_str_eq(cause, "frame too large");
	ipc_frame_rx_free(&rx);

	size = 0xffffffffu;
	memcpy(hdr, &size, 4);
	ipc_frame_rx_init(&rx, 0);
	ck_assert_int_eq(ipc_frame_rx_feed(&rx, hdr, 4, &cause), 4);
	ck_assert_int_eq(ipc_frame_rx_pop_untrusted(&rx, &in, &cause), -1);
	ipc_frame_rx_free(&rx);
}
END_TEST

START_TEST(test_max_frame_roundtrip)
{
	Perfetto__Protos__IPCFrame f = PERFETTO__PROTOS__IPCFRAME__INIT;
	ProtobufCBinaryData d;
	struct ipc_frame_rx rx;
	struct ipc_frame_in in;
	const char *cause;
	uint8_t *buf, *blob;
	size_t len, off;
	ssize_t took;

	/* One bytes field sized so the frame is exactly the cap. */
	blob = calloc(1, IPC_FRAME_MAX);
	d.data = blob;
	d.len = IPC_FRAME_MAX - IPC_FRAME_HDR - 1 - 3;	/* tag + 3-byte len */
	f.n_data_for_testing = 1;
	f.data_for_testing = &d;
	len = ipc_frame_encode(&f, &buf, &cause);
	ck_assert_uint_eq(len, IPC_FRAME_MAX);
	ipc_frame_rx_init(&rx, 0);
	for (off = 0; off < len; off += (size_t)took) {
		took = ipc_frame_rx_feed(&rx, buf + off, len - off, &cause);
		ck_assert_int_gt(took, 0);
	}
	ck_assert_int_eq(ipc_frame_rx_pop_untrusted(&rx, &in, &cause), 1);
	ck_assert_uint_eq(in.msg->n_data_for_testing, 1);
	ck_assert_uint_eq(in.msg->data_for_testing[0].len, d.len);
	ipc_frame_in_free(&in);
	ck_assert_uint_eq(rx.bufsz, IPC_FRAME_MAX);
	/* A large frame keeps the buffer; a small one gives it back. */
	{
		static const uint8_t small[] = { 2, 0, 0, 0, 0x10, 0x01 };
		size_t avail;

		ck_assert_ptr_nonnull(ipc_frame_rx_space(&rx, &avail));
		ck_assert_uint_eq(rx.bufsz, IPC_FRAME_MAX);
		ck_assert_int_eq(ipc_frame_rx_feed(&rx, small, sizeof(small),
		    &cause), (ssize_t)sizeof(small));
		ck_assert_int_eq(ipc_frame_rx_pop_untrusted(&rx, &in, &cause),
		    1);
		ipc_frame_in_free(&in);
		ck_assert_ptr_nonnull(ipc_frame_rx_space(&rx, &avail));
		ck_assert_uint_le(rx.bufsz, 16 * 1024);
	}
	ipc_frame_rx_free(&rx);
	free(buf);

	/* One byte more cannot even be encoded. */
	d.len++;
	ck_assert_uint_eq(ipc_frame_encode(&f, &buf, &cause), 0);
	free(blob);
}
END_TEST

START_TEST(test_garbage)
{
	/* Field 3 (BindService) with a length running past the frame. */
	static const uint8_t bad1[] = { 3, 0, 0, 0, 0x1a, 0x10, 0x0a };
	/* Wire type 7 does not exist. */
	static const uint8_t bad2[] = { 2, 0, 0, 0, 0x0f, 0x00 };
	/* A varint that never ends. */
	static const uint8_t bad3[] = { 12, 0, 0, 0, 0x10, 0xff, 0xff, 0xff,
	    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	const uint8_t *cases[] = { bad1, bad2, bad3 };
	size_t lens[] = { sizeof(bad1), sizeof(bad2), sizeof(bad3) };
	struct ipc_frame_rx rx;
	struct ipc_frame_in in;
	const char *cause = NULL;
	size_t i;
	uint8_t rnd[4096];
	unsigned seed = 1;

	for (i = 0; i < 3; i++) {
		ipc_frame_rx_init(&rx, 0);
		ck_assert_int_eq(ipc_frame_rx_feed(&rx, cases[i], lens[i],
		    &cause), (ssize_t)lens[i]);
		ck_assert_int_eq(ipc_frame_rx_pop_untrusted(&rx, &in, &cause),
		    -1);
		ck_assert_str_eq(cause, "malformed IPCFrame");
		ipc_frame_rx_free(&rx);
	}
	/* Random bytes: never crash, never a frame larger than the cap. */
	for (i = 0; i < 200; i++) {
		size_t j, n = 64 + (size_t)(rand_r(&seed) % 2000);
		int r;

		for (j = 0; j < n; j++)
			rnd[j] = (uint8_t)rand_r(&seed);
		rnd[0] = (uint8_t)(n - 4);
		rnd[1] = rnd[2] = rnd[3] = 0;
		ipc_frame_rx_init(&rx, 0);
		ck_assert_int_ge(ipc_frame_rx_feed(&rx, rnd, n, &cause), 0);
		while ((r = ipc_frame_rx_pop_untrusted(&rx, &in, &cause)) == 1)
			ipc_frame_in_free(&in);
		ipc_frame_rx_free(&rx);
	}
}
END_TEST

START_TEST(test_padded_varints)
{
	/*
	 * request_id = 5 as a 5-byte varint, then BindService whose length
	 * is a 4-byte padded varint, holding service_name "ab" whose length
	 * is padded too. Upstream writers pad nested lengths like this.
	 */
	static const uint8_t payload[] = {
		0x10, 0x85, 0x80, 0x80, 0x80, 0x00,
		0x1a, 0x87, 0x80, 0x80, 0x00,
		0x0a, 0x82, 0x80, 0x80, 0x00, 'a', 'b',
	};
	const char *cause;
	ipc_frame_t *f;

	f = ipc_frame_decode_untrusted(payload, sizeof(payload), &cause);
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(f->request_id, 5);
	ck_assert_int_eq(f->msg_case,
	    PERFETTO__PROTOS__IPCFRAME__MSG_MSG_BIND_SERVICE);
	ck_assert_str_eq(f->msg_bind_service->service_name, "ab");
	ipc_frame_msg_free(f);
}
END_TEST

START_TEST(test_unknown_fields_skipped)
{
	/* Field 99 (varint) and field 100 (bytes) before request_id = 7. */
	static const uint8_t payload[] = {
		0x98, 0x06, 0x2a, 0xa2, 0x06, 0x02, 'x', 'y', 0x10, 0x07,
	};
	const char *cause;
	ipc_frame_t *f;

	f = ipc_frame_decode_untrusted(payload, sizeof(payload), &cause);
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(f->request_id, 7);
	ipc_frame_msg_free(f);
}
END_TEST

START_TEST(test_fds_follow_their_frame)
{
	uint8_t stream[512];
	struct ipc_frame_rx rx;
	struct ipc_frame_in in;
	const char *cause;
	size_t len, f0;
	void *dst;
	size_t avail;
	int fd, got;

	len = make_stream(stream, sizeof(stream), 2);
	f0 = 4 + stream[0];
	ipc_frame_rx_init(&rx, 0);
	/* Frame 0 whole, then frame 1's first byte arrives with an fd. */
	dst = ipc_frame_rx_space(&rx, &avail);
	memcpy(dst, stream, f0 + 1);
	fd = open("/dev/null", O_RDONLY);
	ck_assert_int_eq(ipc_frame_rx_commit(&rx, f0 + 1, &fd, 1, &cause), 0);
	ck_assert_int_eq(ipc_frame_rx_pop_untrusted(&rx, &in, &cause), 1);
	ck_assert_uint_eq(in.nfds, 0);
	ipc_frame_in_free(&in);
	ck_assert_int_eq(ipc_frame_rx_pop_untrusted(&rx, &in, &cause), 0);
	ck_assert_int_eq(ipc_frame_rx_feed(&rx, stream + f0 + 1,
	    len - f0 - 1, &cause), (ssize_t)(len - f0 - 1));
	ck_assert_int_eq(ipc_frame_rx_pop_untrusted(&rx, &in, &cause), 1);
	ck_assert_uint_eq(in.nfds, 1);
	got = ipc_frame_in_take_fd(&in);
	ck_assert_int_eq(got, fd);
	ck_assert_int_eq(ipc_frame_in_take_fd(&in), -1);
	ipc_frame_in_free(&in);
	ck_assert_int_eq(fcntl(fd, F_GETFD), 0);	/* still ours */
	close(fd);

	/* Descriptors not taken are closed with the frame. */
	dst = ipc_frame_rx_space(&rx, &avail);
	memcpy(dst, stream, f0);
	fd = open("/dev/null", O_RDONLY);
	ck_assert_int_eq(ipc_frame_rx_commit(&rx, f0, &fd, 1, &cause), 0);
	ck_assert_int_eq(ipc_frame_rx_pop_untrusted(&rx, &in, &cause), 1);
	ipc_frame_in_free(&in);
	ck_assert_int_eq(fcntl(fd, F_GETFD), -1);
	ipc_frame_rx_free(&rx);
}
END_TEST

START_TEST(test_too_many_fds)
{
	struct ipc_frame_rx rx;
	const char *cause = NULL;
	int fds[IPC_RX_FDS_MAX + 1], i;
	void *dst;
	size_t avail;

	ipc_frame_rx_init(&rx, 0);
	for (i = 0; i <= IPC_RX_FDS_MAX; i++)
		fds[i] = open("/dev/null", O_RDONLY);
	dst = ipc_frame_rx_space(&rx, &avail);
	memset(dst, 0xff, 1);
	ck_assert_int_eq(ipc_frame_rx_commit(&rx, 1, fds, IPC_RX_FDS_MAX + 1,
	    &cause), -1);
	ck_assert_ptr_nonnull(cause);
	ipc_frame_rx_free(&rx);
	/* Every one of them was closed: nothing leaks. */
	for (i = 0; i <= IPC_RX_FDS_MAX; i++)
		ck_assert_int_eq(fcntl(fds[i], F_GETFD), -1);
}
END_TEST

static Suite *
frame_suite(void)
{
	Suite *s = suite_create("ipc_frame");
	TCase *tc = tcase_create("frame");

	tcase_add_test(tc, test_every_split);
	tcase_add_test(tc, test_byte_at_a_time_and_bulk);
	tcase_add_test(tc, test_zero_length_skipped);
	tcase_add_test(tc, test_oversized);
	tcase_add_test(tc, test_max_frame_roundtrip);
	tcase_add_test(tc, test_garbage);
	tcase_add_test(tc, test_padded_varints);
	tcase_add_test(tc, test_unknown_fields_skipped);
	tcase_add_test(tc, test_fds_follow_their_frame);
	tcase_add_test(tc, test_too_many_fds);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(frame_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
