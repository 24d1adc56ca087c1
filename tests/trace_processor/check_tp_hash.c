/*
 * The import's hash map (tp_hash) and the string pool's interning, checked
 * against plain reference arrays through many random operations: any key
 * (0 and TP_HASH_EMPTY included), replacement, deletion by backward shift,
 * growth, clearing and iteration; the pool's by-address shortcut must
 * never hand back the id of a text that changed at the same address.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "storage/cs_pool.h"
#include "tp_hash.h"

#define NKEYS	4096

/* Keys that share clusters: small ints, their negations, and the edges. */
static uint64_t
key_of(unsigned i)
{
	switch (i % 4) {
	case 0:
		return i / 4;
	case 1:
		return TP_HASH_EMPTY - i / 4;
	case 2:
		return (uint64_t)i << 40;
	default:
		return (uint64_t)i * 0x9e3779b97f4a7c15ULL;
	}
}

static void
check_same(const struct tp_hash *h, const int *have, const uint64_t *val)
{
	uint64_t *v, key, got;
	size_t it, n = 0, seen = 0;
	unsigned i;

	for (i = 0; i < NKEYS; i++) {
		v = tp_hash_get(h, key_of(i));
		if (have[i]) {
			ck_assert_ptr_nonnull(v);
			ck_assert_uint_eq(*v, val[i]);
			n++;
		} else
			ck_assert_ptr_null(v);
	}
	ck_assert_uint_eq(h->count, n);
	for (it = 0; tp_hash_next(h, &it, &key, &got); seen++) {
		v = tp_hash_get(h, key);
		ck_assert_ptr_nonnull(v);
		ck_assert_uint_eq(*v, got);
	}
	ck_assert_uint_eq(seen, n);
}

START_TEST(test_hash_random)
{
	static int have[NKEYS];
	static uint64_t val[NKEYS];
	struct tp_hash h;
	unsigned i, step;

	tp_hash_init(&h);
	memset(have, 0, sizeof(have));
	srandom(7);
	ck_assert_ptr_null(tp_hash_get(&h, 0));
	ck_assert_ptr_null(tp_hash_get(&h, TP_HASH_EMPTY));
	ck_assert_int_eq(tp_hash_del(&h, 5), -1);
	for (step = 0; step < 200000; step++) {
		i = (unsigned)random() % NKEYS;
		if (random() % 3 == 0) {
			ck_assert_int_eq(tp_hash_del(&h, key_of(i)),
			    have[i] ? 0 : -1);
			have[i] = 0;
		} else {
			val[i] = (uint64_t)random();
			ck_assert_int_eq(tp_hash_put(&h, key_of(i), val[i]), 0);
			have[i] = 1;
		}
		if (step % 20000 == 0)
			check_same(&h, have, val);
	}
	check_same(&h, have, val);
	tp_hash_clear(&h);
	memset(have, 0, sizeof(have));
	check_same(&h, have, val);
	ck_assert_int_eq(tp_hash_put(&h, TP_HASH_EMPTY, 3), 0);
	ck_assert_uint_eq(*tp_hash_get(&h, TP_HASH_EMPTY), 3);
	ck_assert_ptr_null(tp_hash_get(&h, 0));
	tp_hash_free(&h);
}
END_TEST

/* Texts x then y (of one length) interned from the same buffer: two ids,
 * and x again gets its own. */
static void
same_address(struct cs_pool *p, const char *x, const char *y)
{
	char buf[32];
	size_t n = strlen(x), len;
	uint32_t a, b;

	strcpy(buf, x);
	a = cs_pool_intern(p, buf, n);
	ck_assert_uint_eq(cs_pool_intern(p, buf, n), a);
	strcpy(buf, y);
	b = cs_pool_intern(p, buf, n);
	ck_assert_uint_ne(a, b);
	ck_assert_str_eq(cs_pool_get(p, b, &len), y);
	strcpy(buf, x);
	ck_assert_uint_eq(cs_pool_intern(p, buf, n), a);
}

START_TEST(test_pool_same_address)
{
	struct cs_pool *p = cs_pool_new();
	uint32_t c;

	ck_assert_ptr_nonnull(p);
	/* Short texts are found by their bytes, longer ones by address. */
	same_address(p, "R", "S");
	same_address(p, "running_long", "sleeping_lon");
	/* The empty string is a string, not NULL's id 0. */
	c = cs_pool_intern(p, "x", 0);
	ck_assert_uint_ne(c, 0);
	ck_assert_uint_eq(cs_pool_intern(p, "", 0), c);
	cs_pool_free(p);
}
END_TEST

static Suite *
suite(void)
{
	Suite *s = suite_create("tp_hash");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_hash_random);
	tcase_add_test(tc, test_pool_same_address);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
