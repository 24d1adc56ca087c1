/*
 * Test helpers for anything that talks to a real traced: start the
 * daemon in a private directory with its own sockets, and drive it with a
 * small producer (libipc client + libshm arbiter/writers) and a small
 * consumer (synchronous wrappers over the ConsumerPort). Reusable by the
 * cli and client tests: link tests/traced/libtracedtest.la.
 *
 * Everything runs on one libevent base owned by the test; the helpers run
 * the loop until what they wait for happens or a timeout expires, so a
 * test never hangs.
 */
#ifndef FARO_TRACED_TEST_H
#define FARO_TRACED_TEST_H

#include "libipc/consumer_endpoint.h"
#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

#include "protos/perfetto/config/trace_config.pb-c.h"
#include "protos/perfetto/trace/trace.pb-c.h"

struct event_base;
struct ipc_client;
struct shm_arbiter;
struct shm_writer;

/* ---- the daemon ---------------------------------------------------- */

struct tt_traced {
	pid_t	 pid;
	char	 dir[256];
	char	 producer_sock[300];
	char	 consumer_sock[300];
	char	 log[300];
};

/*
 * Starts $top_builddir/daemons/traced/traced with sockets in a new temp
 * dir and waits until it is ready (TRACED_NOTIFY_FD). extra_argv may be
 * NULL. Returns 0 or -1.
 */
int	tt_traced_start(struct tt_traced *, const char *const *extra_argv);
/* SIGTERM, wait (kill after 5 s); returns the exit status or -1. */
int	tt_traced_stop(struct tt_traced *);
/* Is it still running? */
int	tt_traced_alive(struct tt_traced *);
/* A process's resident memory (KiB) and user+system CPU (s); -1 if gone. */
long	tt_proc_rss_kb(pid_t);
double	tt_proc_cpu_s(pid_t);

/* Runs the loop until *flag != 0 or timeout_ms passes; 0 if flag set. */
int	tt_wait(struct event_base *, const int *flag, int timeout_ms);
/* Runs the loop for ms milliseconds. */
void	tt_spin(struct event_base *, int ms);

/* ---- producer ------------------------------------------------------ */

#define TT_MAX_INSTANCES	32

struct tt_instance {
	uint64_t	 id;
	char		 name[64];
	uint32_t	 target_buffer;
	uint32_t	 duration_ms;
	int		 setup, started, stopped;
};

struct tt_producer {
	struct event_base	*base;
	struct ipc_client	*cl;
	uint32_t		 sid;
	uint32_t		 m[16];		/* method ids by enum below */
	int			 bound;
	int			 failed;
	int			 disconnected;
	int			 initialized;
	/* SMB, once setup_tracing arrived. */
	int			 smb_fd;
	void			*smb_base;
	size_t			 smb_size;
	size_t			 page_size_kb;
	struct shm_arbiter	*arb;
	int			 no_auto_flush;	/* do not answer Flush */
	int			 stall_writers;	/* new writers wait for chunks */
	int			 hold_commits;	/* drop commit batches */
	int			 defer_commits;	/* keep them for ..._release */
	struct tt_deferred {
		uint8_t		*buf;
		size_t		 len;
	}			 deferred[64];
	int			 ndeferred;
	uint64_t		 last_flush_id;
	int			 flushes;
	int			 clears;
	struct tt_instance	 inst[TT_MAX_INSTANCES];
	int			 ninst;
	int			 commits_sent;
	int			 pending_calls;
};

enum {
	TT_P_INIT = 1, TT_P_REGISTER, TT_P_UNREGISTER, TT_P_COMMIT,
	TT_P_GETCMD, TT_P_REGWRITER, TT_P_UNREGWRITER, TT_P_STARTED,
	TT_P_STOPPED, TT_P_TRIGGERS, TT_P_SYNC, TT_P_UPDATE,
};

/* Connects, binds ProducerPort, InitializeConnection, GetAsyncCommand. */
int	tt_producer_connect(struct tt_producer *, struct event_base *,
	    const char *sock, const char *name);
/* Same, with SMB size and page size hints. */
int	tt_producer_connect_hints(struct tt_producer *, struct event_base *,
	    const char *sock, const char *name, uint32_t size_hint,
	    uint32_t page_hint);
/*
 * Same, offering an SMB of own_smb bytes made by the producer
 * (producer_provided_shmem); *accepted says whether traced took it.
 */
int	tt_producer_connect_own_smb(struct tt_producer *, struct event_base *,
	    const char *sock, const char *name, size_t own_smb, int *accepted);
void	tt_producer_close(struct tt_producer *);
/* RegisterDataSource (waits for the reply). */
int	tt_producer_register(struct tt_producer *, const char *ds_name,
	    int will_notify_on_start, int will_notify_on_stop);
/* RegisterDataSource with a full descriptor. */
struct Perfetto__Protos__DataSourceDescriptor;
int	tt_producer_register_desc(struct tt_producer *,
	    const struct Perfetto__Protos__DataSourceDescriptor *);
/* Any method with a raw argument blob; waits; returns 0 if success. */
int	tt_producer_call(struct tt_producer *, int method, const void *args,
	    size_t len);
/* NotifyDataSourceStarted or ...Stopped (method) for instance id. */
int	tt_producer_notify(struct tt_producer *, int method, uint64_t id);
/* Instance of data source 'name' (latest), NULL if none. */
struct tt_instance *tt_producer_instance(struct tt_producer *,
	    const char *name);
/* A writer for buffer, announced with RegisterTraceWriter. */
struct shm_writer *tt_producer_writer(struct tt_producer *, uint32_t buffer);
/* A writer not announced (yet), as an SDK writer racing its registration. */
struct shm_writer *tt_producer_writer_unannounced(struct tt_producer *,
	    uint32_t buffer);
/* RegisterTraceWriter / UnregisterTraceWriter; wait; 0 on success. */
int	tt_producer_writer_announce(struct tt_producer *, uint16_t writer_id,
	    uint32_t buffer);
int	tt_producer_writer_retire(struct tt_producer *, uint16_t writer_id);
/*
 * Writes n test packets (TracePacket.for_testing with str = prefix and
 * seq_value = first..first+n-1, padded with 'pad' bytes of payload).
 */
void	tt_write_packets(struct shm_writer *, const char *prefix,
	    uint32_t first, uint32_t n, size_t pad);
/* Commits everything the writer holds; waits until traced has it (Sync). */
void	tt_producer_commit(struct tt_producer *, struct shm_writer *);
int	tt_producer_sync(struct tt_producer *);
/* Sends the CommitData calls held while defer_commits was set. */
void	tt_producer_release_commits(struct tt_producer *);

/* ---- consumer ------------------------------------------------------ */

struct tt_consumer {
	struct event_base	*base;
	struct ipc_client	*cl;
	struct consumer_ep	 ep;		/* methods as CM_* */
	int			 bound;
	int			 failed;
	int			 disconnected;
	/* EnableTracing's answer (when the session is disabled). */
	int			 enable_done;
	int			 enable_disabled;
	char			 enable_error[256];
	/* ObserveEvents stream. */
	int			 observe_events;
	int			 observe_all_started;
	int			 observe_started;
	int			 observe_stopped;
};

/* Reply data of a synchronous call, all replies of a stream joined. */
struct tt_reply {
	int		 success;
	int		 nreplies;
	uint8_t		*data;		/* replies concatenated */
	size_t		 len;
	size_t		 cap;
	size_t		*lens;		/* each reply's length */
};

int	tt_consumer_connect(struct tt_consumer *, struct event_base *,
	    const char *sock);
void	tt_consumer_close(struct tt_consumer *);
/* EnableTracing: does not wait for the (late) answer. fd may be -1. */
int	tt_consumer_enable(struct tt_consumer *,
	    const Perfetto__Protos__TraceConfig *, int fd);
/* EnableTracing{attach_notification_only}: hear the end of an attached one. */
int	tt_consumer_enable_notify(struct tt_consumer *);
/* Same, waiting up to timeout_ms for an immediate refusal. */
int	tt_consumer_enable_wait_error(struct tt_consumer *,
	    const Perfetto__Protos__TraceConfig *, int fd, int timeout_ms);
/* Synchronous call; r may be NULL. Returns 0 if every reply succeeded. */
int	tt_consumer_call(struct tt_consumer *, int method,
	    const ProtobufCMessage *args, int fd, struct tt_reply *r,
	    int timeout_ms);
void	tt_reply_free(struct tt_reply *);
/* ReadBuffers, the slices reassembled into a Trace (field 1 each). */
int	tt_consumer_read(struct tt_consumer *, uint8_t **trace, size_t *len);
int	tt_consumer_observe(struct tt_consumer *, uint32_t mask);
/* GetTraceStats; NULL on failure. Free with ..._trace_stats__free_unpacked. */
struct Perfetto__Protos__TraceStats;
struct Perfetto__Protos__TraceStats *tt_consumer_stats(struct tt_consumer *);

/* ---- configs and traces ------------------------------------------- */

/*
 * A config with one buffer of size_kb (ring or discard) and data sources
 * named in the NULL-terminated list, all into buffer 0. Free with
 * tt_config_free.
 */
Perfetto__Protos__TraceConfig *tt_config_new(uint32_t size_kb, int discard,
	    const char *const *ds_names);
void	tt_config_free(Perfetto__Protos__TraceConfig *);

/* Decoded trace summary. */
struct tt_trace {
	Perfetto__Protos__Trace	*trace;
	size_t			 npackets;
	size_t			 ntest;		/* for_testing packets */
	size_t			 nconfig, nclock, nstats, nsysinfo, nsync;
	size_t			 nservice_events;
	size_t			 nuuid;
	int			 bad_trusted;	/* a producer packet lacks them */
};

/* Decodes a Trace; -1 if it does not parse. */
int	tt_trace_parse(struct tt_trace *, const uint8_t *, size_t);
void	tt_trace_free(struct tt_trace *);
/* for_testing packets with str == prefix, seq_values seen in a bitmap. */
size_t	tt_trace_count(const struct tt_trace *, const char *prefix,
	    uint8_t *seen, size_t nseen);

/*
 * for_testing packets with str == prefix inside compressed_packets
 * (deflate) and zstd_compressed_packets, each kind counted; -1 if one
 * does not decompress, parse, or carry the trusted fields.
 */
ssize_t	tt_trace_count_compressed(const struct tt_trace *, const char *prefix,
	    size_t *ndeflate, size_t *nzstd);

/* Reads a whole file. */
int	tt_read_file(const char *path, uint8_t **data, size_t *len);

#endif
