/*
 * linux.process_stats (ProcessStatsConfig), one instance per session:
 *
 *   start        ProcessTree of every process and thread
 *                (scan_all_processes_on_start): pid, ppid, uid, cmdline,
 *                thread names when record_thread_names
 *   pids seen    ProcessTree entries for pids the ftrace data source met
 *                that this instance has not described yet (on-demand
 *                dumps; the DISABLE_ON_DEMAND quirk turns them off)
 *   every        ProcessStats memory counters and oom_score_adj of every
 *   poll_ms      process, then ProcessTree entries for new processes
 *
 * Long scans run in slices on the event loop (a packet per slice) so the
 * SMB chunks they fill are committed, and the service answered, between
 * slices.
 */
#ifndef FARO_PS_DS_H
#define FARO_PS_DS_H

#include <stddef.h>
#include <stdint.h>

#include "protos/perfetto/config/data_source_config.pb-c.h"

#define PS_DS_NAME	"linux.process_stats"

struct event_base;
struct producer_ep;
struct ps_ds;

/* Starts an instance; NULL (logged) when it cannot write. */
struct ps_ds *ps_ds_start(struct event_base *, struct producer_ep *,
	    uint64_t id, const Perfetto__Protos__DataSourceConfig *);
/* Writes what is pending (on-demand pids) and commits. */
void	ps_ds_flush(struct ps_ds *);
/* Forgets which pids were described: they are written again. */
void	ps_ds_clear_incremental_state(struct ps_ds *);
void	ps_ds_stop(struct ps_ds *);

/*
 * Pids met in ftrace data, for every live instance that wants on-demand
 * dumps. Cheap to call per bundle: already described pids are skipped,
 * the rest are queued and written on a later loop turn.
 */
void	ps_ds_on_pids_seen(const int32_t *pids, size_t n);

#endif
