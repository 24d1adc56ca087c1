/*
 * Custom data sources: the app registers a named data source; each
 * tracing session that asks for it creates an instance (up to
 * FARO_DS_MAX_INSTANCES at once, each with its own config and target
 * buffer). The app writes TracePackets for every started instance with
 * faro_ds_trace():
 *
 *   static void
 *   write_cb(struct faro_ds_ctx *ctx, void *arg)
 *   {
 *           struct faro_msg *p = faro_ctx_packet_begin(ctx);
 *
 *           faro_msg_uint(p, 8, faro_now_ns());     TracePacket.timestamp
 *           faro_msg_nested_begin(p, 900);          some payload message
 *           faro_msg_string(p, 1, "hello");
 *           faro_msg_nested_end(p);
 *           faro_ctx_packet_end(ctx);
 *   }
 *   ...
 *   faro_ds_trace(ds, write_cb, NULL);
 *
 * Each thread gets its own writer per instance, created on its first
 * packet; writing never allocates and never waits for the service. A
 * packet may span SMB chunks of any size.
 *
 * Callbacks run on the libfaro thread. A stop may complete later: return
 * FARO_DS_STOP_ASYNC from on_stop and call faro_ds_stop_done() (any
 * thread); the instance keeps tracing until then.
 */
#ifndef FARO_DATA_SOURCE_H
#define FARO_DATA_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include <faro/faro.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FARO_DS_MAX_INSTANCES	8

struct faro_ds;		/* a registered data source */
struct faro_ds_ctx;	/* one instance, seen from one thread */
struct faro_msg;	/* a message being written (a packet and its nesting) */

/* What a writer does when the SMB has no free chunk. */
enum faro_buffer_policy {
	FARO_POLICY_DROP = 0,	/* lose packets, count them, mark the
				   sequence (previous_packet_dropped) */
	FARO_POLICY_STALL = 1,	/* wait for a chunk (bounded), then drop */
};

#define FARO_DS_STOP_DONE	0
#define FARO_DS_STOP_ASYNC	1

/* What a session asked for: DataSourceConfig, raw and a few fields. */
struct faro_ds_config {
	const void	*raw;		/* the serialized DataSourceConfig */
	size_t		 raw_len;
	const char	*name;
	uint32_t	 target_buffer;
	uint32_t	 trace_duration_ms;
	uint64_t	 tracing_session_id;
	const char	*legacy_config;	/* "" when absent */
	const void	*track_event_config;	/* serialized, NULL if none */
	size_t		 track_event_config_len;
};

struct faro_ds_args {
	size_t		 struct_size;	/* sizeof(struct faro_ds_args) */
	/* The default policy; a config's buffer_exhausted_policy wins. */
	enum faro_buffer_policy	policy;
	int		 handles_incremental_state_clear;
	void		*user;		/* passed to every callback */
	/*
	 * A session set up an instance (inst: 0..FARO_DS_MAX_INSTANCES-1).
	 * The return value becomes the instance's data (faro_ctx_data).
	 */
	void	*(*on_setup)(struct faro_ds *, unsigned inst,
		    const struct faro_ds_config *, void *user);
	void	 (*on_start)(struct faro_ds *, unsigned inst, void *data,
		    void *user);
	/* FARO_DS_STOP_DONE, or FARO_DS_STOP_ASYNC and faro_ds_stop_done. */
	int	 (*on_stop)(struct faro_ds *, unsigned inst, void *data,
		    void *user);
	/* The service asks for buffered data; writers are flushed after. */
	void	 (*on_flush)(struct faro_ds *, unsigned inst, void *data,
		    void *user);
	/* Interned data was lost: writers start a new sequence state. */
	void	 (*on_clear_incremental_state)(struct faro_ds *,
		    unsigned inst, void *data, void *user);
	/* The instance is gone: free data. */
	void	 (*on_destroy)(struct faro_ds *, unsigned inst, void *data,
		    void *user);
};

/*
 * Registers data source 'name' (after faro_init). NULL with *cause when
 * the name is taken or too many data sources exist.
 */
struct faro_ds *faro_ds_register(const char *name,
		    const struct faro_ds_args *, const char **cause);

/* Bitmask of started instances: 0 means faro_ds_trace does nothing. */
uint32_t	faro_ds_active(const struct faro_ds *);

typedef void	(*faro_ds_trace_fn)(struct faro_ds_ctx *, void *arg);

/* Calls fn once per started instance, from the calling thread. */
void		faro_ds_trace(struct faro_ds *, faro_ds_trace_fn fn,
		    void *arg);

/* Completes an asynchronous stop (any thread). */
void		faro_ds_stop_done(struct faro_ds *, unsigned inst);

/* ---- inside faro_ds_trace's callback ---- */

unsigned	 faro_ctx_instance(const struct faro_ds_ctx *);
void		*faro_ctx_data(const struct faro_ds_ctx *);
/*
 * 1 when this thread's sequence starts over (first packet, incremental
 * state cleared, or packets lost): the next packet should carry
 * sequence_flags SEQ_INCREMENTAL_STATE_CLEARED and re-emit interned data.
 * Reading it acknowledges it.
 */
int		 faro_ctx_take_incremental_reset(struct faro_ds_ctx *);

/* Starts a TracePacket; fill it with faro_msg_* and end it. */
struct faro_msg *faro_ctx_packet_begin(struct faro_ds_ctx *);
void		 faro_ctx_packet_end(struct faro_ds_ctx *);
/* Hands this thread's partly filled chunk to the service now. */
void		 faro_ctx_flush(struct faro_ds_ctx *);

/* Fields of the message being written (any nesting level). */
void	faro_msg_uint(struct faro_msg *, uint32_t field, uint64_t v);
void	faro_msg_int(struct faro_msg *, uint32_t field, int64_t v);
void	faro_msg_sint(struct faro_msg *, uint32_t field, int64_t v);
void	faro_msg_bool(struct faro_msg *, uint32_t field, int v);
void	faro_msg_fixed32(struct faro_msg *, uint32_t field, uint32_t v);
void	faro_msg_fixed64(struct faro_msg *, uint32_t field, uint64_t v);
void	faro_msg_sfixed32(struct faro_msg *, uint32_t field, int32_t v);
void	faro_msg_sfixed64(struct faro_msg *, uint32_t field, int64_t v);
void	faro_msg_float(struct faro_msg *, uint32_t field, float v);
void	faro_msg_double(struct faro_msg *, uint32_t field, double v);
void	faro_msg_string(struct faro_msg *, uint32_t field, const char *s);
void	faro_msg_bytes(struct faro_msg *, uint32_t field, const void *,
	    size_t len);
/* Already encoded fields, appended as they are. */
void	faro_msg_raw(struct faro_msg *, const void *, size_t len);
/* Nested messages, at most 14 deep inside a packet. */
void	faro_msg_nested_begin(struct faro_msg *, uint32_t field);
void	faro_msg_nested_end(struct faro_msg *);

#ifdef __cplusplus
}
#endif

#endif
