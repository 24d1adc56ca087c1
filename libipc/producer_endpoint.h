/*
 * Producer endpoint: the client side of Perfetto's ProducerPort, shared by
 * traced_probes and libfaro. It owns the connection to the service, the
 * shared memory buffer (SMB) the service hands over, and the chunk arbiter
 * over it; the embedder owns its data sources and their trace writers.
 *
 *   producer_ep_new() --connect (retry)--> BindService "ProducerPort"
 *     InitializeConnection(name, SMB hints)      reply awaited
 *     GetAsyncCommand                             one long-lived stream
 *     RegisterDataSource x N                      on InitializeConnection OK
 *
 *   GetAsyncCommand replies -> ops:
 *     setup_tracing (+ SMB fd)   mapped here, arbiter created
 *     setup_data_source          ops->setup
 *     start_data_source          ops->start (setup first if it was skipped)
 *     stop_data_source           ops->stop
 *     flush                      ops->flush, answered by producer_ep_flush_done
 *     clear_incremental_state    ops->clear_incremental_state
 *
 *   writers' full chunks -> arbiter commit batches -> CommitData (sent at
 *   once from the loop's thread, queued for the loop from other threads)
 *
 *   service gone: every live instance gets ops->stop, the SMB is unmapped,
 *   ops->disconnected runs, and the endpoint reconnects and registers
 *   every data source again.
 *
 * Like upstream's client, calls made after RegisterDataSource carry
 * drop_reply (CommitData, RegisterTraceWriter, UnregisterTraceWriter,
 * NotifyDataSourceStarted/Stopped, ActivateTriggers).
 *
 * Threads: every function except the writers' own (shm_writer_*, which the
 * arbiter makes thread safe) must be called on the thread running base.
 * When writers run on other threads, libevent must have been told to use
 * pthreads (evthread_use_pthreads) before base was created.
 */
#ifndef FARO_PRODUCER_ENDPOINT_H
#define FARO_PRODUCER_ENDPOINT_H

#include <stddef.h>
#include <stdint.h>

#include "protos/perfetto/config/data_source_config.pb-c.h"

#include "libshm/shm_arbiter.h"

struct event_base;
struct producer_ep;

struct producer_ds {
	const char	*name;
	int		 will_notify_on_start;
	int		 will_notify_on_stop;
	int		 handles_incremental_state_clear;
};

/*
 * Callbacks, all on the event loop thread, all optional. cfg is valid only
 * during the call. An instance id is the service's data source instance id.
 */
struct producer_ep_ops {
	/* InitializeConnection succeeded; data sources are being registered. */
	void	(*connected)(struct producer_ep *, void *arg);
	/* The service went away; every instance was stopped first. */
	void	(*disconnected)(struct producer_ep *, void *arg);
	void	(*setup)(struct producer_ep *, uint64_t id,
		    const Perfetto__Protos__DataSourceConfig *cfg, void *arg);
	void	(*start)(struct producer_ep *, uint64_t id,
		    const Perfetto__Protos__DataSourceConfig *cfg, void *arg);
	/*
	 * Stop: free the instance's writers (producer_ep_writer_free) before
	 * returning or soon after, then producer_ep_notify_stopped if the data
	 * source said will_notify_on_stop.
	 */
	void	(*stop)(struct producer_ep *, uint64_t id, void *arg);
	/*
	 * Flush: write out what the instances hold, shm_writer_flush their
	 * writers, then call producer_ep_flush_done(request_id) once (now or
	 * later). Without this callback the endpoint answers at once.
	 */
	void	(*flush)(struct producer_ep *, uint64_t request_id,
		    const uint64_t *ids, size_t nids, void *arg);
	void	(*clear_incremental_state)(struct producer_ep *,
		    const uint64_t *ids, size_t nids, void *arg);
};

struct producer_ep_config {
	const char			*name;		/* producer name */
	const char			*socket;	/* NULL: default */
	uint32_t			 smb_size_hint;	/* 0: service picks */
	uint32_t			 smb_page_size_hint;
	const struct producer_ds	*ds;
	size_t				 nds;
	const struct producer_ep_ops	*ops;
	void				*arg;
	unsigned			 commit_batch_chunks; /* 0: 1 */
	unsigned			 stall_max_ms;	/* 0: the arbiter's */
};

/*
 * The producer socket (ipc_sockname.h): the first of
 * $PERFETTO_PRODUCER_SOCK_NAME, else /run/perfetto/traced-producer.sock
 * when /run/perfetto/ is usable, else /tmp/perfetto-producer.
 */
const char	*producer_ep_default_socket(void);

/* Starts connecting (and retrying); NULL with *cause on bad config. */
struct producer_ep *producer_ep_new(struct event_base *,
		    const struct producer_ep_config *, const char **cause);
/* Disconnects; every writer must have been freed. */
void		 producer_ep_free(struct producer_ep *);
/* 1 once InitializeConnection succeeded, until the service goes away. */
int		 producer_ep_connected(const struct producer_ep *);

/*
 * A trace writer for a data source instance, announced to the service
 * (RegisterTraceWriter). NULL with *cause before setup_tracing (no SMB) or
 * when writer ids run out.
 */
struct shm_writer *producer_ep_writer_new(struct producer_ep *,
		    uint32_t target_buffer, enum shm_exhausted_policy,
		    const char **cause);
/*
 * Any thread: a writer from 'arb' (which the caller knows outlives it,
 * e.g. the arbiter of a started instance); its RegisterTraceWriter is
 * queued with the commits, so the service hears of it before its chunks.
 * Free it with producer_ep_writer_free on the loop thread.
 */
struct shm_writer *producer_ep_writer_new_async(struct producer_ep *,
		    struct shm_arbiter *arb, uint32_t target_buffer,
		    enum shm_exhausted_policy, const char **cause);
/* The arbiter over the current SMB, NULL before setup_tracing. */
struct shm_arbiter *producer_ep_arbiter(struct producer_ep *);
/*
 * Adds a data source after producer_ep_new; registered now if connected,
 * else with the others on (re)connection. -1 when out of memory.
 */
int		 producer_ep_add_ds(struct producer_ep *,
		    const struct producer_ds *);
/* Flushes, frees and unregisters a writer. */
void		 producer_ep_writer_free(struct producer_ep *,
		    struct shm_writer *);

void		 producer_ep_notify_started(struct producer_ep *, uint64_t id);
void		 producer_ep_notify_stopped(struct producer_ep *, uint64_t id);
/* Commits everything queued and acknowledges the flush request. */
void		 producer_ep_flush_done(struct producer_ep *,
		    uint64_t request_id);
int		 producer_ep_activate_triggers(struct producer_ep *,
		    const char *const *names, size_t n);

/* Counters for tests and stats. */
struct producer_ep_stats {
	uint64_t	connects;	/* InitializeConnection successes */
	uint64_t	commits;	/* CommitData sent */
	uint64_t	commands;	/* GetAsyncCommand replies */
	uint64_t	bad_commands;	/* replies that did not decode */
};
void		 producer_ep_stats(const struct producer_ep *,
		    struct producer_ep_stats *);

/*
 * An arbiter commit batch as a serialized CommitDataRequest, in a buffer
 * from malloc() that the caller frees. 0, or -1 when out of memory.
 */
int		 producer_commit_pack(const struct shm_commit *,
		    uint8_t **buf, size_t *len);

#endif
