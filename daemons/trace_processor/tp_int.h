/*
 * Engine internals shared by the importers: the struct tp, the table
 * writers (tp_storage.c), the process/thread model (tp_procs.c), tracks and
 * slice stacks (tp_tracks.c), args, stats and the sorter.
 *
 * Ids follow upstream: every table counts from 0 in insertion order. Rows
 * that change while the trace is read (threads, processes, tracks) live
 * in C arrays and are written at tp_eof() and at each tp_checkpoint()
 * (replacing what the previous one wrote); rows that never change after
 * they are complete (slices, counters, args, sched, ...) are inserted as
 * soon as they are complete, in one transaction per chunk. A checkpoint
 * also writes the rows still open (slices, sched, thread states) as they
 * stand; they are replaced, same id, when they close.
 */
#ifndef FARO_TP_INT_H
#define FARO_TP_INT_H

#include <stdint.h>
#include <stdio.h>

#include <sqlite3.h>

#include "tp.h"
#include "tp_hash.h"
#include "ops/tp_ops.h"

#define TP_NULL		INT64_MIN	/* a NULL integer cell */
#define TP_MAX_CPUS	4096		/* cpus the cpu table can list */

/* Stats we fill, with upstream's names (tp_stats.c holds the table). */
enum tp_stat {
	ST_SORTER_OUT_OF_ORDER,
	ST_TOKENIZER_SKIPPED_PACKETS,
	ST_PACKET_SKIPPED_STATE_INVALID,
	ST_INTERNED_SKIPPED_STATE_INVALID,
	ST_INTERNED_DATA_TOKENIZER_ERRORS,
	ST_TRACK_EVENT_PARSER_ERRORS,
	ST_TRACK_EVENT_TOKENIZER_ERRORS,
	ST_TRACK_EVENT_INVALID_TIMESTAMP,
	ST_MISPLACED_END_EVENT,
	ST_HEAP_GRAPH_NON_FINALIZED_GRAPH,
	ST_CLOCK_SYNC_FAILURE,
	ST_CLOCK_SYNC_FAILURE_UNKNOWN_SOURCE_CLOCK,
	ST_CLOCK_SYNC_FAILURE_UNDEFERRABLE_PACKET_LOSS,
	ST_CLOCK_SYNC_FAILURE_NO_PATH,
	ST_STREAMING_PROFILE_INVALID_TIMESTAMP,
	ST_INVALID_CLOCK_SNAPSHOTS,
	ST_FTRACE_BUNDLE_TOKENIZER_ERRORS,
	ST_COMPACT_SCHED_HAS_PARSE_ERRORS,
	ST_COMPACT_SCHED_SWITCH_SKIPPED,
	ST_COMPACT_SCHED_WAKING_SKIPPED,
	ST_MISMATCHED_SCHED_SWITCH_TIDS,
	ST_TASK_STATE_INVALID,
	ST_JSON_TOKENIZER_FAILURE,
	ST_JSON_PARSER_FAILURE,
	ST_JSON_DISPLAY_TIME_UNIT,
	ST_SYSTRACE_PARSE_FAILURE,
	ST_PROCESS_TRACKER_ERRORS,
	ST_PROCESS_TRACKER_PARENT_PID_CHANGED,
	ST_FLOW_END_WITHOUT_START,
	ST_FLOW_NO_ENCLOSING_SLICE,
	ST_FLOW_INVALID_ID,
	ST_FLOW_DUPLICATE_ID,
	ST_FLOW_STEP_WITHOUT_START,
	ST_FLOW_WITHOUT_DIRECTION,
	ST_MEMINFO_UNKNOWN_KEYS,
	ST_VMSTAT_UNKNOWN_KEYS,
	ST_INVALID_CPU_TIMES,
	ST_PSI_UNKNOWN_RESOURCE,
	ST_SLICE_NEGATIVE_DURATION,
	ST_SLICE_MAX_DEPTH_EXCEEDED,
	ST_SLICE_DROP_OVERLAPPING_COMPLETE,
	ST_SLICE_SPILL_OVERLAPPING_COMPLETE,
	ST_TRACE_SORTER_NEGATIVE_TS,
	ST_PROTO_DECODE_ERRORS,
	ST_TRACED_CHUNKS_DISCARDED,
	ST_TRACED_PATCHES_DISCARDED,
	ST_TRACED_PRODUCERS_CONNECTED,
	ST_TRACED_PRODUCERS_SEEN,
	ST_TRACED_DATA_SOURCES_REGISTERED,
	ST_TRACED_DATA_SOURCES_SEEN,
	ST_TRACED_TRACING_SESSIONS,
	ST_TRACED_TOTAL_BUFFERS,
	ST_TRACED_FLUSHES_REQUESTED,
	ST_TRACED_FLUSHES_SUCCEEDED,
	ST_TRACED_FLUSHES_FAILED,
	ST_TRACED_FINAL_FLUSH_SUCCEEDED,
	ST_TRACED_FINAL_FLUSH_FAILED,
	ST_FILTER_ERRORS,
	ST_FILTER_INPUT_BYTES,
	ST_FILTER_INPUT_PACKETS,
	ST_FILTER_OUTPUT_BYTES,
	ST_FILTER_TIME_TAKEN_NS,
	/* Begin, end, delta: tp_proto_system.c relies on this order. */
	ST_FTRACE_KPROBE_HITS_BEGIN,
	ST_FTRACE_KPROBE_HITS_END,
	ST_FTRACE_KPROBE_HITS_DELTA,
	ST_FTRACE_KPROBE_MISSES_BEGIN,
	ST_FTRACE_KPROBE_MISSES_END,
	ST_FTRACE_KPROBE_MISSES_DELTA,
	ST_FTRACE_SETUP_ERRORS,
	ST_FTRACE_ABI_ERRORS_SKIPPED_ZERO_DATA_LENGTH,
	ST_CLOCK_SYNC_CACHE_MISS,
	ST_TRACED_CLONE_TRIGGER_TIMESTAMP_NS,
	ST_FTRACE_THERMAL_EXYNOS_ACPM_UNKNOWN_TZ_ID,
	ST_CPU_INFO_UNKNOWN_CPU_FEATURES,
	ST_GENERIC_TASK_STATE_INVALID_ORDER,
	ST_STRACE_PARSE_FAILURE,
	ST_STRACE_UNSUPPORTED_TIMESTAMP_FORMAT,
	ST_STRACE_MISSING_PID,
	ST_PARSE_TRACE_DURATION_NS,
	ST_ETW_TOKENIZER_ERRORS,
	ST_POWER_RAIL_EMPTY_PACKET,
	ST_POWER_RAIL_UNKNOWN_INDEX,
	ST_ENERGY_DESCRIPTOR_INVALID,
	ST_ENERGY_BREAKDOWN_MISSING_VALUES,
	ST_ENERGY_UID_BREAKDOWN_MISSING_VALUES,
	ST_ENTITY_STATE_RESIDENCY_INVALID,
	ST_ENTITY_STATE_RESIDENCY_LOOKUP_FAILED,
	ST_STACKPROFILE_INVALID_STRING_ID,
	ST_STACKPROFILE_INVALID_MAPPING_ID,
	ST_STACKPROFILE_INVALID_FRAME_ID,
	ST_STACKPROFILE_INVALID_CALLSTACK_ID,
	ST_STACKPROFILE_EMPTY_CALLSTACK,
	ST_SYMBOLIZATION_TMP_BUILD_ID_NOT_FOUND,
	ST_PERF_SAMPLES_SKIPPED,
	ST_PERF_SAMPLES_SKIPPED_DATALOSS,
	ST_HEAPPROFD_MISSING_PACKET,
	/* Indexed stats (per buffer, cpu or process). */
	ST_INDEXED_FIRST,
	ST_PERF_CPU_LOST_RECORDS = ST_INDEXED_FIRST,
	ST_HEAPPROFD_MALFORMED_PACKET,
	/* Per process, from each heap dump (tp_heap_profile.c). */
	ST_HEAPPROFD_LAST_PROFILE_TIMESTAMP,
	ST_HEAPPROFD_CLIENT_DISCONNECTED,
	ST_HEAPPROFD_BUFFER_CORRUPTED,
	ST_HEAPPROFD_BUFFER_OVERRAN,
	ST_HEAPPROFD_CLIENT_ERROR,
	ST_HEAPPROFD_REJECTED_CONCURRENT,
	ST_HEAPPROFD_HIT_GUARDRAIL,
	ST_HEAPPROFD_SAMPLING_INTERVAL_ADJUSTED,
	ST_HEAPPROFD_UNWIND_TIME_US,
	ST_HEAPPROFD_UNWIND_SAMPLES,
	ST_HEAPPROFD_CLIENT_SPINLOCK_BLOCKED,
	ST_TRACED_BUF_BUFFER_SIZE,
	ST_TRACED_BUF_BYTES_WRITTEN,
	ST_TRACED_BUF_BYTES_OVERWRITTEN,
	ST_TRACED_BUF_BYTES_READ,
	ST_TRACED_BUF_BYTES_FILTERED_OUT,
	ST_TRACED_BUF_PADDING_BYTES_WRITTEN,
	ST_TRACED_BUF_PADDING_BYTES_CLEARED,
	ST_TRACED_BUF_CHUNKS_WRITTEN,
	ST_TRACED_BUF_CHUNKS_REWRITTEN,
	ST_TRACED_BUF_CHUNKS_RELOCATED,
	ST_TRACED_BUF_CHUNKS_OVERWRITTEN,
	ST_TRACED_BUF_CHUNKS_DISCARDED,
	ST_TRACED_BUF_CHUNKS_READ,
	ST_TRACED_BUF_CHUNKS_COMMITTED_OUT_OF_ORDER,
	ST_TRACED_BUF_WRITE_WRAP_COUNT,
	ST_TRACED_BUF_PATCHES_SUCCEEDED,
	ST_TRACED_BUF_PATCHES_FAILED,
	ST_TRACED_BUF_READAHEADS_SUCCEEDED,
	ST_TRACED_BUF_READAHEADS_FAILED,
	ST_TRACED_BUF_ABI_VIOLATIONS,
	ST_TRACED_BUF_TRACE_WRITER_PACKET_LOSS,
	/* Per buffer, from the sequences TraceStats.writer_stats maps to it
	 * (tp_proto_loss.c); the causes in DataLossReason bit order. */
	ST_TRACED_BUF_SEQUENCE_PACKET_LOSS,
	ST_TRACED_BUF_INCREMENTAL_SEQUENCES_DROPPED,
	ST_TRACED_BUF_DATA_LOSS_READ_GAP,
	ST_TRACED_BUF_DATA_LOSS_CHUNK_CORRUPTED,
	ST_TRACED_BUF_DATA_LOSS_ORPHAN_CONTINUATION,
	ST_TRACED_BUF_DATA_LOSS_REASSEMBLY_GAP,
	ST_TRACED_BUF_DATA_LOSS_REASSEMBLY_BROKEN_CHAIN,
	ST_TRACED_BUF_DATA_LOSS_OVERWRITE,
	ST_TRACED_BUF_DATA_LOSS_WRITER_ABORT,
	ST_TRACED_BUF_DATA_LOSS_SMB_FULL,
	/* Per cpu, begin, end (, delta): tp_proto_system.c relies on it. */
	ST_FTRACE_CPU_ENTRIES_BEGIN,
	ST_FTRACE_CPU_ENTRIES_END,
	ST_FTRACE_CPU_ENTRIES_DELTA,
	ST_FTRACE_CPU_OVERRUN_BEGIN,
	ST_FTRACE_CPU_OVERRUN_END,
	ST_FTRACE_CPU_OVERRUN_DELTA,
	ST_FTRACE_CPU_COMMIT_OVERRUN_BEGIN,
	ST_FTRACE_CPU_COMMIT_OVERRUN_END,
	ST_FTRACE_CPU_COMMIT_OVERRUN_DELTA,
	ST_FTRACE_CPU_BYTES_BEGIN,
	ST_FTRACE_CPU_BYTES_END,
	ST_FTRACE_CPU_BYTES_DELTA,
	ST_FTRACE_CPU_DROPPED_EVENTS_BEGIN,
	ST_FTRACE_CPU_DROPPED_EVENTS_END,
	ST_FTRACE_CPU_DROPPED_EVENTS_DELTA,
	ST_FTRACE_CPU_READ_EVENTS_BEGIN,
	ST_FTRACE_CPU_READ_EVENTS_END,
	ST_FTRACE_CPU_READ_EVENTS_DELTA,
	ST_FTRACE_CPU_NOW_TS_BEGIN,
	ST_FTRACE_CPU_NOW_TS_END,
	ST_FTRACE_CPU_OLDEST_EVENT_TS_BEGIN,
	ST_FTRACE_CPU_OLDEST_EVENT_TS_END,
	ST_FTRACE_CPU_HAS_DATA_LOSS,
	ST_COUNT
};

/* Most specific track type, spelt as the `type` column. */
enum tp_track_type {
	TT_TRACK,
	TT_THREAD,
	TT_PROCESS,
	TT_CPU,
	TT_COUNTER,
	TT_THREAD_COUNTER,
	TT_PROCESS_COUNTER,
	TT_CPU_COUNTER,
};

struct tp_open_slice {
	int64_t		 id;
	int64_t		 ts;
	int64_t		 end;		/* known end (complete events), or -1 */
	int64_t		 arg_set_id;	/* or TP_NULL */
	int64_t		 thread_ts;	/* or TP_NULL */
	int64_t		 stack_id;
	int64_t		 dur;		/* -1 until known */
	int64_t		 thread_dur;	/* or TP_NULL */
	/* thread instruction count at its start, and to its end; TP_NULL */
	int64_t		 thread_ic, thread_icd;
	char		*name;
	char		*cat;
	int		 shown;		/* written open (checkpoint) already */
};

/* A slice tp_slice_end took off its stack, its row waiting for the end
 * args (tp_slice_end_done). */
struct tp_ended_slice {
	struct tp_open_slice	 s;
	int64_t			 track;		/* -1: none */
	size_t			 depth;
	int64_t			 parent_id, parent_stack;
};

struct tp_track {
	enum tp_track_type	 type;
	/* upstream's type of the track ("cpu_frequency", "thread_execution",
	 * ...): what its data is; NULL: the default of its tp_track_type */
	const char		*kind;
	int64_t			 dim_set;	/* utid/upid/cpu args, TP_NULL */
	char			*name;
	int64_t			 parent_id;	/* TP_NULL: none */
	int64_t			 utid, upid, cpu;
	char			*unit;
	char			*desc;
	int64_t			 source_arg_set_id;
	/* the set of tracks upstream's compressor made it in, TP_NULL */
	int64_t			 group;
	uint32_t		 machine;	/* whose data it holds */
	/* counters */
	int			 incremental;
	double			 last_value;
	int64_t			 multiplier;
	/* atrace's unnestable async slices: begins seen, the last one's
	 * time (upstream's end args of each slice) */
	int64_t			 unnest_begins, unnest_last_ts;
	/* open slices, innermost last */
	struct tp_open_slice	*stack;
	size_t			 depth, cap;
	uint64_t		 pub;		/* hash of the row last written */
};

struct tp_thread {
	int64_t		 tid;
	int64_t		 upid;		/* TP_NULL until known */
	int64_t		 older;		/* the utid this tid had before */
	int64_t		 start_ts, end_ts;
	char		*name;
	int		 name_prio;	/* higher sources win */
	int		 main_thread;	/* -1: whether tid is its pid's */
	int		 is_idle;
	int		 sort_prio;	/* of sort_index's source; 0: none */
	int64_t		 sort_index;	/* the UI's ordering hint */
	int64_t		 arg_set_id;	/* TP_NULL if none */
	uint32_t	 machine;	/* whose task it is */
	uint64_t	 pub;		/* hash of the row last written */
};

struct tp_process {
	int64_t		 pid;
	int64_t		 parent_upid;
	int64_t		 uid;
	int64_t		 start_ts, end_ts;
	char		*name;
	int		 name_prio;	/* enum tp_pname of its name's source */
	char		*cmdline;
	int64_t		 arg_set_id;	/* is_kthread; TP_NULL if none */
	int		 sort_prio;	/* of sort_index's source; 0: none */
	int64_t		 sort_index;	/* the UI's ordering hint */
	uint32_t	 machine;	/* whose process it is */
	uint64_t	 pub;		/* hash of the row last written */
};

/* The columnar tables (storage/tp_tables.c). */
enum tp_table {
	TB_SLICE,
	TB_COUNTER,
	TB_ARGS,
	TB_ARG_KEYS,
	TB_FLOW,
	TB_SCHED,
	TB_TSTATE,
	TB_FTRACE,
	TB_THREAD,
	TB_PROCESS,
	TB_TRACK,
	TB_COUNT
};

/* A slice row; TP_NULL for a NULL cell. */
struct tp_slice_row {
	int64_t		 id, ts, dur, track_id;
	const char	*cat, *name;
	int64_t		 depth, stack_id, parent_stack_id, parent_id;
	int64_t		 arg_set_id, thread_ts, thread_dur;
	int64_t		 thread_ic, thread_icd;
};

/* Tables of few rows stay SQLite's, written by prepared statements. */
enum tp_stmt {
	SQ_METADATA,
	SQ_CLOCK_SNAPSHOT,
	SQ_GPU,
	SQ_SP_MAPPING,
	SQ_SP_FRAME,
	SQ_SP_CALLSITE,
	SQ_SP_SYMBOL,
	SQ_PERF_SESSION,
	SQ_PERF_SAMPLE,
	SQ_HEAP_PROFILE,
	SQ_HEAP_ALLOC,
	SQ_STACK_SAMPLE,
	SQ_SAMPLE_TASK_CTX,
	SQ_IMPORT_LOG,
	SQ_COUNT
};

/*
 * Rows of the bulk tables wait here and go to SQLite several per INSERT:
 * one statement run per row costs more than the row itself. Strings are
 * copied, so callers' buffers may change once a row is queued.
 */
#define TP_BATCH_ROWS	64
#define TP_BATCH_COLS	13

struct tp_val {
	int		 type;		/* SQLITE_INTEGER, _FLOAT, _TEXT, _NULL */
	int		 len;		/* text: bytes at off in the arena */
	union {
		int64_t	 i;
		double	 d;
		size_t	 off;
	} u;
};

struct tp_batch {
	sqlite3_stmt	*many;		/* TP_BATCH_ROWS rows per run */
	int		 ncols;
	int		 nrows;
	struct tp_val	 v[TP_BATCH_ROWS * TP_BATCH_COLS];
	char		*str;		/* arena of the queued texts */
	size_t		 strlen, strcap;
};

/* Importer sub-states; each file owns its struct. */
struct tp_proto;
struct tp_json;
struct tp_systrace;
struct tp_ftrace;
struct tp_gunzip;
struct tp_unpack_ahead;
struct tp_pipe;
struct tp_sysstats;
struct tp_fpower;
struct tp_fnet;
struct tp_fmm;
struct tp_track_pools;
struct tp_gkernel;
struct tp_strace;
struct tp_fandroidfs;
struct tp_fadreno;
struct tp_power;
struct tp_fdrm;
struct tp_fv4l2;
struct tp_fvirtgpu;
struct tp_gpus;
struct tp_stackprof;
struct tp_fperf;
struct tp_heapprof;
struct tp_gecko;
struct tp_gen;
struct tp_flows;
struct tp_clocks;
struct tp_fbinder;
struct tp_cpu_uid;

enum tp_format {
	FMT_UNKNOWN,
	FMT_PROTO,
	FMT_JSON,
	FMT_SYSTRACE,
	FMT_GZIP,
	FMT_STRACE,
	FMT_GECKO,
};

struct tp_sort_item;

struct tp_sort_queue;

struct tp_sorter {
	/* Upstream's queues, in the order it makes them (tp_sorter.c). */
	struct tp_sort_queue	*qs;
	size_t			 nq;
	/* per cpu queues, by class: ftrace, compact sched_switch and
	 * sched_waking, ETW */
	uint32_t		*cpu_q[4];
	size_t			 ncpu_q[4];
	size_t			 nitems;
	/* The queue being drained, while its head is <= bound. */
	size_t			 cur;
	int64_t			 bound;
	int			 has_cur;
	/* Blocks of record copies, by number from blk0 (tp_sorter.c). */
	struct tp_sort_blk	**blks;
	size_t			 nblks, capblks;
	uint64_t		 blk0, next_blk;
	uint64_t		 fill;		/* the block being filled */
	int			 filling;
	size_t			 bytes;
	int64_t			 last_popped;
	int			 popped_any;
	int64_t			 newest;	/* largest ts pushed */
	int			 pushed_any;
	/* The service's marks (tp_sorter_flushed, tp_sorter_read_done). */
	unsigned		 flushes;	/* since the last release */
	uint64_t		 mark;		/* place at the previous read */
	int			 full;		/* no release before the end */
};

struct cs_pool;
struct cs_table;
struct cs_db;

struct tp {
	sqlite3			*db;
	struct tp_sql_guard	*guard;
	struct cs_pool		*pool;		/* the tables' strings */
	struct cs_table		*tab[TB_COUNT];
	struct cs_db		*cdb;		/* what SQLite is served */
	struct tp_ops_hooks	 hooks;		/* tp_tables_hooks */
	/* EXTRACT_ARG's keys asked lately (a query may ask a few in
	 * turn), by slot */
	struct tp_xa_key {
		char		*key;
		size_t		 keylen;
		int64_t		 kid;		/* its pool id (0: none yet) */
		/* by __arg_keys row: 0 not the key, else 1 + its
		 * value_kind */
		unsigned char	*match;
		size_t		 nkeys;
	}			 xa_keys[4];
	unsigned		 xa_next;	/* the slot taken next */
	/* answers lately given, by set and key: row + 1, 0 for none */
	struct tp_xa_ent {
		uint32_t	 set1, kid, row1;
	}			*xa_cache;
	size_t			 xa_rows;	/* args' rows when filled */
	sqlite3_stmt		*stmt[SQ_COUNT];
	struct tp_batch		*batch[SQ_COUNT];	/* NULL: not batched */
	struct tp_config	 cfg;
	char			 err[512];
	int			 eof_done;
	int			 in_txn;
	enum tp_format		 format;
	uint64_t		 bytes_in;
	/* A trace without a TraceUuid is named by a hash of its first
	 * bytes (FNV-1a 64), as upstream names it. */
	uint64_t		 uuid_hash;
	int			 uuid_in_trace;
	/* Linux release from system_info as major * 1000 + minor; 0 when
	 * unknown. Task state bits moved between releases. */
	int			 kernel_version;

	/* Next ids per table. */
	int64_t			 next_slice, next_counter, next_flow,
				 next_sched,
				 next_tstate, next_ftrace, next_meta,
				 next_import_log;

	struct tp_thread	*threads;
	size_t			 nthreads, capthreads;
	struct tp_hash		 tid_map;	/* tid -> live utid */
	struct tp_process	*procs;
	size_t			 nprocs, capprocs;
	/* processes whose creator thread is in no process yet */
	struct tp_parent_wait {
		int64_t		 parent_utid, child_upid;
	}			*pwait;
	size_t			 npwait, cappwait;
	/* threads one made the other (CLONE_THREAD) while neither's
	 * process was known: they join the first one found */
	struct tp_thread_pair {
		int64_t	 a, b;
	}			*tpairs;
	size_t			 ntpairs, captpairs;
	struct tp_hash		 pid_map;	/* pid -> live upid */

	struct tp_track		*tracks;
	size_t			 ntracks, captracks;
	int64_t			 track_groups;	/* groups made (tracks' group) */
	struct tp_hash		 track_keys;	/* hash of scope -> track */

	struct tp_hash		 flows;		/* flow id -> last slice */
	struct tp_hash		 flow_ts;	/* flow id -> its start */
	struct tp_flows		*flowst;	/* tp_flow.c: v1 flows */
	int64_t			 last_end_start; /* of tp_slice_end's slice */
	struct tp_ended_slice	 ended;
	struct tp_argsets	*argsets;	/* tp_argset.c */

	int64_t			 stats[ST_COUNT];
	struct tp_hash		 istats;	/* stat << 32 | idx -> value */
	uint64_t		*istat_order;	/* its keys, as first set */
	size_t			 nistat_order, capistat_order;

	int64_t			 ts_min, ts_max;
	/* trace_bounds as upstream's: the rows' first ts and last end */
	int64_t			 bound_lo, bound_hi;
	uint64_t		 cpus_seen[TP_MAX_CPUS / 64];
	/* CpuInfo, by cpu: processor (NULL: none), cluster, capacity */
	struct tp_cpu_desc {
		char		*processor;
		int64_t		 cluster_id;
		int64_t		 capacity;	/* -1: none */
		int64_t		 arg_set_id;	/* TP_NULL: none */
	}			*cpu_desc;
	size_t			 ncpu_desc;
	int64_t			 evicted_before; /* tp_evict_before's */
	int			 overhang;	/* a slice outlived its parent */

	struct tp_sorter	 sorter;
	struct tp_proto		*proto;
	struct tp_clocks	*clocks;	/* tp_proto_clock.c */
	struct tp_json		*json;
	struct tp_systrace	*systrace;
	struct tp_ftrace	*ftrace;
	struct tp_gunzip	*gunzip;
	struct tp_unpack_ahead	*ahead;		/* tp_unpack.c */
	struct tp_pipe		*pipe;		/* tp_pipe.c */
	uint64_t		 unpacked_ahead;
	uint64_t		 parsed_beside;	/* tp_pipe.c */
	struct tp_sysstats	*sysstats;
	struct tp_pending	*pending;
	struct tp_fpower	*fpower;
	struct tp_fnet		*fnet;
	struct tp_fmm		*fmm;
	struct tp_track_pools	*pools;
	/* what named trace_trigger: 0 nothing, 1 a trigger, 2 a clone one */
	int			 trace_trigger;
	/* ChromeMetadataPackets seen: each names an instance cr-a-, ... */
	uint64_t		 chrome_instances;
	struct tp_gkernel	*gkernel;
	struct tp_strace	*strace;
	struct tp_fandroidfs	*fandroidfs;
	struct tp_fadreno	*fadreno;
	struct tp_chrome	*chrome;
	struct tp_translation	*translation;
	/* the machine of the data at hand (tp_machine.c); 0: the host */
	uint32_t		 machine;
	struct tp_machines	*machines;
	struct tp_etw		*etw;
	struct tp_power		*power;
	struct tp_fdrm		*fdrm;
	struct tp_fv4l2		*fv4l2;
	struct tp_fvirtgpu	*fvirtgpu;
	struct tp_gpus		*gpus;
	struct tp_stackprof	*stackprof;
	struct tp_fperf		*fperf;
	struct tp_heapprof	*heapprof;
	struct tp_gecko		*gecko;
	struct tp_fbinder	*fbinder;
	struct tp_cpu_uid	*cpu_uid;
};

/* tp_engine.c */
int	 tp_seterr(struct tp *, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
void	 tp_stat_inc(struct tp *, enum tp_stat, int64_t n);
/*
 * An import log, as upstream keeps them: stat s counted and a row of
 * _trace_import_logs naming it, with the time of the event at fault and
 * the byte offset of a tokenizer's (each TP_NULL when none) and the
 * arg set saying more (an id or a pending set, done here; TP_NULL).
 */
void	 tp_import_log(struct tp *, enum tp_stat s, int64_t ts,
	    int64_t byte_offset, int64_t arg_set_id);
/* Adds n to an indexed stat (0 when never set). */
void	 tp_stat_add_indexed(struct tp *, enum tp_stat, int64_t idx, int64_t n);
void	 tp_stat_set_indexed(struct tp *, enum tp_stat, int64_t idx, int64_t v);
int	 tp_stat_get_indexed(struct tp *, enum tp_stat, int64_t idx,
	    int64_t *);
void	 tp_seen_ts(struct tp *, int64_t ts);
char	*tp_strndup(const char *, size_t);
/* Room for one more of n elements of elsz bytes in *arr (capacity *cap,
 * doubled as needed); -1 when out of memory. */
int	 tp_grow(void **arr, size_t *cap, size_t n, size_t elsz);
/* Copies len bytes of s (NULL: none) into dst (cap > 0 bytes), cut to
 * fit, NUL-terminated: snprintf's "%.*s" without its cost per call. */
void	 tp_strlcpy(char *dst, size_t cap, const char *s, size_t len);
/* Replaces *dst with a copy of s (s may be NULL). */
void	 tp_setstr(char **dst, const char *s, size_t len);

/*
 * tp_argset.c: arg sets. tp_arg_set_new gives a pending set (a handle);
 * args join it (a key given again replaces its value in place); when its
 * row is written, tp_arg_set_done stores it, or finds an equal set stored
 * before, and gives the arg_set_id (TP_NULL: no args). Given a stored id
 * or TP_NULL, tp_arg_set_done returns it. tp_arg_set_close_soon: the set
 * is stored before the next set is done (its id fixed then), for a row
 * written later; tp_argsets_flush stores those now.
 */
int	 tp_argsets_init(struct tp *);
void	 tp_argsets_free(struct tp *);
void	 tp_argsets_forget(struct tp *);
int64_t	 tp_arg_set_new(struct tp *);
int64_t	 tp_arg_set_done(struct tp *, int64_t set);
void	 tp_arg_set_drop(struct tp *, int64_t set);
void	 tp_arg_set_close_soon(struct tp *, int64_t set);
void	 tp_argsets_flush(struct tp *);
/*
 * Sets remembered by the bytes they were made from, for importers whose
 * args are all a function of some bytes (an ftrace event's fields): get
 * gives the stored set made before from tag and the same len bytes (as
 * done would give it), else TP_NULL; put remembers the stored set id made
 * from them. Both take the bytes' tp_arg_memo_hash, a function of them
 * alone, so a tokenizer can take it on its own thread. Keys longer than
 * TP_ARG_MEMO_MAX are never remembered. Forgotten with the stored sets.
 */
#define TP_ARG_MEMO_MAX	104
uint32_t tp_arg_memo_hash(uint32_t tag, const void *, size_t);
int64_t	 tp_arg_memo_get(struct tp *, uint32_t tag, const void *, size_t,
	    uint32_t hash);
void	 tp_arg_memo_put(struct tp *, uint32_t tag, const void *, size_t,
	    uint32_t hash, int64_t id);
/* A get of hash to come: its slot is fetched into the cache now. */
void	 tp_arg_memo_ahead(struct tp *, uint32_t hash);
/* Its id if stored, TP_NULL while pending. */
int64_t	 tp_arg_set_stored(struct tp *, int64_t set);
/* As tp_arg_set_stored; once stored, *set becomes the id (the handle's
 * memory is freed). */
int64_t	 tp_arg_set_settle(struct tp *, int64_t *set);
void	 tp_arg_int(struct tp *, int64_t set, const char *flat, const char *key,
	    int64_t v, const char *type);
void	 tp_arg_real(struct tp *, int64_t set, const char *flat,
	    const char *key, double v);
void	 tp_arg_str(struct tp *, int64_t set, const char *flat, const char *key,
	    const char *s, size_t len, const char *type);
/* A string arg whose value is NULL (upstream's null StringId). */
void	 tp_arg_str_null(struct tp *, int64_t set, const char *key);
/* As those with the key as flat key, for key and type texts that never
 * change at their address (literals, the generated tables): a key met
 * before is found by its address alone, the path of every ftrace field. */
void	 tp_arg_int_fixed(struct tp *, int64_t set, const char *key,
	    int64_t v, const char *type);
void	 tp_arg_real_fixed(struct tp *, int64_t set, const char *key,
	    double v);
void	 tp_arg_str_fixed(struct tp *, int64_t set, const char *key,
	    const char *s, size_t len);
/* A NUL-terminated string; NULL: upstream's null string. */
void	 tp_arg_cstr_fixed(struct tp *, int64_t set, const char *key,
	    const char *s);

/* tp_stats.c */
int	 tp_stats_write(struct tp *);
/* Whether every enum tp_stat has its key, indexed as it is counted (a
 * test's check of the table). */
int	 tp_stats_keys_complete(void);

/* tp_pending.c: process counters whose track is made at the end. */
void	 tp_counter_pending(struct tp *, int64_t ts, int64_t upid,
	    const char *name, const char *kind, double v);
int	 tp_pending_resolve(struct tp *);
void	 tp_pending_free(struct tp *);

/* tp_tables.c: the columnar tables and their writers. */
int	 tp_tables_create(struct tp *);
void	 tp_tables_free(struct tp *);
int	 tp_tables_check(struct tp *);
size_t	 tp_tables_bytes(const struct tp *);
/* While on, SQL may delete rows (eviction); off again frees what went. */
void	 tp_tables_deletable(struct tp *, int on);
/* What the operators may read straight from the tables (ops/tp_ops.h). */
const struct tp_ops_hooks *tp_tables_hooks(struct tp *);
void	 tp_slice_write(struct tp *, const struct tp_slice_row *);
/* The rows of thread utid and process upid as they stand (is_main: the
 * is_main_thread shown, TP_NULL unknown). */
void	 tp_thread_row_write(struct tp *, int64_t utid,
	    const struct tp_thread *, int64_t is_main, int64_t arg_set_id);
void	 tp_process_row_write(struct tp *, int64_t upid,
	    const struct tp_process *, int64_t arg_set_id);
/* Track id's row: type kind, its event_type, stored source and
 * dimension sets. */
void	 tp_track_row_write(struct tp *, int64_t id, const struct tp_track *,
	    const char *kind, const char *event_type, int64_t src, int64_t dim);
void	 tp_counter_set_track(struct tp *, int64_t id, int64_t track);
/* What an arg holds (enum cs_kind): a string if str, a real if rv, else
 * an int. A key id stands for its flat key, key, type and kind. */
int	 tp_arg_kind(const char *str, const double *rv);
void	 tp_arg_key_write(struct tp *, int64_t id, const char *flat,
	    const char *key, const char *type, int kind);
/* The set of stored arg row id; -1 when there is no such row. */
int64_t	 tp_arg_row_set(struct tp *, int64_t id);
int	 tp_arg_row_same(struct tp *, int64_t id, int64_t kid, int64_t iv,
	    const char *str, size_t slen, const double *rv);
/* Arg row id (replacing the one there): one value of int, str, real. */
void	 tp_arg_row_write(struct tp *, int64_t id, int64_t set, int64_t key_id,
	    int64_t iv, const char *str, size_t slen, const double *rv);

/* tp_storage.c: the schema and the writers of SQLite's tables. */
int	 tp_schema_create(struct tp *);
int	 tp_stmts_prepare(struct tp *);
void	 tp_stmts_finalize(struct tp *);
int	 tp_txn_begin(struct tp *);
int	 tp_txn_commit(struct tp *);
void	 tp_counter_insert(struct tp *, int64_t ts, int64_t track, double v,
	    int64_t arg_set_id);
int	 tp_gpu_insert(struct tp *, int64_t ugpu, uint32_t gpu);
int	 tp_clock_snapshot_insert(struct tp *, int64_t ts, int64_t clock_id,
	    const char *clock_name, int64_t value, int64_t snapshot_id,
	    uint32_t machine);
int64_t	 tp_sched_insert(struct tp *, int64_t id, int64_t ts, int64_t dur,
	    int64_t cpu, int64_t utid, const char *end_state, int64_t prio);
void	 tp_thread_state_insert(struct tp *, int64_t id, int64_t ts,
	    int64_t dur, int64_t cpu, int64_t utid, const char *state,
	    int64_t io_wait, int64_t waker_utid, int64_t waker_id,
	    int64_t irq_context, const char *blocked_function);
int64_t	 tp_ftrace_insert(struct tp *, int64_t ts, const char *name,
	    int64_t cpu, int64_t utid, int64_t arg_set_id, int64_t flags);
void	 tp_flow_insert(struct tp *, int64_t out, int64_t in,
	    int64_t trace_id, int64_t arg_set_id);
void	 tp_metadata_str(struct tp *, const char *name, const char *v);
/* A JSON text's values as args below flat/key (a debug annotation's
 * legacy_json_value), flattened as upstream flattens JSON args; -1 when
 * it does not parse (nothing added). */
int	 tp_json_args(struct tp *, int64_t set, const char *flat,
	    const char *key, const char *json, size_t len);
/* trace_uuid, as upstream prints a 128-bit uuid. */
/* derived: made from the trace's first bytes, not found in it. */
void	 tp_metadata_uuid(struct tp *, uint64_t msb, uint64_t lsb,
	    int derived);
/* One metadata row, key_type "single" or "multi" (tp_storage.c). */
void	 tp_metadata_put(struct tp *, const char *name, const char *key_type,
	    const char *s, int64_t v, int append, int derived);
void	 tp_metadata_int(struct tp *, const char *name, int64_t v);
/* A metadata key that collects many values ("multi"). */
void	 tp_metadata_int_multi(struct tp *, const char *name, int64_t v);
void	 tp_metadata_str_multi(struct tp *, const char *name, const char *v);
/* A "single" row that never replaces another of its name, as upstream
 * keeps its legacy dynamic keys (Chrome's): a string s, else v. */
void	 tp_metadata_append(struct tp *, const char *name, const char *s,
	    int64_t v);
int	 tp_write_final_tables(struct tp *);
/* tp_proto_cpu_per_uid.c: its track table, written with the final ones. */
int	 tp_proto_cpu_per_uid_write(struct tp *);
void	 tp_cpu_seen(struct tp *, int64_t cpu);
void	 tp_bounds_add(struct tp *, int64_t ts, int64_t dur);
/* What a CpuInfo packet says of a cpu (tp_cpu_info.c). */
void	 tp_cpu_set_info(struct tp *, int64_t cpu, const char *processor,
	    size_t len, int64_t cluster_id, int64_t capacity,
	    int64_t arg_set_id);
void	 tp_cpu_info_untrusted(struct tp *, const uint8_t *, size_t);
/* tp_trace_config.c */
void	 tp_trace_config_untrusted(struct tp *, const uint8_t *, size_t);
void	 tp_trace_config_tokenize(struct tp *, const uint8_t *, size_t);
void	 tp_trace_attributes_untrusted(struct tp *, const uint8_t *, size_t);
int	 tp_step_done(struct tp *, sqlite3_stmt *);
/* An integer, or NULL for TP_NULL. */
void	 tp_bind_i64n(sqlite3_stmt *, int col, int64_t v);
struct tp_val	*tp_row_new(struct tp *, enum tp_stmt);
void	 tp_val_int(struct tp_val *, int64_t);
void	 tp_val_i64n(struct tp_val *, int64_t);
void	 tp_val_real(struct tp_val *, double);
int	 tp_val_str(struct tp *, enum tp_stmt, struct tp_val *, const char *,
	    size_t);
int	 tp_rows_flush(struct tp *);

/* tp_procs.c: threads and processes with utid/upid. */
void	 tp_procs_init(struct tp *);
/* Traces other than kernel ones: tid and pid 0 get rows of their own. */
void	 tp_procs_unmap_idle(struct tp *);
/* A remote machine's idle task: its process and thread, as the host's. */
void	 tp_procs_add_idle(struct tp *, uint32_t machine);
void	 tp_procs_free(struct tp *);
int64_t	 tp_thread_get(struct tp *, int64_t tid);
/* Threads a and b are of one process (b made by a, CLONE_THREAD): the one
 * in no process yet joins the other's, or both join the first process
 * either is found in, as upstream's. */
void	 tp_thread_associate(struct tp *, int64_t a, int64_t b);
/* The thread of tid if there is one, else -1 (none made). */
int64_t	 tp_thread_find(struct tp *, int64_t tid);
int64_t	 tp_thread_new(struct tp *, int64_t tid, int64_t ts);
/* A new process comes with its main thread. */
int64_t	 tp_process_get(struct tp *, int64_t pid);
/* A process keeps its first parent, as upstream's: a later other one is
 * a reparenting, logged (at ts, TP_NULL: none) and not taken. */
void	 tp_process_set_parent(struct tp *, int64_t upid, int64_t parent,
	    int64_t ts);
int64_t	 tp_process_new(struct tp *, int64_t pid, int64_t parent_upid,
	    int64_t ts);
/* Process child_upid's parent is the process thread parent_utid joins,
 * once it joins one (upstream's pending parent association). */
void	 tp_process_parent_wait(struct tp *, int64_t child_upid,
	    int64_t parent_utid);
/* The process of pid, made without a main thread if new. */
int64_t	 tp_process_get_bare(struct tp *, int64_t pid);
/* The live thread tid of process upid (adopted if in none yet), or a new
 * one in it. */
int64_t	 tp_thread_with_parent(struct tp *, int64_t tid, int64_t upid);
/* The thread tid as a member of process pid (main thread if equal). */
int64_t	 tp_thread_in_process(struct tp *, int64_t tid, int64_t pid);
void	 tp_thread_set_name(struct tp *, int64_t utid, const char *, size_t,
	    int prio);
/* Who named a process, as upstream ranks them: a name never yields to a
 * lower source; of equal ones the latest wins. */
enum tp_pname { TP_PNAME_CHROME_LABEL = 1, TP_PNAME_DESCRIPTOR = 2,
	TP_PNAME_CHROME_RENDERER = 3, TP_PNAME_SYSTEM = 4 };
void	 tp_process_set_name(struct tp *, int64_t upid, const char *, size_t,
	    enum tp_pname);
/* Appends one argv element to a space-joined cmdline in buf (cap bytes,
 * *len used); an element that does not fit is left out. */
void	 tp_cmdline_append(char *buf, size_t cap, size_t *len,
	    const uint8_t *arg, size_t arglen);
void	 tp_process_set_cmdline(struct tp *, int64_t upid, const char *,
	    size_t);
/* The process's arg set, made on first use. */
int64_t	 tp_process_arg_set(struct tp *, int64_t upid);
void	 tp_thread_end(struct tp *, int64_t tid, int64_t ts);
/* Sort index hints, by source; the first one set stays (upstream ranks
 * sources but never replaces a hint it holds). */
#define TP_SORT_OTHER		1
#define TP_SORT_DESCRIPTOR	2
void	 tp_process_set_sort_index(struct tp *, int64_t upid, int64_t v,
	    int prio);
void	 tp_thread_set_sort_index(struct tp *, int64_t utid, int64_t v,
	    int prio);
/* tp_hashorder.c: keys (unique) as upstream's hash map of integers
 * (typed: of typed ids) with entries of entry_bytes orders them, as
 * indexes into keys; NULL when out of memory. */
size_t	*tp_hashorder(const uint32_t *keys, size_t n, int typed,
	    size_t entry_bytes);
/* The same for keys of 64 bits. */
size_t	*tp_hashorder64(const uint64_t *keys, size_t n, size_t entry_bytes);
/* At the end of the trace: the hints become process and thread args. */
void	 tp_procs_sort_args(struct tp *);

/* Thread-name sources, lowest first (as upstream ranks them). Every
 * ftrace event (sched, task_newtask, task_rename) is one source: the latest
 * wins among them, and none replaces a name from a process tree. */
#define TP_NAME_SCHED	1
#define TP_NAME_TREE	2
#define TP_NAME_CHROME_TYPE	3
#define TP_NAME_TRACK	4

/* tp_etw.c: ETW event bundles (file I/O). */
void	 tp_etw_bundle_untrusted(struct tp *, const uint8_t *, size_t);
void	 tp_etw_parse_sorted(struct tp *, int64_t ts, const uint8_t *,
	    size_t);
/* At the end of the trace: operations still open end unseen. */
void	 tp_etw_end(struct tp *);
void	 tp_etw_free(struct tp *);

/* tp_machine.c: the machines a trace's packets come from. */
/* The machine of a packet (has_raw: it has a machine_id), in file
 * order: a new raw id makes a machine. */
uint32_t tp_machine_of_packet(struct tp *, int has_raw, uint32_t raw);
/* A cpu of the current (remote) machine carried data; the cpus noted,
 * and the next one (from *iter = 0; 0 at the end). */
void	 tp_machine_cpu_seen(struct tp *, int64_t cpu);
size_t	 tp_machine_count(const struct tp *);
size_t	 tp_machine_ncpus(struct tp *);
int	 tp_machine_cpu_next(struct tp *, size_t *iter, uint32_t *machine,
	    int64_t *cpu);
/* What the current machine's SystemInfo says of its cpus. */
void	 tp_machine_set_num_cpus(struct tp *, int64_t);
int	 tp_machines_write(struct tp *);
/* A cpu of the current machine as rows hold it (upstream's ucpu, the
 * cpu table's id): the host's its number, a remote machine's past. */
int64_t	 tp_ucpu(const struct tp *, int64_t cpu);
/* The same of a machine's cpu (0 <= cpu < TP_MAX_CPUS). */
static inline int64_t
tp_ucpu_of(uint32_t machine, int64_t cpu)
{
	return (int64_t)machine * TP_MAX_CPUS + cpu;
}
/* A machine's map of tids (pids: of pids) to live utids (upids): the
 * host's are tp's own, a remote machine's its own. */
struct tp_hash *tp_machine_ids(struct tp *, uint32_t machine, int pids);
void	 tp_machines_free(struct tp *);

/* tp_translation.c: the trace's translation tables. */
void	 tp_translation_untrusted(struct tp *, const uint8_t *, size_t);
/* The name to show for a slice or process track named so (itself when
 * no rule renames it; NULL stays NULL). */
const char *tp_translate_slice_name(struct tp *, const char *);
const char *tp_translate_process_track_name(struct tp *, const char *);
/* The Chrome study a hash stands for; NULL if none. */
const char *tp_translate_chrome_study(struct tp *, uint64_t);
void	 tp_translation_free(struct tp *);

/* tp_proto_chrome_process.c: at the end of the trace, the processes'
 * chrome.* args. */
void	 tp_proto_chrome_process_end(struct tp *);
void	 tp_proto_chrome_process_free(struct tp *);

/* tp_proto_chrome_thread.c: Chrome's thread descriptors. */
/* Whether a TrackDescriptor's chrome_thread says its tid is sandboxed. */
int	 tp_chrome_tid_sandboxed_untrusted(const uint8_t *, size_t);
/* A tid unique across processes: the pid in the high 32 bits. */
int64_t	 tp_chrome_synthetic_tid(int64_t tid, int64_t pid);
void	 tp_chrome_thread_untrusted(struct tp *, int64_t utid,
	    const uint8_t *, size_t);

/* tp_tracks.c: tracks, slice stacks, flows. */
void	 tp_tracks_free(struct tp *);
int64_t	 tp_track_new(struct tp *, enum tp_track_type, const char *name,
	    int64_t scope);
/* The track of this type, name and scope, created on first use. */
int64_t	 tp_track_intern(struct tp *, enum tp_track_type, const char *name,
	    int64_t scope);
/* The same with a discriminator (async ids, cookies) in the key. */
int64_t	 tp_track_intern_key(struct tp *, enum tp_track_type,
	    const char *name, int64_t scope, uint64_t discr);
/* tp_track_intern, a new track's dimensions led by lead, a NULL string
 * (before its thread's, process's or cpu's). */
int64_t	 tp_track_intern_lead(struct tp *, enum tp_track_type,
	    const char *name, int64_t scope, const char *lead);
int64_t	 tp_thread_track(struct tp *, int64_t utid);
/* A thread's instruction count on slices: at the start of the innermost
 * open one of track (and its delta, for a complete one), and at the end
 * of the one an end of cat and name would end. */
void	 tp_slice_instr_start(struct tp *, int64_t track, int64_t count,
	    int64_t delta);
void	 tp_slice_instr_end(struct tp *, int64_t track, const char *cat,
	    const char *name, int64_t count);
/* The track of legacy (Chrome) instants of global scope (upid TP_NULL) or
 * of a process's. */
int64_t	 tp_track_legacy_instants(struct tp *, int64_t upid);
/* The track of this type and name whose integer dimension key is v (one
 * track per value), created on first use with that dimension arg. */
/* The track's dimension and source arg sets, made on first use; their
 * args are given right after the track is made. */
int64_t	 tp_track_dim_set(struct tp *, int64_t track);
int64_t	 tp_track_source_set(struct tp *, int64_t track);
int64_t	 tp_track_intern_idim(struct tp *, enum tp_track_type,
	    const char *name, int64_t scope, const char *key, int64_t v);
const char *tp_track_type_name(enum tp_track_type);
/* Says what a track holds, as upstream's track type (a static string). */
void	 tp_track_kind(struct tp *, int64_t track, const char *kind);
/* A counter track's unit, set once (NULL: none). */
void	 tp_track_unit(struct tp *, int64_t track, const char *unit);
/* tp_track_intern, and a track it makes gets these string dimensions
 * (key, value pairs) after its utid/upid/cpu one, as upstream's
 * dimension_arg_set_id holds them. */
int64_t	 tp_track_intern_dims(struct tp *, enum tp_track_type, const char *name,
	    int64_t scope, const char *const *kv, size_t npairs);
/* A track dimension: its key and string value, or integer v when s is
 * NULL; a string dimension whose value is null has s TP_DIM_NULL_STR. */
struct tp_dim {
	const char	*key;
	const char	*s;
	int64_t		 v;
};
extern const char tp_dim_null_str[];
#define TP_DIM_NULL_STR	tp_dim_null_str
/* Appends dims to the track's dimension set (made if it has none). */
void	 tp_track_dims_add(struct tp *, int64_t track, const struct tp_dim *,
	    size_t n);
uint64_t tp_dims_hash(const struct tp_dim *, size_t n);
#define TP_DIM_STR(k, v)	\
	((struct tp_dim){ (k), (v) != NULL ? (v) : TP_DIM_NULL_STR, 0 })
#define TP_DIM_INT(k, v)	((struct tp_dim){ (k), NULL, (v) })
/* The track of this kind (a static string, upstream's type; NULL: set
 * apart with tp_track_kind), name, scope and n dimensions, made on first
 * use with dims after its utid/upid/cpu one; *created (when not NULL)
 * says whether it was made now, for its source args. */
int64_t	 tp_track_intern_dimv(struct tp *, enum tp_track_type,
	    const char *kind, const char *name, int64_t scope,
	    const struct tp_dim *, size_t n, int *created);
int64_t	 tp_slice_begin(struct tp *, int64_t track, int64_t ts,
	    const char *cat, const char *name, int64_t arg_set_id,
	    int64_t thread_ts);
/*
 * What a complete slice [ts, ts + dur) would overlap on track: the
 * innermost complete slice open there that it starts inside of and
 * outlasts, as upstream finds it (none under a slice still open).
 */
struct tp_overlap {
	int64_t		 start, end;	/* the span both would cover */
	const char	*name;		/* the open slice's; NULL: none */
	int64_t		 ts, dur;	/* the open slice's */
};
int	 tp_slice_overlaps(struct tp *, int64_t track, int64_t ts,
	    int64_t dur, struct tp_overlap *);
/* A slice whose end is known now (dur >= 0). */
int64_t	 tp_slice_complete(struct tp *, int64_t track, int64_t ts,
	    int64_t dur, const char *cat, const char *name, int64_t arg_set_id,
	    int64_t thread_ts, int64_t thread_dur);
/* Closes the innermost open slice; returns its id, or -1. *args_out
 * gets its arg set (allocated if needed) so end args can be added; then
 * tp_slice_end_done writes the slice (or the next slice call does). */
int64_t	 tp_slice_end(struct tp *, int64_t track, int64_t ts,
	    const char *name, int64_t thread_ts, int64_t *arg_set_out);
void	 tp_slice_end_done(struct tp *);
/* Ends the innermost open slice on track with this category and name
 * (NULL: any), and those open above it; its id, or -1 when none matched.
 * *set (if asked) gets its arg set, TP_NULL when none. */
int64_t	 tp_slice_end_matching(struct tp *, int64_t track, int64_t ts,
	    const char *cat, const char *name, int64_t thread_ts,
	    int64_t *set);
/* The slice open on track at ts (-1: none) and its start. */
int64_t	 tp_slice_top(struct tp *, int64_t track, int64_t ts,
	    int64_t *start);
/* The innermost slice open on track (complete ones aside) whose category
 * and name match (NULL: any; a slice without a name matches any name), as
 * its depth in the stack, or -1. */
int64_t	 tp_slice_find_open(struct tp *, int64_t track, const char *cat,
	    const char *name);
/* That slice's arg set, made if it has none, so args can join it before
 * it ends; TP_NULL when none matches. */
int64_t	 tp_slice_open_args(struct tp *, int64_t track, const char *cat,
	    const char *name);
void	 tp_slices_close_all(struct tp *);
/* Writes the open slices as they stand (dur -1); they stay open. */
void	 tp_slices_write_open(struct tp *);

/* tp_flow.c: flows between slices, as upstream's flow tracker. A flow is
 * known by a key: a TrackEvent flow id or bind_id, or tp_flow_v1_key's. */
uint64_t tp_flow_v1_key(struct tp *, uint64_t id, const char *cat,
	    const char *name);
int	 tp_flow_active(struct tp *, uint64_t key);
/* A flow leaves slice (which began at ts); a live one is not restarted. */
void	 tp_flow_begin(struct tp *, uint64_t key, int64_t slice, int64_t ts);
/* The flow's last slice joins this one, which the flow then leaves. */
void	 tp_flow_step(struct tp *, uint64_t key, int64_t slice, int64_t ts);
/* The same, the flow staying where it was; close: it ends here. */
void	 tp_flow_end(struct tp *, uint64_t key, int64_t slice, int64_t ts,
	    int close);
/* The same on the slice open on track at ts; an end not bound to it
 * (v1's) joins the next slice to begin on the track instead. */
#define TP_FLOW_BEGIN	1
#define TP_FLOW_STEP	2
#define TP_FLOW_END	3
void	 tp_flow_on_track(struct tp *, int op, uint64_t key, int64_t track,
	    int64_t ts, int bind_enclosing);
/* A slice began on track (tp_tracks.c): the ends waiting for it join. */
void	 tp_flow_slice_began(struct tp *, int64_t track, int64_t slice);
void	 tp_flow_free(struct tp *);

/* tp_track_pool.c: async slices sharing tracks of one name, as upstream's
 * track compressor: a begin takes the track its cookie holds, else the
 * first idle one, else a new one; an end finds its cookie's. A pool is
 * known by its key: tracks of a process when upid is not TP_NULL, of a
 * thread when utid is not, with the scope (when not NULL) and name among
 * their dimensions when name_dim. name may be NULL (unnamed tracks). */
struct tp_pool_key {
	const char	*kind;
	const char	*name;
	const char	*scope;
	int64_t		 upid;
	int		 name_dim;
	int		 scope_dim;	/* a dimension even when NULL */
	/* more dimensions, part of the key, before the tracks' index */
	const struct tp_dim *dims;
	size_t		 ndims;
	/* A descriptor's merged siblings (TrackEvent): tracks of utid (if
	 * not TP_NULL) or upid, with the parent's uuid and the merge key
	 * (type, and scope as its value) among their dimensions. */
	int		 merged;
	int64_t		 utid;
	int64_t		 parent_uuid;
	int		 merge_type;
	/* tracks of utid, not merged (unnamed when name is NULL) */
	int		 has_utid;
};
/* step: +1 a begin, -1 an end, 0 an instant (a begin and its end);
 * TP_POOL_FIRST: the pool's first track (made if none), as for a
 * parent; TP_POOL_BEGIN_ONCE: a begin of slices that do not nest
 * (atrace's), however many come. */
#define TP_POOL_FIRST		2
#define TP_POOL_BEGIN_ONCE	3
int64_t	 tp_track_pool_take(struct tp *, const struct tp_pool_key *,
	    uint64_t cookie, int step);
/* A slice of known span [ts, ts + dur): the first of the pool's tracks
 * for such slices whose last one has ended by ts, else a new one. */
int64_t	 tp_track_pool_scoped(struct tp *, const struct tp_pool_key *,
	    int64_t ts, int64_t dur);
/* The same, but a slice inside the innermost one open on a track goes
 * there too (JSON's overlapping complete events); ts never decreases. */
int64_t	 tp_track_pool_nested(struct tp *, const struct tp_pool_key *,
	    int64_t ts, int64_t dur);
/* A legacy async event (JSON's or TrackEvent's): its track is in the pool
 * of the first name its cookie ever had, so later slices of the cookie
 * nest there whatever their names, as upstream. upid is the event's
 * process (TP_NULL: none); step as above. */
struct tp_async {
	uint64_t	 cookie;
	int		 process_scoped;
	int64_t		 upid;
	const char	*name;
	const char	*scope;		/* NULL: none */
};
int64_t	 tp_track_async(struct tp *, const struct tp_async *, int step);
int64_t	 tp_track_pool_begin(struct tp *, const char *kind, const char *name,
	    uint64_t cookie);
int64_t	 tp_track_pool_end(struct tp *, const char *kind, const char *name,
	    uint64_t cookie);
void	 tp_track_pools_free(struct tp *);

/* tp_generic_kernel.c: TracePacket fields of the generic kernel events. */
#define TP_GK_TASK_STATE	117
#define TP_GK_CPU_FREQ		118
#define TP_GK_TASK_RENAME	120
#define TP_GK_PROCESS_TREE	122
#define TP_GK_GPU_FREQ		129
void	 tp_generic_kernel_packet(struct tp *, uint32_t field, int64_t ts,
	    const uint8_t *, size_t);
/* Writes the open sched slices and thread states; they stay open. */
void	 tp_generic_kernel_write_open(struct tp *);
void	 tp_generic_kernel_free(struct tp *);

/* tp_sorter.c */
enum tp_sort_kind {
	SK_PACKET,		/* TracePacket bytes */
	SK_FTRACE,		/* an FtraceEvent (tp_ftrace.c), cpu in aux */
	SK_COMPACT_SWITCH,	/* struct tp_compact_rec */
	SK_COMPACT_WAKING,
	SK_FTRACE_PART,		/* a part of one (tp_ftrace.c) */
	SK_ETW,			/* EtwTraceEvent bytes, cpu in aux */
	SK_JSON,		/* one traceEvents object */
	SK_SYSTRACE,		/* one text line */
	SK_STRACE,		/* one strace line */
	SK_POWER_RAIL,		/* one power rail sample (tp_proto_power.c) */
	SK_COUNTER,		/* a counter sample (tp_proto_cpu_per_uid.c) */
};

struct tp_sort_blk;

/* A record as its parser takes it (its copy in the sorter, tp_sorter.c). */
struct tp_sort_item {
	int64_t		 ts;
	uint64_t	 seq;		/* arrival order */
	union {
		void	*ref;		/* importer context, refcounted */
		int64_t	 key;		/* SK_JSON: order among equal ts */
	};
	uint8_t		*data;		/* in a block (tp_sorter.c) */
	uint32_t	 len;
	uint32_t	 aux;
	uint8_t		 kind;
	uint32_t	 machine;	/* tp->machine when pushed */
};

void	 tp_sorter_free(struct tp *);
/* A released record parsed; then its share of the sorter given back. */
void	 tp_sorter_parse(struct tp *, struct tp_sort_item *);
void	 tp_sorter_done(struct tp *, const struct tp_sort_item *,
	    uint64_t blk);
/* A released record by where it is, for the parse thread (tp_pipe.h). */
struct tp_sort_at {
	int64_t			 ts;
	struct tp_sort_blk	*blk;
	uint64_t		 pos;
};
void	 tp_sorter_item_at(const struct tp_sort_at *, struct tp_sort_item *);
/* A record to be parsed later: its bytes (near) or what its parse will
 * look up (the record read, its importer asked) fetched into the cache. */
void	 tp_sorter_ahead(struct tp *, const struct tp_sort_at *, int near);
void	 tp_sorter_done_at(struct tp *, const struct tp_sort_at *);
/* Copies data. Returns -1 when dropped (counted). */
int	 tp_sorter_push(struct tp *, int64_t ts, enum tp_sort_kind,
	    uint32_t aux, void *ref, const void *data, size_t len);
/* The same, hdr (hlen bytes) stored in front of data. */
int	 tp_sorter_push_hdr(struct tp *, int64_t ts, enum tp_sort_kind,
	    uint32_t aux, void *ref, const void *hdr, size_t hlen,
	    const void *data, size_t len);
/* SK_PACKET's aux: a track event (its own queue), whose data is the
 * TrackEvent's bytes alone (the packet's other fields were read when it
 * was tokenized); the tokenizer's thread time and instruction count (two
 * int64) in front of the data. */
#define TP_SORT_TRACK_EVENT	0x1u
#define TP_SORT_THREAD_VALS	0x2u
/*
 * A JSON event, placed among those of its timestamp as upstream places
 * them: key TP_JSON_KEY_END for an 'E', TP_JSON_KEY_OTHER - dur for an
 * 'X' (the longest, the parent, first), TP_JSON_KEY_OTHER for the rest.
 */
#define TP_JSON_KEY_END		INT64_MIN
#define TP_JSON_KEY_OTHER	INT64_MAX
int	 tp_sorter_push_json(struct tp *, int64_t ts, int64_t key,
	    const void *data, size_t len);
/* Releases items beyond the window (all when flush is set). */
void	 tp_sorter_drain(struct tp *, int flush);
/* Releases every item older than upto, whatever the window holds. */
void	 tp_sorter_release(struct tp *, int64_t upto);
/* A TracingServiceEvent all_data_sources_flushed was read. */
void	 tp_sorter_flushed(struct tp *);
/* A TracingServiceEvent read_tracing_buffers_completed was read. */
void	 tp_sorter_read_done(struct tp *);
/* Whether the sorter can hold everything to the end (nothing left it
 * yet, no live stream), and from now on it does. */
int	 tp_sorter_can_hold(const struct tp *);
void	 tp_sorter_hold(struct tp *);
/* Dispatch of one sorted item: tp_proto.c, tp_json.c, tp_systrace.c. */
void	 tp_proto_parse_sorted(struct tp *, struct tp_sort_item *);
void	 tp_json_parse_sorted(struct tp *, struct tp_sort_item *);
void	 tp_systrace_parse_sorted(struct tp *, struct tp_sort_item *);
void	 tp_strace_parse_sorted(struct tp *, struct tp_sort_item *);
void	 tp_proto_unref(void *ref);

/* tp_proto_system.c: state kept between SysStats samples. */
void	 tp_sysstats_free(struct tp *);

/* tp_lines.c: a text trace cut into lines across the chunks it comes
 * in; fn gets each whole line, without its newline. A line longer than
 * TP_MAX_LINE is dropped and counted as the stat overlong. */
#define TP_MAX_LINE	(1u << 20)
struct tp_lines {
	char		*line;		/* the part of a line seen so far */
	size_t		 len, cap;
	int		 skip;		/* an overlong line */
};
typedef void (*tp_line_fn)(struct tp *, const char *, size_t);
int	 tp_lines_feed(struct tp *, struct tp_lines *, const uint8_t *,
	    size_t, tp_line_fn fn, enum tp_stat overlong);
/* The unterminated last line, if any (1); it is consumed. */
int	 tp_lines_rest(struct tp_lines *, const char **, size_t *);
void	 tp_lines_free(struct tp_lines *);

/* Importers' stream entry points. */
int	 tp_proto_feed(struct tp *, const uint8_t *, size_t);
int	 tp_proto_end(struct tp *);
void	 tp_proto_free(struct tp *);
int	 tp_json_feed(struct tp *, const uint8_t *, size_t);
int	 tp_json_end(struct tp *);
void	 tp_json_free(struct tp *);
int	 tp_systrace_feed(struct tp *, const uint8_t *, size_t);
int	 tp_systrace_end(struct tp *);
void	 tp_systrace_free(struct tp *);
/* tp_strace.c: strace -f -ttt text. */
int	 tp_strace_sniff(const uint8_t *, size_t);
int	 tp_strace_feed(struct tp *, const uint8_t *, size_t);
int	 tp_strace_end(struct tp *);
/* After the last sorted line: calls left unfinished get their args. */
void	 tp_strace_flush(struct tp *);
void	 tp_strace_free(struct tp *);

/* tp_ftrace.c: ftrace events (from proto bundles and from text). */
struct pb_field;
struct tp_gen;
/* One FtraceEvent, as the sorter holds it (SK_FTRACE: the bundle's
 * tokenizer or tp_ftrace_push put it there); gen is its sequence's
 * interned state (kernel symbols), or NULL. */
void	 tp_ftrace_parse_event(struct tp *, const struct tp_gen *, int64_t ts,
	    uint32_t cpu, const uint8_t *, size_t);
/* The same event, some records before it is parsed: what its parse
 * will look up is fetched into the cache. */
void	 tp_ftrace_ahead(struct tp *, const uint8_t *, size_t);
/* Part of one (SK_FTRACE_PART): its ftrace_event row (FT_ROW) or its
 * meaning (FT_EFFECTS), for an event whose meaning is placed at another
 * time than its own. */
#define FT_ROW		1
#define FT_EFFECTS	2
void	 tp_ftrace_parse_event_part(struct tp *, const struct tp_gen *,
	    int64_t ts, uint32_t cpu, const uint8_t *, size_t);
/* tp_ftrace_adreno.c: whether FtraceEvent field evid is an event it
 * tokenizes; at tokenization, an Adreno cmdbatch event that it placed in
 * the sorter itself (1), else 0. */
int	 tp_ftrace_adreno_tokenizes(uint32_t evid);
/* Pushes an ftrace event to the sorter at ts: whole (parts 0), or its row
 * or effects alone (FT_ROW, FT_EFFECTS) with raw_ts its own time. */
void	 tp_ftrace_push(struct tp *, struct tp_gen *, uint32_t cpu,
	    int64_t ts, int64_t raw_ts, int parts, const uint8_t *, size_t);
/* tp_ftrace_thermal.c: whether FtraceEvent field evid is an event it
 * tokenizes (Exynos ACPM's bulk report: its row at its own time, its
 * counters at the sample time it carries); the tokenizing of an event
 * and its report. */
int	 tp_ftrace_thermal_tokenizes(uint32_t evid);
void	 tp_ftrace_thermal_tokenize(struct tp *, struct tp_gen *, uint32_t cpu,
	    int64_t ts, const uint8_t *ev, size_t len, const uint8_t *rep,
	    size_t replen);
int	 tp_ftrace_adreno_tokenize(struct tp *, struct tp_gen *, uint32_t cpu,
	    int64_t ts, const uint8_t *, size_t);
void	 tp_ftrace_adreno_free(struct tp *);
void	 tp_ftrace_compact_switch(struct tp *, int64_t ts, uint32_t cpu,
	    const uint8_t *, size_t);
void	 tp_ftrace_compact_waking(struct tp *, int64_t ts, uint32_t cpu,
	    const uint8_t *, size_t);
void	 tp_ftrace_sched_switch(struct tp *, int64_t ts, uint32_t cpu,
	    const char *prev_comm, size_t prev_comm_len, int64_t prev_pid,
	    int64_t prev_prio, const char *prev_state, const char *next_comm,
	    size_t next_comm_len, int64_t next_pid, int64_t next_prio);
/* A sched_switch known field by field (compact or text ftrace): its
 * ftrace_event row, then its effects. */
void	 tp_ftrace_switch_fields(struct tp *, int64_t ts, uint32_t cpu,
	    const char *prev_comm, size_t prev_comm_len, int64_t prev_pid,
	    int64_t prev_prio, int64_t prev_state, const char *next_comm,
	    size_t next_comm_len, int64_t next_pid, int64_t next_prio);
void	 tp_ftrace_sched_waking(struct tp *, int64_t ts, uint32_t cpu,
	    int64_t waker_tid, int64_t pid, const char *comm, size_t comm_len,
	    int64_t common_flags);
/* sched_blocked_reason, binary or text (fn: the caller or NULL). */
void	 tp_ftrace_blocked_reason(struct tp *, int64_t tid, int64_t io_wait,
	    const char *fn, size_t fn_len);
void	 tp_ftrace_print(struct tp *, int64_t ts, int64_t tid,
	    const char *buf, size_t len);
/* tp_proto_sysprop.c: Android's state that atrace and system properties
 * both write, on global tracks. */
void	 tp_battery_stats_counter(struct tp *, int64_t ts, const char *name,
	    double v);
void	 tp_screen_state_counter(struct tp *, int64_t ts, double v);
/* An instant on the DeviceStateChanged track, named by the state. */
void	 tp_device_state_slice(struct tp *, int64_t ts, const char *state,
	    size_t len);
/* kind: upstream's track type ("cpu_frequency"); name: the track's. */
void	 tp_ftrace_cpu_counter(struct tp *, int64_t ts, const char *kind,
	    const char *name, int64_t cpu, double v);
/* workqueue_execute_start (function: the work function's name; cpu an
 * arg unless TP_NULL) and workqueue_execute_end (function NULL). */
void	 tp_ftrace_workqueue(struct tp *, int64_t ts, int64_t cpu,
	    int64_t tid, const char *function);

/* An FtraceEvent's payload by field number (numbers below TP_EV_FIELDS),
 * for the importers of the events that mean more than their args. */
#define TP_EV_FIELDS	32
struct tp_ftrace_ev {
	uint32_t	 has;		/* bit n: field n was there */
	int64_t		 v[TP_EV_FIELDS];
	const char	*s[TP_EV_FIELDS];
	size_t		 slen[TP_EV_FIELDS];
};
void	 tp_ftrace_ev_decode(const uint8_t *, size_t, struct tp_ftrace_ev *);
/* Each returns 1 when evid is one of its events (handled), else 0. */
int	 tp_ftrace_cpu_event(struct tp *, int64_t ts, uint32_t cpu,
	    int64_t pid, uint32_t evid, const struct tp_ftrace_ev *);
int	 tp_ftrace_power_event(struct tp *, int64_t ts, uint32_t cpu,
	    int64_t pid, uint32_t evid, const struct tp_ftrace_ev *);
int	 tp_ftrace_block_event(struct tp *, int64_t ts, uint32_t cpu,
	    int64_t pid, uint32_t evid, const struct tp_ftrace_ev *);
int	 tp_ftrace_mm_event(struct tp *, int64_t ts, uint32_t cpu,
	    int64_t pid, uint32_t evid, const struct tp_ftrace_ev *);
int	 tp_ftrace_f2fs_event(struct tp *, int64_t ts, uint32_t cpu,
	    int64_t pid, uint32_t evid, const struct tp_ftrace_ev *);
int	 tp_ftrace_thermal_event(struct tp *, int64_t ts, uint32_t cpu,
	    int64_t pid, uint32_t evid, const struct tp_ftrace_ev *);
int	 tp_ftrace_ufs_event(struct tp *, int64_t ts, uint32_t cpu,
	    int64_t pid, uint32_t evid, const struct tp_ftrace_ev *);
int	 tp_ftrace_kmark_event(struct tp *, int64_t ts, uint32_t cpu,
	    int64_t pid, uint32_t evid, const struct tp_ftrace_ev *);
int	 tp_ftrace_androidfs_event(struct tp *, int64_t ts, uint32_t cpu,
	    int64_t pid, uint32_t evid, const struct tp_ftrace_ev *);
void	 tp_ftrace_androidfs_free(struct tp *);
int	 tp_ftrace_adreno_event(struct tp *, int64_t ts, uint32_t cpu,
	    int64_t pid, uint32_t evid, const struct tp_ftrace_ev *);
int	 tp_ftrace_drm_event(struct tp *, int64_t ts, uint32_t cpu,
	    int64_t pid, uint32_t evid, const struct tp_ftrace_ev *);
void	 tp_ftrace_drm_free(struct tp *);
int	 tp_ftrace_v4l2_event(struct tp *, int64_t ts, uint32_t cpu,
	    int64_t pid, uint32_t evid, const struct tp_ftrace_ev *);
void	 tp_ftrace_v4l2_free(struct tp *);
int	 tp_ftrace_virtio_gpu_event(struct tp *, int64_t ts, uint32_t cpu,
	    int64_t pid, uint32_t evid, const struct tp_ftrace_ev *);
void	 tp_ftrace_virtio_gpu_free(struct tp *);
int	 tp_ftrace_virtio_video_event(struct tp *, int64_t ts, uint32_t cpu,
	    int64_t pid, uint32_t evid, const struct tp_ftrace_ev *);
int	 tp_ftrace_cros_event(struct tp *, int64_t ts, uint32_t cpu,
	    int64_t pid, uint32_t evid, const struct tp_ftrace_ev *);

/* tp_stack_profile.c: the callsite of interned callstack iid of the
 * generation, for process upid (TP_NULL: none); -1 when it cannot be
 * resolved (counted). */
int64_t	 tp_stack_profile_callsite(struct tp *, const struct tp_gen *,
	    int64_t upid, uint64_t iid);
/* A mapping of no binary (frames named by a profiler); a new one each
 * call. */
int64_t	 tp_stack_profile_dummy_mapping(struct tp *, const char *name);
/* The frame of that name in such a mapping, with its symbol. */
int64_t	 tp_stack_profile_dummy_frame(struct tp *, int64_t mapping,
	    const char *name, size_t len);
/* The callsite of frame under parent (TP_NULL: a root) at depth. */
int64_t	 tp_stack_profile_callsite_intern(struct tp *, int64_t parent,
	    int64_t frame, int64_t depth);
void	 tp_stack_profile_free(struct tp *);
/* tp_perf_sample.c: a PerfSample packet of sequence seq. */
void	 tp_perf_sample(struct tp *, const struct tp_gen *, uint32_t seq,
	    int64_t ts, const uint8_t *, size_t);
void	 tp_perf_sample_free(struct tp *);
/* tp_heap_profile.c: a ProfilePacket of sequence seq at ts. */
void	 tp_heap_profile_packet(struct tp *, struct tp_gen *, uint32_t seq,
	    int64_t ts, const uint8_t *, size_t);
void	 tp_heap_profile_free(struct tp *);

/* tp_gecko.c: a Firefox profiler JSON profile, read whole at the end. */
int	 tp_gecko_feed(struct tp *, const uint8_t *, size_t);
int	 tp_gecko_end(struct tp *);
void	 tp_gecko_free(struct tp *);

/* tp_gpu.c: a GPU id's ugpu (its gpu row, made on first use; -1 on
 * failure), and its frequency counter. */
int64_t	 tp_gpu_get(struct tp *, uint32_t gpu);
void	 tp_gpu_frequency(struct tp *, int64_t ts, uint32_t gpu, double khz);
int	 tp_gpu_ftrace_event(struct tp *, int64_t ts, uint32_t cpu,
	    int64_t pid, uint32_t evid, const struct tp_ftrace_ev *);
void	 tp_gpus_free(struct tp *);
int	 tp_ftrace_net_event(struct tp *, int64_t ts, uint32_t cpu,
	    int64_t pid, uint32_t evid, const struct tp_ftrace_ev *);
/* tp_ftrace_binder.c: binder transactions, from proto or text events. */
struct tp_binder_txn {
	int64_t		 id, dest_node, dest_tgid, dest_tid;
	int		 reply;
	uint32_t	 flags;
	const char	*code;		/* the code arg's text */
};
void	 tp_binder_transaction(struct tp *, int64_t ts, int64_t tid,
	    const struct tp_binder_txn *);
void	 tp_binder_received(struct tp *, int64_t ts, int64_t tid, int64_t id);
void	 tp_binder_command(struct tp *, int64_t tid, uint32_t cmd);
void	 tp_binder_return(struct tp *, int64_t ts, int64_t tid, uint32_t cmd);
void	 tp_binder_alloc_buf(struct tp *, int64_t tid, uint64_t data_size,
	    uint64_t offsets_size);
#define TP_BINDER_LOCK		1
#define TP_BINDER_LOCKED	2
#define TP_BINDER_UNLOCK	3
void	 tp_binder_lock(struct tp *, int64_t ts, int64_t tid, int what);
int	 tp_ftrace_binder_event(struct tp *, int64_t ts, uint32_t cpu,
	    int64_t pid, uint32_t evid, const struct tp_ftrace_ev *);
void	 tp_ftrace_binder_free(struct tp *);
/* A cpu's frequency limits (either may be NULL: not known). */
void	 tp_ftrace_cpu_freq_limits(struct tp *, int64_t ts, int64_t cpu,
	    const double *max, const double *min);
void	 tp_ftrace_power_free(struct tp *);
void	 tp_ftrace_mm_free(struct tp *);
void	 tp_ftrace_net_free(struct tp *);
void	 tp_ftrace_end(struct tp *);
/* Writes the open sched slices and thread states; they stay open. */
void	 tp_ftrace_write_open(struct tp *);
void	 tp_ftrace_free(struct tp *);
/* A sched_switch prev_state into upstream's letters ("S", "R+", "DK") for
 * the kernel that wrote it; 0 (and "") if the bits are invalid for it. */
#define TP_STATE_MAX	8
int	 tp_task_state_str(int64_t state, int kernel_version, char *, size_t);
/* ftrace text's prev_state ("D|K", "R+") as a 4.4 kernel's bits, the
 * release text is read as (0xffff: not a state), as upstream. */
int64_t	 tp_task_state_text(const char *, size_t);
/* A real as upstream's SQLite casts it to text (tp_real_text.c): the
 * length written to out (48 bytes hold any); __intrinsic_real_text(). */
size_t	 tp_real_text(double, char *out, size_t cap);
int	 tp_real_text_register(struct tp *);
/* tp_tempvfs.c: SQLite's temporary files in memory, through the default
 * VFS (once per process, before the first database). */
int	 tp_tempvfs_register(void);
/* to_ftrace(): ftrace_event rows as text (tp_to_ftrace.c). */
int	 tp_to_ftrace_register(struct tp *);

#endif
