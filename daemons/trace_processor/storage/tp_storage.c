/*
 * The tables: schema with upstream's names and columns, prepared inserts,
 * and the final write of the rows kept in C while importing (threads,
 * processes, tracks, stats).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tp_int.h"
#include "importers/tp_pipe.h"

/*
 * Track-like rows share one table; the typed tables are views that keep
 * the rows of their type and its subtypes, as upstream's inheritance.
 */
#define META_STR(k)							\
	"(SELECT str_value FROM metadata WHERE name = '" k "')"
#define META_INT(k)							\
	"(SELECT int_value FROM metadata WHERE name = '" k "')"
/* A key of machine m's. */
#define META_MSTR(k)							\
	"(SELECT str_value FROM metadata WHERE name = '" k "'"		\
	" AND machine_id = m.id)"
#define META_MINT(k)							\
	"(SELECT int_value FROM metadata WHERE name = '" k "'"		\
	" AND machine_id = m.id)"

static const char schema_sql[] =
	/*
	 * As upstream v58: type says what a track holds ("cpu_frequency"),
	 * its dimensions (utid, upid, cpu) are args; the typed views keep
	 * the slice or counter tracks of one dimension, with upstream's
	 * columns in upstream's order.
	 */
	"CREATE VIRTUAL TABLE __intrinsic_track USING __cs;"
	"CREATE VIEW track AS SELECT id, name, type, dimension_arg_set_id,"
	" parent_id, source_arg_set_id, machine_id, track_group_id"
	" FROM __intrinsic_track;"
	"CREATE VIEW thread_track AS SELECT id, name, type, parent_id,"
	" source_arg_set_id, machine_id, utid FROM __intrinsic_track"
	" WHERE event_type = 'slice' AND utid IS NOT NULL;"
	"CREATE VIEW process_track AS SELECT id, name, type, parent_id,"
	" source_arg_set_id, machine_id, upid FROM __intrinsic_track"
	" WHERE event_type = 'slice' AND upid IS NOT NULL;"
	/* upstream's deprecated gpu_track: tracks of these types */
	"CREATE VIEW gpu_track AS SELECT id, name, type, parent_id,"
	" source_arg_set_id, dimension_arg_set_id, machine_id, type AS scope,"
	" extract_arg(source_arg_set_id, 'description') AS description,"
	" extract_arg(dimension_arg_set_id, 'context_id') AS context_id"
	" FROM __intrinsic_track WHERE type IN ('drm_vblank',"
	" 'drm_sched_ring', 'drm_fence', 'mali_mcu_state',"
	" 'gpu_render_stage', 'vulkan_events', 'gpu_log',"
	" 'graphics_frame_event');"
	"CREATE VIEW cpu_track AS SELECT id, name, type, parent_id,"
	" source_arg_set_id, machine_id, cpu FROM __intrinsic_track"
	" WHERE event_type = 'slice' AND cpu IS NOT NULL;"
	"CREATE VIEW counter_track AS SELECT id, name, parent_id, type,"
	" dimension_arg_set_id, source_arg_set_id, machine_id,"
	" counter_unit AS unit, description FROM __intrinsic_track"
	" WHERE event_type = 'counter';"
	"CREATE VIEW thread_counter_track AS SELECT id, name, type,"
	" parent_id, source_arg_set_id, machine_id, counter_unit AS unit,"
	" description, utid FROM __intrinsic_track"
	" WHERE event_type = 'counter' AND utid IS NOT NULL;"
	"CREATE VIEW process_counter_track AS SELECT id, name, type,"
	" parent_id, source_arg_set_id, machine_id, counter_unit AS unit,"
	" description, upid FROM __intrinsic_track"
	" WHERE event_type = 'counter' AND upid IS NOT NULL;"
	"CREATE VIEW cpu_counter_track AS SELECT id, name, type, parent_id,"
	" source_arg_set_id, machine_id, counter_unit AS unit, description,"
	" cpu FROM __intrinsic_track"
	" WHERE event_type = 'counter' AND cpu IS NOT NULL;"

	/* The stack ids serve the *_by_stack operators; upstream's slice
	 * does not show them. */
	"CREATE VIRTUAL TABLE __intrinsic_slice USING __cs;"
	/* upstream's aliases (cat, slice_id) computed, never stored */
	"CREATE VIEW slice AS SELECT id, ts, dur, track_id, category, name,"
	" depth, parent_id, arg_set_id, thread_ts, thread_dur,"
	" thread_instruction_count, thread_instruction_delta,"
	" category AS cat, id AS slice_id FROM __intrinsic_slice;"
	"CREATE VIEW slices AS SELECT * FROM slice;"
	/* upstream's prelude view of the instants (slices of no duration) */
	"CREATE VIEW instant AS SELECT ts, track_id, name, arg_set_id"
	" FROM slice WHERE dur = 0;"
	"CREATE VIRTUAL TABLE flow USING __cs;"
	"CREATE VIRTUAL TABLE counter USING __cs;"
	"CREATE VIEW counters AS SELECT v.*, t.name, t.unit FROM counter v"
	" JOIN counter_track t ON v.track_id = t.id ORDER BY ts;"
	"CREATE VIRTUAL TABLE __arg_keys USING __cs;"
	"CREATE VIRTUAL TABLE __args USING __cs;"
	"CREATE VIEW args AS SELECT id, arg_set_id, flat_key, key, int_value,"
	" string_value, real_value, value_type,"
	/* a value as upstream shows one, whatever its type */
	" CASE value_type WHEN 'int' THEN CAST(int_value AS TEXT)"
	" WHEN 'uint' THEN printf('%u', int_value)"
	" WHEN 'string' THEN string_value"
	" WHEN 'real' THEN __intrinsic_cast_string(real_value)"
	" WHEN 'pointer' THEN printf('0x%x', int_value)"
	" WHEN 'bool' THEN (CASE WHEN int_value != 0 THEN 'true'"
	" ELSE 'false' END)"
	" WHEN 'json' THEN string_value ELSE NULL END AS display_value"
	" FROM __args;"

	"CREATE VIRTUAL TABLE thread USING __cs;"
	"CREATE VIRTUAL TABLE process USING __cs;"

	"CREATE VIRTUAL TABLE sched_slice USING __cs;"
	"CREATE VIEW sched AS SELECT *, ts + dur AS ts_end FROM sched_slice;"
	"CREATE VIRTUAL TABLE thread_state USING __cs;"
	"CREATE VIRTUAL TABLE ftrace_event USING __cs;"
	"CREATE VIEW raw AS SELECT * FROM ftrace_event;"

	/* Upstream's columns (tp_stats.c writes the rows). */
	"CREATE TABLE stats(id INTEGER PRIMARY KEY, name TEXT, key INTEGER,"
	" idx INTEGER, severity TEXT, source TEXT, value INTEGER,"
	" description TEXT, machine_id INTEGER, trace_id INTEGER);"
	/* Which machine and trace a key is about: metadata_insert. */
	"CREATE TABLE metadata(id INTEGER PRIMARY KEY, name TEXT,"
	" key_type TEXT, int_value INTEGER, str_value TEXT,"
	" machine_id INTEGER, trace_id INTEGER);"
	"CREATE TABLE cpu(id INTEGER PRIMARY KEY,"
	" ucpu INTEGER AS (id) VIRTUAL, cpu INTEGER, cluster_id INTEGER,"
	" processor TEXT, machine_id INTEGER,"
	" capacity INTEGER, arg_set_id INTEGER);"
	/* The machines (tp_machine.c): the host, 0, is always there. */
	"CREATE TABLE __machine(id INTEGER PRIMARY KEY, raw_id INTEGER,"
	" num_cpus INTEGER);"
	"INSERT INTO __machine VALUES(0, 0, NULL);"
	"CREATE VIEW machine AS SELECT m.id AS id, m.raw_id AS raw_id,"
	" NULL AS name,"
	" " META_MSTR("system_name") " AS sysname,"
	" " META_MSTR("system_release") " AS release,"
	" " META_MSTR("system_version") " AS version,"
	" " META_MSTR("system_machine") " AS arch,"
	" m.num_cpus AS num_cpus,"
	" " META_MSTR("android_build_fingerprint")
	" AS android_build_fingerprint,"
	" " META_MSTR("android_device_manufacturer")
	" AS android_device_manufacturer,"
	" " META_MINT("android_sdk_version") " AS android_sdk_version,"
	" " META_MINT("system_ram_bytes") " AS system_ram_bytes,"
	" " META_MINT("system_ram_gb") " AS system_ram_gb,"
	" m.id AS label_index FROM __machine m;"
	"CREATE TABLE clock_snapshot(id INTEGER PRIMARY KEY, ts INTEGER,"
	" clock_id INTEGER, clock_name TEXT, clock_value INTEGER,"
	" snapshot_id INTEGER, machine_id INTEGER);"
	"CREATE INDEX clock_snapshot_clock_ts ON clock_snapshot(clock_id, ts);"
	"CREATE TABLE __trace_bounds(start_ts INTEGER, end_ts INTEGER);"
	"CREATE VIEW trace_bounds AS SELECT start_ts, end_ts"
	" FROM __trace_bounds;"
	/* The GPUs seen (tp_gpu.c): ids only, their details never. */
	"CREATE TABLE gpu(id INTEGER PRIMARY KEY, ugpu INTEGER, gpu INTEGER,"
	" name TEXT, vendor TEXT, model TEXT, architecture TEXT, uuid BLOB,"
	" pci_bdf TEXT, machine_id INTEGER, arg_set_id INTEGER);"
	/* Profiles: callstacks (tp_stack_profile.c), perf samples and their
	 * counters (tp_perf_sample.c), heap dumps (tp_heap_profile.c). */
	"CREATE TABLE stack_profile_mapping(id INTEGER PRIMARY KEY,"
	" build_id TEXT, exact_offset INTEGER, start_offset INTEGER,"
	" start INTEGER, end INTEGER, load_bias INTEGER, name TEXT);"
	"CREATE TABLE stack_profile_frame(id INTEGER PRIMARY KEY, name TEXT,"
	" mapping INTEGER, rel_pc INTEGER, symbol_set_id INTEGER,"
	" deobfuscated_name TEXT, type TEXT);"
	"CREATE TABLE stack_profile_callsite(id INTEGER PRIMARY KEY,"
	" depth INTEGER, parent_id INTEGER, frame_id INTEGER);"
	"CREATE TABLE stack_profile_symbol(id INTEGER PRIMARY KEY,"
	" symbol_set_id INTEGER, name TEXT, source_file TEXT,"
	" line_number INTEGER, inlined INTEGER);"
	"CREATE TABLE perf_session(id INTEGER PRIMARY KEY,"
	" perf_session_id INTEGER, cmdline TEXT);"
	"CREATE TABLE perf_sample(id INTEGER PRIMARY KEY, ts INTEGER,"
	" utid INTEGER, cpu INTEGER, cpu_mode TEXT, callsite_id INTEGER,"
	" unwind_error TEXT, perf_session_id INTEGER);"
	/* A perf counter's session and cpu are its dimensions. */
	"CREATE VIEW perf_counter_track AS SELECT t.id AS id, t.name AS name,"
	" t.type AS type, t.parent_id AS parent_id,"
	" t.source_arg_set_id AS source_arg_set_id,"
	" t.machine_id AS machine_id, t.counter_unit AS unit,"
	" t.description AS description,"
	" (SELECT int_value FROM args WHERE arg_set_id ="
	" t.dimension_arg_set_id AND key = 'perf_session_id')"
	" AS perf_session_id, t.cpu AS cpu,"
	" (SELECT int_value FROM args WHERE arg_set_id ="
	" t.source_arg_set_id AND key = 'is_timebase') AS is_timebase"
	" FROM __intrinsic_track t WHERE t.type = 'perf_cpu_counter';"
	"CREATE TABLE stack_sample(id INTEGER PRIMARY KEY, ts INTEGER,"
	" source TEXT, task_context_id INTEGER,"
	" execution_context_id INTEGER, callsite_id INTEGER,"
	" session_id INTEGER);"
	"CREATE TABLE stack_sample_task_context(id INTEGER PRIMARY KEY,"
	" upid INTEGER, utid INTEGER, async_context_id INTEGER);"
	/* Samples of profilers of a program's own (Gecko's). */
	"CREATE VIEW cpu_profile_stack_sample AS SELECT s.id AS id,"
	" s.ts AS ts, s.callsite_id AS callsite_id, c.utid AS utid,"
	" 0 AS process_priority FROM stack_sample s"
	" JOIN stack_sample_task_context c ON c.id = s.task_context_id"
	" WHERE s.source IN ('chrome', 'gecko');"
	/* Samples of MacOS Instruments (no importer here: none). */
	"CREATE VIEW instruments_sample AS SELECT s.id AS id, s.ts AS ts,"
	" c.utid AS utid, s.callsite_id AS callsite_id, NULL AS cpu"
	" FROM stack_sample s"
	" LEFT JOIN stack_sample_task_context c ON c.id = s.task_context_id"
	" WHERE s.source = 'instruments';"
	"CREATE TABLE heap_profile(id INTEGER PRIMARY KEY, ts INTEGER,"
	" ts_end INTEGER, dur INTEGER, upid INTEGER, heap_name TEXT);"
	"CREATE TABLE heap_profile_allocation(id INTEGER PRIMARY KEY,"
	" ts INTEGER, upid INTEGER, heap_name TEXT, callsite_id INTEGER,"
	" count INTEGER, size INTEGER);"
	/*
	 * Tables of data faro's importers never produce (heap graphs,
	 * Android logs and packages, ...), with upstream's
	 * columns: empty, so that upstream's clients (the UI's plugins)
	 * can ask and get no rows rather than an error.
	 */
	"CREATE TABLE state(id INTEGER PRIMARY KEY, ts INTEGER, dur INTEGER,"
	" track_id INTEGER, category TEXT, value TEXT, arg_set_id INTEGER);"
	"CREATE TABLE gpu_counter_track(id INTEGER PRIMARY KEY, name TEXT,"
	" type TEXT, parent_id INTEGER, source_arg_set_id INTEGER,"
	" machine_id INTEGER, unit TEXT, description TEXT, ugpu INTEGER,"
	" gpu_id INTEGER);"
	"CREATE TABLE gpu_counter_group(id INTEGER PRIMARY KEY,"
	" group_id INTEGER, track_id INTEGER, name TEXT, description TEXT);"
	"CREATE TABLE stack_sample_counter_track(id INTEGER PRIMARY KEY,"
	" name TEXT, type TEXT, parent_id INTEGER,"
	" source_arg_set_id INTEGER, machine_id INTEGER, unit TEXT,"
	" description TEXT, session_id INTEGER, cpu INTEGER,"
	" is_timebase INTEGER);"
	"CREATE TABLE heap_graph_object(id INTEGER PRIMARY KEY, upid INTEGER,"
	" graph_sample_ts INTEGER, self_size INTEGER, native_size INTEGER,"
	" reference_set_id INTEGER, reachable INTEGER, heap_type TEXT,"
	" type_id INTEGER, root_type TEXT, root_distance INTEGER,"
	" object_data_id INTEGER);"
	"CREATE TABLE heap_graph_class(id INTEGER PRIMARY KEY, name TEXT,"
	" deobfuscated_name TEXT, location TEXT, superclass_id INTEGER,"
	" classloader_id INTEGER, kind TEXT);"
	"CREATE TABLE heap_graph_reference(id INTEGER PRIMARY KEY,"
	" reference_set_id INTEGER, owner_id INTEGER, owned_id INTEGER,"
	" field_name TEXT, field_type_name TEXT,"
	" deobfuscated_field_name TEXT);"
	"CREATE TABLE __intrinsic_android_cpu_per_uid_track("
	" id INTEGER PRIMARY KEY, track_id INTEGER, uid INTEGER,"
	" cluster INTEGER, total_cpu_millis INTEGER);"
	"CREATE TABLE package_list(id INTEGER PRIMARY KEY, package_name TEXT,"
	" uid INTEGER, debuggable INTEGER, profileable_from_shell INTEGER,"
	" version_code INTEGER);"
	"CREATE TABLE android_logs(id INTEGER PRIMARY KEY, ts INTEGER,"
	" utid INTEGER, prio INTEGER, tag TEXT, msg TEXT);"
	"CREATE TABLE process_memory_snapshot(id INTEGER PRIMARY KEY,"
	" snapshot_id INTEGER, upid INTEGER);"
	"CREATE TABLE profiler_smaps(id INTEGER PRIMARY KEY, upid INTEGER,"
	" ts INTEGER, path TEXT, path_trimmed TEXT, aggregate_count INTEGER,"
	" is_deleted INTEGER, size_kb INTEGER, private_dirty_kb INTEGER,"
	" swap_kb INTEGER, file_name TEXT, start_address INTEGER,"
	" module_timestamp INTEGER, module_debugid TEXT,"
	" module_debug_path TEXT, protection_flags INTEGER,"
	" private_clean_resident_kb INTEGER,"
	" shared_dirty_resident_kb INTEGER,"
	" shared_clean_resident_kb INTEGER, locked_kb INTEGER,"
	" proportional_resident_kb INTEGER, rss_kb INTEGER,"
	" anonymous_kb INTEGER, pss_dirty_kb INTEGER, swap_pss_kb INTEGER);"
	"CREATE TABLE process_memory_mappings(id INTEGER PRIMARY KEY,"
	" upid INTEGER, ts INTEGER, path TEXT, aggregate_count INTEGER,"
	" is_deleted INTEGER, size_kb INTEGER, rss_kb INTEGER,"
	" anonymous_kb INTEGER, swap_kb INTEGER, shared_clean_kb INTEGER,"
	" shared_dirty_kb INTEGER, private_clean_kb INTEGER,"
	" private_dirty_kb INTEGER, locked_kb INTEGER, pss_kb INTEGER,"
	" pss_dirty_kb INTEGER, swap_pss_kb INTEGER);"
	"CREATE TABLE __intrinsic_trace_diagnostics(id INTEGER PRIMARY KEY,"
	" key TEXT, title TEXT, description TEXT, remediation TEXT,"
	" confidence TEXT, trace_id INTEGER);"
	"CREATE TABLE __intrinsic_video_frames(id INTEGER PRIMARY KEY,"
	" ts INTEGER, display_id INTEGER, display_name TEXT,"
	" codec_string TEXT, frame_number INTEGER, codec TEXT,"
	" is_key_frame INTEGER, pts_us INTEGER, is_config INTEGER);"
	"CREATE TABLE __intrinsic_aggregate_profile(id INTEGER PRIMARY KEY,"
	" scope TEXT, name TEXT, sample_type_type TEXT,"
	" sample_type_unit TEXT);"
	"CREATE TABLE heap_graph(id INTEGER PRIMARY KEY, ts INTEGER,"
	" upid INTEGER, dump_reason TEXT, heap_size INTEGER);"
	"CREATE TABLE stack_sample_session(id INTEGER PRIMARY KEY,"
	" source TEXT, timebase_unit TEXT, cmdline TEXT);"
	"CREATE TABLE memory_snapshot(id INTEGER PRIMARY KEY,"
	" timestamp INTEGER, track_id INTEGER, detail_level TEXT);"
	"CREATE TABLE memory_snapshot_node(id INTEGER PRIMARY KEY,"
	" process_snapshot_id INTEGER, parent_node_id INTEGER, path TEXT,"
	" size INTEGER, effective_size INTEGER, arg_set_id INTEGER);"
	/* The one file read: the trace, once its type is known. */
	"CREATE VIEW __intrinsic_trace_file AS SELECT 0 AS id,"
	" NULL AS parent_id, NULL AS name,"
	" " META_INT("trace_size_bytes") " AS size,"
	" " META_STR("trace_type") " AS trace_type,"
	" 0 AS processing_order, 0 AS is_container"
	" WHERE EXISTS (SELECT 1 FROM metadata WHERE name = 'trace_type');"
	"CREATE TABLE android_game_intervention_list(id INTEGER PRIMARY KEY,"
	" package_name TEXT, uid INTEGER, current_mode INTEGER,"
	" standard_mode_supported INTEGER, standard_mode_downscale REAL,"
	" standard_mode_use_angle INTEGER, standard_mode_fps REAL,"
	" perf_mode_supported INTEGER, perf_mode_downscale REAL,"
	" perf_mode_use_angle INTEGER, perf_mode_fps REAL,"
	" battery_mode_supported INTEGER, battery_mode_downscale REAL,"
	" battery_mode_use_angle INTEGER, battery_mode_fps REAL);"
	"CREATE TABLE _trace_import_logs(id INTEGER PRIMARY KEY,"
	" trace_id INTEGER, ts INTEGER, byte_offset INTEGER, severity TEXT,"
	" name TEXT, arg_set_id INTEGER);"
	"CREATE TABLE __intrinsic_stdlib_objects(id INTEGER PRIMARY KEY,"
	" package TEXT, module TEXT, name TEXT, qualified_name TEXT,"
	" object_type TEXT, exposed INTEGER, short_description TEXT,"
	" summary TEXT, description TEXT, return_type TEXT,"
	" return_description TEXT, args TEXT, cols TEXT);"
	"CREATE VIEW trace_summary AS SELECT"
	" (SELECT start_ts FROM __trace_bounds) AS start_ts,"
	" (SELECT end_ts FROM __trace_bounds) AS end_ts;";

static const char *const stmt_sql[SQ_COUNT] = {
	[SQ_METADATA] = "INSERT INTO metadata(id, name, key_type, int_value,"
	    " str_value, machine_id, trace_id) VALUES(?,?,?,?,?,?,?)",
	/* Ids from 0 as upstream's; the rows are few. */
	[SQ_CLOCK_SNAPSHOT] = "INSERT INTO clock_snapshot(id, ts, clock_id,"
	    " clock_name, clock_value, snapshot_id, machine_id)"
	    " VALUES((SELECT count(*) FROM clock_snapshot),?,?,?,?,?,?)",
	[SQ_IMPORT_LOG] = "INSERT INTO _trace_import_logs(id, trace_id, ts,"
	    " byte_offset, severity, name, arg_set_id)"
	    " VALUES(?,0,?,?,?,?,?)",
	[SQ_GPU] = "INSERT INTO gpu(id, ugpu, gpu, machine_id)"
	    " VALUES(?,?,?,0)",
	[SQ_SP_MAPPING] = "INSERT INTO stack_profile_mapping(id, build_id,"
	    " exact_offset, start_offset, start, end, load_bias, name)"
	    " VALUES(?,?,?,?,?,?,?,?)",
	[SQ_SP_FRAME] = "INSERT INTO stack_profile_frame(id, name, mapping,"
	    " rel_pc, type, symbol_set_id) VALUES(?,?,?,?,?,?)",
	[SQ_SP_SYMBOL] = "INSERT INTO stack_profile_symbol(id, symbol_set_id,"
	    " name) VALUES(?,?,?)",
	[SQ_SP_CALLSITE] = "INSERT INTO stack_profile_callsite(id, depth,"
	    " parent_id, frame_id) VALUES(?,?,?,?)",
	[SQ_PERF_SESSION] = "INSERT INTO perf_session(id, perf_session_id)"
	    " VALUES(?,?)",
	[SQ_PERF_SAMPLE] = "INSERT INTO perf_sample(id, ts, utid, cpu,"
	    " cpu_mode, callsite_id, unwind_error, perf_session_id)"
	    " VALUES(?,?,?,?,?,?,?,?)",
	[SQ_HEAP_PROFILE] = "INSERT INTO heap_profile(id, ts, ts_end, dur,"
	    " upid, heap_name) VALUES(?,?,?,?,?,?)",
	[SQ_STACK_SAMPLE] = "INSERT INTO stack_sample(id, ts, source,"
	    " task_context_id, callsite_id) VALUES(?,?,?,?,?)",
	[SQ_SAMPLE_TASK_CTX] = "INSERT INTO stack_sample_task_context(id,"
	    " utid) VALUES(?,?)",
	[SQ_HEAP_ALLOC] = "INSERT INTO heap_profile_allocation(id, ts, upid,"
	    " heap_name, callsite_id, count, size) VALUES(?,?,?,?,?,?,?)",
};

int
tp_schema_create(struct tp *tp)
{
	char *msg = NULL;

	if (sqlite3_exec(tp->db, schema_sql, NULL, NULL, &msg) != SQLITE_OK) {
		tp_seterr(tp, "%s: %s", __func__, msg ? msg : "?");
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

/* The tables whose rows are queued (tp_row_new) rather than written one by one. */
static const int batched[SQ_COUNT] = {
	[SQ_SP_MAPPING] = 1, [SQ_SP_FRAME] = 1, [SQ_SP_CALLSITE] = 1,
	[SQ_SP_SYMBOL] = 1,
	[SQ_PERF_SESSION] = 1, [SQ_PERF_SAMPLE] = 1, [SQ_HEAP_PROFILE] = 1,
	[SQ_HEAP_ALLOC] = 1, [SQ_STACK_SAMPLE] = 1, [SQ_SAMPLE_TASK_CTX] = 1,
};

/* The single-row INSERT with its VALUES tuple repeated TP_BATCH_ROWS times. */
static int
batch_prepare(struct tp *tp, enum tp_stmt k)
{
	const char *one = stmt_sql[k], *tuple = strstr(one, "VALUES(");
	struct tp_batch *b;
	size_t plen, tlen, len, i;
	char *sql, *p;
	int rc;

	if ((b = calloc(1, sizeof(*b))) == NULL)
		return tp_seterr(tp, "%s: out of memory", __func__);
	tp->batch[k] = b;
	b->ncols = sqlite3_bind_parameter_count(tp->stmt[k]);
	if (tuple == NULL || b->ncols > TP_BATCH_COLS)
		return tp_seterr(tp, "%s: statement %d cannot be batched",
		    __func__, (int)k);
	tuple += strlen("VALUES");
	plen = (size_t)(tuple - one);
	tlen = strlen(tuple);
	len = plen + TP_BATCH_ROWS * (tlen + 1);
	if ((sql = malloc(len)) == NULL)
		return tp_seterr(tp, "%s: out of memory", __func__);
	memcpy(sql, one, plen);
	p = sql + plen;
	for (i = 0; i < TP_BATCH_ROWS; i++) {
		if (i > 0)
			*p++ = ',';
		memcpy(p, tuple, tlen);
		p += tlen;
	}
	*p = '\0';
	rc = sqlite3_prepare_v3(tp->db, sql, -1, SQLITE_PREPARE_PERSISTENT,
	    &b->many, NULL);
	free(sql);
	if (rc != SQLITE_OK)
		return tp_seterr(tp, "%s: %s", __func__,
		    sqlite3_errmsg(tp->db));
	return 0;
}

int
tp_stmts_prepare(struct tp *tp)
{
	int i;

	for (i = 0; i < SQ_COUNT; i++) {
		if (sqlite3_prepare_v3(tp->db, stmt_sql[i], -1,
		    SQLITE_PREPARE_PERSISTENT, &tp->stmt[i], NULL) != SQLITE_OK)
			return tp_seterr(tp, "%s: %s", __func__,
			    sqlite3_errmsg(tp->db));
		if (batched[i] && batch_prepare(tp, (enum tp_stmt)i) == -1)
			return -1;
	}
	return 0;
}

/* Queued rows not flushed by now belong to a load that is abandoned. */
void
tp_stmts_finalize(struct tp *tp)
{
	int i;

	for (i = 0; i < SQ_COUNT; i++) {
		sqlite3_finalize(tp->stmt[i]);
		tp->stmt[i] = NULL;
		if (tp->batch[i] != NULL) {
			sqlite3_finalize(tp->batch[i]->many);
			free(tp->batch[i]->str);
			free(tp->batch[i]);
			tp->batch[i] = NULL;
		}
	}
}

static void
bind_val(sqlite3_stmt *st, int col, const struct tp_val *v, const char *str)
{
	switch (v->type) {
	case SQLITE_INTEGER:
		sqlite3_bind_int64(st, col, v->u.i);
		break;
	case SQLITE_FLOAT:
		sqlite3_bind_double(st, col, v->u.d);
		break;
	case SQLITE_TEXT:
		/* The arena stays put until the statement is reset. */
		sqlite3_bind_text(st, col, v->len > 0 ? str + v->u.off : "",
		    v->len, SQLITE_STATIC);
		break;
	default:
		sqlite3_bind_null(st, col);
		break;
	}
}

/*
 * Writes the queued rows of one table: a full batch in one run of the
 * multi-row statement, a partial one row by row.
 */
static int
batch_flush(struct tp *tp, enum tp_stmt k)
{
	struct tp_batch *b = tp->batch[k];
	int r, c, rc = 0, n = b->nrows;

	if (n == 0)
		return 0;
	b->nrows = 0;
	if (n == TP_BATCH_ROWS) {
		for (r = 0; r < n; r++)
			for (c = 0; c < b->ncols; c++)
				bind_val(b->many, r * b->ncols + c + 1,
				    &b->v[r * TP_BATCH_COLS + c], b->str);
		/* Every parameter is bound each time: no clear_bindings. */
		if (sqlite3_step(b->many) != SQLITE_DONE)
			rc = tp_seterr(tp, "insert: %s",
			    sqlite3_errmsg(tp->db));
		sqlite3_reset(b->many);
	} else {
		for (r = 0; r < n && rc == 0; r++) {
			for (c = 0; c < b->ncols; c++)
				bind_val(tp->stmt[k], c + 1,
				    &b->v[r * TP_BATCH_COLS + c], b->str);
			rc = tp_step_done(tp, tp->stmt[k]);
		}
	}
	b->strlen = 0;
	return rc;
}

/* Writes every queued row: before anything reads the tables. */
int
tp_rows_flush(struct tp *tp)
{
	int i, rc = 0;

	for (i = 0; i < SQ_COUNT; i++)
		if (tp->batch[i] != NULL && batch_flush(tp, i) == -1)
			rc = -1;
	return rc;
}

/*
 * The next row of table k, all columns NULL; the caller fills it before
 * its next call into storage. A full batch is written first.
 */
struct tp_val *
tp_row_new(struct tp *tp, enum tp_stmt k)
{
	struct tp_batch *b = tp->batch[k];
	struct tp_val *row;
	int c;

	if (b->nrows == TP_BATCH_ROWS)
		(void)batch_flush(tp, k);
	row = &b->v[b->nrows++ * TP_BATCH_COLS];
	for (c = 0; c < b->ncols; c++)
		row[c].type = SQLITE_NULL;
	return row;
}

void
tp_val_int(struct tp_val *v, int64_t i)
{
	v->type = SQLITE_INTEGER;
	v->u.i = i;
}

/* TP_NULL stays NULL. */
void
tp_val_i64n(struct tp_val *v, int64_t i)
{
	if (i != TP_NULL)
		tp_val_int(v, i);
}

void
tp_val_real(struct tp_val *v, double d)
{
	v->type = SQLITE_FLOAT;
	v->u.d = d;
}

/* Copies s into the batch's arena; a NULL s stays NULL. */
int
tp_val_str(struct tp *tp, enum tp_stmt k, struct tp_val *v, const char *s,
    size_t len)
{
	struct tp_batch *b = tp->batch[k];

	if (s == NULL)
		return 0;
	if (len > INT32_MAX)
		return tp_seterr(tp, "%s: string too long", __func__);
	if (b->strcap - b->strlen < len) {
		size_t cap = b->strcap ? b->strcap : 4096;
		char *p;

		while (cap - b->strlen < len)
			cap *= 2;
		if ((p = realloc(b->str, cap)) == NULL)
			return tp_seterr(tp, "%s: out of memory", __func__);
		b->str = p;
		b->strcap = cap;
	}
	/* len 0 still makes an empty string, not NULL. */
	if (len > 0)
		memcpy(b->str + b->strlen, s, len);
	v->type = SQLITE_TEXT;
	v->len = (int)len;
	v->u.off = b->strlen;
	b->strlen += len;
	return 0;
}

int
tp_txn_begin(struct tp *tp)
{
	if (tp->in_txn)
		return 0;
	if (sqlite3_exec(tp->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
		return tp_seterr(tp, "%s: %s", __func__,
		    sqlite3_errmsg(tp->db));
	tp->in_txn = 1;
	return 0;
}

int
tp_txn_commit(struct tp *tp)
{
	int rc;

	if (!tp->in_txn)
		return 0;
	/* A failed row is reported; the rows that made it are kept. */
	rc = tp_rows_flush(tp);
	tp->in_txn = 0;
	if (sqlite3_exec(tp->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		return tp_seterr(tp, "%s: %s", __func__,
		    sqlite3_errmsg(tp->db));
	return rc;
}

/* Runs a bound insert; a failure here is an engine bug or out of memory. */
int
tp_step_done(struct tp *tp, sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (rc != SQLITE_DONE) {
		tp_seterr(tp, "insert: %s", sqlite3_errmsg(tp->db));
		return -1;
	}
	return 0;
}

/*
 * Binds use SQLITE_STATIC: every statement is stepped and reset before the
 * caller's strings can change (tp_step_done), so SQLite need not copy them.
 */
void
tp_bind_i64n(sqlite3_stmt *st, int col, int64_t v)
{
	if (v == TP_NULL)
		sqlite3_bind_null(st, col);
	else
		sqlite3_bind_int64(st, col, v);
}

static void
bind_str(sqlite3_stmt *st, int col, const char *s, size_t len)
{
	if (s == NULL)
		sqlite3_bind_null(st, col);
	else
		sqlite3_bind_text(st, col, s, (int)len, SQLITE_STATIC);
}

/* One clock of a snapshot; few and rare, so written at once. */
int
tp_gpu_insert(struct tp *tp, int64_t ugpu, uint32_t gpu)
{
	sqlite3_stmt *st = tp->stmt[SQ_GPU];
	int rc;

	sqlite3_bind_int64(st, 1, ugpu);
	sqlite3_bind_int64(st, 2, ugpu);
	sqlite3_bind_int64(st, 3, gpu);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : tp_seterr(tp, "%s: %s", __func__,
	    sqlite3_errmsg(tp->db));
}

int
tp_clock_snapshot_insert(struct tp *tp, int64_t ts, int64_t clock_id,
    const char *clock_name, int64_t value, int64_t snapshot_id,
    uint32_t machine)
{
	sqlite3_stmt *st = tp->stmt[SQ_CLOCK_SNAPSHOT];
	int rc;

	sqlite3_bind_int64(st, 1, ts);
	sqlite3_bind_int64(st, 2, clock_id);
	if (clock_name != NULL)
		sqlite3_bind_text(st, 3, clock_name, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 3);
	sqlite3_bind_int64(st, 4, value);
	sqlite3_bind_int64(st, 5, snapshot_id);
	sqlite3_bind_int64(st, 6, machine);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : tp_seterr(tp, "%s: %s", __func__,
	    sqlite3_errmsg(tp->db));
}

/* tp_metadata_str's NULL: a string value that is NULL. */
static const char meta_null_str[] = "";

/* A metadata value: a string, else the integer. */
static void
metadata_bind(sqlite3_stmt *st, int icol, int scol, const char *s, int64_t v)
{
	if (s == meta_null_str) {
		sqlite3_bind_null(st, icol);
		sqlite3_bind_null(st, scol);
	} else if (s != NULL) {
		sqlite3_bind_null(st, icol);
		sqlite3_bind_text(st, scol, s, -1, SQLITE_STATIC);
	} else {
		sqlite3_bind_int64(st, icol, v);
		sqlite3_bind_null(st, scol);
	}
}

/*
 * Which machine and trace a key is about, as upstream scopes its keys:
 * the machine alone (its system, Android build, tracing service), both
 * (when data sources started or stopped, ftrace's start, Chrome's
 * dynamic "cr-" keys, a JSON trace's own metadata), neither
 * (trace_time_clock_id), else the trace alone.
 */
enum meta_scope { META_TRACE, META_MACHINE, META_BOTH, META_GLOBAL };

static enum meta_scope
metadata_scope(const char *name)
{
	static const char *const machine[] = { "tracing_service_version",
	    "timezone_off_mins" };
	static const char *const both[] = { "all_data_source_flushed_ns",
	    "all_data_source_started_ns", "ftrace_latest_data_start_ns",
	    "slow_start_data_source", "tracing_disabled_ns",
	    "tracing_started_ns" };
	size_t i;

	if (strcmp(name, "trace_time_clock_id") == 0)
		return META_GLOBAL;
	/* Android's profile keys are about the trace. */
	if ((strncmp(name, "android_", 8) == 0 &&
	    strncmp(name, "android_profile_", 16) != 0) ||
	    strncmp(name, "system_", 7) == 0)
		return META_MACHINE;
	for (i = 0; i < sizeof(machine) / sizeof(machine[0]); i++)
		if (strcmp(name, machine[i]) == 0)
			return META_MACHINE;
	if (strncmp(name, "cr-", 3) == 0 ||
	    strncmp(name, "trace_attribute.", 16) == 0 ||
	    strncmp(name, "json_metadata.", 14) == 0)
		return META_BOTH;
	for (i = 0; i < sizeof(both) / sizeof(both[0]); i++)
		if (strcmp(name, both[i]) == 0)
			return META_BOTH;
	return META_TRACE;
}

/* One metadata row: key_type "single" (a later value replaces it, in its
 * row, unless appended) or "multi" (a value of many); of the current
 * machine when the key is about machines. */
void
tp_metadata_put(struct tp *tp, const char *name, const char *key_type,
    const char *s, int64_t v, int append, int derived)
{
	sqlite3_stmt *st = tp->stmt[SQ_METADATA];
	enum meta_scope scope = metadata_scope(name);
	int64_t machine = scope == META_MACHINE || scope == META_BOTH ?
	    (int64_t)tp->machine : TP_NULL;
	/* A value made up here (a trace's uuid from its bytes) is no
	 * trace's, as upstream's. */
	int64_t trace = !derived && (scope == META_TRACE ||
	    scope == META_BOTH) ? 0 : TP_NULL;

	/* The tokenizer's while the parse thread parses: in its queue. */
	if (tp_pipe_later_metadata(tp, name, key_type, s, v, append, derived))
		return;
	if (!append && strcmp(key_type, "single") == 0 &&
	    sqlite3_prepare_v2(tp->db, "UPDATE metadata SET int_value = ?1,"
	    " str_value = ?2, trace_id = ?5 WHERE name = ?3 AND"
	    " key_type = 'single' AND machine_id IS ?4", -1, &st, NULL) ==
	    SQLITE_OK) {
		metadata_bind(st, 1, 2, s, v);
		sqlite3_bind_text(st, 3, name, -1, SQLITE_STATIC);
		tp_bind_i64n(st, 4, machine);
		tp_bind_i64n(st, 5, trace);
		(void)tp_step_done(tp, st);
		sqlite3_finalize(st);
		if (sqlite3_changes(tp->db) > 0)
			return;
		st = tp->stmt[SQ_METADATA];
	}
	sqlite3_bind_int64(st, 1, tp->next_meta++);
	sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, key_type, -1, SQLITE_STATIC);
	metadata_bind(st, 4, 5, s, v);
	tp_bind_i64n(st, 6, machine);
	tp_bind_i64n(st, 7, trace);
	(void)tp_step_done(tp, st);
}

static void
metadata_insert(struct tp *tp, const char *name, const char *key_type,
    const char *s, int64_t v, int append)
{
	tp_metadata_put(tp, name, key_type, s, v, append, 0);
}

void
tp_metadata_str(struct tp *tp, const char *name, const char *v)
{
	metadata_insert(tp, name, "single", v != NULL ? v : meta_null_str, 0,
	    0);
}

void
tp_metadata_uuid(struct tp *tp, uint64_t msb, uint64_t lsb, int derived)
{
	char s[40];

	snprintf(s, sizeof(s), "%08x-%04x-%04x-%04x-%012" PRIx64,
	    (unsigned)(msb >> 32), (unsigned)(msb >> 16) & 0xffff,
	    (unsigned)msb & 0xffff, (unsigned)(lsb >> 48) & 0xffff,
	    (uint64_t)(lsb & 0xffffffffffffULL));
	tp_metadata_put(tp, "trace_uuid", "single", s, 0, 0, derived);
}

void
tp_metadata_int(struct tp *tp, const char *name, int64_t v)
{
	metadata_insert(tp, name, "single", NULL, v, 0);
}

void
tp_metadata_int_multi(struct tp *tp, const char *name, int64_t v)
{
	metadata_insert(tp, name, "multi", NULL, v, 1);
}

void
tp_metadata_str_multi(struct tp *tp, const char *name, const char *v)
{
	metadata_insert(tp, name, "multi", v, 0, 1);
}

void
tp_metadata_append(struct tp *tp, const char *name, const char *s, int64_t v)
{
	metadata_insert(tp, name, "single", s, v, 1);
}

static int
write_prepared(struct tp *tp, const char *sql, sqlite3_stmt **st)
{
	if (sqlite3_prepare_v2(tp->db, sql, -1, st, NULL) != SQLITE_OK)
		return tp_seterr(tp, "%s: %s", __func__,
		    sqlite3_errmsg(tp->db));
	return 0;
}

/*
 * Rows kept in C are written again at each checkpoint only when they
 * changed: a hash of what was written last is kept with each one.
 */
static uint64_t
row_hash_i(uint64_t h, int64_t v)
{
	return tp_hash_bytes(h, &v, sizeof(v));
}

static uint64_t
row_hash_s(uint64_t h, const char *s)
{
	return s != NULL ? tp_hash_bytes(h, s, strlen(s) + 1) :
	    tp_hash_bytes(h, "", 0) * 31 + 7;
}

/* Never 0: 0 is a row not written yet. */
static int
row_unchanged(uint64_t *pub, uint64_t h)
{
	h |= 1;
	if (*pub == h)
		return 1;
	*pub = h;
	return 0;
}

static void
write_threads(struct tp *tp)
{
	size_t i;

	for (i = 0; i < tp->nthreads; i++) {
		struct tp_thread *t = &tp->threads[i];
		uint64_t h;

		h = row_hash_i(row_hash_i(row_hash_i(row_hash_i(row_hash_i(
		    row_hash_i(0, t->tid), t->start_ts), t->end_ts), t->upid),
		    t->main_thread), t->is_idle);
		h = row_hash_i(row_hash_i(h, tp_arg_set_settle(tp,
		    &t->arg_set_id)), t->machine);
		if (row_unchanged(&t->pub, row_hash_s(h, t->name)))
			continue;
		tp_thread_row_write(tp, (int64_t)i, t, t->main_thread >= 0 ?
		    t->main_thread : t->upid != TP_NULL ?
		    tp->procs[t->upid].pid == t->tid : TP_NULL,
		    tp_arg_set_settle(tp, &t->arg_set_id));
	}
}

static void
write_processes(struct tp *tp)
{
	size_t i;

	for (i = 0; i < tp->nprocs; i++) {
		struct tp_process *p = &tp->procs[i];
		uint64_t h;

		h = row_hash_i(row_hash_i(row_hash_i(row_hash_i(row_hash_i(
		    row_hash_i(0, p->pid), p->start_ts), p->end_ts),
		    p->parent_upid), p->uid),
		    tp_arg_set_settle(tp, &p->arg_set_id));
		h = row_hash_i(h, p->machine);
		if (row_unchanged(&p->pub, row_hash_s(row_hash_s(h, p->name),
		    p->cmdline)))
			continue;
		tp_process_row_write(tp, (int64_t)i, p,
		    tp_arg_set_settle(tp, &p->arg_set_id));
	}
}

static int
track_is_counter(const struct tp_track *t)
{
	return t->type == TT_COUNTER || t->type == TT_THREAD_COUNTER ||
	    t->type == TT_PROCESS_COUNTER || t->type == TT_CPU_COUNTER;
}

static void
write_tracks(struct tp *tp)
{
	size_t i;

	for (i = 0; i < tp->ntracks; i++) {
		struct tp_track *t = &tp->tracks[i];
		const char *kind = t->kind ? t->kind :
		    tp_track_type_name(t->type);
		/* a set still pending shows when stored */
		int64_t src = tp_arg_set_settle(tp, &t->source_arg_set_id),
		    dim = tp_arg_set_settle(tp, &t->dim_set);
		uint64_t h;

		h = row_hash_i(row_hash_i(row_hash_i(row_hash_i(row_hash_i(
		    row_hash_i(row_hash_i(row_hash_i(0, t->type),
		    t->parent_id), src), dim), t->utid), t->upid), t->cpu),
		    t->group);
		if (row_unchanged(&t->pub, row_hash_s(row_hash_s(row_hash_s(
		    row_hash_s(h, kind), t->name), t->unit), t->desc)))
			continue;
		tp_track_row_write(tp, (int64_t)i, t, kind,
		    track_is_counter(t) ? "counter" : "slice", src, dim);
	}
}

void
tp_cpu_set_info(struct tp *tp, int64_t cpu, const char *processor,
    size_t len, int64_t cluster_id, int64_t capacity, int64_t arg_set_id)
{
	struct tp_cpu_desc *d;
	size_t i;

	if (cpu < 0 || cpu >= TP_MAX_CPUS)
		return;
	if ((size_t)cpu >= tp->ncpu_desc) {
		if ((d = realloc(tp->cpu_desc, ((size_t)cpu + 1) *
		    sizeof(*d))) == NULL)
			return;
		for (i = tp->ncpu_desc; i <= (size_t)cpu; i++) {
			d[i].processor = NULL;
			d[i].cluster_id = TP_NULL;
			d[i].capacity = -1;
			d[i].arg_set_id = TP_NULL;
		}
		tp->cpu_desc = d;
		tp->ncpu_desc = (size_t)cpu + 1;
	}
	d = &tp->cpu_desc[cpu];
	free(d->processor);
	d->processor = processor != NULL ? strndup(processor, len) : NULL;
	d->cluster_id = cluster_id;
	d->capacity = capacity;
	d->arg_set_id = arg_set_id;
}

/*
 * A row with a time was written: trace_bounds spans them, as upstream's
 * (from the first ts to the last ts + dur of the slice, sched, thread
 * state, counter and ftrace rows), so records dropped or not turned
 * into rows do not stretch it.
 */
void
tp_bounds_add(struct tp *tp, int64_t ts, int64_t dur)
{
	int64_t end = dur > 0 && ts <= INT64_MAX - dur ? ts + dur : ts;

	if (ts < tp->bound_lo)
		tp->bound_lo = ts;
	if (end > tp->bound_hi)
		tp->bound_hi = end;
}

void
tp_cpu_seen(struct tp *tp, int64_t cpu)
{
	if (tp->machine != 0)
		tp_machine_cpu_seen(tp, cpu);
	else if (cpu >= 0 && cpu < TP_MAX_CPUS)
		tp->cpus_seen[cpu / 64] |= 1ULL << (cpu % 64);
}

/* A cpu of the cpu table: its ucpu (id), number and machine. */
struct cpu_row {
	int64_t		 ucpu, cpu;
	uint32_t	 machine;
};

static int
cmp_cpu_row(const void *a, const void *b)
{
	int64_t x = ((const struct cpu_row *)a)->ucpu;
	int64_t y = ((const struct cpu_row *)b)->ucpu;

	return x < y ? -1 : x > y;
}

/*
 * The cpu table lists every cpu that carried data (sched, ftrace events,
 * cpu tracks) in ucpu order. The cpus of rows are noted as the rows are
 * queued, so this costs nothing per row when it is written again. A
 * host cpu's ucpu is its number (as sched.ucpu says); a remote
 * machine's cpu tracks give cpus of that machine.
 */
static int
write_cpus(struct tp *tp)
{
	const struct tp_cpu_desc *d;
	sqlite3_stmt *st;
	struct cpu_row *v;
	size_t n = 0, i, iter = 0;
	uint32_t m;
	int64_t c;

	if ((v = calloc(TP_MAX_CPUS + tp->ntracks + tp->ncpu_desc +
	    tp_machine_ncpus(tp), sizeof(*v))) == NULL)
		return tp_seterr(tp, "%s: out of memory", __func__);
	while (tp_machine_cpu_next(tp, &iter, &m, &c))
		if (c < TP_MAX_CPUS)
			v[n++] = (struct cpu_row){ tp_ucpu_of(m, c), c, m };
	for (i = 0; i < tp->ntracks; i++) {
		uint32_t tm = tp->tracks[i].machine;

		if ((c = tp->tracks[i].cpu) == TP_NULL)
			continue;
		/* The host's cpu is its number, whatever it is. */
		if (tm == 0 || (c >= 0 && c < TP_MAX_CPUS))
			v[n++] = (struct cpu_row){ tp_ucpu_of(tm, c), c, tm };
	}
	for (i = 0; i < TP_MAX_CPUS; i++)
		if (tp->cpus_seen[i / 64] & (1ULL << (i % 64)))
			v[n++] = (struct cpu_row){ (int64_t)i, (int64_t)i, 0 };
	for (i = 0; i < tp->ncpu_desc; i++)
		if (tp->cpu_desc[i].cluster_id != TP_NULL)
			v[n++] = (struct cpu_row){ (int64_t)i, (int64_t)i, 0 };
	qsort(v, n, sizeof(*v), cmp_cpu_row);
	if (sqlite3_exec(tp->db, "DELETE FROM cpu", NULL, NULL, NULL) !=
	    SQLITE_OK || write_prepared(tp, "INSERT INTO cpu(id, cpu,"
	    " processor, cluster_id, capacity, arg_set_id, machine_id)"
	    " VALUES(?, ?, ?, ?, ?, ?, ?)",
	    &st) == -1) {
		free(v);
		return tp_seterr(tp, "%s: %s", __func__,
		    sqlite3_errmsg(tp->db));
	}
	for (i = 0; i < n; i++) {
		if (i > 0 && v[i].ucpu == v[i - 1].ucpu)
			continue;
		d = v[i].machine == 0 && v[i].cpu >= 0 &&
		    (size_t)v[i].cpu < tp->ncpu_desc &&
		    tp->cpu_desc[v[i].cpu].cluster_id != TP_NULL ?
		    &tp->cpu_desc[v[i].cpu] : NULL;
		sqlite3_bind_int64(st, 1, v[i].ucpu);
		sqlite3_bind_int64(st, 2, v[i].cpu);
		bind_str(st, 3, d ? d->processor : NULL, d && d->processor ?
		    strlen(d->processor) : 0);
		/* Upstream's cluster is 0 until a CpuInfo says. */
		sqlite3_bind_int64(st, 4, d ? d->cluster_id : 0);
		tp_bind_i64n(st, 5, d && d->capacity >= 0 ? d->capacity : TP_NULL);
		tp_bind_i64n(st, 6, d ? tp_arg_set_stored(tp, d->arg_set_id) : TP_NULL);
		sqlite3_bind_int64(st, 7, v[i].machine);
		(void)tp_step_done(tp, st);
	}
	sqlite3_finalize(st);
	free(v);
	return 0;
}

/*
 * Writes the rows kept in C (threads, processes, tracks), the cpu table
 * and the trace bounds. Each run replaces what the previous one wrote:
 * tp_checkpoint runs it again and again, tp_eof once more at the end.
 */
int
tp_write_final_tables(struct tp *tp)
{
	char sql[160];

	/* Sets closed soon (tracks') are stored by now. */
	tp_argsets_flush(tp);
	/* Before the tracks: its rows may name new ones. */
	if (tp_rows_flush(tp) == -1 || tp_proto_cpu_per_uid_write(tp) == -1)
		return -1;
	/* An empty file is no trace: not even the idle task, as upstream. */
	if (tp->bytes_in > 0) {
		write_threads(tp);
		write_processes(tp);
	}
	write_tracks(tp);
	if (write_cpus(tp) == -1 ||
	    tp_machines_write(tp) == -1)
		return -1;
	if (tp->bound_lo <= tp->bound_hi)
		snprintf(sql, sizeof(sql), "DELETE FROM __trace_bounds;"
		    " INSERT INTO __trace_bounds VALUES(%lld, %lld)",
		    (long long)tp->bound_lo, (long long)(tp->bound_hi > 0 ?
		    tp->bound_hi : 0));
	else
		snprintf(sql, sizeof(sql), "DELETE FROM __trace_bounds;"
		    " INSERT INTO __trace_bounds VALUES(0, 0)");
	if (sqlite3_exec(tp->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return tp_seterr(tp, "%s: %s", __func__,
		    sqlite3_errmsg(tp->db));
	return 0;
}
