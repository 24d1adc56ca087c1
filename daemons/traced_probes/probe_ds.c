/*
 * The /proc and /sys data sources as one table (probe_ds.h).
 */
#include <string.h>

#include "daemons/traced_probes/probe_ds.h"
#include "ps_ds.h"
#include "sys_stats_ds.h"
#include "system_info_ds.h"

/* Adapters from the typed handles to the table's void pointers. */
static void *
ps_start(struct event_base *b, struct producer_ep *ep, uint64_t id,
    const Perfetto__Protos__DataSourceConfig *c)
{
	return ps_ds_start(b, ep, id, c);
}
static void
ps_flush(void *ds)
{
	ps_ds_flush(ds);
}

static void
ps_clear(void *ds)
{
	ps_ds_clear_incremental_state(ds);
}

static void
ps_stop(void *ds)
{
	ps_ds_stop(ds);
}

static void *
ss_start(struct event_base *b, struct producer_ep *ep, uint64_t id,
    const Perfetto__Protos__DataSourceConfig *c)
{
	return sys_stats_ds_start(b, ep, id, c);
}
static void
ss_flush(void *ds)
{
	sys_stats_ds_flush(ds);
}

static void
ss_stop(void *ds)
{
	sys_stats_ds_stop(ds);
}

static void *
si_start(struct event_base *b, struct producer_ep *ep, uint64_t id,
    const Perfetto__Protos__DataSourceConfig *c)
{
	return system_info_ds_start(b, ep, id, c);
}
static void
si_flush(void *ds)
{
	system_info_ds_flush(ds);
}

static void
si_stop(void *ds)
{
	system_info_ds_stop(ds);
}

const struct probe_ds_ops probe_ds_table[] = {
	{ PS_DS_NAME, 1, ps_start, ps_flush, ps_clear, ps_stop },
	{ SYS_STATS_DS_NAME, 0, ss_start, ss_flush, NULL, ss_stop },
	{ SYSTEM_INFO_DS_NAME, 0, si_start, si_flush, NULL, si_stop },
};
const size_t probe_ds_count = sizeof(probe_ds_table) /
    sizeof(probe_ds_table[0]);

const struct probe_ds_ops *
probe_ds_find(const char *name)
{
	for (size_t i = 0; i < probe_ds_count; i++)
		if (name != NULL && strcmp(probe_ds_table[i].name, name) == 0)
			return &probe_ds_table[i];
	return NULL;
}
