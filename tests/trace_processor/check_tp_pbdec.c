/*
 * check_tp_pbdec: the trace_processor protobuf reader against well-formed,
 * padded and hostile input.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pbdec.h"

START_TEST(test_fields)
{
	/* 1: varint 150; 2: "hi"; 3: fixed64 7; 4: fixed32 9 */
	static const uint8_t m[] = { 0x08, 0x96, 0x01, 0x12, 0x02, 'h', 'i',
	    0x19, 7, 0, 0, 0, 0, 0, 0, 0, 0x25, 9, 0, 0, 0 };
	struct pb it;
	struct pb_field f;

	pb_init(&it, m, sizeof(m));
	ck_assert_int_eq(pb_next_untrusted(&it, &f), 1);
	ck_assert_uint_eq(f.id, 1);
	ck_assert_uint_eq(f.wire, PB_VARINT);
	ck_assert_uint_eq(f.u, 150);
	ck_assert_int_eq(pb_next_untrusted(&it, &f), 1);
	ck_assert_uint_eq(f.id, 2);
	ck_assert_uint_eq(f.len, 2);
	ck_assert_int_eq(memcmp(f.data, "hi", 2), 0);
	ck_assert_int_eq(pb_next_untrusted(&it, &f), 1);
	ck_assert_uint_eq(f.u, 7);
	ck_assert_int_eq(pb_next_untrusted(&it, &f), 1);
	ck_assert_uint_eq(f.id, 4);
	ck_assert_uint_eq(f.u, 9);
	ck_assert_int_eq(pb_next_untrusted(&it, &f), 0);
	ck_assert_int_eq(it.err, 0);
}
END_TEST

START_TEST(test_padded_varints)
{
	/* Length 3 written as a 4-byte padded varint, as SDK writers do. */
	static const uint8_t m[] = { 0x0a, 0x83, 0x80, 0x80, 0x00, 'a', 'b',
	    'c', 0x10, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	    0x01 };
	struct pb it;
	struct pb_field f;

	pb_init(&it, m, sizeof(m));
	ck_assert_int_eq(pb_next_untrusted(&it, &f), 1);
	ck_assert_uint_eq(f.len, 3);
	ck_assert_int_eq(memcmp(f.data, "abc", 3), 0);
	ck_assert_int_eq(pb_next_untrusted(&it, &f), 1);
	ck_assert_uint_eq(f.u, UINT64_MAX);
	ck_assert_int_eq(pb_next_untrusted(&it, &f), 0);
}
END_TEST

START_TEST(test_hostile)
{
	/* Each is malformed: iteration must stop with err set, in bounds. */
	static const struct { uint8_t b[16]; size_t n; } bad[] = {
		{ { 0x0a, 0x05, 'a' }, 3 },		/* length past end */
		{ { 0x0a, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		    0xff, 0x01 }, 11 },			/* huge length */
		{ { 0x08, 0x80 }, 2 },			/* truncated varint */
		{ { 0x08, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
		    0x80, 0x80, 0x80, 0x01 }, 13 },	/* 12-byte varint */
		{ { 0x0b }, 1 },			/* group start */
		{ { 0x0e, 0x01 }, 2 },			/* wire type 6 */
		{ { 0x00, 0x01 }, 2 },			/* field number 0 */
		{ { 0x19, 1, 2, 3 }, 4 },		/* short fixed64 */
		{ { 0x1d, 1, 2 }, 3 },			/* short fixed32 */
	};
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint8_t *copy = malloc(bad[i].n);	/* exact size for ASan */
		struct pb it;
		struct pb_field f;
		int rc, guard = 0;

		memcpy(copy, bad[i].b, bad[i].n);
		pb_init(&it, copy, bad[i].n);
		while ((rc = pb_next_untrusted(&it, &f)) == 1 && guard++ < 16)
			;
		ck_assert_msg(rc == -1 && it.err, "case %zu accepted", i);
		/* Once failed, it stays failed. */
		ck_assert_int_eq(pb_next_untrusted(&it, &f), -1);
		free(copy);
	}
}
END_TEST

START_TEST(test_packed)
{
	static const uint8_t m[] = { 0x0a, 0x04, 0x01, 0x96, 0x01, 0x05 };
	static const uint8_t trunc[] = { 0x0a, 0x02, 0x01, 0x96 };
	struct pb it;
	struct pb_field f;
	struct pb_packed pk;
	uint64_t v, got[4];
	size_t n = 0;

	pb_init(&it, m, sizeof(m));
	ck_assert_int_eq(pb_next_untrusted(&it, &f), 1);
	pb_packed_init(&pk, &f);
	while (pb_packed_varint_untrusted(&pk, &v) && n < 4)
		got[n++] = v;
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(got[0], 1);
	ck_assert_uint_eq(got[1], 150);
	ck_assert_uint_eq(got[2], 5);
	ck_assert_int_eq(pk.err, 0);

	pb_init(&it, trunc, sizeof(trunc));
	ck_assert_int_eq(pb_next_untrusted(&it, &f), 1);
	pb_packed_init(&pk, &f);
	n = 0;
	while (pb_packed_varint_untrusted(&pk, &v))
		n++;
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(pk.err, 1);
}
END_TEST

START_TEST(test_random_never_overreads)
{
	/* Random bytes: whatever happens, no read outside the buffer (ASan
	 * watches) and every field lies inside it. */
	uint32_t seed = 12345;
	int round;

	for (round = 0; round < 20000; round++) {
		size_t n = 1 + (seed % 64), i;
		uint8_t *b = malloc(n);
		struct pb it;
		struct pb_field f;

		for (i = 0; i < n; i++) {
			seed = seed * 1103515245 + 12345;
			b[i] = (uint8_t)(seed >> 16);
		}
		pb_init(&it, b, n);
		while (pb_next_untrusted(&it, &f) == 1)
			if (f.wire == PB_LEN)
				ck_assert(f.data >= b && f.data + f.len <= b + n);
		free(b);
	}
}
END_TEST

static Suite *
pbdec_suite(void)
{
	Suite *s = suite_create("tp_pbdec");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_fields);
	tcase_add_test(tc, test_padded_varints);
	tcase_add_test(tc, test_hostile);
	tcase_add_test(tc, test_packed);
	tcase_add_test(tc, test_random_never_overreads);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(pbdec_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
