/*
 * Which categories a session enables, by TrackEventConfig: the same
 * precedence as upstream's SDK, so one config means the same thing for
 * faro and Perfetto SDK apps. Three passes (exact names, "prefix*"
 * patterns, the lone "*"); in each: enabled_categories, then
 * disabled_categories, disabled_tags (by default "slow" and "debug" when
 * the config names no tags), enabled_tags. Nothing matched: enabled.
 */
#include "config.h"

#include <string.h>

#include "protos/perfetto/config/track_event/track_event_config.pb-c.h"

#include "faro_int.h"

enum match { M_EXACT, M_PATTERN, M_WILDCARD };

/* Only a trailing '*' is a wildcard, as upstream. */
static int
match_one(const char *pat, const char *name, size_t namelen, enum match m)
{
	const char *star = strchr(pat, '*');
	size_t plen;

	if (star != NULL) {
		if (star == pat)
			return m == M_WILDCARD;
		if (m != M_PATTERN)
			return 0;
		plen = (size_t)(star - pat);
		return namelen >= plen && strncmp(pat, name, plen) == 0;
	}
	return m == M_EXACT && strlen(pat) == namelen &&
	    strncmp(pat, name, namelen) == 0;
}

static int
match_list(char *const *pats, size_t n, const char *name, size_t namelen,
    enum match m)
{
	for (size_t i = 0; i < n; i++)
		if (pats[i] != NULL && match_one(pats[i], name, namelen, m))
			return 1;
	return 0;
}

static const char *const default_disabled_tags[] = { "slow", "debug" };

/* Does any tag in "a,b,c" match the list? */
static int
match_tags(const char *tags, char *const *pats, size_t n, enum match m)
{
	const char *p, *e;

	if (tags == NULL)
		return 0;
	for (p = tags; *p != '\0'; p = *e ? e + 1 : e) {
		e = strchr(p, ',');
		if (e == NULL)
			e = p + strlen(p);
		if (e > p && match_list(pats, n, p, (size_t)(e - p), m))
			return 1;
	}
	return 0;
}

int
te_category_enabled(const Perfetto__Protos__TrackEventConfig *c,
    const char *name, const char *tags)
{
	static const enum match order[] = { M_EXACT, M_PATTERN, M_WILDCARD };
	size_t namelen = strlen(name);
	char *const *dis_tags = c->disabled_tags;
	size_t ndis_tags = c->n_disabled_tags;

	if (ndis_tags == 0 && c->n_enabled_tags == 0) {
		dis_tags = (char *const *)default_disabled_tags;
		ndis_tags = 2;
	}
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		if (match_list(c->enabled_categories, c->n_enabled_categories,
		    name, namelen, order[i]))
			return 1;
		if (match_list(c->disabled_categories,
		    c->n_disabled_categories, name, namelen, order[i]))
			return 0;
		if (match_tags(tags, dis_tags, ndis_tags, order[i]))
			return 0;
		if (match_tags(tags, c->enabled_tags, c->n_enabled_tags,
		    order[i]))
			return 1;
	}
	return 1;
}
