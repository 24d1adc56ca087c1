/*
 * The stats table: upstream's stat names, severities and sources for the
 * counters the importers keep, written at tp_eof() and each tp_checkpoint().
 */
#include <string.h>

#include "tp_int.h"
#include "importers/tp_pipe.h"

struct stat_desc {
	const char	*name;
	const char	*severity;	/* info, error, data_loss */
	const char	*source;	/* trace, analysis */
	const char	*desc;
};

static const struct stat_desc stat_descs[ST_COUNT] = {
	[ST_SORTER_OUT_OF_ORDER] = { "sorter_push_event_out_of_order",
	    "error", "trace", "Packets older than the sorting window: dropped." },
	/* Upstream v58 keeps this at 0 and counts the packets below. */
	[ST_TOKENIZER_SKIPPED_PACKETS] = { "tokenizer_skipped_packets",
	    "info", "analysis", "" },
	[ST_PACKET_SKIPPED_STATE_INVALID] = {
	    "packet_skipped_seq_needs_incremental_state_invalid", "notice",
	    "analysis", "Packets needing incremental state that was lost." },
	[ST_INTERNED_SKIPPED_STATE_INVALID] = {
	    "interned_data_skipped_incremental_state_invalid", "notice",
	    "analysis", "Interned data sent while the state was lost." },
	[ST_INTERNED_DATA_TOKENIZER_ERRORS] = {
	    "interned_data_tokenizer_errors", "info", "analysis",
	    "Malformed or missing interned data." },
	[ST_TRACK_EVENT_PARSER_ERRORS] = { "track_event_parser_errors",
	    "info", "analysis",
	    "Malformed TrackEvents, or on an unknown or missing track." },
	[ST_TRACK_EVENT_TOKENIZER_ERRORS] = { "track_event_tokenizer_errors",
	    "info", "analysis", "Malformed track descriptors or timestamps." },
	[ST_TRACK_EVENT_INVALID_TIMESTAMP] = {
	    "track_event_invalid_timestamp", "error", "analysis",
	    "TrackEvents whose timestamp was out of range (microseconds too"
	    " large, a delta past the range): dropped." },
	[ST_MISPLACED_END_EVENT] = { "misplaced_end_event", "data_loss",
	    "analysis", "End events with no matching begin." },
	/* faro records no heap graphs: always 0, listed as upstream lists
	 * it (the UI reads the row). */
	[ST_HEAP_GRAPH_NON_FINALIZED_GRAPH] = {
	    "heap_graph_non_finalized_graph", "data_loss", "trace",
	    "Heap graphs whose dump never completed: the graph misses"
	    " objects." },
	[ST_CLOCK_SYNC_FAILURE] = { "clock_sync_failure", "error",
	    "analysis", "Timestamps that overflowed on their way to trace"
	    " time." },
	[ST_CLOCK_SYNC_FAILURE_UNKNOWN_SOURCE_CLOCK] = {
	    "clock_sync_failure_unknown_source_clock", "error", "analysis",
	    "Timestamps in a clock no snapshot named." },
	[ST_CLOCK_SYNC_FAILURE_UNDEFERRABLE_PACKET_LOSS] = {
	    "clock_sync_failure_undeferrable_packet_loss", "data_loss",
	    "analysis", "Packets dropped as their timestamp could not be"
	    " converted." },
	[ST_CLOCK_SYNC_FAILURE_NO_PATH] = { "clock_sync_failure_no_path",
	    "error", "analysis", "Timestamps of a clock no chain of snapshots"
	    " ties to the trace clock." },
	[ST_STREAMING_PROFILE_INVALID_TIMESTAMP] = {
	    "streaming_profile_invalid_timestamp", "error", "analysis",
	    "Streaming profile packets whose time was negative: dropped." },
	[ST_INVALID_CLOCK_SNAPSHOTS] = { "invalid_clock_snapshots", "error",
	    "analysis", "" },
	[ST_FTRACE_BUNDLE_TOKENIZER_ERRORS] = {
	    "ftrace_bundle_tokenizer_errors", "error", "analysis", "" },
	[ST_COMPACT_SCHED_HAS_PARSE_ERRORS] = {
	    "compact_sched_has_parse_errors", "error", "trace", "" },
	[ST_COMPACT_SCHED_SWITCH_SKIPPED] = {
	    "compact_sched_switch_skipped", "info", "analysis", "" },
	[ST_COMPACT_SCHED_WAKING_SKIPPED] = {
	    "compact_sched_waking_skipped", "info", "analysis", "" },
	[ST_MISMATCHED_SCHED_SWITCH_TIDS] = { "mismatched_sched_switch_tids",
	    "error", "analysis", "" },
	[ST_TASK_STATE_INVALID] = { "task_state_invalid", "error",
	    "analysis", "" },
	[ST_JSON_TOKENIZER_FAILURE] = { "json_tokenizer_failure", "error",
	    "trace", "" },
	[ST_JSON_PARSER_FAILURE] = { "json_parser_failure", "error", "trace",
	    "" },
	[ST_JSON_DISPLAY_TIME_UNIT] = { "json_display_time_unit", "info",
	    "trace", "displayTimeUnit was set; timestamps stay in us." },
	[ST_SYSTRACE_PARSE_FAILURE] = { "systrace_parse_failure", "error",
	    "analysis", "" },
	[ST_PROCESS_TRACKER_PARENT_PID_CHANGED] = {
	    "process_tracker_parent_pid_changed", "info", "analysis",
	    "Processes seen later with another parent: kept as the same"
	    " process, reparented, not a reused pid." },
	[ST_PROCESS_TRACKER_ERRORS] = { "process_tracker_errors", "error",
	    "analysis", "" },
	[ST_FLOW_END_WITHOUT_START] = { "flow_end_without_start", "info",
	    "trace", "" },
	[ST_FLOW_NO_ENCLOSING_SLICE] = { "flow_no_enclosing_slice", "error",
	    "trace", "" },
	[ST_FLOW_INVALID_ID] = { "flow_invalid_id", "error", "trace", "" },
	[ST_FLOW_DUPLICATE_ID] = { "flow_duplicate_id", "error", "trace", "" },
	[ST_FLOW_STEP_WITHOUT_START] = { "flow_step_without_start", "info",
	    "trace", "" },
	[ST_FLOW_WITHOUT_DIRECTION] = { "flow_without_direction", "error",
	    "trace", "" },
	[ST_MEMINFO_UNKNOWN_KEYS] = { "meminfo_unknown_keys", "error",
	    "analysis", "" },
	[ST_VMSTAT_UNKNOWN_KEYS] = { "vmstat_unknown_keys", "error",
	    "analysis", "" },
	[ST_INVALID_CPU_TIMES] = { "invalid_cpu_times", "error", "analysis",
	    "" },
	[ST_PSI_UNKNOWN_RESOURCE] = { "psi_unknown_resource", "error",
	    "analysis", "" },
	[ST_SLICE_NEGATIVE_DURATION] = { "slice_negative_duration", "error",
	    "analysis", "" },
	[ST_SLICE_SPILL_OVERLAPPING_COMPLETE] = {
	    "slice_spill_overlapping_complete_event", "error", "analysis",
	    "JSON complete events that overlapped another on their thread:"
	    " put on a track of overlapping slices of the thread." },
	[ST_SLICE_MAX_DEPTH_EXCEEDED] = { "slice_max_depth_exceeded", "error",
	    "analysis", "Slices dropped: they would have nested deeper than"
	    " the deepest a track holds." },
	[ST_SLICE_DROP_OVERLAPPING_COMPLETE] = {
	    "slice_drop_overlapping_complete_event", "error", "analysis",
	    "Complete events that overlapped another and had nowhere to go:"
	    " dropped." },
	[ST_TRACE_SORTER_NEGATIVE_TS] = {
	    "trace_sorter_negative_timestamp_dropped", "error", "trace", "" },
	/* faro's own: upstream has no single stat for broken framing. */
	[ST_PROTO_DECODE_ERRORS] = { "proto_decode_errors", "error", "trace",
	    "Malformed protobuf messages (truncated, bad lengths)." },
	[ST_TRACED_CHUNKS_DISCARDED] = { "traced_chunks_discarded", "info",
	    "trace", "" },
	[ST_TRACED_PATCHES_DISCARDED] = { "traced_patches_discarded", "info",
	    "trace", "" },
	[ST_TRACED_PRODUCERS_CONNECTED] = { "traced_producers_connected",
	    "info", "trace", "" },
	[ST_TRACED_PRODUCERS_SEEN] = { "traced_producers_seen", "info",
	    "trace", "" },
	[ST_TRACED_DATA_SOURCES_REGISTERED] = {
	    "traced_data_sources_registered", "info", "trace", "" },
	[ST_TRACED_DATA_SOURCES_SEEN] = { "traced_data_sources_seen", "info",
	    "trace", "" },
	[ST_TRACED_TRACING_SESSIONS] = { "traced_tracing_sessions", "info",
	    "trace", "" },
	[ST_TRACED_TOTAL_BUFFERS] = { "traced_total_buffers", "info", "trace",
	    "" },
	[ST_TRACED_FLUSHES_REQUESTED] = { "traced_flushes_requested", "info",
	    "trace", "" },
	[ST_TRACED_FLUSHES_SUCCEEDED] = { "traced_flushes_succeeded", "info",
	    "trace", "" },
	[ST_TRACED_FLUSHES_FAILED] = { "traced_flushes_failed", "data_loss",
	    "trace", "" },
	[ST_TRACED_FINAL_FLUSH_SUCCEEDED] = {
	    "traced_final_flush_succeeded", "info", "trace", "" },
	[ST_TRACED_FINAL_FLUSH_FAILED] = { "traced_final_flush_failed",
	    "data_loss", "trace", "" },
	[ST_FILTER_ERRORS] = { "filter_errors", "error", "trace", "" },
	[ST_FILTER_INPUT_BYTES] = { "filter_input_bytes", "info", "trace",
	    "" },
	[ST_FILTER_INPUT_PACKETS] = { "filter_input_packets", "info", "trace",
	    "" },
	[ST_FILTER_OUTPUT_BYTES] = { "filter_output_bytes", "info", "trace",
	    "" },
	[ST_FILTER_TIME_TAKEN_NS] = { "filter_time_taken_ns", "info", "trace",
	    "" },
	[ST_FTRACE_KPROBE_HITS_BEGIN] = { "ftrace_kprobe_hits_begin", "info",
	    "trace", "" },
	[ST_FTRACE_KPROBE_HITS_END] = { "ftrace_kprobe_hits_end", "info",
	    "trace", "" },
	[ST_FTRACE_KPROBE_HITS_DELTA] = { "ftrace_kprobe_hits_delta", "info",
	    "trace", "" },
	[ST_FTRACE_KPROBE_MISSES_BEGIN] = { "ftrace_kprobe_misses_begin",
	    "info", "trace", "" },
	[ST_FTRACE_KPROBE_MISSES_END] = { "ftrace_kprobe_misses_end", "info",
	    "trace", "" },
	[ST_FTRACE_KPROBE_MISSES_DELTA] = { "ftrace_kprobe_misses_delta",
	    "data_loss", "trace", "kretprobe misses while tracing." },
	[ST_FTRACE_SETUP_ERRORS] = { "ftrace_setup_errors", "notice", "trace",
	    "Ftrace events or atrace categories that failed to enable." },
	[ST_FTRACE_ABI_ERRORS_SKIPPED_ZERO_DATA_LENGTH] = {
	    "ftrace_abi_errors_skipped_zero_data_length", "info", "analysis",
	    "" },
	[ST_CLOCK_SYNC_CACHE_MISS] = { "clock_sync_cache_miss", "info",
	    "analysis", "" },
	[ST_TRACED_CLONE_TRIGGER_TIMESTAMP_NS] = {
	    "traced_clone_trigger_timestamp_ns", "info", "trace",
	    "The timestamp when trigger for the clone snapshot operation for "
	    "this trace was received" },
	[ST_GENERIC_TASK_STATE_INVALID_ORDER] = {
	    "generic_task_state_invalid_order", "error", "analysis",
	    "Invalid order of generic task state events. Should never happen."
	    },
	[ST_STRACE_PARSE_FAILURE] = { "strace_parse_failure", "info",
	    "trace", "A line of an strace trace that is no syscall: skipped." },
	[ST_STRACE_UNSUPPORTED_TIMESTAMP_FORMAT] = {
	    "strace_unsupported_timestamp_format", "error", "trace",
	    "A syscall line with a -t/-tt time of day (no date): skipped;"
	    " record with -ttt." },
	[ST_STRACE_MISSING_PID] = { "strace_missing_pid", "error", "trace",
	    "A syscall line without a pid: skipped; record with -f." },
	/* faro's own: upstream skips such events without a word. */
	[ST_ETW_TOKENIZER_ERRORS] = { "etw_tokenizer_errors", "info", "trace",
	    "ETW events without a cpu or time, or with a cpu past 1023:"
	    " skipped." },
	/* Wall time spent in tp_parse(), as upstream times its Parse(). */
	[ST_PARSE_TRACE_DURATION_NS] = { "parse_trace_duration_ns", "info",
	    "analysis", "" },
	[ST_POWER_RAIL_EMPTY_PACKET] = { "power_rail_empty_packet", "error",
	    "analysis", "PowerRails packets with no energy samples." },
	[ST_POWER_RAIL_UNKNOWN_INDEX] = { "power_rail_unknown_index", "error",
	    "trace", "Energy samples of a rail no descriptor named: dropped." },
	[ST_ENERGY_DESCRIPTOR_INVALID] = { "energy_descriptor_invalid",
	    "error", "analysis", "Energy consumer or entity state descriptors"
	    " without their id: ignored." },
	[ST_ENERGY_BREAKDOWN_MISSING_VALUES] = {
	    "energy_breakdown_missing_values", "error", "analysis",
	    "Energy estimates without a consumer, its energy or its"
	    " descriptor: dropped." },
	[ST_ENERGY_UID_BREAKDOWN_MISSING_VALUES] = {
	    "energy_uid_breakdown_missing_values", "error", "analysis",
	    "Per-uid energy estimates without a uid or energy: dropped." },
	[ST_ENTITY_STATE_RESIDENCY_INVALID] = {
	    "entity_state_residency_invalid", "error", "analysis",
	    "EntityStateResidency packets with no residency." },
	[ST_ENTITY_STATE_RESIDENCY_LOOKUP_FAILED] = {
	    "entity_state_residency_lookup_failed", "error", "analysis",
	    "Residencies of an entity state no descriptor named: the rest of"
	    " their packet is dropped." },
	[ST_CPU_INFO_UNKNOWN_CPU_FEATURES] = {
	    "cpu_info_unknown_cpu_features", "info", "analysis",
	    "CPUs with feature bits this version does not know: kept only"
	    " in cpu_features.raw_bitmap." },
	[ST_STACKPROFILE_INVALID_STRING_ID] = {
	    "stackprofile_invalid_string_id", "error", "trace", "" },
	[ST_STACKPROFILE_INVALID_MAPPING_ID] = {
	    "stackprofile_invalid_mapping_id", "error", "trace", "" },
	[ST_STACKPROFILE_INVALID_FRAME_ID] = {
	    "stackprofile_invalid_frame_id", "error", "trace", "" },
	[ST_STACKPROFILE_INVALID_CALLSTACK_ID] = {
	    "stackprofile_invalid_callstack_id", "error", "trace", "" },
	[ST_STACKPROFILE_EMPTY_CALLSTACK] = { "stackprofile_empty_callstack",
	    "error", "trace", "Callstacks without frames: ignored." },
	[ST_SYMBOLIZATION_TMP_BUILD_ID_NOT_FOUND] = {
	    "symbolization_tmp_build_id_not_found", "error", "analysis",
	    "Mappings of files in /data/local/tmp without a build id:"
	    " SELinux keeps their binaries from being symbolized there; use"
	    " /data/local/tests." },
	[ST_PERF_SAMPLES_SKIPPED] = { "perf_samples_skipped", "info",
	    "trace", "Perf samples the profiler could not read or unwind." },
	[ST_PERF_SAMPLES_SKIPPED_DATALOSS] = {
	    "perf_samples_skipped_dataloss", "data_loss", "trace",
	    "Perf samples the profiler (traced_perf) dropped under load:"
	    " any traced process may miss some." },
	[ST_HEAPPROFD_MISSING_PACKET] = { "heapprofd_missing_packet",
	    "error", "trace", "" },
	[ST_PERF_CPU_LOST_RECORDS] = { "perf_cpu_lost_records", "data_loss",
	    "trace", "Perf samples the kernel lost (its buffer overran), by"
	    " cpu: which processes miss some is not known." },
	[ST_HEAPPROFD_MALFORMED_PACKET] = { "heapprofd_malformed_packet",
	    "error", "trace", "Heap dump samples whose totals shrank, by"
	    " process: skipped." },
	[ST_FTRACE_THERMAL_EXYNOS_ACPM_UNKNOWN_TZ_ID] = {
	    "ftrace_thermal_exynos_acpm_unknown_tz_id", "error", "analysis",
	    "" },
	[ST_TRACED_BUF_BUFFER_SIZE] = { "traced_buf_buffer_size", "info",
	    "trace", "" },
	[ST_TRACED_BUF_BYTES_WRITTEN] = { "traced_buf_bytes_written", "info",
	    "trace", "" },
	[ST_TRACED_BUF_BYTES_OVERWRITTEN] = { "traced_buf_bytes_overwritten",
	    "info", "trace", "" },
	[ST_TRACED_BUF_BYTES_READ] = { "traced_buf_bytes_read", "info",
	    "trace", "" },
	[ST_TRACED_BUF_BYTES_FILTERED_OUT] = {
	    "traced_buf_bytes_filtered_out", "info", "trace", "" },
	[ST_TRACED_BUF_PADDING_BYTES_WRITTEN] = {
	    "traced_buf_padding_bytes_written", "info", "trace", "" },
	[ST_TRACED_BUF_PADDING_BYTES_CLEARED] = {
	    "traced_buf_padding_bytes_cleared", "info", "trace", "" },
	[ST_TRACED_BUF_CHUNKS_WRITTEN] = { "traced_buf_chunks_written", "info",
	    "trace", "" },
	[ST_TRACED_BUF_CHUNKS_REWRITTEN] = { "traced_buf_chunks_rewritten",
	    "info", "trace", "" },
	[ST_TRACED_BUF_CHUNKS_RELOCATED] = { "traced_buf_chunks_relocated",
	    "info", "trace", "" },
	[ST_TRACED_BUF_CHUNKS_OVERWRITTEN] = {
	    "traced_buf_chunks_overwritten", "info", "trace", "" },
	[ST_TRACED_BUF_CHUNKS_DISCARDED] = { "traced_buf_chunks_discarded",
	    "info", "trace", "" },
	[ST_TRACED_BUF_CHUNKS_READ] = { "traced_buf_chunks_read", "info",
	    "trace", "" },
	[ST_TRACED_BUF_CHUNKS_COMMITTED_OUT_OF_ORDER] = {
	    "traced_buf_chunks_committed_out_of_order", "info", "trace", "" },
	[ST_TRACED_BUF_WRITE_WRAP_COUNT] = { "traced_buf_write_wrap_count",
	    "info", "trace", "" },
	[ST_TRACED_BUF_PATCHES_SUCCEEDED] = { "traced_buf_patches_succeeded",
	    "info", "trace", "" },
	[ST_TRACED_BUF_PATCHES_FAILED] = { "traced_buf_patches_failed",
	    "data_loss", "trace", "" },
	[ST_TRACED_BUF_READAHEADS_SUCCEEDED] = {
	    "traced_buf_readaheads_succeeded", "info", "trace", "" },
	[ST_TRACED_BUF_READAHEADS_FAILED] = { "traced_buf_readaheads_failed",
	    "info", "trace", "" },
	[ST_TRACED_BUF_ABI_VIOLATIONS] = { "traced_buf_abi_violations",
	    "data_loss", "trace", "" },
	[ST_TRACED_BUF_TRACE_WRITER_PACKET_LOSS] = {
	    "traced_buf_trace_writer_packet_loss", "data_loss", "trace", "" },
	[ST_TRACED_BUF_SEQUENCE_PACKET_LOSS] = {
	    "traced_buf_sequence_packet_loss", "data_loss", "analysis",
	    "Losses (runs of dropped packets) on the buffer's sequences." },
	[ST_TRACED_BUF_INCREMENTAL_SEQUENCES_DROPPED] = {
	    "traced_buf_incremental_sequences_dropped", "data_loss",
	    "analysis", "Sequences of the buffer whose every packet needing"
	    " incremental state was skipped: their state was never valid." },
	[ST_TRACED_BUF_DATA_LOSS_READ_GAP] = {
	    "traced_buf_data_loss_read_gap", "data_loss", "trace",
	    "Sequence losses the service put down to a gap when reading." },
	[ST_TRACED_BUF_DATA_LOSS_CHUNK_CORRUPTED] = {
	    "traced_buf_data_loss_chunk_corrupted", "data_loss", "trace",
	    "Sequence losses put down to a malformed chunk." },
	[ST_TRACED_BUF_DATA_LOSS_ORPHAN_CONTINUATION] = {
	    "traced_buf_data_loss_orphan_continuation", "data_loss", "trace",
	    "Sequence losses put down to a fragment with no beginning." },
	[ST_TRACED_BUF_DATA_LOSS_REASSEMBLY_GAP] = {
	    "traced_buf_data_loss_reassembly_gap", "data_loss", "trace",
	    "Sequence losses put down to a chunk gap inside a packet." },
	[ST_TRACED_BUF_DATA_LOSS_REASSEMBLY_BROKEN_CHAIN] = {
	    "traced_buf_data_loss_reassembly_broken_chain", "data_loss",
	    "trace", "Sequence losses put down to a broken fragment chain." },
	[ST_TRACED_BUF_DATA_LOSS_OVERWRITE] = {
	    "traced_buf_data_loss_overwrite", "data_loss", "trace",
	    "Sequence losses put down to the ring buffer wrapping." },
	[ST_TRACED_BUF_DATA_LOSS_WRITER_ABORT] = {
	    "traced_buf_data_loss_writer_abort", "data_loss", "trace",
	    "Sequence losses put down to a writer abandoning a packet." },
	[ST_TRACED_BUF_DATA_LOSS_SMB_FULL] = {
	    "traced_buf_data_loss_smb_full", "data_loss", "trace",
	    "Sequence losses the producer put down to a full shared memory"
	    " buffer." },
	[ST_FTRACE_CPU_ENTRIES_BEGIN] = { "ftrace_cpu_entries_begin", "info",
	    "trace", "" },
	[ST_FTRACE_CPU_ENTRIES_END] = { "ftrace_cpu_entries_end", "info",
	    "trace", "" },
	[ST_FTRACE_CPU_ENTRIES_DELTA] = { "ftrace_cpu_entries_delta", "info",
	    "trace", "" },
	[ST_FTRACE_CPU_OVERRUN_BEGIN] = { "ftrace_cpu_overrun_begin", "info",
	    "trace", "" },
	[ST_FTRACE_CPU_OVERRUN_END] = { "ftrace_cpu_overrun_end", "info",
	    "trace", "" },
	[ST_FTRACE_CPU_OVERRUN_DELTA] = { "ftrace_cpu_overrun_delta", "info",
	    "trace", "" },
	[ST_FTRACE_CPU_COMMIT_OVERRUN_BEGIN] = {
	    "ftrace_cpu_commit_overrun_begin", "info", "trace", "" },
	[ST_FTRACE_CPU_COMMIT_OVERRUN_END] = {
	    "ftrace_cpu_commit_overrun_end", "info", "trace", "" },
	[ST_FTRACE_CPU_COMMIT_OVERRUN_DELTA] = {
	    "ftrace_cpu_commit_overrun_delta", "error", "trace", "" },
	[ST_FTRACE_CPU_BYTES_BEGIN] = { "ftrace_cpu_bytes_begin", "info",
	    "trace", "" },
	[ST_FTRACE_CPU_BYTES_END] = { "ftrace_cpu_bytes_end", "info",
	    "trace", "" },
	[ST_FTRACE_CPU_BYTES_DELTA] = { "ftrace_cpu_bytes_delta", "info",
	    "trace", "" },
	[ST_FTRACE_CPU_DROPPED_EVENTS_BEGIN] = {
	    "ftrace_cpu_dropped_events_begin", "info", "trace", "" },
	[ST_FTRACE_CPU_DROPPED_EVENTS_END] = {
	    "ftrace_cpu_dropped_events_end", "info", "trace", "" },
	[ST_FTRACE_CPU_DROPPED_EVENTS_DELTA] = {
	    "ftrace_cpu_dropped_events_delta", "error", "trace", "" },
	[ST_FTRACE_CPU_READ_EVENTS_BEGIN] = { "ftrace_cpu_read_events_begin",
	    "info", "trace", "" },
	[ST_FTRACE_CPU_READ_EVENTS_END] = { "ftrace_cpu_read_events_end",
	    "info", "trace", "" },
	[ST_FTRACE_CPU_READ_EVENTS_DELTA] = { "ftrace_cpu_read_events_delta",
	    "info", "trace", "" },
	[ST_FTRACE_CPU_NOW_TS_BEGIN] = { "ftrace_cpu_now_ts_begin", "info",
	    "trace", "" },
	[ST_FTRACE_CPU_NOW_TS_END] = { "ftrace_cpu_now_ts_end", "info",
	    "trace", "" },
	[ST_FTRACE_CPU_OLDEST_EVENT_TS_BEGIN] = {
	    "ftrace_cpu_oldest_event_ts_begin", "info", "trace", "" },
	[ST_FTRACE_CPU_OLDEST_EVENT_TS_END] = {
	    "ftrace_cpu_oldest_event_ts_end", "info", "trace", "" },
	[ST_FTRACE_CPU_HAS_DATA_LOSS] = { "ftrace_cpu_has_data_loss",
	    "data_loss", "trace", "" },
};

void
tp_stat_inc(struct tp *tp, enum tp_stat s, int64_t n)
{
	/* The tokenizer's, while the parse thread counts: kept aside. */
	if (tp->pipe != NULL && tp_pipe_self != tp && tp_pipe_busy(tp))
		tp_pipe_stat(tp, (int)s, n);
	else
		tp->stats[s] += n;
}

void
tp_import_log(struct tp *tp, enum tp_stat s, int64_t ts, int64_t byte_offset,
    int64_t arg_set_id)
{
	sqlite3_stmt *st = tp->stmt[SQ_IMPORT_LOG];
	const struct stat_desc *d = &stat_descs[s];

	tp_pipe_sync(tp);
	tp_stat_inc(tp, s, 1);
	arg_set_id = tp_arg_set_done(tp, arg_set_id);
	sqlite3_bind_int64(st, 1, tp->next_import_log++);
	tp_bind_i64n(st, 2, ts);
	tp_bind_i64n(st, 3, byte_offset);
	sqlite3_bind_text(st, 4, d->severity, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, d->name, -1, SQLITE_STATIC);
	tp_bind_i64n(st, 6, arg_set_id);
	(void)tp_step_done(tp, st);
}

void
tp_stat_set_indexed(struct tp *tp, enum tp_stat s, int64_t idx, int64_t v)
{
	tp_pipe_sync(tp);
	(void)tp_hash_put(&tp->istats,
	    ((uint64_t)s << 32) | ((uint64_t)idx & 0xffffffff), (uint64_t)v);
}

/* 1 and the value when the indexed stat was set, else 0. */
int
tp_stat_get_indexed(struct tp *tp, enum tp_stat s, int64_t idx, int64_t *v)
{
	uint64_t *p = tp_hash_get(&tp->istats,
	    ((uint64_t)s << 32) | ((uint64_t)idx & 0xffffffff));

	if (p == NULL)
		return 0;
	*v = (int64_t)*p;
	return 1;
}

/* What the shell lists after loading: errors and data losses. */
static int
stat_is_error(int s)
{
	return strcmp(stat_descs[s].severity, "error") == 0 ||
	    strcmp(stat_descs[s].severity, "data_loss") == 0;
}

int64_t
tp_error_stats(struct tp *tp)
{
	uint64_t key, val;
	int64_t n = 0;
	size_t it;
	int s;

	for (s = 0; s < ST_INDEXED_FIRST; s++)
		if (stat_is_error(s) && tp->stats[s] > 0)
			n++;
	for (it = 0; tp_hash_next(&tp->istats, &it, &key, &val);)
		if (stat_is_error((int)(key >> 32)) && (int64_t)val > 0)
			n++;
	return n;
}

int
tp_stats_write(struct tp *tp)
{
	sqlite3_stmt *st;
	size_t i;
	int s;

	/* Written again at each checkpoint: the values only grow. */
	if (sqlite3_exec(tp->db, "DELETE FROM stats", NULL, NULL, NULL) !=
	    SQLITE_OK)
		return tp_seterr(tp, "%s: %s", __func__,
		    sqlite3_errmsg(tp->db));
	if (sqlite3_prepare_v2(tp->db, "INSERT INTO stats(name, idx, severity,"
	    " source, value, description) VALUES(?,?,?,?,?,?)", -1, &st,
	    NULL) != SQLITE_OK)
		return tp_seterr(tp, "%s: %s", __func__,
		    sqlite3_errmsg(tp->db));
	for (s = 0; s < ST_COUNT; s++) {
		const struct stat_desc *d = &stat_descs[s];

		if (s >= ST_INDEXED_FIRST) {
			/* Indexed stats: one row per index seen, by index. */
			int64_t idx;

			for (idx = 0; idx < 4096; idx++) {
				uint64_t *v = tp_hash_get(&tp->istats,
				    ((uint64_t)s << 32) | (uint64_t)idx);

				if (v == NULL)
					continue;
				sqlite3_bind_text(st, 1, d->name, -1,
				    SQLITE_STATIC);
				sqlite3_bind_int64(st, 2, idx);
				sqlite3_bind_text(st, 3, d->severity, -1,
				    SQLITE_STATIC);
				sqlite3_bind_text(st, 4, d->source, -1,
				    SQLITE_STATIC);
				sqlite3_bind_int64(st, 5, (int64_t)*v);
				sqlite3_bind_text(st, 6, d->desc, -1,
				    SQLITE_STATIC);
				(void)tp_step_done(tp, st);
			}
			continue;
		}
		sqlite3_bind_text(st, 1, d->name, -1, SQLITE_STATIC);
		sqlite3_bind_null(st, 2);
		sqlite3_bind_text(st, 3, d->severity, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 4, d->source, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 5, tp->stats[s]);
		sqlite3_bind_text(st, 6, d->desc, -1, SQLITE_STATIC);
		(void)tp_step_done(tp, st);
	}
	(void)i;
	sqlite3_finalize(st);
	return 0;
}
