/*
 * fuzz_te_config: what libfaro takes from the service about TrackEvent,
 * a DataSourceConfig whose track_event_config decides which categories
 * a session enables. Any bytes: decode, then match a fixed set of
 * category names and tags (exact, prefix patterns, "*", tag lists).
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>

#include "protos/perfetto/config/data_source_config.pb-c.h"

#include "faro_int.h"

static const struct {
	const char	*name, *tags;
} cats[] = {
	{ "a", NULL }, { "ab", "slow" }, { "a.b.c", "debug,x" },
	{ "", "" }, { "*", "*" }, { "x", ",,," }, { "long.category.name",
	    "t1,t2,t3,slow" },
};

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	Perfetto__Protos__DataSourceConfig *c;
	volatile int on = 0;

	c = perfetto__protos__data_source_config__unpack(NULL, len, data);
	if (c == NULL)
		return 0;
	if (c->track_event_config != NULL)
		for (size_t i = 0; i < sizeof(cats) / sizeof(cats[0]); i++)
			on += te_category_enabled(c->track_event_config,
			    cats[i].name, cats[i].tags);
	perfetto__protos__data_source_config__free_unpacked(c, NULL);
	return 0;
}
