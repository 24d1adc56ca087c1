/*
 * The /proc and /sys data sources (process_stats, sys_stats,
 * system_info) behind one table, so the daemon and the tests register
 * and drive them the same way: look a started instance's name up, keep
 * the ops and the handle start returned.
 *
 * None asks to acknowledge start or stop itself: register them with
 * will_notify_on_start = will_notify_on_stop = 0.
 */
#ifndef FARO_PROBE_DS_H
#define FARO_PROBE_DS_H

#include <stddef.h>
#include <stdint.h>

#include "protos/perfetto/config/data_source_config.pb-c.h"

struct event_base;
struct producer_ep;

struct probe_ds_ops {
	const char	*name;
	int		 handles_incremental_state_clear;
	/* NULL (logged) when the instance cannot run */
	void		*(*start)(struct event_base *, struct producer_ep *,
			    uint64_t id,
			    const Perfetto__Protos__DataSourceConfig *);
	/* write out what is held and commit the writer */
	void		 (*flush)(void *);
	void		 (*clear_incremental_state)(void *);	/* or NULL */
	/* frees the writer (producer_ep_writer_free) and the instance */
	void		 (*stop)(void *);
};

extern const struct probe_ds_ops probe_ds_table[];
extern const size_t probe_ds_count;

/* The entry for a data source name, NULL if it is not one of these. */
const struct probe_ds_ops *probe_ds_find(const char *name);

#endif
