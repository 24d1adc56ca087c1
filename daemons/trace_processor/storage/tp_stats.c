/*
 * The stats table as upstream's lists it: every stat it knows, with its
 * name, key, severity and source, the counters the importers keep among
 * them; written at tp_eof() and each tp_checkpoint().
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "tp_int.h"
#include "importers/tp_pipe.h"

enum { SEV_INFO, SEV_NOTICE, SEV_ERROR, SEV_DATA_LOSS };
enum { SRC_TRACE, SRC_ANALYSIS };

static const char *const severities[] = { "info", "notice", "error",
    "data_loss" };
static const char *const sources[] = { "trace", "analysis" };

#define SK_INDEXED	0x1	/* a row per index set, else one row */
#define SK_GLOBAL	0x2	/* the session's, else the machine's and the
				 * trace's */
#define SK_OURS		0x4	/* not upstream's: a row only while counted */

/*
 * Upstream's stats in its order, which the key column shows, then ours:
 * what the table lists and how. The ones an importer counts name their
 * enum tp_stat; the others are always 0, listed because upstream lists
 * them (a query or the UI may read any of them).
 */
struct stat_key {
	const char	*name;
	uint8_t		 flags;
	uint8_t		 severity, source;
	int16_t		 st;		/* enum tp_stat; -1: never counted */
	const char	*desc;
};

#define UNCOUNTED(n, f, sev, src)	{ n, f, sev, src, -1, "" }

static const struct stat_key stat_keys[] = {
	UNCOUNTED("android_aflags_errors", 0, SEV_ERROR, SRC_TRACE),
	UNCOUNTED("android_br_parse_errors", 0, SEV_ERROR, SRC_TRACE),
	UNCOUNTED("android_log_num_failed", 0, SEV_ERROR, SRC_TRACE),
	UNCOUNTED("android_log_format_invalid", 0, SEV_ERROR, SRC_TRACE),
	UNCOUNTED("android_log_num_skipped", 0, SEV_INFO, SRC_TRACE),
	UNCOUNTED("android_log_num_total", 0, SEV_INFO, SRC_TRACE),
	UNCOUNTED("android_video_size_cap_hit", 0, SEV_DATA_LOSS, SRC_TRACE),
	UNCOUNTED("android_video_codec_error", 0, SEV_ERROR, SRC_TRACE),
	UNCOUNTED("android_video_display_gone", 0, SEV_ERROR, SRC_TRACE),
	UNCOUNTED("android_video_no_encoder", 0, SEV_ERROR, SRC_TRACE),
	UNCOUNTED("android_video_display_not_found", 0, SEV_ERROR, SRC_TRACE),
	UNCOUNTED("android_video_encoder_setup_failed", 0,
	    SEV_ERROR, SRC_TRACE),
	UNCOUNTED("android_video_virtual_display_failed", 0,
	    SEV_ERROR, SRC_TRACE),
	UNCOUNTED("android_video_parse_size_cap_hit", 0,
	    SEV_DATA_LOSS, SRC_TRACE),
	UNCOUNTED("deobfuscate_location_parse_error", SK_GLOBAL,
	    SEV_ERROR, SRC_ANALYSIS),
	{ "energy_breakdown_missing_values", 0, SEV_ERROR,
	    SRC_ANALYSIS, ST_ENERGY_BREAKDOWN_MISSING_VALUES,
	    "Energy estimates without a consumer, its energy or its "
	    "descriptor: dropped." },
	{ "energy_descriptor_invalid", 0, SEV_ERROR,
	    SRC_ANALYSIS, ST_ENERGY_DESCRIPTOR_INVALID,
	    "Energy consumer or entity state descriptors without "
	    "their id: ignored." },
	UNCOUNTED("entity_state_descriptor_invalid", 0,
	    SEV_ERROR, SRC_ANALYSIS),
	{ "entity_state_residency_invalid", 0, SEV_ERROR,
	    SRC_ANALYSIS, ST_ENTITY_STATE_RESIDENCY_INVALID,
	    "EntityStateResidency packets with no residency." },
	{ "entity_state_residency_lookup_failed", 0, SEV_ERROR,
	    SRC_ANALYSIS, ST_ENTITY_STATE_RESIDENCY_LOOKUP_FAILED,
	    "Residencies of an entity state no descriptor named: the "
	    "rest of their packet is dropped." },
	{ "energy_uid_breakdown_missing_values", 0, SEV_ERROR,
	    SRC_ANALYSIS, ST_ENERGY_UID_BREAKDOWN_MISSING_VALUES,
	    "Per-uid energy estimates without a uid or energy: "
	    "dropped." },
	UNCOUNTED("frame_timeline_event_parser_errors", 0,
	    SEV_INFO, SRC_ANALYSIS),
	UNCOUNTED("frame_timeline_unpaired_end_event", 0,
	    SEV_INFO, SRC_ANALYSIS),
	{ "ftrace_bundle_tokenizer_errors", 0, SEV_ERROR,
	    SRC_ANALYSIS, ST_FTRACE_BUNDLE_TOKENIZER_ERRORS,
	    "" },
	{ "ftrace_cpu_bytes_begin", SK_INDEXED, SEV_INFO,
	    SRC_TRACE, ST_FTRACE_CPU_BYTES_BEGIN,
	    "" },
	{ "ftrace_cpu_bytes_end", SK_INDEXED, SEV_INFO,
	    SRC_TRACE, ST_FTRACE_CPU_BYTES_END,
	    "" },
	{ "ftrace_cpu_bytes_delta", SK_INDEXED, SEV_INFO,
	    SRC_TRACE, ST_FTRACE_CPU_BYTES_DELTA,
	    "" },
	{ "ftrace_cpu_commit_overrun_begin", SK_INDEXED, SEV_INFO,
	    SRC_TRACE, ST_FTRACE_CPU_COMMIT_OVERRUN_BEGIN,
	    "" },
	{ "ftrace_cpu_commit_overrun_end", SK_INDEXED, SEV_INFO,
	    SRC_TRACE, ST_FTRACE_CPU_COMMIT_OVERRUN_END,
	    "" },
	{ "ftrace_cpu_commit_overrun_delta", SK_INDEXED, SEV_ERROR,
	    SRC_TRACE, ST_FTRACE_CPU_COMMIT_OVERRUN_DELTA,
	    "" },
	{ "ftrace_cpu_dropped_events_begin", SK_INDEXED, SEV_INFO,
	    SRC_TRACE, ST_FTRACE_CPU_DROPPED_EVENTS_BEGIN,
	    "" },
	{ "ftrace_cpu_dropped_events_end", SK_INDEXED, SEV_INFO,
	    SRC_TRACE, ST_FTRACE_CPU_DROPPED_EVENTS_END,
	    "" },
	{ "ftrace_cpu_dropped_events_delta", SK_INDEXED, SEV_ERROR,
	    SRC_TRACE, ST_FTRACE_CPU_DROPPED_EVENTS_DELTA,
	    "" },
	{ "ftrace_cpu_entries_begin", SK_INDEXED, SEV_INFO,
	    SRC_TRACE, ST_FTRACE_CPU_ENTRIES_BEGIN,
	    "" },
	{ "ftrace_cpu_entries_end", SK_INDEXED, SEV_INFO,
	    SRC_TRACE, ST_FTRACE_CPU_ENTRIES_END,
	    "" },
	{ "ftrace_cpu_entries_delta", SK_INDEXED, SEV_INFO,
	    SRC_TRACE, ST_FTRACE_CPU_ENTRIES_DELTA,
	    "" },
	{ "ftrace_cpu_now_ts_begin", SK_INDEXED, SEV_INFO,
	    SRC_TRACE, ST_FTRACE_CPU_NOW_TS_BEGIN,
	    "" },
	{ "ftrace_cpu_now_ts_end", SK_INDEXED, SEV_INFO,
	    SRC_TRACE, ST_FTRACE_CPU_NOW_TS_END,
	    "" },
	{ "ftrace_cpu_oldest_event_ts_begin", SK_INDEXED, SEV_INFO,
	    SRC_TRACE, ST_FTRACE_CPU_OLDEST_EVENT_TS_BEGIN,
	    "" },
	{ "ftrace_cpu_oldest_event_ts_end", SK_INDEXED, SEV_INFO,
	    SRC_TRACE, ST_FTRACE_CPU_OLDEST_EVENT_TS_END,
	    "" },
	{ "ftrace_cpu_overrun_begin", SK_INDEXED, SEV_INFO,
	    SRC_TRACE, ST_FTRACE_CPU_OVERRUN_BEGIN,
	    "" },
	{ "ftrace_cpu_overrun_end", SK_INDEXED, SEV_INFO,
	    SRC_TRACE, ST_FTRACE_CPU_OVERRUN_END,
	    "" },
	{ "ftrace_cpu_overrun_delta", SK_INDEXED, SEV_INFO,
	    SRC_TRACE, ST_FTRACE_CPU_OVERRUN_DELTA,
	    "" },
	{ "ftrace_cpu_read_events_begin", SK_INDEXED, SEV_INFO,
	    SRC_TRACE, ST_FTRACE_CPU_READ_EVENTS_BEGIN,
	    "" },
	{ "ftrace_cpu_read_events_end", SK_INDEXED, SEV_INFO,
	    SRC_TRACE, ST_FTRACE_CPU_READ_EVENTS_END,
	    "" },
	{ "ftrace_cpu_read_events_delta", SK_INDEXED, SEV_INFO,
	    SRC_TRACE, ST_FTRACE_CPU_READ_EVENTS_DELTA,
	    "" },
	{ "ftrace_cpu_has_data_loss", SK_INDEXED, SEV_DATA_LOSS,
	    SRC_TRACE, ST_FTRACE_CPU_HAS_DATA_LOSS,
	    "" },
	{ "ftrace_kprobe_hits_begin", 0, SEV_INFO,
	    SRC_TRACE, ST_FTRACE_KPROBE_HITS_BEGIN,
	    "" },
	{ "ftrace_kprobe_hits_end", 0, SEV_INFO,
	    SRC_TRACE, ST_FTRACE_KPROBE_HITS_END,
	    "" },
	{ "ftrace_kprobe_hits_delta", 0, SEV_INFO,
	    SRC_TRACE, ST_FTRACE_KPROBE_HITS_DELTA,
	    "" },
	{ "ftrace_kprobe_misses_begin", 0, SEV_INFO,
	    SRC_TRACE, ST_FTRACE_KPROBE_MISSES_BEGIN,
	    "" },
	{ "ftrace_kprobe_misses_end", 0, SEV_INFO,
	    SRC_TRACE, ST_FTRACE_KPROBE_MISSES_END,
	    "" },
	{ "ftrace_kprobe_misses_delta", 0, SEV_DATA_LOSS,
	    SRC_TRACE, ST_FTRACE_KPROBE_MISSES_DELTA,
	    "kretprobe misses while tracing." },
	{ "ftrace_setup_errors", 0, SEV_NOTICE,
	    SRC_TRACE, ST_FTRACE_SETUP_ERRORS,
	    "Ftrace events or atrace categories that failed to "
	    "enable." },
	{ "ftrace_abi_errors_skipped_zero_data_length", 0, SEV_INFO,
	    SRC_ANALYSIS, ST_FTRACE_ABI_ERRORS_SKIPPED_ZERO_DATA_LENGTH,
	    "" },
	UNCOUNTED("ftrace_generic_descriptor_errors", 0,
	    SEV_ERROR, SRC_ANALYSIS),
	{ "ftrace_thermal_exynos_acpm_unknown_tz_id", 0, SEV_ERROR,
	    SRC_ANALYSIS, ST_FTRACE_THERMAL_EXYNOS_ACPM_UNKNOWN_TZ_ID,
	    "" },
	UNCOUNTED("fuchsia_non_numeric_counters", 0, SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("fuchsia_timestamp_overflow", 0, SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("fuchsia_record_read_error", 0, SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("fuchsia_invalid_event", 0, SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("fuchsia_invalid_event_arg_type", 0, SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("fuchsia_invalid_event_arg_name", 0, SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("fuchsia_unknown_event_arg", 0, SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("fuchsia_invalid_string_ref", 0, SEV_ERROR, SRC_ANALYSIS),
	{ "generic_task_state_invalid_order", 0, SEV_ERROR,
	    SRC_ANALYSIS, ST_GENERIC_TASK_STATE_INVALID_ORDER,
	    "Invalid order of generic task state events. Should never "
	    "happen." },
	UNCOUNTED("gpu_counters_invalid_spec", 0, SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("gpu_counters_missing_spec", 0, SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("gpu_counters_missing_timestamp", 0, SEV_ERROR, SRC_TRACE),
	UNCOUNTED("gpu_render_stage_parser_errors", 0, SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("graphics_frame_event_parser_errors", 0,
	    SEV_INFO, SRC_ANALYSIS),
	UNCOUNTED("guess_trace_type_duration_ns", SK_GLOBAL,
	    SEV_INFO, SRC_ANALYSIS),
	UNCOUNTED("instruments_row_missing_thread", 0, SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("instruments_row_missing_process", 0,
	    SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("instruments_row_missing_backtrace", 0,
	    SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("instruments_row_missing_frame", 0, SEV_ERROR, SRC_ANALYSIS),
	{ "interned_data_tokenizer_errors", 0, SEV_INFO,
	    SRC_ANALYSIS, ST_INTERNED_DATA_TOKENIZER_ERRORS,
	    "Malformed or missing interned data." },
	{ "invalid_clock_snapshots", SK_GLOBAL, SEV_ERROR,
	    SRC_ANALYSIS, ST_INVALID_CLOCK_SNAPSHOTS,
	    "" },
	{ "invalid_cpu_times", 0, SEV_ERROR,
	    SRC_ANALYSIS, ST_INVALID_CPU_TIMES,
	    "" },
	UNCOUNTED("kernel_wakelock_reused_id", 0, SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("kernel_wakelock_unknown_id", 0, SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("kernel_wakelock_zero_value_reported", 0,
	    SEV_INFO, SRC_TRACE),
	UNCOUNTED("kernel_wakelock_non_monotonic_value_reported", 0,
	    SEV_INFO, SRC_TRACE),
	UNCOUNTED("kernel_wakelock_implausibly_large_value_reported", 0,
	    SEV_INFO, SRC_TRACE),
	UNCOUNTED("kernel_trackevent_format_error", 0, SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("app_wakelock_parse_error", 0, SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("app_wakelock_unknown_id", 0, SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("concurrent_session_event_unknown_state", 0,
	    SEV_ERROR, SRC_ANALYSIS),
	{ "meminfo_unknown_keys", 0, SEV_ERROR,
	    SRC_ANALYSIS, ST_MEMINFO_UNKNOWN_KEYS,
	    "" },
	{ "cpu_info_unknown_cpu_features", 0, SEV_INFO,
	    SRC_ANALYSIS, ST_CPU_INFO_UNKNOWN_CPU_FEATURES,
	    "CPUs with feature bits this version does not know: kept "
	    "only in cpu_features.raw_bitmap." },
	UNCOUNTED("missing_disk_io_event_name", 0, SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("cpu_info_empty", 0, SEV_ERROR, SRC_ANALYSIS),
	{ "mismatched_sched_switch_tids", 0, SEV_ERROR,
	    SRC_ANALYSIS, ST_MISMATCHED_SCHED_SWITCH_TIDS,
	    "" },
	UNCOUNTED("mm_unknown_type", 0, SEV_ERROR, SRC_ANALYSIS),
	/* Wall time spent in tp_parse(), as upstream times its Parse(). */
	{ "parse_trace_duration_ns", SK_GLOBAL, SEV_INFO,
	    SRC_ANALYSIS, ST_PARSE_TRACE_DURATION_NS,
	    "" },
	{ "power_rail_empty_packet", 0, SEV_ERROR,
	    SRC_ANALYSIS, ST_POWER_RAIL_EMPTY_PACKET,
	    "PowerRails packets with no energy samples." },
	{ "power_rail_unknown_index", 0, SEV_ERROR,
	    SRC_TRACE, ST_POWER_RAIL_UNKNOWN_INDEX,
	    "Energy samples of a rail no descriptor named: dropped." },
	UNCOUNTED("proc_stat_unknown_counters", 0, SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("rss_stat_unknown_keys", 0, SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("rss_stat_negative_size", 0, SEV_INFO, SRC_ANALYSIS),
	UNCOUNTED("rss_stat_unknown_thread_for_mm_id", 0,
	    SEV_INFO, SRC_ANALYSIS),
	{ "filter_input_bytes", 0, SEV_INFO, SRC_TRACE, ST_FILTER_INPUT_BYTES,
	    "" },
	{ "filter_input_packets", 0, SEV_INFO,
	    SRC_TRACE, ST_FILTER_INPUT_PACKETS,
	    "" },
	{ "filter_output_bytes", 0, SEV_INFO,
	    SRC_TRACE, ST_FILTER_OUTPUT_BYTES,
	    "" },
	{ "filter_time_taken_ns", 0, SEV_INFO,
	    SRC_TRACE, ST_FILTER_TIME_TAKEN_NS,
	    "" },
	{ "filter_errors", 0, SEV_ERROR, SRC_TRACE, ST_FILTER_ERRORS,
	    "" },
	{ "flow_duplicate_id", 0, SEV_ERROR, SRC_TRACE, ST_FLOW_DUPLICATE_ID,
	    "" },
	{ "flow_no_enclosing_slice", 0, SEV_ERROR,
	    SRC_TRACE, ST_FLOW_NO_ENCLOSING_SLICE,
	    "" },
	{ "flow_step_without_start", 0, SEV_INFO,
	    SRC_TRACE, ST_FLOW_STEP_WITHOUT_START,
	    "" },
	{ "flow_end_without_start", 0, SEV_INFO,
	    SRC_TRACE, ST_FLOW_END_WITHOUT_START,
	    "" },
	{ "flow_invalid_id", 0, SEV_ERROR, SRC_TRACE, ST_FLOW_INVALID_ID,
	    "" },
	{ "flow_without_direction", 0, SEV_ERROR,
	    SRC_TRACE, ST_FLOW_WITHOUT_DIRECTION,
	    "" },
	{ "stackprofile_empty_callstack", 0, SEV_ERROR,
	    SRC_TRACE, ST_STACKPROFILE_EMPTY_CALLSTACK,
	    "Callstacks without frames: ignored." },
	{ "stackprofile_invalid_string_id", 0, SEV_ERROR,
	    SRC_TRACE, ST_STACKPROFILE_INVALID_STRING_ID,
	    "" },
	{ "stackprofile_invalid_mapping_id", 0, SEV_ERROR,
	    SRC_TRACE, ST_STACKPROFILE_INVALID_MAPPING_ID,
	    "" },
	{ "stackprofile_invalid_frame_id", 0, SEV_ERROR,
	    SRC_TRACE, ST_STACKPROFILE_INVALID_FRAME_ID,
	    "" },
	{ "stackprofile_invalid_callstack_id", 0, SEV_ERROR,
	    SRC_TRACE, ST_STACKPROFILE_INVALID_CALLSTACK_ID,
	    "" },
	UNCOUNTED("stackprofile_parser_error", 0, SEV_ERROR, SRC_TRACE),
	UNCOUNTED("smaps_parser_errors", 0, SEV_ERROR, SRC_TRACE),
	UNCOUNTED("systemd_journal_num_failed", 0, SEV_ERROR, SRC_TRACE),
	UNCOUNTED("systemd_journal_num_total", 0, SEV_INFO, SRC_TRACE),
	{ "systrace_parse_failure", 0, SEV_ERROR,
	    SRC_ANALYSIS, ST_SYSTRACE_PARSE_FAILURE,
	    "" },
	{ "task_state_invalid", 0, SEV_ERROR,
	    SRC_ANALYSIS, ST_TASK_STATE_INVALID,
	    "" },
	{ "traced_buf_abi_violations", SK_INDEXED, SEV_DATA_LOSS,
	    SRC_TRACE, ST_TRACED_BUF_ABI_VIOLATIONS,
	    "" },
	{ "traced_buf_buffer_size", SK_INDEXED, SEV_INFO,
	    SRC_TRACE, ST_TRACED_BUF_BUFFER_SIZE,
	    "" },
	{ "traced_buf_bytes_overwritten", SK_INDEXED, SEV_INFO,
	    SRC_TRACE, ST_TRACED_BUF_BYTES_OVERWRITTEN,
	    "" },
	{ "traced_buf_bytes_read", SK_INDEXED, SEV_INFO,
	    SRC_TRACE, ST_TRACED_BUF_BYTES_READ,
	    "" },
	{ "traced_buf_bytes_filtered_out", SK_INDEXED, SEV_INFO,
	    SRC_TRACE, ST_TRACED_BUF_BYTES_FILTERED_OUT,
	    "" },
	{ "traced_buf_bytes_written", SK_INDEXED, SEV_INFO,
	    SRC_TRACE, ST_TRACED_BUF_BYTES_WRITTEN,
	    "" },
	UNCOUNTED("traced_buf_clone_done_timestamp_ns", SK_INDEXED,
	    SEV_INFO, SRC_TRACE),
	{ "traced_buf_chunks_discarded", SK_INDEXED, SEV_INFO,
	    SRC_TRACE, ST_TRACED_BUF_CHUNKS_DISCARDED,
	    "" },
	{ "traced_buf_chunks_overwritten", SK_INDEXED, SEV_INFO,
	    SRC_TRACE, ST_TRACED_BUF_CHUNKS_OVERWRITTEN,
	    "" },
	{ "traced_buf_chunks_read", SK_INDEXED, SEV_INFO,
	    SRC_TRACE, ST_TRACED_BUF_CHUNKS_READ,
	    "" },
	{ "traced_buf_chunks_relocated", SK_INDEXED, SEV_INFO,
	    SRC_TRACE, ST_TRACED_BUF_CHUNKS_RELOCATED,
	    "" },
	{ "traced_buf_chunks_rewritten", SK_INDEXED, SEV_INFO,
	    SRC_TRACE, ST_TRACED_BUF_CHUNKS_REWRITTEN,
	    "" },
	{ "traced_buf_chunks_written", SK_INDEXED, SEV_INFO,
	    SRC_TRACE, ST_TRACED_BUF_CHUNKS_WRITTEN,
	    "" },
	{ "traced_buf_chunks_committed_out_of_order", SK_INDEXED, SEV_INFO,
	    SRC_TRACE, ST_TRACED_BUF_CHUNKS_COMMITTED_OUT_OF_ORDER,
	    "" },
	{ "traced_buf_padding_bytes_cleared", SK_INDEXED, SEV_INFO,
	    SRC_TRACE, ST_TRACED_BUF_PADDING_BYTES_CLEARED,
	    "" },
	{ "traced_buf_padding_bytes_written", SK_INDEXED, SEV_INFO,
	    SRC_TRACE, ST_TRACED_BUF_PADDING_BYTES_WRITTEN,
	    "" },
	{ "traced_buf_patches_failed", SK_INDEXED, SEV_DATA_LOSS,
	    SRC_TRACE, ST_TRACED_BUF_PATCHES_FAILED,
	    "" },
	{ "traced_buf_patches_succeeded", SK_INDEXED, SEV_INFO,
	    SRC_TRACE, ST_TRACED_BUF_PATCHES_SUCCEEDED,
	    "" },
	{ "traced_buf_readaheads_failed", SK_INDEXED, SEV_INFO,
	    SRC_TRACE, ST_TRACED_BUF_READAHEADS_FAILED,
	    "" },
	{ "traced_buf_readaheads_succeeded", SK_INDEXED, SEV_INFO,
	    SRC_TRACE, ST_TRACED_BUF_READAHEADS_SUCCEEDED,
	    "" },
	{ "traced_buf_trace_writer_packet_loss", SK_INDEXED, SEV_DATA_LOSS,
	    SRC_TRACE, ST_TRACED_BUF_TRACE_WRITER_PACKET_LOSS,
	    "" },
	{ "traced_buf_sequence_packet_loss", SK_INDEXED, SEV_DATA_LOSS,
	    SRC_ANALYSIS, ST_TRACED_BUF_SEQUENCE_PACKET_LOSS,
	    "Losses (runs of dropped packets) on the buffer's "
	    "sequences." },
	{ "traced_buf_incremental_sequences_dropped", SK_INDEXED, SEV_DATA_LOSS,
	    SRC_ANALYSIS, ST_TRACED_BUF_INCREMENTAL_SEQUENCES_DROPPED,
	    "Sequences of the buffer whose every packet needing "
	    "incremental state was skipped: their state was never "
	    "valid." },
	{ "traced_buf_data_loss_read_gap", SK_INDEXED, SEV_DATA_LOSS,
	    SRC_TRACE, ST_TRACED_BUF_DATA_LOSS_READ_GAP,
	    "Sequence losses the service put down to a gap when "
	    "reading." },
	{ "traced_buf_data_loss_chunk_corrupted", SK_INDEXED, SEV_DATA_LOSS,
	    SRC_TRACE, ST_TRACED_BUF_DATA_LOSS_CHUNK_CORRUPTED,
	    "Sequence losses put down to a malformed chunk." },
	{ "traced_buf_data_loss_orphan_continuation", SK_INDEXED, SEV_DATA_LOSS,
	    SRC_TRACE, ST_TRACED_BUF_DATA_LOSS_ORPHAN_CONTINUATION,
	    "Sequence losses put down to a fragment with no "
	    "beginning." },
	{ "traced_buf_data_loss_reassembly_gap", SK_INDEXED, SEV_DATA_LOSS,
	    SRC_TRACE, ST_TRACED_BUF_DATA_LOSS_REASSEMBLY_GAP,
	    "Sequence losses put down to a chunk gap inside a packet." },
	{ "traced_buf_data_loss_reassembly_broken_chain", SK_INDEXED,
	    SEV_DATA_LOSS, SRC_TRACE,
	    ST_TRACED_BUF_DATA_LOSS_REASSEMBLY_BROKEN_CHAIN,
	    "Sequence losses put down to a broken fragment chain." },
	{ "traced_buf_data_loss_overwrite", SK_INDEXED, SEV_DATA_LOSS,
	    SRC_TRACE, ST_TRACED_BUF_DATA_LOSS_OVERWRITE,
	    "Sequence losses put down to the ring buffer wrapping." },
	{ "traced_buf_data_loss_writer_abort", SK_INDEXED, SEV_DATA_LOSS,
	    SRC_TRACE, ST_TRACED_BUF_DATA_LOSS_WRITER_ABORT,
	    "Sequence losses put down to a writer abandoning a "
	    "packet." },
	{ "traced_buf_data_loss_smb_full", SK_INDEXED, SEV_DATA_LOSS,
	    SRC_TRACE, ST_TRACED_BUF_DATA_LOSS_SMB_FULL,
	    "Sequence losses the producer put down to a full shared "
	    "memory buffer." },
	{ "traced_buf_write_wrap_count", SK_INDEXED, SEV_INFO,
	    SRC_TRACE, ST_TRACED_BUF_WRITE_WRAP_COUNT,
	    "" },
	UNCOUNTED("traced_clone_started_timestamp_ns", 0, SEV_INFO, SRC_TRACE),
	{ "traced_clone_trigger_timestamp_ns", 0, SEV_INFO,
	    SRC_TRACE, ST_TRACED_CLONE_TRIGGER_TIMESTAMP_NS,
	    "The timestamp when trigger for the clone snapshot "
	    "operation for this trace was received" },
	{ "traced_chunks_discarded", 0, SEV_INFO,
	    SRC_TRACE, ST_TRACED_CHUNKS_DISCARDED,
	    "" },
	{ "traced_data_sources_registered", 0, SEV_INFO,
	    SRC_TRACE, ST_TRACED_DATA_SOURCES_REGISTERED,
	    "" },
	{ "traced_data_sources_seen", 0, SEV_INFO,
	    SRC_TRACE, ST_TRACED_DATA_SOURCES_SEEN,
	    "" },
	{ "traced_final_flush_failed", 0, SEV_DATA_LOSS,
	    SRC_TRACE, ST_TRACED_FINAL_FLUSH_FAILED,
	    "" },
	{ "traced_final_flush_succeeded", 0, SEV_INFO,
	    SRC_TRACE, ST_TRACED_FINAL_FLUSH_SUCCEEDED,
	    "" },
	{ "traced_flushes_failed", 0, SEV_DATA_LOSS,
	    SRC_TRACE, ST_TRACED_FLUSHES_FAILED,
	    "" },
	{ "traced_flushes_requested", 0, SEV_INFO,
	    SRC_TRACE, ST_TRACED_FLUSHES_REQUESTED,
	    "" },
	{ "traced_flushes_succeeded", 0, SEV_INFO,
	    SRC_TRACE, ST_TRACED_FLUSHES_SUCCEEDED,
	    "" },
	{ "traced_patches_discarded", 0, SEV_INFO,
	    SRC_TRACE, ST_TRACED_PATCHES_DISCARDED,
	    "" },
	{ "traced_producers_connected", 0, SEV_INFO,
	    SRC_TRACE, ST_TRACED_PRODUCERS_CONNECTED,
	    "" },
	{ "traced_producers_seen", 0, SEV_INFO,
	    SRC_TRACE, ST_TRACED_PRODUCERS_SEEN,
	    "" },
	{ "traced_total_buffers", 0, SEV_INFO,
	    SRC_TRACE, ST_TRACED_TOTAL_BUFFERS,
	    "" },
	{ "traced_tracing_sessions", 0, SEV_INFO,
	    SRC_TRACE, ST_TRACED_TRACING_SESSIONS,
	    "" },
	{ "track_event_parser_errors", 0, SEV_INFO,
	    SRC_ANALYSIS, ST_TRACK_EVENT_PARSER_ERRORS,
	    "Malformed TrackEvents, or on an unknown or missing "
	    "track." },
	UNCOUNTED("track_event_dropped_packets_outside_of_range_of_interest", 0,
	    SEV_INFO, SRC_ANALYSIS),
	{ "track_event_tokenizer_errors", 0, SEV_INFO,
	    SRC_ANALYSIS, ST_TRACK_EVENT_TOKENIZER_ERRORS,
	    "Malformed track descriptors or timestamps." },
	UNCOUNTED("track_hierarchy_missing_uuid", 0, SEV_INFO, SRC_ANALYSIS),
	UNCOUNTED("track_event_thread_invalid_end", 0, SEV_ERROR, SRC_TRACE),
	/* Upstream v58 keeps this at 0 and counts the packets below. */
	{ "tokenizer_skipped_packets", 0, SEV_INFO,
	    SRC_ANALYSIS, ST_TOKENIZER_SKIPPED_PACKETS,
	    "" },
	{ "vmstat_unknown_keys", 0, SEV_ERROR,
	    SRC_ANALYSIS, ST_VMSTAT_UNKNOWN_KEYS,
	    "" },
	{ "psi_unknown_resource", 0, SEV_ERROR,
	    SRC_ANALYSIS, ST_PSI_UNKNOWN_RESOURCE,
	    "" },
	UNCOUNTED("vulkan_allocations_invalid_string_id", 0,
	    SEV_ERROR, SRC_TRACE),
	{ "clock_sync_failure", 0, SEV_ERROR,
	    SRC_ANALYSIS, ST_CLOCK_SYNC_FAILURE,
	    "Timestamps that overflowed on their way to trace time." },
	{ "clock_sync_failure_unknown_source_clock", 0, SEV_ERROR,
	    SRC_ANALYSIS, ST_CLOCK_SYNC_FAILURE_UNKNOWN_SOURCE_CLOCK,
	    "Timestamps in a clock no snapshot named." },
	UNCOUNTED("clock_sync_failure_unknown_target_clock", 0,
	    SEV_ERROR, SRC_ANALYSIS),
	{ "clock_sync_failure_no_path", 0, SEV_ERROR,
	    SRC_ANALYSIS, ST_CLOCK_SYNC_FAILURE_NO_PATH,
	    "Timestamps of a clock no chain of snapshots ties to the "
	    "trace clock." },
	UNCOUNTED("clock_sync_unrelatable_clock_domains", 0,
	    SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("clock_sync_mixed_clock_sources", 0, SEV_ERROR, SRC_ANALYSIS),
	{ "clock_sync_failure_undeferrable_packet_loss", 0, SEV_DATA_LOSS,
	    SRC_ANALYSIS, ST_CLOCK_SYNC_FAILURE_UNDEFERRABLE_PACKET_LOSS,
	    "Packets dropped as their timestamp could not be "
	    "converted." },
	{ "clock_sync_cache_miss", SK_GLOBAL, SEV_INFO,
	    SRC_ANALYSIS, ST_CLOCK_SYNC_CACHE_MISS,
	    "" },
	{ "process_tracker_errors", 0, SEV_ERROR,
	    SRC_ANALYSIS, ST_PROCESS_TRACKER_ERRORS,
	    "" },
	{ "process_tracker_parent_pid_changed", 0, SEV_INFO,
	    SRC_ANALYSIS, ST_PROCESS_TRACKER_PARENT_PID_CHANGED,
	    "Processes seen later with another parent: kept as the "
	    "same process, reparented, not a reused pid." },
	UNCOUNTED("namespaced_thread_missing_process", 0,
	    SEV_ERROR, SRC_ANALYSIS),
	{ "json_tokenizer_failure", 0, SEV_ERROR,
	    SRC_TRACE, ST_JSON_TOKENIZER_FAILURE,
	    "" },
	{ "json_parser_failure", 0, SEV_ERROR,
	    SRC_TRACE, ST_JSON_PARSER_FAILURE,
	    "" },
	{ "json_display_time_unit", 0, SEV_INFO,
	    SRC_TRACE, ST_JSON_DISPLAY_TIME_UNIT,
	    "displayTimeUnit was set; timestamps stay in us." },
	UNCOUNTED("heap_graph_invalid_string_id", SK_INDEXED | SK_GLOBAL,
	    SEV_ERROR, SRC_TRACE),
	UNCOUNTED("heap_graph_malformed_packet", SK_INDEXED | SK_GLOBAL,
	    SEV_ERROR, SRC_TRACE),
	UNCOUNTED("heap_graph_missing_packet", SK_INDEXED | SK_GLOBAL,
	    SEV_ERROR, SRC_TRACE),
	{ "heapprofd_buffer_corrupted", SK_INDEXED, SEV_ERROR,
	    SRC_TRACE, ST_HEAPPROFD_BUFFER_CORRUPTED,
	    "Heap dumps whose client buffer was corrupted, by "
	    "process." },
	{ "heapprofd_hit_guardrail", SK_INDEXED, SEV_ERROR,
	    SRC_TRACE, ST_HEAPPROFD_HIT_GUARDRAIL,
	    "Heap dumps cut short by a guardrail, by process." },
	{ "heapprofd_buffer_overran", SK_INDEXED, SEV_DATA_LOSS,
	    SRC_TRACE, ST_HEAPPROFD_BUFFER_OVERRAN,
	    "Heap dumps whose client buffer overran or timed out: "
	    "samples lost, by process." },
	{ "heapprofd_client_error", SK_INDEXED, SEV_ERROR,
	    SRC_TRACE, ST_HEAPPROFD_CLIENT_ERROR,
	    "The error the profiled client reported, by process." },
	{ "heapprofd_client_disconnected", SK_INDEXED, SEV_INFO,
	    SRC_TRACE, ST_HEAPPROFD_CLIENT_DISCONNECTED,
	    "Heap dumps after the client disconnected, by process." },
	{ "heapprofd_malformed_packet", SK_INDEXED, SEV_ERROR,
	    SRC_TRACE, ST_HEAPPROFD_MALFORMED_PACKET,
	    "Heap dump samples whose totals shrank, by process: "
	    "skipped." },
	{ "heapprofd_missing_packet", 0, SEV_ERROR,
	    SRC_TRACE, ST_HEAPPROFD_MISSING_PACKET,
	    "" },
	{ "heapprofd_rejected_concurrent", SK_INDEXED, SEV_ERROR,
	    SRC_TRACE, ST_HEAPPROFD_REJECTED_CONCURRENT,
	    "Profiles refused because another session profiled the "
	    "process." },
	UNCOUNTED("heapprofd_non_finalized_profile", 0, SEV_ERROR, SRC_TRACE),
	{ "heapprofd_sampling_interval_adjusted", SK_INDEXED, SEV_INFO,
	    SRC_TRACE, ST_HEAPPROFD_SAMPLING_INTERVAL_ADJUSTED,
	    "How far the sampling interval was moved from the one "
	    "asked for, by process." },
	{ "heapprofd_unwind_time_us", SK_INDEXED, SEV_INFO,
	    SRC_TRACE, ST_HEAPPROFD_UNWIND_TIME_US,
	    "Time spent unwinding, by process." },
	{ "heapprofd_unwind_samples", SK_INDEXED, SEV_INFO,
	    SRC_TRACE, ST_HEAPPROFD_UNWIND_SAMPLES,
	    "Samples unwound, by process." },
	{ "heapprofd_client_spinlock_blocked", SK_INDEXED, SEV_INFO,
	    SRC_TRACE, ST_HEAPPROFD_CLIENT_SPINLOCK_BLOCKED,
	    "Time the client waited on its lock, by process." },
	{ "heapprofd_last_profile_timestamp", SK_INDEXED, SEV_INFO,
	    SRC_TRACE, ST_HEAPPROFD_LAST_PROFILE_TIMESTAMP,
	    "Time of the last heap dump, by process." },
	{ "symbolization_tmp_build_id_not_found", 0, SEV_ERROR,
	    SRC_ANALYSIS, ST_SYMBOLIZATION_TMP_BUILD_ID_NOT_FOUND,
	    "Mappings of files in /data/local/tmp without a build id: "
	    "SELinux keeps their binaries from being symbolized "
	    "there; use /data/local/tests." },
	UNCOUNTED("metatrace_overruns", 0, SEV_ERROR, SRC_TRACE),
	UNCOUNTED("packages_list_has_parse_errors", 0, SEV_ERROR, SRC_TRACE),
	UNCOUNTED("packages_list_has_read_errors", 0, SEV_ERROR, SRC_TRACE),
	UNCOUNTED("user_list_errors", 0, SEV_ERROR, SRC_TRACE),
	UNCOUNTED("game_intervention_has_parse_errors", 0,
	    SEV_ERROR, SRC_TRACE),
	UNCOUNTED("game_intervention_has_read_errors", 0, SEV_ERROR, SRC_TRACE),
	{ "compact_sched_has_parse_errors", 0, SEV_ERROR,
	    SRC_TRACE, ST_COMPACT_SCHED_HAS_PARSE_ERRORS,
	    "" },
	{ "misplaced_end_event", 0, SEV_DATA_LOSS,
	    SRC_ANALYSIS, ST_MISPLACED_END_EVENT,
	    "End events with no matching begin." },
	UNCOUNTED("truncated_sys_write_duration", 0, SEV_INFO, SRC_ANALYSIS),
	{ "compact_sched_switch_skipped", 0, SEV_INFO,
	    SRC_ANALYSIS, ST_COMPACT_SCHED_SWITCH_SKIPPED,
	    "" },
	{ "compact_sched_waking_skipped", 0, SEV_INFO,
	    SRC_ANALYSIS, ST_COMPACT_SCHED_WAKING_SKIPPED,
	    "" },
	UNCOUNTED("empty_chrome_metadata", 0, SEV_ERROR, SRC_TRACE),
	UNCOUNTED("ninja_parse_errors", 0, SEV_ERROR, SRC_TRACE),
	{ "perf_cpu_lost_records", SK_INDEXED, SEV_DATA_LOSS,
	    SRC_TRACE, ST_PERF_CPU_LOST_RECORDS,
	    "Perf samples the kernel lost (its buffer overran), by "
	    "cpu: which processes miss some is not known." },
	UNCOUNTED("perf_process_shard_count", SK_INDEXED, SEV_INFO, SRC_TRACE),
	UNCOUNTED("perf_chosen_process_shard", SK_INDEXED, SEV_INFO, SRC_TRACE),
	UNCOUNTED("perf_guardrail_stop_ts", SK_INDEXED,
	    SEV_DATA_LOSS, SRC_TRACE),
	UNCOUNTED("perf_unknown_record_type", SK_INDEXED,
	    SEV_INFO, SRC_ANALYSIS),
	UNCOUNTED("perf_record_skipped", SK_INDEXED, SEV_ERROR, SRC_ANALYSIS),
	{ "perf_samples_skipped", 0, SEV_ERROR,
	    SRC_ANALYSIS, ST_PERF_SAMPLES_SKIPPED,
	    "Perf samples the profiler could not read or unwind." },
	UNCOUNTED("perf_features_skipped", SK_INDEXED, SEV_INFO, SRC_ANALYSIS),
	UNCOUNTED("perf_samples_cpu_mode_unknown", 0, SEV_ERROR, SRC_ANALYSIS),
	{ "perf_samples_skipped_dataloss", 0, SEV_DATA_LOSS,
	    SRC_TRACE, ST_PERF_SAMPLES_SKIPPED_DATALOSS,
	    "Perf samples the profiler (traced_perf) dropped under "
	    "load: any traced process may miss some." },
	UNCOUNTED("perf_dummy_mapping_used", 0, SEV_INFO, SRC_ANALYSIS),
	UNCOUNTED("perf_aux_missing", 0, SEV_DATA_LOSS, SRC_TRACE),
	UNCOUNTED("perf_aux_ignored", 0, SEV_INFO, SRC_TRACE),
	UNCOUNTED("perf_aux_lost", 0, SEV_DATA_LOSS, SRC_TRACE),
	UNCOUNTED("perf_aux_truncated", 0, SEV_DATA_LOSS, SRC_TRACE),
	UNCOUNTED("perf_aux_partial", 0, SEV_DATA_LOSS, SRC_TRACE),
	UNCOUNTED("perf_aux_collision", 0, SEV_DATA_LOSS, SRC_TRACE),
	UNCOUNTED("perf_auxtrace_missing", 0, SEV_DATA_LOSS, SRC_TRACE),
	UNCOUNTED("perf_unknown_aux_data", SK_INDEXED,
	    SEV_DATA_LOSS, SRC_TRACE),
	UNCOUNTED("perf_no_tsc_data", 0, SEV_INFO, SRC_TRACE),
	UNCOUNTED("spe_no_timestamp", 0, SEV_INFO, SRC_TRACE),
	UNCOUNTED("etm_no_importer", 0, SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("memory_snapshot_parser_failure", 0, SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("thread_time_in_state_unknown_cpu_freq", 0,
	    SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("ftrace_packet_before_tracing_start", 0,
	    SEV_INFO, SRC_ANALYSIS),
	{ "sorter_push_event_out_of_order", SK_GLOBAL, SEV_ERROR,
	    SRC_TRACE, ST_SORTER_OUT_OF_ORDER,
	    "Packets older than the sorting window: dropped." },
	UNCOUNTED("unknown_extension_fields", 0, SEV_ERROR, SRC_TRACE),
	UNCOUNTED("network_trace_intern_errors", 0, SEV_INFO, SRC_ANALYSIS),
	UNCOUNTED("network_trace_parse_errors", 0, SEV_INFO, SRC_ANALYSIS),
	UNCOUNTED("atom_timestamp_missing", 0, SEV_ERROR, SRC_TRACE),
	UNCOUNTED("atom_unknown", 0, SEV_INFO, SRC_ANALYSIS),
	UNCOUNTED("v8_intern_errors", 0, SEV_DATA_LOSS, SRC_ANALYSIS),
	UNCOUNTED("v8_isolate_has_no_code_range", 0, SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("v8_no_defaults", 0, SEV_DATA_LOSS, SRC_ANALYSIS),
	UNCOUNTED("v8_no_code_range", 0, SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("v8_unknown_code_type", 0, SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("v8_code_load_missing_code_range", 0,
	    SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("winscope_inputmethod_clients_parse_errors", 0,
	    SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("winscope_inputmethod_manager_service_parse_errors", 0,
	    SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("winscope_inputmethod_service_parse_errors", 0,
	    SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("winscope_sf_layers_parse_errors", 0,
	    SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("winscope_sf_transactions_parse_errors", 0,
	    SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("winscope_shell_transitions_parse_errors", 0,
	    SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("winscope_protolog_invalid_interpolation_parse_errors", 0,
	    SEV_INFO, SRC_ANALYSIS),
	UNCOUNTED("winscope_protolog_missing_interned_arg_parse_errors", 0,
	    SEV_INFO, SRC_ANALYSIS),
	UNCOUNTED("winscope_protolog_missing_interned_stacktrace_parse_errors", 0,
	    SEV_INFO, SRC_ANALYSIS),
	UNCOUNTED("winscope_protolog_message_decoding_failed", 0,
	    SEV_INFO, SRC_ANALYSIS),
	UNCOUNTED("winscope_protolog_message_collision", 0,
	    SEV_INFO, SRC_ANALYSIS),
	UNCOUNTED("winscope_protolog_message_collision_resolved", 0,
	    SEV_INFO, SRC_ANALYSIS),
	UNCOUNTED("winscope_protolog_group_tag_collision", 0,
	    SEV_INFO, SRC_ANALYSIS),
	UNCOUNTED("winscope_protolog_group_tag_missing", 0,
	    SEV_INFO, SRC_ANALYSIS),
	UNCOUNTED("winscope_protolog_param_mismatch", 0,
	    SEV_INFO, SRC_ANALYSIS),
	UNCOUNTED("winscope_viewcapture_parse_errors", 0,
	    SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("winscope_viewcapture_missing_interned_string_parse_errors", 0,
	    SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("winscope_windowmanager_parse_errors", 0,
	    SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("jit_unknown_frame", 0, SEV_DATA_LOSS, SRC_TRACE),
	UNCOUNTED("ftrace_missing_event_id", 0, SEV_INFO, SRC_ANALYSIS),
	UNCOUNTED("android_input_event_parse_errors", 0,
	    SEV_INFO, SRC_ANALYSIS),
	UNCOUNTED("mali_unknown_mcu_state_id", 0, SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("pixel_modem_negative_timestamp", 0, SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("legacy_v8_cpu_profile_invalid_callsite", 0,
	    SEV_ERROR, SRC_TRACE),
	UNCOUNTED("legacy_v8_cpu_profile_invalid_sample", 0,
	    SEV_ERROR, SRC_TRACE),
	UNCOUNTED("config_write_into_file_no_flush", 0, SEV_ERROR, SRC_TRACE),
	UNCOUNTED("config_write_into_file_discard", SK_INDEXED,
	    SEV_DATA_LOSS, SRC_TRACE),
	UNCOUNTED("hprof_string_counter", 0, SEV_INFO, SRC_ANALYSIS),
	UNCOUNTED("hprof_class_counter", 0, SEV_INFO, SRC_ANALYSIS),
	UNCOUNTED("hprof_heap_dump_counter", 0, SEV_INFO, SRC_ANALYSIS),
	UNCOUNTED("hprof_instance_counter", 0, SEV_INFO, SRC_ANALYSIS),
	UNCOUNTED("hprof_object_array_counter", 0, SEV_INFO, SRC_ANALYSIS),
	UNCOUNTED("hprof_primitive_array_counter", 0, SEV_INFO, SRC_ANALYSIS),
	UNCOUNTED("hprof_root_counter", 0, SEV_INFO, SRC_ANALYSIS),
	UNCOUNTED("hprof_reference_counter", 0, SEV_INFO, SRC_ANALYSIS),
	UNCOUNTED("hprof_record_counter", 0, SEV_INFO, SRC_ANALYSIS),
	UNCOUNTED("hprof_segment_overshoot_counter", 0, SEV_INFO, SRC_ANALYSIS),
	UNCOUNTED("hprof_field_value_errors", 0, SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("hprof_class_errors", 0, SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("hprof_header_errors", 0, SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("hprof_heap_dump_errors", 0, SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("hprof_primitive_array_parsing_errors", 0,
	    SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("hprof_reference_errors", 0, SEV_ERROR, SRC_ANALYSIS),
	{ "trace_sorter_negative_timestamp_dropped", SK_GLOBAL, SEV_ERROR,
	    SRC_TRACE, ST_TRACE_SORTER_NEGATIVE_TS,
	    "" },
	{ "slice_drop_overlapping_complete_event", 0, SEV_ERROR,
	    SRC_ANALYSIS, ST_SLICE_DROP_OVERLAPPING_COMPLETE,
	    "Complete events that overlapped another and had nowhere "
	    "to go: dropped." },
	{ "slice_spill_overlapping_complete_event", 0, SEV_ERROR,
	    SRC_ANALYSIS, ST_SLICE_SPILL_OVERLAPPING_COMPLETE,
	    "JSON complete events that overlapped another on their "
	    "thread: put on a track of overlapping slices of the "
	    "thread." },
	UNCOUNTED("perf_text_importer_sample_no_frames", 0,
	    SEV_ERROR, SRC_TRACE),
	{ "strace_parse_failure", 0, SEV_INFO,
	    SRC_TRACE, ST_STRACE_PARSE_FAILURE,
	    "A line of an strace trace that is no syscall: skipped." },
	{ "strace_unsupported_timestamp_format", 0, SEV_ERROR,
	    SRC_TRACE, ST_STRACE_UNSUPPORTED_TIMESTAMP_FORMAT,
	    "A syscall line with a -t/-tt time of day (no date): "
	    "skipped; record with -ttt." },
	{ "strace_missing_pid", 0, SEV_ERROR, SRC_TRACE, ST_STRACE_MISSING_PID,
	    "A syscall line without a pid: skipped; record with -f." },
	UNCOUNTED("simpleperf_missing_file_mapping", 0,
	    SEV_DATA_LOSS, SRC_TRACE),
	{ "slice_negative_duration", 0, SEV_ERROR,
	    SRC_ANALYSIS, ST_SLICE_NEGATIVE_DURATION,
	    "" },
	{ "slice_max_depth_exceeded", 0, SEV_ERROR,
	    SRC_ANALYSIS, ST_SLICE_MAX_DEPTH_EXCEEDED,
	    "Slices dropped: they would have nested deeper than the "
	    "deepest a track holds." },
	UNCOUNTED("gpu_work_period_negative_duration", 0,
	    SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("track_descriptor_missing_uuid", 0, SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("track_descriptor_thread_missing_pid_tid", 0,
	    SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("track_descriptor_process_missing_pid", 0,
	    SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("track_event_missing_sequence_id", 0,
	    SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("track_event_missing_timestamp", 0, SEV_ERROR, SRC_ANALYSIS),
	{ "track_event_invalid_timestamp", 0, SEV_ERROR,
	    SRC_ANALYSIS, ST_TRACK_EVENT_INVALID_TIMESTAMP,
	    "TrackEvents whose timestamp was out of range "
	    "(microseconds too large, a delta past the range): "
	    "dropped." },
	{ "streaming_profile_invalid_timestamp", 0, SEV_ERROR,
	    SRC_ANALYSIS, ST_STREAMING_PROFILE_INVALID_TIMESTAMP,
	    "Streaming profile packets whose time was negative: "
	    "dropped." },
	UNCOUNTED("thread_descriptor_missing_sequence_id", 0,
	    SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("incremental_state_cleared_missing_sequence_id", 0,
	    SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("previous_packet_dropped_missing_sequence_id", 0,
	    SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("trace_packet_defaults_missing_sequence_id", 0,
	    SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("interned_data_missing_sequence_id", 0,
	    SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("track_event_track_hierarchy_loop", 0,
	    SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("track_event_track_hierarchy_too_deep", 0,
	    SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("track_descriptor_default_track_with_parent", 0,
	    SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("track_descriptor_conflicting_reservation", 0,
	    SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("track_event_range_of_interest_missing_start_us", 0,
	    SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("track_descriptor_invalid_child_ordering", 0,
	    SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("track_event_counter_missing_track_uuid", 0,
	    SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("track_event_counter_missing_value", 0,
	    SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("track_event_counter_invalid_track_uuid", 0,
	    SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("track_event_extra_counter_missing_track_uuids", 0,
	    SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("track_event_state_missing_track_uuid", 0,
	    SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("track_event_extra_counter_track_uuid_mismatch", 0,
	    SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("track_event_extra_counter_exceeds_max", 0,
	    SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("track_event_extra_counter_invalid_track", 0,
	    SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("thread_descriptor_skipped_incremental_state_invalid", 0,
	    SEV_NOTICE, SRC_ANALYSIS),
	UNCOUNTED("track_event_skipped_timestamp_delta_without_valid_state", 0,
	    SEV_NOTICE, SRC_ANALYSIS),
	UNCOUNTED("track_event_skipped_thread_time_delta_without_valid_state", 0,
	    SEV_NOTICE, SRC_ANALYSIS),
	UNCOUNTED("track_event_skipped_thread_instruction_delta_without_valid_state", 0,
	    SEV_NOTICE, SRC_ANALYSIS),
	{ "packet_skipped_seq_needs_incremental_state_invalid", 0, SEV_NOTICE,
	    SRC_ANALYSIS, ST_PACKET_SKIPPED_STATE_INVALID,
	    "Packets needing incremental state that was lost." },
	{ "interned_data_skipped_incremental_state_invalid", 0, SEV_NOTICE,
	    SRC_ANALYSIS, ST_INTERNED_SKIPPED_STATE_INVALID,
	    "Interned data sent while the state was lost." },
	/* faro records no heap graphs: always 0 (the UI reads the row). */
	{ "heap_graph_non_finalized_graph", SK_GLOBAL, SEV_DATA_LOSS,
	    SRC_TRACE, ST_HEAP_GRAPH_NON_FINALIZED_GRAPH,
	    "Heap graphs whose dump never completed: the graph misses "
	    "objects." },
	UNCOUNTED("primes_unknown_edge_type", 0, SEV_DATA_LOSS, SRC_ANALYSIS),
	UNCOUNTED("primes_executor_not_found", 0, SEV_DATA_LOSS, SRC_ANALYSIS),
	UNCOUNTED("primes_end_without_matching_begin", 0,
	    SEV_INFO, SRC_ANALYSIS),
	UNCOUNTED("primes_missing_entity_details", 0, SEV_INFO, SRC_ANALYSIS),
	UNCOUNTED("primes_missing_parent_id", 0, SEV_INFO, SRC_ANALYSIS),
	UNCOUNTED("primes_malformed_timestamp", 0, SEV_DATA_LOSS, SRC_ANALYSIS),
	UNCOUNTED("protovm_abort", 0, SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("protovm_registration_error", 0, SEV_ERROR, SRC_ANALYSIS),
	UNCOUNTED("extra_parsing_descriptors_error", SK_GLOBAL,
	    SEV_ERROR, SRC_ANALYSIS),
	/* faro's own, after upstream's keys. Upstream has no single stat
	 * for broken framing. */
	{ "proto_decode_errors", SK_OURS, SEV_ERROR, SRC_TRACE,
	    ST_PROTO_DECODE_ERRORS,
	    "Malformed protobuf messages (truncated, bad lengths)." },
	/* Upstream skips such events without a word. */
	{ "etw_tokenizer_errors", SK_OURS, SEV_INFO, SRC_TRACE,
	    ST_ETW_TOKENIZER_ERRORS,
	    "ETW events without a cpu or time, or with a cpu past "
	    "1023: skipped." },
};

#define NKEYS	(sizeof(stat_keys) / sizeof(stat_keys[0]))

void
tp_stat_inc(struct tp *tp, enum tp_stat s, int64_t n)
{
	/* The tokenizer's, while the parse thread counts: kept aside. */
	if (tp->pipe != NULL && tp_pipe_self != tp && tp_pipe_busy(tp))
		tp_pipe_stat(tp, (int)s, n);
	else
		tp->stats[s] += n;
}

/* Each stat's key, made once: an import log looks its key up. */
static const struct stat_key *keys_by_stat[ST_COUNT];
static pthread_once_t keys_once = PTHREAD_ONCE_INIT;

static void
keys_index(void)
{
	size_t k;

	for (k = 0; k < NKEYS; k++)
		if (stat_keys[k].st >= 0)
			keys_by_stat[stat_keys[k].st] = &stat_keys[k];
}

/* The key of stat s (NULL: none, which tp_stats_keys_complete finds). */
static const struct stat_key *
key_of(enum tp_stat s)
{
	(void)pthread_once(&keys_once, keys_index);
	return (unsigned)s < ST_COUNT ? keys_by_stat[s] : NULL;
}

int
tp_stats_keys_complete(void)
{
	const struct stat_key *k;
	int s;

	for (s = 0; s < ST_COUNT; s++)
		if ((k = key_of((enum tp_stat)s)) == NULL ||
		    !(k->flags & SK_INDEXED) != (s < ST_INDEXED_FIRST))
			return 0;
	return 1;
}

void
tp_import_log(struct tp *tp, enum tp_stat s, int64_t ts, int64_t byte_offset,
    int64_t arg_set_id)
{
	sqlite3_stmt *st = tp->stmt[SQ_IMPORT_LOG];
	const struct stat_key *k = key_of(s);

	tp_pipe_sync(tp);
	tp_stat_inc(tp, s, 1);
	arg_set_id = tp_arg_set_done(tp, arg_set_id);
	sqlite3_bind_int64(st, 1, tp->next_import_log++);
	tp_bind_i64n(st, 2, ts);
	tp_bind_i64n(st, 3, byte_offset);
	sqlite3_bind_text(st, 4, severities[k->severity], -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, k->name, -1, SQLITE_STATIC);
	tp_bind_i64n(st, 6, arg_set_id);
	(void)tp_step_done(tp, st);
}

void
tp_stat_set_indexed(struct tp *tp, enum tp_stat s, int64_t idx, int64_t v)
{
	uint64_t key = ((uint64_t)s << 32) | ((uint64_t)idx & 0xffffffff);
	uint64_t *order;

	tp_pipe_sync(tp);
	/* Listed in the order first set, as upstream lists them. */
	if (tp_hash_get(&tp->istats, key) == NULL) {
		if (tp->nistat_order == tp->capistat_order) {
			size_t ncap = tp->capistat_order ?
			    tp->capistat_order * 2 : 64;

			if ((order = realloc(tp->istat_order,
			    ncap * sizeof(*order))) == NULL) {
				tp_seterr(tp, "%s: out of memory", __func__);
				return;
			}
			tp->istat_order = order;
			tp->capistat_order = ncap;
		}
		tp->istat_order[tp->nistat_order++] = key;
	}
	(void)tp_hash_put(&tp->istats, key, (uint64_t)v);
}

void
tp_stat_add_indexed(struct tp *tp, enum tp_stat s, int64_t idx, int64_t n)
{
	int64_t v = 0;

	(void)tp_stat_get_indexed(tp, s, idx, &v);
	tp_stat_set_indexed(tp, s, idx, (int64_t)((uint64_t)v + (uint64_t)n));
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
key_is_error(const struct stat_key *k)
{
	return k->severity == SEV_ERROR || k->severity == SEV_DATA_LOSS;
}

int64_t
tp_error_stats(struct tp *tp)
{
	const struct stat_key *k;
	uint64_t key, val;
	int64_t n = 0;
	size_t it;

	for (k = stat_keys; k < stat_keys + NKEYS; k++)
		if (k->st >= 0 && !(k->flags & SK_INDEXED) &&
		    key_is_error(k) && tp->stats[k->st] > 0)
			n++;
	for (it = 0; tp_hash_next(&tp->istats, &it, &key, &val);)
		if (key_is_error(key_of((enum tp_stat)(key >> 32))) &&
		    (int64_t)val > 0)
			n++;
	return n;
}

/* Row id of the stats table, of machine m unless k is the session's. */
static void
row_put(struct tp *tp, sqlite3_stmt *st, int64_t id,
    const struct stat_key *k, int64_t idx, int64_t v, int64_t m)
{
	int global = k->flags & SK_GLOBAL;

	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_text(st, 2, k->name, -1, SQLITE_STATIC);
	tp_bind_i64n(st, 3, k->flags & SK_OURS ? TP_NULL :
	    (int64_t)(k - stat_keys));
	tp_bind_i64n(st, 4, idx);
	sqlite3_bind_text(st, 5, severities[k->severity], -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 6, sources[k->source], -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 7, v);
	sqlite3_bind_text(st, 8, k->desc, -1, SQLITE_STATIC);
	tp_bind_i64n(st, 9, global ? TP_NULL : m);
	tp_bind_i64n(st, 10, global ? TP_NULL : 0);
	(void)tp_step_done(tp, st);
}

/*
 * The rows in upstream's order: the session's single stats, then each
 * machine's (upstream lists them at 0 once the trace is known to be one,
 * and a machine once it is seen), then each indexed stat's indexes in the
 * order they were first set, then our own that counted something. The
 * counters are the host's: a remote machine's rows stay at 0.
 */
int
tp_stats_write(struct tp *tp)
{
	size_t i, m, nm = tp->format != FMT_UNKNOWN ? tp_machine_count(tp) :
	    0;
	const struct stat_key *k;
	sqlite3_stmt *st;
	int64_t v, id = 0;

	/* Written again at each checkpoint: the values only grow. */
	if (sqlite3_exec(tp->db, "DELETE FROM stats", NULL, NULL, NULL) !=
	    SQLITE_OK)
		return tp_seterr(tp, "%s: %s", __func__,
		    sqlite3_errmsg(tp->db));
	if (sqlite3_prepare_v2(tp->db, "INSERT INTO stats VALUES(?,?,?,?,?,?,?,"
	    "?,?,?)", -1, &st, NULL) != SQLITE_OK)
		return tp_seterr(tp, "%s: %s", __func__,
		    sqlite3_errmsg(tp->db));
	for (k = stat_keys; k < stat_keys + NKEYS; k++)
		if ((k->flags & (SK_INDEXED | SK_OURS | SK_GLOBAL)) ==
		    SK_GLOBAL)
			row_put(tp, st, id++, k, TP_NULL,
			    k->st >= 0 ? tp->stats[k->st] : 0, TP_NULL);
	for (m = 0; m < nm; m++)
		for (k = stat_keys; k < stat_keys + NKEYS; k++)
			if ((k->flags & (SK_INDEXED | SK_OURS | SK_GLOBAL)) ==
			    0)
				row_put(tp, st, id++, k, TP_NULL, m == 0 &&
				    k->st >= 0 ? tp->stats[k->st] : 0,
				    (int64_t)m);
	for (i = 0; i < tp->nistat_order; i++) {
		uint64_t key = tp->istat_order[i], *val;

		if ((val = tp_hash_get(&tp->istats, key)) != NULL &&
		    (k = key_of((enum tp_stat)(key >> 32))) != NULL)
			row_put(tp, st, id++, k,
			    (int64_t)(int32_t)(uint32_t)key, (int64_t)*val, 0);
	}
	for (k = stat_keys; k < stat_keys + NKEYS; k++)
		if ((k->flags & SK_OURS) && (v = tp->stats[k->st]) != 0)
			row_put(tp, st, id++, k, TP_NULL, v, 0);
	sqlite3_finalize(st);
	return 0;
}
