/*
 * Engine life cycle: database setup, format detection, chunk feeding,
 * end of trace.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <zlib.h>

#include "config.h"
#include "base/log.h"
#include "tp_int.h"
#include "tp_sql_guard.h"
#include "importers/tp_pipe.h"
#include "importers/tp_unpack.h"
#include "psql/psql.h"
#include "ops/tp_ops.h"

#define COMMIT_BYTES	(16u << 20)
#define UUID_HASH_BYTES	4096u

struct tp_gunzip {
	z_stream	 z;
	uint8_t		*out;
	int		 done;
};

void
tp_config_init(struct tp_config *cfg)
{
	/* No byte budget: the sorter follows the service's marks. */
	memset(cfg, 0, sizeof(*cfg));
	cfg->ftrace_raw = 1;
}

int
tp_seterr(struct tp *tp, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(tp->err, sizeof(tp->err), fmt, ap);
	va_end(ap);
	return -1;
}

const char *
tp_error(const struct tp *tp)
{
	return tp->err;
}

sqlite3 *
tp_db(struct tp *tp)
{
	return tp->db;
}

void
tp_seen_ts(struct tp *tp, int64_t ts)
{
	if (ts < tp->ts_min)
		tp->ts_min = ts;
	if (ts > tp->ts_max)
		tp->ts_max = ts;
}

static int	sqlite_configured;

struct tp *
tp_new(const struct tp_config *cfg, char **errmsg)
{
	struct tp *tp;
	const char *cause;
	char *msg = NULL, *cause2 = NULL;

	/* No global memory accounting: it takes a mutex per allocation.
	 * Temporary files are memory (tp_tempvfs.c). */
	if (!sqlite_configured) {
		(void)sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
		if (tp_tempvfs_register() == -1) {
			*errmsg = strdup("SQLite: no VFS for temporary files");
			return NULL;
		}
		sqlite_configured = 1;
	}
	if ((tp = calloc(1, sizeof(*tp))) == NULL) {
		*errmsg = strdup("out of memory");
		return NULL;
	}
	if (cfg != NULL)
		tp->cfg = *cfg;
	else
		tp_config_init(&tp->cfg);
	tp->ts_min = tp->bound_lo = INT64_MAX;
	tp->ts_max = tp->bound_hi = INT64_MIN;
	tp_hash_init(&tp->track_keys);
	tp_hash_init(&tp->flows);
	tp_hash_init(&tp->flow_ts);
	tp_hash_init(&tp->istats);
	tp_procs_init(tp);
	tp->ended.track = -1;

	if (sqlite3_open_v2(":memory:", &tp->db, SQLITE_OPEN_READWRITE |
	    SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		tp_seterr(tp, "%s: sqlite3_open: %s", __func__,
		    tp->db ? sqlite3_errmsg(tp->db) : "out of memory");
		goto fail;
	}
	/*
	 * Nothing is written to disk: no journal, no sync; temporary files
	 * are memory (tp_tempvfs.c). The cache, 8 MB, is also the size of
	 * the runs the sorter sorts and then merges: small enough to stay in
	 * the processor's caches (a GROUP BY of 2.3M rows: 1.24 s, 1.63 s
	 * with 64 MB runs, 2.6 s sorting one list in memory).
	 */
	sqlite3_exec(tp->db, "PRAGMA page_size=16384; PRAGMA journal_mode=OFF;"
	    " PRAGMA synchronous=OFF; PRAGMA temp_store=FILE;"
	    " PRAGMA cache_size=-8192", NULL, NULL, NULL);
	/* Before the engine adds its own functions: see tp_sql_guard.c. */
	if ((tp->guard = tp_sql_guard_install(tp->db, &cause)) == NULL) {
		tp_seterr(tp, "%s: SQL guard: %s", __func__, cause);
		goto fail;
	}
	if (tp_argsets_init(tp) == -1 || tp_tables_create(tp) == -1 ||
	    tp_schema_create(tp) == -1 ||
	    tp_stmts_prepare(tp) == -1)
		goto fail;
	if (tp_ops_register(tp->db, tp_tables_hooks(tp), &msg) != 0) {
		tp_seterr(tp, "%s: operators: %s", __func__, msg ? msg : "?");
		sqlite3_free(msg);
		goto fail;
	}
	if (tp_real_text_register(tp) == -1 || tp_to_ftrace_register(tp) == -1)
		goto fail;
	/* What every query may use without an INCLUDE (stdlib/prelude). */
	if (psql_exec(tp->db, "INCLUDE PERFETTO MODULE prelude.prelude;",
	    &cause2) == -1) {
		tp_seterr(tp, "%s: prelude: %s", __func__,
		    cause2 ? cause2 : "out of memory");
		free(cause2);
		goto fail;
	}
	if (tp->cfg.sql_packages != NULL && (psql_of(tp->db) == NULL ||
	    psql_pkgs_add(psql_of(tp->db), tp->cfg.sql_packages, &cause2) ==
	    -1)) {
		tp_seterr(tp, "%s: SQL packages: %s", __func__,
		    cause2 ? cause2 : "out of memory");
		free(cause2);
		goto fail;
	}
	/* The modules' objects, for the UI's standard library browser. */
	if (psql_of(tp->db) == NULL ||
	    psql_docs_fill(psql_of(tp->db), &cause2) == -1) {
		tp_seterr(tp, "%s: stdlib objects: %s", __func__,
		    cause2 ? cause2 : "out of memory");
		free(cause2);
		goto fail;
	}
	return tp;
fail:
	*errmsg = strdup(tp->err);
	tp_free(tp);
	return NULL;
}

void
tp_free(struct tp *tp)
{
	if (tp == NULL)
		return;
	tp_pipe_end(tp);
	tp_sorter_free(tp);
	tp_proto_free(tp);
	tp_json_free(tp);
	tp_systrace_free(tp);
	tp_strace_free(tp);
	tp_ftrace_free(tp);
	tp_generic_kernel_free(tp);
	tp_sysstats_free(tp);
	tp_pending_free(tp);
	tp_proto_chrome_process_free(tp);
	tp_translation_free(tp);
	tp_machines_free(tp);
	tp_etw_free(tp);
	tp_gpus_free(tp);
	tp_gecko_free(tp);
	tp_heap_profile_free(tp);
	tp_perf_sample_free(tp);
	tp_stack_profile_free(tp);
	while (tp->ncpu_desc > 0)
		free(tp->cpu_desc[--tp->ncpu_desc].processor);
	free(tp->cpu_desc);
	if (tp->gunzip != NULL) {
		inflateEnd(&tp->gunzip->z);
		free(tp->gunzip->out);
		free(tp->gunzip);
	}
	tp_tracks_free(tp);
	tp_procs_free(tp);
	tp_hash_free(&tp->istats);
	free(tp->istat_order);
	tp_argsets_free(tp);
	tp_stmts_finalize(tp);
	if (tp->db != NULL) {
		psql_forget(tp->db);
		tp_ops_forget(tp->db);
		sqlite3_close(tp->db);
	}
	/* After SQLite, whose virtual tables hold them. */
	tp_tables_free(tp);
	tp_sql_guard_free(tp->guard);
	free(tp);
}

/* Upstream's JSON sniff: '{"' or '[{"' once white space is dropped from
 * the first 128 bytes. */
static int
json_opening(const uint8_t *p, size_t len)
{
	char c[3];
	size_t i, n = 0;

	for (i = 0; i < len && i < 128 && n < 3; i++)
		if (p[i] != ' ' && p[i] != '\t' && p[i] != '\n' &&
		    p[i] != '\r' && p[i] != '\v' && p[i] != '\f')
			c[n++] = (char)p[i];
	return (n >= 2 && c[0] == '{' && c[1] == '"') ||
	    (n >= 3 && c[0] == '[' && c[1] == '{' && c[2] == '"');
}

/* Upstream's Gecko sniff: '{"meta"' or '{"libs"' once white space is
 * dropped. */
static int
gecko_opening(const uint8_t *p, size_t len)
{
	char c[8];
	size_t i, n = 0;

	for (i = 0; i < len && i < 4096 && n < 7; i++)
		if (p[i] != ' ' && p[i] != '\t' && p[i] != '\n' &&
		    p[i] != '\r' && p[i] != '\v' && p[i] != '\f')
			c[n++] = (char)p[i];
	return n == 7 && (memcmp(c, "{\"meta\"", 7) == 0 ||
	    memcmp(c, "{\"libs\"", 7) == 0);
}

static enum tp_format
format_guess(const uint8_t *p, size_t len)
{
	size_t i = 0;

	if (len >= 2 && p[0] == 0x1f && p[1] == 0x8b)
		return FMT_GZIP;
	/*
	 * JSON before proto, as upstream sniffs: a JSON file may open with a
	 * newline, the byte a Trace's first packet tag also is. '{"' or '[{"'
	 * after white space is no proto (a group tag follows no length).
	 */
	if (gecko_opening(p, len))
		return FMT_GECKO;
	if (p[0] == 0x0a && json_opening(p, len))
		return FMT_JSON;
	/* A Trace starts with field 1 (packet), length-delimited. */
	if (p[0] == 0x0a)
		return FMT_PROTO;
	while (i < len && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' ||
	    p[i] == '\r'))
		i++;
	if (i < len && (p[i] == '{' || p[i] == '['))
		return FMT_JSON;
	/* strace before ftrace text: its lines are printable too. */
	if (tp_strace_sniff(p, len))
		return FMT_STRACE;
	if (i < len && (p[i] == '#' || p[i] == '<' || p[i] == '-' ||
	    (p[i] >= 0x20 && p[i] < 0x7f)))
		return FMT_SYSTRACE;
	return FMT_UNKNOWN;
}

static int parse_plain(struct tp *, const uint8_t *, size_t);

/* tp_gunzip_run's fn: a piece of the file inflated, parsed. */
static int
plain_piece(void *arg, const uint8_t *buf, size_t len)
{
	return parse_plain(arg, buf, len);
}

static int
gunzip_feed(struct tp *tp, const uint8_t *buf, size_t len)
{
	struct tp_gunzip *g = tp->gunzip;
	const char *msg;

	if (g == NULL) {
		if ((g = calloc(1, sizeof(*g))) == NULL ||
		    (g->out = malloc(TP_GUNZIP_PIECE)) == NULL) {
			free(g);
			return tp_seterr(tp, "gunzip: out of memory");
		}
		/* 16 + 15: gzip wrapper, largest window. */
		if (inflateInit2(&g->z, 16 + 15) != Z_OK) {
			free(g->out);
			free(g);
			return tp_seterr(tp, "gunzip: inflateInit failed");
		}
		tp->gunzip = g;
	}
	switch (tp_gunzip_run(&g->z, g->out, buf, len, &g->done, plain_piece,
	    tp, &msg)) {
	case -1:
		return tp_seterr(tp, "gunzip: corrupt data (%s)", msg);
	case -2:
		return -1;
	default:
		return 0;
	}
}

/* A chunk of a gzip'd file inflated ahead: what gunzip_feed would do. */
static int
gunzip_chunk(struct tp *tp, const struct tp_gz_chunk *c)
{
	size_t i, off = 0;

	for (i = 0; i < c->npieces; off += c->pieces[i++])
		if (parse_plain(tp, c->out + off, c->pieces[i]) == -1)
			return -1;
	if (c->corrupt != NULL)
		return tp_seterr(tp, "gunzip: corrupt data (%s)", c->corrupt);
	if (c->nomem)
		return tp_seterr(tp, "gunzip: out of memory");
	return 0;
}

static int
parse_plain(struct tp *tp, const uint8_t *buf, size_t len)
{
	if (tp->format == FMT_UNKNOWN) {
		enum tp_format f = format_guess(buf, len);

		if (f == FMT_UNKNOWN || f == FMT_GZIP)
			return tp_seterr(tp, "unknown trace format");
		tp->format = f;
		tp_metadata_str(tp, "trace_type", f == FMT_PROTO ? "proto" :
		    f == FMT_JSON ? "json" : f == FMT_STRACE ? "strace" :
		    f == FMT_GECKO ? "gecko" : "systrace");
		/* The clock of a text format's times, as upstream names it
		 * (BuiltinClock): strace -ttt's are REALTIME's (1), ftrace
		 * text's MONOTONIC's (3), JSON's and Gecko's the file's own
		 * (TRACE_FILE, 11). */
		if (f != FMT_PROTO)
			tp_metadata_int(tp, "trace_time_clock_id",
			    f == FMT_STRACE ? 1 : f == FMT_SYSTRACE ? 3 : 11);
		/* Upstream names the idle task (utid 0) in kernel traces;
		 * elsewhere tid and pid 0 are tasks of their own, and rows 0
		 * stay reserved. */
		if (f == FMT_PROTO || f == FMT_SYSTRACE)
			tp_thread_set_name(tp, 0, "swapper", 7, TP_NAME_TREE);
		else
			tp_procs_unmap_idle(tp);
	}
	switch (tp->format) {
	case FMT_PROTO:
		return tp_proto_feed(tp, buf, len);
	case FMT_JSON:
		return tp_json_feed(tp, buf, len);
	case FMT_SYSTRACE:
		return tp_systrace_feed(tp, buf, len);
	case FMT_STRACE:
		return tp_strace_feed(tp, buf, len);
	case FMT_GECKO:
		return tp_gecko_feed(tp, buf, len);
	default:
		return tp_seterr(tp, "unknown trace format");
	}
}

static int64_t
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int parse_timed(struct tp *, const uint8_t *, size_t,
    const struct tp_gz_chunk *);

/* len bytes of the trace; of a gzip'd file inflated ahead when gz. */
static int
parse_bytes(struct tp *tp, const void *vbuf, size_t len,
    const struct tp_gz_chunk *gz)
{
	int64_t t0 = mono_ns();
	int rc;

	rc = parse_timed(tp, vbuf, len, gz);
	tp_stat_inc(tp, ST_PARSE_TRACE_DURATION_NS, mono_ns() - t0);
	return rc;
}

int
tp_parse(struct tp *tp, const void *vbuf, size_t len)
{
	return parse_bytes(tp, vbuf, len, NULL);
}

static int
parse_timed(struct tp *tp, const uint8_t *buf, size_t len,
    const struct tp_gz_chunk *gz)
{
	int rc;

	if (tp->eof_done)
		return tp_seterr(tp, "%s: trace already complete", __func__);
	if (len == 0)
		return 0;
	if (tp_txn_begin(tp) == -1)
		return -1;
	if (!tp->uuid_in_trace && tp->bytes_in < UUID_HASH_BYTES) {
		size_t i, n = UUID_HASH_BYTES - (size_t)tp->bytes_in;

		if (tp->bytes_in == 0)
			tp->uuid_hash = 0xcbf29ce484222325ULL;
		for (i = 0; i < n && i < len; i++)
			tp->uuid_hash = (tp->uuid_hash ^ buf[i]) *
			    0x100000001b3ULL;
		tp_metadata_uuid(tp, 0, tp->uuid_hash, 1);
	}
	tp->bytes_in += len;
	/* A gzip'd trace: inflate and detect the format inside. */
	if (gz != NULL)
		rc = gunzip_chunk(tp, gz);
	else if (tp->gunzip != NULL || (tp->format == FMT_UNKNOWN &&
	    format_guess(buf, len) == FMT_GZIP))
		rc = gunzip_feed(tp, buf, len);
	else
		rc = parse_plain(tp, buf, len);
	/*
	 * Queries may run between two pieces: no row stays queued. (A file
	 * read whole, while the parse thread writes rows, has no queries
	 * before its end: flushed there.)
	 */
	if (tp_pipe_busy(tp))
		return rc;
	if (tp_rows_flush(tp) == -1)
		rc = -1;
	if (rc == 0 && tp->bytes_in % COMMIT_BYTES < len)
		rc = tp_txn_commit(tp);
	return rc;
}

static double
cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int
tp_eof(struct tp *tp)
{
	int rc = 0;
	double t0 = cpu_now();

	if (tp->eof_done)
		return 0;
	tp->eof_done = 1;
	if (tp_txn_begin(tp) == -1)
		return -1;
	switch (tp->format) {
	case FMT_PROTO:
		rc = tp_proto_end(tp);
		break;
	case FMT_JSON:
		rc = tp_json_end(tp);
		break;
	case FMT_SYSTRACE:
		rc = tp_systrace_end(tp);
		break;
	case FMT_STRACE:
		rc = tp_strace_end(tp);
		break;
	case FMT_GECKO:
		rc = tp_gecko_end(tp);
		break;
	default:
		break;
	}
	tp_sorter_drain(tp, 1);
	tp_etw_end(tp);
	/* What the end makes is the host's. */
	tp->machine = 0;
	tp_strace_flush(tp);
	tp_ftrace_end(tp);
	tp_generic_kernel_write_open(tp);
	/* As upstream ends: processes' and threads' args stored, then
	 * pending counters, then the slices still open. */
	tp_proto_chrome_process_end(tp);
	tp_procs_sort_args(tp);
	if (tp_pending_resolve(tp) == -1)
		rc = -1;
	tp_slices_close_all(tp);
	/* An empty file is no trace: upstream keeps no metadata of it. */
	if (tp->format != FMT_UNKNOWN)
		tp_metadata_int(tp, "trace_size_bytes", (int64_t)tp->bytes_in);
	if (tp_write_final_tables(tp) == -1 || tp_stats_write(tp) == -1)
		rc = -1;
	if (tp_txn_commit(tp) == -1 || tp_tables_check(tp) == -1)
		rc = -1;
	log_debug("%s: flush %.3f s (cpu)", __func__, cpu_now() - t0);
	return rc;
}

/*
 * The trace so far, made visible: what the sorter holds older than upto
 * is parsed, queued rows are written, open slices, sched slices and
 * thread states are written as they stand (dur -1, replaced when they
 * close), the tables kept in C (threads, processes, tracks, cpus, stats,
 * bounds) are written again. Nothing is closed or finalized: parsing goes
 * on afterwards, and a later tp_eof() gives the tables a full import of
 * the same trace would have.
 */
int
tp_checkpoint(struct tp *tp, int64_t upto)
{
	int rc = 0;

	if (tp->eof_done)
		return 0;
	if (tp_txn_begin(tp) == -1)
		return -1;
	tp_sorter_release(tp, upto);
	if (tp_rows_flush(tp) == -1)
		rc = -1;
	tp_slices_write_open(tp);
	tp_ftrace_write_open(tp);
	tp_generic_kernel_write_open(tp);
	if (tp_write_final_tables(tp) == -1 || tp_stats_write(tp) == -1)
		rc = -1;
	if (tp_txn_commit(tp) == -1 || tp_tables_check(tp) == -1)
		rc = -1;
	return rc;
}

/* Bytes of the columnar tables, of SQLite's table pages in use (freed
 * pages are reused, not counted) and of the records the sorter holds. */
size_t
tp_mem_bytes(struct tp *tp)
{
	sqlite3_stmt *st;
	int64_t v[3] = { 0, 0, 0 };
	int i;

	if (sqlite3_prepare_v2(tp->db, "SELECT * FROM pragma_page_count,"
	    " pragma_freelist_count, pragma_page_size", -1, &st, NULL) ==
	    SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			for (i = 0; i < 3; i++)
				v[i] = sqlite3_column_int64(st, i);
		sqlite3_finalize(st);
	}
	return (size_t)((v[0] - v[1]) * v[2]) + tp->sorter.bytes +
	    tp_tables_bytes(tp);
}

/* A read of the trace file failed: the load's error, -1. */
static ssize_t
load_read_error(struct tp *tp, int err)
{
	return tp_seterr(tp, "tp_load_fd: read: %s", strerror(err));
}

/*
 * The next chunk of a gzip'd file, read and inflated ahead, parsed: its
 * length, 0 at the end of the file, -1 on error.
 */
static ssize_t
load_chunk(struct tp *tp)
{
	struct tp_gz_chunk *c;
	ssize_t n;
	int eof;

	if ((c = tp_unpack_ahead_chunk(tp, &eof)) == NULL) {
		if (eof)
			return 0;
		return tp_seterr(tp, "gunzip: out of memory");
	}
	if (c->read_errno != 0)
		n = load_read_error(tp, c->read_errno);
	else
		n = parse_bytes(tp, c->in, c->inlen, c) == -1 ? -1 :
		    (ssize_t)c->inlen;
	tp_gz_chunk_free(c);
	return n;
}

int
tp_load_fd(struct tp *tp, int fd)
{
	struct stat sb;
	uint8_t *buf;
	uint64_t total = 0, done = 0;
	ssize_t n;

	if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode))
		total = (uint64_t)sb.st_size;
	if ((buf = malloc(TP_READ_BLOCK)) == NULL)
		return tp_seterr(tp, "%s: out of memory", __func__);
	tp_unpack_ahead_start(tp, fd);
	tp_pipe_begin(tp);
	for (;;) {
		if (tp_unpack_ahead_gzip(tp)) {
			n = load_chunk(tp);
		} else {
			n = read(fd, buf, TP_READ_BLOCK);
			if (n == -1 && errno == EINTR)
				continue;
			if (n == -1)
				load_read_error(tp, errno);
			else if (n > 0 && tp_parse(tp, buf, (size_t)n) == -1)
				n = -1;
		}
		if (n <= 0)
			break;
		done += (uint64_t)n;
		if (tp->cfg.progress != NULL)
			tp->cfg.progress(tp->cfg.progress_arg, done, total);
	}
	free(buf);
	/* Every packet is tokenized: nothing more to take ahead, nothing
	 * more to parse beside. */
	tp_unpack_ahead_stop(tp);
	tp_pipe_end(tp);
	return n == 0 ? tp_eof(tp) : -1;
}

int
tp_load_file(struct tp *tp, const char *path)
{
	int fd, rc;

	if (strcmp(path, "-") == 0)
		return tp_load_fd(tp, STDIN_FILENO);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return tp_seterr(tp, "%s: %s", path, strerror(errno));
	rc = tp_load_fd(tp, fd);
	close(fd);
	return rc;
}
