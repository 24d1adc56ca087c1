/*
 * trace_processor engine: the API the shell, the RPC daemon and the tests
 * share.
 *
 * An engine owns one in-memory SQLite database whose tables carry
 * Perfetto's names and columns (slice, track, counter, thread, process,
 * args, flow, sched, thread_state, ftrace_event, stats, metadata, ...).
 *
 *   tp_new() -> tp_parse(chunk) ... tp_parse(chunk) -> tp_eof() -> queries
 *
 * A trace still being recorded (trace_processor --live) is read the same
 * way without an end:
 *
 *   tp_parse ... tp_checkpoint -> queries -> tp_evict_before -> tp_parse ...
 *
 * The trace arrives in chunks of any size and split anywhere; the format
 * (Perfetto proto, gzip'd proto, Chrome JSON, ftrace text) is guessed from
 * the first bytes. Nothing is required to fit in memory twice: chunks are
 * consumed as they come, the sorter holds packets until the service's
 * flush and read marks (or the end) say they can be parsed in timestamp
 * order (tp_sorter.c). tp_eof() flushes the sorter, closes
 * open slices and states and writes the thread/process/track tables.
 *
 * Every error on trace input is recoverable: a bad record is dropped and
 * counted in the stats table; tp_parse() fails only when the stream as a
 * whole cannot be understood (unknown format, broken framing), with a
 * cause in tp_error().
 */
#ifndef FARO_TP_H
#define FARO_TP_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

struct tp;
struct psql_pkgs;

struct tp_config {
	/*
	 * 0 (the default): records wait in the sorter until the service's
	 * flush and read marks say nothing older can follow, as upstream's
	 * trace processor does; a ring-buffer trace is sorted whole. Else a
	 * byte budget: past it the oldest leave, and a record older than one
	 * released is dropped and counted.
	 */
	size_t		 sort_window_bytes;
	/*
	 * Nonzero: the service's marks release nothing, the whole trace is
	 * sorted at its end (upstream's --full-sort).
	 */
	int		 full_sort;
	/* Called from tp_load_fd() with bytes consumed so far; may be NULL. */
	void		(*progress)(void *arg, uint64_t done, uint64_t total);
	void		*progress_arg;
	/*
	 * 1 (the default): every ftrace event is also a row of ftrace_event
	 * with its fields as args; 0 (--no-ftrace-raw): only what the
	 * importers make of them, as upstream's ingest_ftrace_in_raw_table.
	 */
	int		 ftrace_raw;
	/* A live stream (--live): what has no time of its own applies as
	 * it arrives instead of at the newest time seen. */
	int		 streaming;
	/* PerfettoSQL packages every engine gets (psql_pkgs_read()). */
	const struct psql_pkgs *sql_packages;
};

/* Fills the defaults. */
void		 tp_config_init(struct tp_config *);

/* A new engine with empty tables, or NULL (and *errmsg) on failure. */
struct tp	*tp_new(const struct tp_config *, char **errmsg);
void		 tp_free(struct tp *);

/* Feeds the next piece of the trace. -1 when the stream is unusable. */
int		 tp_parse(struct tp *, const void *buf, size_t len);
/* End of the trace: flush, finalize tables. Idempotent. */
int		 tp_eof(struct tp *);
/*
 * Makes the trace parsed so far visible to queries without ending it:
 * records the sorter holds older than upto are parsed (INT64_MAX: all of
 * them; a record that comes later with an older timestamp is dropped and
 * counted), slices, sched slices and thread states still open show with
 * dur -1. Parsing goes on afterwards; ids are those a full import gives.
 */
int		 tp_checkpoint(struct tp *, int64_t upto);
/*
 * Windowing: deletes the rows whose time is over before ts (slices, sched
 * slices and thread states that ended, counter values, ftrace events,
 * their args, flows that lost an end). Open rows, threads, processes and
 * tracks stay; ids are never reused. Call after tp_checkpoint().
 */
int		 tp_evict_before(struct tp *, int64_t ts);
/* The newest timestamp read so far (INT64_MIN: none), sorted or not. */
int64_t		 tp_newest_ts(struct tp *);
/* Bytes the engine holds: table pages in use and sorter records. */
size_t		 tp_mem_bytes(struct tp *);
/* Reads a whole descriptor in blocks, then tp_eof(); a file's compressed
 * packets are decompressed ahead on a second thread, and what the sorter
 * releases is parsed on another while the tokenizer reads on. */
int		 tp_load_fd(struct tp *, int fd);
int		 tp_load_file(struct tp *, const char *path);	/* "-": stdin */
/* Compressed packets the second thread decompressed, all loads so far. */
uint64_t	 tp_unpacked_ahead(const struct tp *);
/* Records the parse thread parsed, all loads so far. */
uint64_t	 tp_parsed_beside(const struct tp *);

/* The last error, valid until the next call. */
const char	*tp_error(const struct tp *);

/* The database, for queries; owned by the engine. */
sqlite3		*tp_db(struct tp *);
/*
 * The database as the bytes of a SQLite file any SQLite reads (the
 * columnar tables as ordinary ones), *len long, to free with sqlite3_free;
 * NULL with *err set (free it) on failure.
 */
unsigned char	*tp_export_image(struct tp *, int64_t *len, char **err);

/* Error and data-loss stats above zero (for the shell's import summary). */
int64_t		 tp_error_stats(struct tp *);

#endif
