/* Data sources no producer offers; see unserved.h. */
#include "config.h"

#include <string.h>

#include "base/log.h"
#include "cli/unserved.h"
#include "traceconfig/producer_match.h"

typedef Perfetto__Protos__TracingServiceState State;

static const char *
producer_name(const State *st, int32_t id)
{
	size_t i;

	for (i = 0; i < st->n_producers; i++)
		if (st->producers[i]->id == id)
			return st->producers[i]->name;
	return NULL;
}

/* Does a registered data source called name match entry ds? */
static int
offered(const State *st, const Perfetto__Protos__TraceConfig__DataSource *ds,
    const char *name)
{
	const Perfetto__Protos__TracingServiceState__DataSource *r;
	size_t i;

	for (i = 0; st != NULL && i < st->n_data_sources; i++) {
		r = st->data_sources[i];
		if (r->ds_descriptor == NULL || r->ds_descriptor->name == NULL ||
		    strcmp(r->ds_descriptor->name, name) != 0)
			continue;
		if (traceconfig_producer_match(ds,
		    producer_name(st, r->producer_id)))
			return 1;
	}
	return 0;
}

/* Did an earlier entry of cfg list name already (once is enough)? */
static int
listed_before(const Perfetto__Protos__TraceConfig *cfg, const State *st,
    size_t i, const char *name)
{
	const Perfetto__Protos__DataSourceConfig *c;

	while (i-- > 0) {
		c = cfg->data_sources[i]->config;
		if (c != NULL && c->name != NULL &&
		    strcmp(c->name, name) == 0 &&
		    !offered(st, cfg->data_sources[i], name))
			return 1;
	}
	return 0;
}

/* Is entry i of cfg one to list: a name no producer offers, not listed yet? */
static int
unserved(const Perfetto__Protos__TraceConfig *cfg, const State *st, size_t i)
{
	const Perfetto__Protos__TraceConfig__DataSource *ds =
	    cfg->data_sources[i];
	const char *name = ds->config != NULL ? ds->config->name : NULL;

	return name != NULL && *name != '\0' && !offered(st, ds, name) &&
	    !listed_before(cfg, st, i, name);
}

size_t
unserved_warn(const Perfetto__Protos__TraceConfig *cfg, const State *st)
{
	const Perfetto__Protos__TraceConfig__DataSource *ds;
	size_t i, n = 0;

	for (i = 0; i < cfg->n_data_sources; i++)
		if (unserved(cfg, st, i))
			n++;
	if (n == 0)
		return 0;
	/* One name a line: a long list must not be cut. */
	log_warnx("No connected producer offers %s of this config; %s "
	    "nothing unless a producer of %s connects (faro --query lists "
	    "the data sources registered):", n > 1 ? "these data sources" :
	    "this data source", n > 1 ? "they record" : "it records",
	    n > 1 ? "them" : "it");
	for (i = 0; i < cfg->n_data_sources; i++) {
		ds = cfg->data_sources[i];
		if (unserved(cfg, st, i))
			log_warnx("  %s%s", ds->config->name,
			    ds->n_producer_name_filter > 0 ||
			    ds->n_producer_name_regex_filter > 0 ?
			    " (from the producers its filters name)" : "");
	}
	return n;
}
