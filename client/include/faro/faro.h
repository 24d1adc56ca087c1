/*
 * libfaro: make an app show up in Perfetto-compatible traces.
 *
 *   app threads                       libfaro thread (its own event loop)
 *   -----------                       ----------------------------------
 *   FARO_TE_BEGIN(cat, "x")  --+      producer connection to traced:
 *   faro_ds_trace(ds, fn)    --+-->   connect / retry / reconnect,
 *      per-thread writers      |      register data sources, setup,
 *      write protobuf straight |      start, stop, flush, clear
 *      into shared memory -----+      incremental state, CommitData
 *
 * The app's threads never wait for the service: they write into chunks of
 * the shared memory buffer (SMB) the service handed over and only tell the
 * libfaro thread which chunks are full.
 *
 * Usage: faro_init() once, register data sources (faro/data_source.h)
 * and TrackEvent categories (faro/track_event.h), trace, faro_shutdown()
 * at exit (optional).
 *
 * In-process mode: with an output file (faro_init_args.output, or the
 * environment's FARO_OUTPUT) the app traces itself into that file and no
 * traced is involved. The session runs from faro_init to faro_shutdown
 * and every data source the app registers is in it (track_event with
 * faro_init_args.track_event_config). The API is the same; the file is a
 * Perfetto trace that trace_processor and the UI open. Call
 * faro_shutdown() before exit: what the writers hold then is written and
 * the file completed. smb_size sizes the memory it takes: that buffer
 * and a central one four times larger, drained into the file as it fills
 * and at least every 100 ms.
 *
 * ABI: every handle is opaque; structs the app fills begin with their own
 * size so that newer libraries can grow them.
 */
#ifndef FARO_FARO_H
#define FARO_FARO_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FARO_ABI_VERSION	1

struct faro_init_args {
	size_t		 struct_size;	/* sizeof(struct faro_init_args) */
	const char	*producer_name;	/* NULL: the process name */
	const char	*socket;	/* NULL: $PERFETTO_PRODUCER_SOCK_NAME,
					   /run/perfetto/traced-producer.sock
					   or /tmp/perfetto-producer */
	uint32_t	 smb_size;	/* SMB size hint in bytes, 0: 1 MiB */
	uint32_t	 smb_page_size;	/* page size hint in bytes, 0: service's */
	uint32_t	 commit_batch;	/* full chunks per CommitData, 0: 1 */
	uint32_t	 stall_max_ms;	/* stall policy bound, 0: 1000 */
	int		 verbose;	/* log debug messages to stderr */
	/* In-process mode: the trace file (NULL: $FARO_OUTPUT; neither
	   set: the system mode, through traced). */
	const char	*output;
	/* In-process mode: the session's TrackEventConfig, serialized
	   (NULL: every category but those tagged "slow" or "debug"). */
	const void	*track_event_config;
	size_t		 track_event_config_len;
};

/*
 * Starts the libfaro thread, which connects to traced (now or whenever it
 * appears), or, in-process, opens the output file (truncated, mode 0600)
 * and starts the session. args may be NULL. Returns 0, or -1 with *cause
 * set (cause may be NULL). A second call returns -1.
 */
int	faro_init(const struct faro_init_args *args, const char **cause);

/*
 * Stops the libfaro thread and frees everything. Threads other than the
 * caller must have stopped tracing. Data not yet committed is lost; in
 * the in-process mode it is written out first and the file closed.
 */
void	faro_shutdown(void);

/* 1 while connected to the service (never in the in-process mode). */
int	faro_connected(void);

/* Counters for tests and monitoring. */
struct faro_stats {
	uint64_t	connects;	/* successful connections */
	uint64_t	commits;	/* CommitData sent */
	uint64_t	chunks;		/* chunks handed to the service */
	uint64_t	dropped_packets; /* lost to a full SMB (drop policy) */
	uint64_t	stalls;		/* writers that waited for a chunk */
};
void	faro_get_stats(struct faro_stats *);

/* CLOCK_BOOTTIME in nanoseconds: the default TrackEvent clock. */
uint64_t faro_now_ns(void);

#ifdef __cplusplus
}
#endif

#endif
