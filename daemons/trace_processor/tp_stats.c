/*
 * The stats table: upstream's stat names, severities and sources for the
 * counters the importers keep, written at tp_eof() and each tp_checkpoint().
 */
#include <string.h>

#include "tp_int.h"

struct stat_desc {
	const char	*name;
	const char	*severity;	/* info, error, data_loss */
	const char	*source;	/* trace, analysis */
	const char	*desc;
};

static const struct stat_desc stat_descs[ST_COUNT] = {
	[ST_SORTER_OUT_OF_ORDER] = { "sorter_push_event_out_of_order",
	    "error", "trace", "Packets older than the sorting window: dropped." },
	[ST_TOKENIZER_SKIPPED_PACKETS] = { "tokenizer_skipped_packets",
	    "info", "analysis", "Packets needing incremental state that was lost." },
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
	[ST_CLOCK_SYNC_FAILURE] = { "clock_sync_failure", "error",
	    "analysis", "Timestamps in a clock with no path to BOOTTIME." },
	[ST_INVALID_CLOCK_SNAPSHOTS] = { "invalid_clock_snapshots", "error",
	    "analysis", "" },
	[ST_FTRACE_BUNDLE_TOKENIZER_ERRORS] = {
	    "ftrace_bundle_tokenizer_errors", "error", "analysis", "" },
	[ST_COMPACT_SCHED_HAS_PARSE_ERRORS] = {
	    "compact_sched_has_parse_errors", "error", "trace", "" },
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
	[ST_PROCESS_TRACKER_ERRORS] = { "process_tracker_errors", "error",
	    "analysis", "" },
	[ST_FLOW_END_WITHOUT_START] = { "flow_end_without_start", "info",
	    "trace", "" },
	[ST_FLOW_NO_ENCLOSING_SLICE] = { "flow_no_enclosing_slice", "error",
	    "trace", "" },
	[ST_FLOW_INVALID_ID] = { "flow_invalid_id", "error", "trace", "" },
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
	[ST_TRACED_BUF_BUFFER_SIZE] = { "traced_buf_buffer_size", "info",
	    "trace", "" },
	[ST_TRACED_BUF_BYTES_WRITTEN] = { "traced_buf_bytes_written", "info",
	    "trace", "" },
	[ST_TRACED_BUF_BYTES_OVERWRITTEN] = { "traced_buf_bytes_overwritten",
	    "info", "trace", "" },
	[ST_TRACED_BUF_BYTES_READ] = { "traced_buf_bytes_read", "info",
	    "trace", "" },
	[ST_TRACED_BUF_CHUNKS_WRITTEN] = { "traced_buf_chunks_written", "info",
	    "trace", "" },
	[ST_TRACED_BUF_CHUNKS_OVERWRITTEN] = {
	    "traced_buf_chunks_overwritten", "info", "trace", "" },
	[ST_TRACED_BUF_CHUNKS_DISCARDED] = { "traced_buf_chunks_discarded",
	    "info", "trace", "" },
	[ST_TRACED_BUF_CHUNKS_READ] = { "traced_buf_chunks_read", "info",
	    "trace", "" },
	[ST_TRACED_BUF_PATCHES_FAILED] = { "traced_buf_patches_failed",
	    "data_loss", "trace", "" },
	[ST_TRACED_BUF_ABI_VIOLATIONS] = { "traced_buf_abi_violations",
	    "data_loss", "trace", "" },
	[ST_TRACED_BUF_TRACE_WRITER_PACKET_LOSS] = {
	    "traced_buf_trace_writer_packet_loss", "data_loss", "trace", "" },
	[ST_FTRACE_CPU_OVERRUN_END] = { "ftrace_cpu_overrun_end", "info",
	    "trace", "" },
	[ST_FTRACE_CPU_ENTRIES_END] = { "ftrace_cpu_entries_end", "info",
	    "trace", "" },
	[ST_FTRACE_CPU_DROPPED_EVENTS_END] = {
	    "ftrace_cpu_dropped_events_end", "info", "trace", "" },
	[ST_FTRACE_CPU_HAS_DATA_LOSS] = { "ftrace_cpu_has_data_loss",
	    "data_loss", "trace", "" },
};

void
tp_stat_inc(struct tp *tp, enum tp_stat s, int64_t n)
{
	tp->stats[s] += n;
}

void
tp_stat_set_indexed(struct tp *tp, enum tp_stat s, int64_t idx, int64_t v)
{
	(void)tp_hash_put(&tp->istats,
	    ((uint64_t)s << 32) | ((uint64_t)idx & 0xffffffff), (uint64_t)v);
}

int64_t
tp_error_stats(struct tp *tp)
{
	int64_t n = 0;
	size_t i;
	int s;

	for (s = 0; s < ST_INDEXED_FIRST; s++)
		if (strcmp(stat_descs[s].severity, "info") != 0)
			n += tp->stats[s];
	for (i = 0; i < tp->istats.cap; i++) {
		if (!tp->istats.used[i])
			continue;
		s = (int)(tp->istats.slots[i].key >> 32);
		if (strcmp(stat_descs[s].severity, "data_loss") == 0)
			n += (int64_t)tp->istats.slots[i].val;
	}
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
