/*
 * traced: the tracing service. Internal interfaces between its files.
 *
 *   producer socket                                  consumer socket
 *        |                                                  |
 *   producer_port.c  (RPC <-> service calls)          consumer_port.c
 *        |                                                  |
 *        +------> service.c (registry: producers, data sources,
 *                 consumers, global buffer ids) <-----------+
 *                        |
 *                 session.c (one TraceConfig: lifecycle, timers,
 *                 triggers, detach/attach)   session_config.c (checks,
 *                 matching data sources to producers)
 *                        |
 *        commit.c (SMB chunks and patches -> central buffers, scraping)
 *        flush.c (flush requests and their acknowledgements)
 *        readback.c (central buffers -> packets, trusted fields stamped)
 *           -> trace_filter.c (TraceConfig.trace_filter, if any)
 *           -> compress.c (deflate or zstd, if asked)
 *           +-> consumer_port.c (ReadBuffers slices)
 *           +-> trace_file.c (write_into_file)
 *        service_packets.c (config, clocks, system info, stats, markers,
 *                           lifecycle events)
 *
 * Everything runs on one libevent loop; no locks. Identity (uid, pid,
 * producer id) always comes from the connection, never from a message.
 */
#ifndef FARO_TRACED_H
#define FARO_TRACED_H

#include <sys/types.h>
#include <sys/queue.h>

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "libshm/shm_abi.h"
#include "libipc/ipc_frame.h"

#ifndef TAILQ_FOREACH_SAFE
#define TAILQ_FOREACH_SAFE(var, head, field, tvar)			\
	for ((var) = TAILQ_FIRST(head);					\
	    (var) != NULL && ((tvar) = TAILQ_NEXT(var, field), 1);	\
	    (var) = (tvar))
#endif

struct event;
struct event_base;
struct ipc_host;
struct ipc_reply;
struct trace_buffer;
struct tsession;
struct tconsumer;

/* ---- sockets.c ---------------------------------------------------- */

#define TRACED_MAX_PRODUCER_SOCKETS	8

struct traced_sockets {
	char		*producer_list;		/* storage for producer[] */
	char		*producer[TRACED_MAX_PRODUCER_SOCKETS];
	int		 producer_fd[TRACED_MAX_PRODUCER_SOCKETS];
	int		 nproducer;
	const char	*consumer;
	int		 consumer_fd;
	int		 activated;		/* fds came from systemd */
	int		 set_permissions;
	char		 producer_group[64];
	char		 consumer_group[64];
	mode_t		 producer_mode;
	mode_t		 consumer_mode;
};

int	sockets_resolve(struct traced_sockets *, const char **cause);
int	sockets_parse_permissions(const char *, struct traced_sockets *,
	    const char **cause);
int	sockets_from_systemd(struct traced_sockets *, const char **cause);
void	sockets_notify_fd(void);

/* ---- packet_trust.c ------------------------------------------------ */

/* trusted_packet_sequence_id of the service's own packets. */
#define TRACED_SERVICE_SEQ_ID	1

int	packet_validate_untrusted(const uint8_t *, size_t);
int	packet_varint(const uint8_t **, const uint8_t *end, uint64_t *);

/* ---- trace_file.c -------------------------------------------------- */

struct trace_file {
	int		 fd;
	uint64_t	 written;	/* bytes on disk */
	uint64_t	 max_bytes;	/* 0: no cap */
	off_t		 origin;	/* file offset at open, -1: a pipe */
	uint64_t	 packet_end;	/* written + staged at the last packet */
	uint64_t	 whole;		/* bytes on disk ending a packet */
	uint8_t		*stage;
	size_t		 used;
	int		 full;		/* the cap was reached */
	int		 error;		/* errno of the write that failed */
	int		 closed;
	char		 why[128];	/* the failure, for the consumer */
};

int	trace_file_open(struct trace_file *, int fd, uint64_t max_bytes);
int	trace_file_append(struct trace_file *, const uint8_t *, size_t,
	    const uint8_t *trailer, size_t tlen);
int	trace_file_flush(struct trace_file *);
void	trace_file_close(struct trace_file *);

#include "protos/perfetto/config/trace_config.pb-c.h"

/* ---- trace_filter.c ------------------------------------------------ */

struct trace_filter;

struct trace_filter *trace_filter_new(
	    const Perfetto__Protos__TraceConfig__TraceFilter *,
	    const char **cause);
struct trace_filter *trace_filter_new_empty(void);
int	trace_filter_load_untrusted(struct trace_filter *, const uint8_t *bc,
	    size_t len, const uint8_t *overlay, size_t olen,
	    const char **cause);
ssize_t	trace_filter_packet_untrusted(struct trace_filter *,
	    const uint8_t *body, size_t blen, const uint8_t *trailer,
	    size_t tlen, const uint8_t **out);
void	trace_filter_free(struct trace_filter *);
uint32_t trace_filter_checksum(const uint32_t *words, size_t n);

/* TraceStats.FilterStats of a session. */
struct trace_filter_stats {
	uint64_t	 input_packets;
	uint64_t	 input_bytes;
	uint64_t	 output_bytes;
	uint64_t	 errors;
	uint64_t	 time_taken_ns;	/* one packet in 16 timed, scaled */
	uint64_t	*discarded;	/* bytes per buffer, config order */
};

/* ---- service.c: the registry ------------------------------------- */

/* Limits (upstream's where it has one). */
#define TRACED_MAX_SESSIONS		15
#define TRACED_MAX_SESSIONS_PER_UID	5
#define TRACED_MAX_BUFFERS_PER_SESSION	128
#define TRACED_MAX_BUFFER_IDS		4096	/* global ids 1..4095 */
#define TRACED_MAX_DURATION_MS		(7u * 24 * 3600 * 1000)
#define TRACED_GUARDRAIL_DURATION_MS	(24u * 3600 * 1000)
#define TRACED_GUARDRAIL_BUFFER_KB	(128u * 1024)
#define TRACED_MAX_DS_PER_PRODUCER	1024
#define TRACED_MAX_WRITERS_PER_PRODUCER	1024
#define TRACED_MAX_PRODUCERS		1024
/* All producers' descriptors, and SMBs, together: a flood of producers
 * must not be able to make traced hold unbounded memory. */
#define TRACED_MAX_DESC_BYTES_PER_PRODUCER (4u * 1024 * 1024)
#define TRACED_MAX_SMB_TOTAL		(512u * 1024 * 1024)
#define TRACED_DEFAULT_FLUSH_TIMEOUT_MS	5000
#define TRACED_DEFAULT_STOP_TIMEOUT_MS	5000
#define TRACED_DEFAULT_WRITE_PERIOD_MS	5000
#define TRACED_MIN_WRITE_PERIOD_MS	100
#define TRACED_DEFAULT_SNAPSHOT_MS	10000
#define TRACED_ALL_STARTED_TIMEOUT_MS	20000
#define TRACED_MAX_LISTED_DATA_SOURCES	32
/* Largest reply payload we build, below the frame cap. */
#define TRACED_REPLY_MAX		(IPC_FRAME_MAX - 512)
/* ReadBuffers slices: well inside one reply. */
#define TRACED_MAX_SLICE		(96 * 1024)
/* SMB geometry: upstream's service defaults and caps. */
#define TRACED_SMB_SIZE_DEFAULT		SHM_SIZE_DEFAULT
#define TRACED_SMB_PAGE_DEFAULT		SHM_PAGE_SIZE_DEFAULT
#define TRACED_SMB_SIZE_MAX		SHM_SIZE_MAX
#define TRACED_SMB_PAGE_MAX		(32u * 1024)

struct traced_stats {
	uint64_t	chunks_discarded;	/* rejected chunk moves */
	uint64_t	patches_discarded;
	uint64_t	bad_requests;		/* malformed RPC arguments */
};

struct tproducer;
struct tdatasource;
struct consumer_port_read;

/* A producer's SMB: the memfd and the ABI view over it. */
struct smb {
	struct shm_region	region;
	struct shm_abi		abi;
};
struct tinstance;
struct tflush;

struct traced {
	struct event_base	*base;
	struct ipc_host		*producer_host[TRACED_MAX_PRODUCER_SOCKETS];
	int			 nproducer_host;
	struct ipc_host		*consumer_host;
	uid_t			 uid;
	TAILQ_HEAD(, tproducer)	 producers;
	TAILQ_HEAD(, tdatasource) datasources;
	TAILQ_HEAD(, tconsumer)	 consumers;
	TAILQ_HEAD(, tsession)	 sessions;
	size_t			 nproducers;
	size_t			 ndatasources;
	size_t			 nsessions;
	uint16_t		 last_producer_id;
	uint64_t		 producers_seen;
	uint64_t		 last_session_id;
	uint64_t		 last_instance_id;	/* data_sources_seen */
	uint64_t		 last_flush_id;
	struct trace_buffer	*buffers[TRACED_MAX_BUFFER_IDS];
	struct tsession		*buffer_owner[TRACED_MAX_BUFFER_IDS];
	size_t			 nbuffers;
	uint16_t		 next_buffer_id;
	size_t			 smb_bytes;	/* all SMBs mapped */
	int			 lockdown;
	struct traced_stats	 stats;
	/* Recent trigger activations, for max_per_24_h. */
	struct trigger_hist {
		uint64_t	 ts_ns;
		uint64_t	 hash;
	}			*trigger_hist;
	size_t			 ntrigger_hist;
};

struct producer_writer {
	uint16_t	 id;
	uint16_t	 buffer;
};

struct tproducer {
	TAILQ_ENTRY(tproducer)	 entry;
	struct traced		*svc;
	uint64_t		 conn_id;
	uint16_t		 id;
	uid_t			 uid;
	pid_t			 pid;
	char			*name;
	char			*sdk_version;
	uint32_t		 smb_size_hint;
	uint32_t		 smb_page_hint;
	int			 scraping;	/* scrape its SMB on flush/stop */
	struct smb		*smb;		/* NULL until the first setup */
	int			 smb_from_producer;
	int			 setup_tracing_pending;
	struct ipc_reply	*cmds;		/* GetAsyncCommand stream */
	int			 cmds_held;	/* producer_port_hold depth */
	struct producer_writer	*writers;
	size_t			 nwriters;
	/* Buffers it may commit into: granted at SetupDataSource, kept
	 * until the buffer is freed (late commits after a stop land). */
	uint64_t		 allowed[TRACED_MAX_BUFFER_IDS / 64];
	size_t			 ndatasources;
	size_t			 desc_bytes;
	uint64_t		 chunks_rejected;
	uint64_t		 patches_rejected;
	uint64_t		 last_flush_ack;
};

struct tdatasource {
	TAILQ_ENTRY(tdatasource) entry;
	struct tproducer	*producer;
	char			*name;
	uint64_t		 id;		/* descriptor id, 0 if none */
	uint8_t			*desc;		/* packed DataSourceDescriptor */
	size_t			 desc_len;
	int			 will_notify_on_start;
	int			 will_notify_on_stop;
	int			 handles_incremental_state_clear;
	int			 no_flush;
};

enum tinstance_state {
	TI_CONFIGURED,
	TI_STARTING,
	TI_STARTED,
	TI_STOPPING,
	TI_STOPPED,
};

struct tinstance {
	TAILQ_ENTRY(tinstance)	 entry;
	struct tsession		*session;
	struct tproducer	*producer;
	uint64_t		 id;
	char			*ds_name;
	uint8_t			*config;	/* packed DataSourceConfig */
	size_t			 config_len;
	uint16_t		 buffer;	/* global buffer id */
	enum tinstance_state	 state;
	int			 will_notify_on_start;
	int			 will_notify_on_stop;
	int			 handles_incremental_state_clear;
	int			 no_flush;
};

enum tsession_state {
	TS_CONFIGURED,
	TS_STARTED,
	TS_STOPPING,	/* waiting for stop acknowledgements */
	TS_DISABLED,
};

/* Lifecycle events the service reports in the trace. */
enum tlifecycle {
	TL_TRACING_STARTED,
	TL_ALL_STARTED,
	TL_FLUSH_STARTED,
	TL_ALL_FLUSHED,
	TL_READ_COMPLETED,
	TL_TRACING_DISABLED,
	TL_COUNT,
};
#define TL_MAX_STAMPS	8

struct tseq {
	uint16_t	 producer_id;
	uint16_t	 writer_id;
	uint32_t	 seq_id;
};

struct ttrigger {
	char		*name;
	char		*producer_name;
	uid_t		 uid;
	uint64_t	 ts_ns;
};

typedef void tflush_done_fn(struct tsession *, int success, void *arg);

struct tsession {
	TAILQ_ENTRY(tsession)	 entry;
	struct traced		*svc;
	uint64_t		 id;
	uid_t			 uid;
	struct tconsumer	*consumer;	/* NULL while detached */
	char			*detach_key;
	Perfetto__Protos__TraceConfig *cfg;
	enum tsession_state	 state;
	size_t			 nbuffers;
	uint16_t		*buffers;	/* global ids, config order */
	TAILQ_HEAD(, tinstance)	 instances;
	TAILQ_HEAD(, tflush)	 flushes;
	uint32_t		 duration_ms;	/* may change with triggers */
	uint32_t		 flush_period_ms;
	uint32_t		 write_period_ms;
	int			 flush_before_write;
	struct event		*ev_duration;
	struct event		*ev_flush_period;
	struct event		*ev_write;
	struct event		*ev_trigger_timeout;
	struct event		*ev_stop_timeout;
	struct event		*ev_snapshot;
	struct event		*ev_clear_incr;
	struct event		*ev_trigger_stop;
	struct event		*ev_all_started;
	struct trace_file	 file;
	int			 writing_file;
	int			 trigger_mode;
	struct ttrigger		*triggers;
	size_t			 ntriggers;
	size_t			 triggers_emitted;
	struct tseq		*seqs;
	size_t			 nseqs;
	uint32_t		 next_seq_id;
	/* Service packets still to be emitted. */
	uint8_t			*pending_clocks;	/* packed packets */
	size_t			 pending_clocks_len;
	uint8_t			*slow_start;	/* packed packet, once */
	size_t			 slow_start_len;
	uint64_t		 lifecycle[TL_COUNT][TL_MAX_STAMPS];
	size_t			 nlifecycle[TL_COUNT];
	int			 did_emit_initial;
	int			 should_emit_stats;
	int			 should_emit_sync;
	int			 did_notify_all_started;
	int			 cloned;	/* read-only copy of another */
	int			 disabled_notified;
	char			 end_error[160];	/* told the consumer */
	int64_t			 uuid_msb, uuid_lsb;
	/* TraceStats counters of this session. */
	uint64_t		 invalid_packets;
	uint64_t		 flushes_requested;
	uint64_t		 flushes_succeeded;
	uint64_t		 flushes_failed;
	int			 final_flush_outcome;
	uint64_t		 start_realtime_ns;
	uint64_t		 packets_read;
	uint64_t		 bytes_read;
	struct trace_filter	*filter;	/* TraceConfig.trace_filter */
	struct trace_filter_stats filter_stats;
};

struct tconsumer {
	TAILQ_ENTRY(tconsumer)	 entry;
	struct traced		*svc;
	uint64_t		 conn_id;
	uid_t			 uid;
	pid_t			 pid;
	struct tsession		*session;
	struct ipc_reply	*enable_reply;	/* answered when disabled */
	struct ipc_reply	*observe_reply;
	uint32_t		 observe_mask;
	struct consumer_port_read	*read;		/* ReadBuffers in progress */
};

/* service.c */
void		 service_init(struct traced *, struct event_base *);
void		 service_shutdown(struct traced *);
struct tproducer *service_producer_by_conn(struct traced *, uint64_t);
struct tproducer *service_producer_by_id(struct traced *, uint16_t);
struct tconsumer *service_consumer_by_conn(struct traced *, uint64_t);
struct tproducer *service_producer_connect(struct traced *, uint64_t conn,
		    uid_t, pid_t, const char *name, const char **cause);
void		 service_producer_disconnect(struct tproducer *);
int		 service_datasource_register(struct tproducer *,
		    const uint8_t *desc, size_t len, const char **cause);
int		 service_datasource_update(struct tproducer *,
		    const uint8_t *desc, size_t len, const char **cause);
int		 service_datasource_unregister(struct tproducer *,
		    const char *name);
int		 service_writer_register(struct tproducer *, uint32_t id,
		    uint32_t buffer);
void		 service_writer_unregister(struct tproducer *, uint32_t id);
int		 service_writer_buffer(const struct tproducer *, uint16_t id);
int		 service_producer_may_write(const struct tproducer *,
		    uint16_t buffer);
void		 service_producer_allow(struct tproducer *, uint16_t buffer);
int		 service_buffer_add(struct traced *, struct tsession *,
		    struct trace_buffer *, uint16_t *id);
int		 service_buffer_alloc(struct traced *, struct tsession *,
		    size_t size, int discard, uint16_t *id);
void		 service_buffer_free(struct traced *, uint16_t id);
struct tconsumer *service_consumer_connect(struct traced *, uint64_t conn,
		    uid_t, pid_t);
void		 service_consumer_disconnect(struct tconsumer *);
struct tsession *service_session_by_id(struct traced *, uint64_t);

/* Where packets read out of a session go; -1 stops the read. */
typedef int packet_sink_fn(void *arg, const uint8_t *body, size_t blen,
	    const uint8_t *trailer, size_t tlen);

/* session.c */
uint64_t	 session_now_ns(clockid_t);
void		 session_timer(struct tsession *, struct event **, uint32_t ms,
		    void (*cb)(int, short, void *));
void		 session_timer_stop(struct event *);
int		 session_enable(struct tconsumer *,
		    Perfetto__Protos__TraceConfig *, int fd, const char **);
int		 session_filter_setup(struct tsession *, const char **);
void		 session_start(struct tsession *);
void		 session_disable(struct tsession *, const char *error);
void		 session_flush_and_disable(struct tsession *);
void		 session_free(struct tsession *);
int		 session_change_config(struct tsession *,
		    const Perfetto__Protos__TraceConfig *, const char **);
void		 session_lifecycle(struct tsession *, enum tlifecycle);
uint32_t	 session_seq_id(struct tsession *, uint16_t, uint16_t);
void		 session_instance_started(struct tproducer *, uint64_t);
void		 session_instance_stopped(struct tproducer *, uint64_t);
void		 session_datasource_added(struct tdatasource *);
void		 session_datasource_removed(struct tdatasource *);
int		 session_detach(struct tconsumer *, const char *,
		    const char **);
struct tsession	*session_attach(struct tconsumer *, const char *,
		    const char **);
struct tsession	*session_find_detached(struct traced *, uid_t,
		    const char *);

/* trigger.c */
void		 session_activate_triggers(struct tproducer *, char **,
		    size_t);
int		 session_waiting_for_trigger(const struct tsession *);

/* session_clone.c */
struct tsession	*session_clone(struct tconsumer *, struct tsession *src,
		    int fd, int skip_filter, int *was_write_into_file,
		    const char **cause);

/* session_config.c */
int	session_config_check(struct traced *, uid_t,
	    const Perfetto__Protos__TraceConfig *, int have_fd,
	    const char **cause);
int	session_config_trigger_mode(const Perfetto__Protos__TraceConfig *);
int	session_config_target_buffer(const Perfetto__Protos__TraceConfig *,
	    const Perfetto__Protos__TraceConfig__DataSource *, uint32_t *,
	    const char **);
void	session_config_smb_sizes(const Perfetto__Protos__TraceConfig *,
	    const struct tproducer *, size_t *size, size_t *page);

/* flush.c */
int	flush_start(struct tsession *, uint32_t timeout_ms, uint64_t flags,
	    tflush_done_fn *, void *arg);
void	flush_ack(struct tproducer *, uint64_t id);
void	flush_producer_gone(struct tproducer *);
void	flush_session_gone(struct tsession *);

/* smb.c */
int	smb_setup(struct tproducer *, const Perfetto__Protos__TraceConfig *);
int	smb_adopt_untrusted(struct tproducer *, int fd, size_t page_hint,
	    const char **cause);
void	smb_free(struct tproducer *);

/* commit.c */
struct Perfetto__Protos__CommitDataRequest;
void	commit_data_untrusted(struct tproducer *,
	    const struct Perfetto__Protos__CommitDataRequest *);
void	commit_scrape(struct tproducer *, struct tsession *);

/* readback.c */
int	readback_session(struct tsession *, size_t budget, packet_sink_fn *,
	    void *arg, int *has_more);
int	readback_to_file(struct tsession *);

/* compress.c */
struct compress_sink;
int	compress_wanted(const struct tsession *);
struct compress_sink *compress_begin(const struct tsession *);
int	compress_sink(void *, const uint8_t *, size_t, const uint8_t *,
	    size_t);
int	compress_end(struct compress_sink *, packet_sink_fn *, void *);

/* service_packets.c */
struct Perfetto__Protos__TraceStats;
void	service_packets_snapshot_clocks(struct tsession *);
void	service_packets_slow_start(struct tsession *);
int	service_packets_emit_head(struct tsession *, packet_sink_fn *, void *,
	    size_t *bytes);
int	service_packets_emit_tail(struct tsession *, packet_sink_fn *, void *,
	    size_t *bytes);
int	service_packets_emit_stats(struct tsession *, packet_sink_fn *, void *,
	    size_t *bytes);
struct Perfetto__Protos__TraceStats *service_packets_stats_new(
	    struct tsession *);
void	service_packets_stats_free(struct Perfetto__Protos__TraceStats *);

/* producer_port.c */
int	producer_port_register(struct traced *, struct ipc_host *);
void	producer_port_setup_tracing(struct tproducer *);
void	producer_port_hold(struct tproducer *, int on);
void	producer_port_hold_all(struct traced *, int on);
void	producer_port_setup_ds(struct tproducer *, struct tinstance *);
void	producer_port_start_ds(struct tproducer *, struct tinstance *);
void	producer_port_stop_ds(struct tproducer *, uint64_t id);
void	producer_port_flush(struct tproducer *, uint64_t request_id, uint64_t *ids,
	    size_t n, uint64_t flags);
void	producer_port_clear_incremental(struct tproducer *, uint64_t *ids,
	    size_t n);

/* consumer_port.c */
int	consumer_port_register(struct traced *, struct ipc_host *);
void	consumer_port_tracing_disabled(struct tconsumer *, const char *error);
void	consumer_port_instance_state(struct tconsumer *, struct tinstance *);
void	consumer_port_all_started(struct tconsumer *);
void	consumer_port_consumer_gone(struct tconsumer *);

#endif
