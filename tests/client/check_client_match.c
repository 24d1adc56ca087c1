/*
 * Category enabling by TrackEventConfig, case by case against upstream's
 * rules (exact names, then "prefix*", then "*"; enabled categories,
 * disabled categories, disabled tags with "slow"/"debug" by default,
 * enabled tags; nothing matched: enabled).
 */
#include "config.h"

#include <check.h>

#include "protos/perfetto/config/track_event/track_event_config.pb-c.h"

#include "faro_int.h"

static int
on(const char *const *en, const char *const *dis, const char *const *entags,
    const char *const *distags, const char *name, const char *tags)
{
	Perfetto__Protos__TrackEventConfig c;
	size_t n;

	perfetto__protos__track_event_config__init(&c);
#define SET(list, f) do {						\
	for (n = 0; list != NULL && list[n] != NULL; n++)		\
		;							\
	c.n_##f = n;							\
	c.f = (char **)list;						\
} while (0)
	SET(en, enabled_categories);
	SET(dis, disabled_categories);
	SET(entags, enabled_tags);
	SET(distags, disabled_tags);
#undef SET
	return te_category_enabled(&c, name, tags);
}

#define L(...)	((const char *const []){ __VA_ARGS__, NULL })

START_TEST(test_defaults)
{
	ck_assert_int_eq(on(NULL, NULL, NULL, NULL, "a", NULL), 1);
	ck_assert_int_eq(on(NULL, NULL, NULL, NULL, "a", "slow"), 0);
	ck_assert_int_eq(on(NULL, NULL, NULL, NULL, "a", "x,debug"), 0);
	ck_assert_int_eq(on(NULL, NULL, NULL, NULL, "a", "x,y"), 1);
	/* Naming any tag list drops the slow/debug default. */
	ck_assert_int_eq(on(NULL, NULL, L("x"), NULL, "a", "slow"), 1);
	ck_assert_int_eq(on(NULL, NULL, NULL, L("x"), "a", "slow"), 1);
	ck_assert_int_eq(on(NULL, NULL, NULL, L("x"), "a", "x"), 0);
}
END_TEST

START_TEST(test_precedence)
{
	/* Exact beats pattern, pattern beats "*". */
	ck_assert_int_eq(on(L("a.b"), L("a.*"), NULL, NULL, "a.b", NULL), 1);
	ck_assert_int_eq(on(L("a.*"), L("a.b"), NULL, NULL, "a.b", NULL), 0);
	ck_assert_int_eq(on(L("a.*"), L("*"), NULL, NULL, "a.c", NULL), 1);
	ck_assert_int_eq(on(L("*"), L("a.*"), NULL, NULL, "a.c", NULL), 0);
	ck_assert_int_eq(on(L("*"), L("a.*"), NULL, NULL, "b", NULL), 1);
	ck_assert_int_eq(on(NULL, L("*"), NULL, NULL, "b", NULL), 0);
	/* Enabled categories beat disabled tags at the same level. */
	ck_assert_int_eq(on(L("a"), NULL, NULL, NULL, "a", "slow"), 1);
	ck_assert_int_eq(on(L("a*"), NULL, NULL, NULL, "a", "slow"), 0);
	/* Tags: a disabled tag beats an enabled one. */
	ck_assert_int_eq(on(NULL, L("*"), L("t"), NULL, "a", "t"), 1);
	ck_assert_int_eq(on(NULL, L("*"), L("t"), L("t"), "a", "t"), 0);
	ck_assert_int_eq(on(NULL, L("*"), L("t*"), NULL, "a", "x,tag"), 1);
	/* Only a trailing '*' is a wildcard; "a" is not "a.b". */
	ck_assert_int_eq(on(L("a"), L("*"), NULL, NULL, "a.b", NULL), 0);
	ck_assert_int_eq(on(L("a.b*"), L("*"), NULL, NULL, "a.bc", NULL), 1);
	ck_assert_int_eq(on(L("a.b*"), L("*"), NULL, NULL, "a.c", NULL), 0);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("client_match");
	TCase *tc = tcase_create("match");
	SRunner *sr;
	int nfail;

	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_precedence);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	nfail = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nfail == 0 ? 0 : 1;
}
