/*
 * Translation of ring-buffer records into FtraceEventBundle protos.
 *
 * At setup, each enabled event's format becomes a plan: the FtraceEvent
 * field that carries it (a typed proto when event_table knows the event,
 * else GenericFtraceEvent) and, for each record field, where it is and how
 * it is encoded. The per-record loop then only follows the plan.
 *
 * A bundle is one TracePacket { ftrace_events: FtraceEventBundle } for one
 * CPU, streamed into the sink's packet as records are translated; it is
 * closed when it reaches FTRACE_BUNDLE_MAX bytes or the caller finishes it
 * (after each drain). Records whose id has no plan (events another
 * tracer enabled in the same buffer) are counted and skipped.
 *
 * Kernel addresses never reach the trace (they would disclose the KASLR
 * layout): a field whose format type is `void *` (4 or 8 bytes), and the
 * `func` of ftrace/funcgraph_entry and funcgraph_exit, carry a symbol
 * index instead, given in first-seen order from 1, per translator (one
 * per data source instance) and per drain, as upstream Perfetto does.
 * With opts.ksyms, the bundle packet that first uses an index carries
 *
 *   TracePacket { ftrace_events {...}  sequence_flags: 1 (first of the drain)
 *                 interned_data { kernel_symbols { iid: 3 str: "fn" } } }
 *
 * for the indexes that resolve (heap pointers do not, and are not
 * named). The first packet of each drain that uses an index sets
 * SEQ_INCREMENTAL_STATE_CLEARED, so a reader starts a new table (and
 * never resolves an index against an older drain's names): a lost
 * packet or an overwritten buffer costs the names of one drain at most.
 * ftrace_translator_drain_end() starts the next drain's numbering.
 */
#ifndef FARO_FTRACE_TRANSLATE_H
#define FARO_FTRACE_TRANSLATE_H

#include <stddef.h>
#include <stdint.h>

#include "format.h"
#include "libshm/pbw.h"
#include "ring_page.h"

/*
 * Where packets go: a TracePacket is opened with packet_begin, filled
 * through the returned proto writer and closed with packet_end. In the
 * daemon these are shm_writer_packet_begin/end (shm_arbiter.h). A sink has
 * one packet open at a time, so the caller finishes one CPU's bundle before
 * the next CPU's opens.
 */
struct ftrace_sink {
	struct pbw	*(*packet_begin)(void *arg);
	void		 (*packet_end)(void *arg);
	void		*arg;
	/*
	 * Optional: the distinct pids of each bundle's events (so that
	 * process_stats can describe processes first seen in ftrace).
	 */
	void		 (*pids)(void *arg, const int32_t *pids, size_t n);
};

/*
 * FtraceConfig.print_filter: the first rule whose prefix matches the print
 * buffer (or, for atrace rules, "<type>|pid|<prefix>") decides; no match
 * keeps the event.
 */
struct ftrace_print_rule {
	const char	*prefix;
	const char	*atrace_type;	/* NULL: plain prefix rule */
	int		 allow;
};

struct ksyms;

struct ftrace_xlate_opts {
	int				 compact_sched;
	int				 disable_generic;
	int				 clock;	/* FtraceClock; 0: boot */
	const struct ftrace_print_rule	*print_rules;	/* copied */
	size_t				 nprint_rules;
	/*
	 * symbolize_ksyms: name the symbol indexes in interned_data. NULL:
	 * indexes only. Borrowed: must outlive the translator.
	 */
	const struct ksyms		*ksyms;
};

/* Per-CPU counters, reported in FtraceStats and used by tests. */
struct ftrace_cpu_counters {
	uint64_t	pages;
	uint64_t	bytes_read;
	uint64_t	events;		/* records translated */
	uint64_t	unknown_ids;	/* records with no plan */
	uint64_t	dropped;	/* records shorter than their format */
	uint64_t	filtered;	/* print events the print filter dropped */
	uint64_t	lost_pages;	/* pages with the missed-events flag */
	uint64_t	lost_events;	/* kernel's stored count, if any */
	uint64_t	bad_pages;
	uint64_t	packets;
	uint64_t	syms_named;	/* kernel_symbols entries written */
	uint64_t	syms_unnamed;	/* indexes no symbol holds */
	int		last_status;	/* last page error, 0 if none */
};

struct ftrace_translator;

struct ftrace_translator *ftrace_translator_new(const struct ftrace_xlate_opts *);
void	ftrace_translator_free(struct ftrace_translator *);
/* Adds an event; the translator copies what it needs from fmt. */
int	ftrace_translator_add(struct ftrace_translator *,
	    const struct ftrace_format *fmt, const char **cause);
/* KprobeEvent.KprobeType */
enum { KPROBE_BEGIN = 1, KPROBE_END = 2, KPROBE_INSTANT = 3 };
/* Adds a kprobe's event: written as a KprobeEvent of that type. */
int	ftrace_translator_add_kprobe(struct ftrace_translator *,
	    const struct ftrace_format *fmt, int type, const char **cause);
/*
 * The end of a drain: the next index is 1 again and the next named
 * packet clears the reader's table. Every bundle must be finished.
 */
void	ftrace_translator_drain_end(struct ftrace_translator *);
/* Distinct addresses indexed since the last drain end. */
uint32_t ftrace_translator_nsyms(const struct ftrace_translator *);
/* 1 if an event of that group/name has a typed proto. */
int	ftrace_event_is_typed(const char *group, const char *name);

#define FTRACE_BUNDLE_MAX	(64 * 1024)
#define FTRACE_INTERN_MAX	256
#define FTRACE_COMPACT_COLS	11
#define FTRACE_COMPACT_COL_CAP	(4 * 1024)
#define FTRACE_PIDS_MAX		256
#define FTRACE_SYMS_MAX		(64 * 1024)	/* indexes per drain */

struct ftrace_bundle {
	struct ftrace_translator	*xl;
	const struct ftrace_page_layout	*layout;
	struct ftrace_sink		 sink;
	struct ftrace_cpu_counters	*ctr;
	uint32_t			 cpu;
	struct pbw			*w;	/* open packet, or NULL */
	int				 lost;		/* flag the next bundle */
	uint32_t			 nevents;
	uint64_t			 last_ts;	/* last event written */
	uint64_t			 prev_end_ts;
	/* compact_sched columns (packed varints) */
	uint32_t			 col_len[FTRACE_COMPACT_COLS];
	uint64_t			 switch_last_ts;
	uint64_t			 waking_last_ts;
	uint32_t			 nswitch;
	uint32_t			 nwaking;
	uint32_t			 nintern;
	char				 intern[FTRACE_INTERN_MAX][16];
	uint8_t				*cols;	/* column i at i * COL_CAP */
	int32_t				 pids[FTRACE_PIDS_MAX];
	uint32_t			 npids;
};

int	ftrace_bundle_init(struct ftrace_bundle *, struct ftrace_translator *,
	    const struct ftrace_page_layout *, uint32_t cpu,
	    struct ftrace_sink sink, struct ftrace_cpu_counters *ctr);
void	ftrace_bundle_free(struct ftrace_bundle *);
/*
 * Translates one page read from trace_pipe_raw into the open bundle.
 * Returns 0, or an ftrace_status when the page was broken (the records
 * before the break are kept).
 */
int	ftrace_bundle_add_page_untrusted(struct ftrace_bundle *,
	    const uint8_t *page, size_t len);
/* Writes the open bundle, if any, to the sink. */
void	ftrace_bundle_finish(struct ftrace_bundle *);

#endif
