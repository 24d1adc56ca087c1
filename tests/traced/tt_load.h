/*
 * traced under load, shared by check_traced_load (a few producers, a
 * test) and bench_load (64 producers, figures): one session, producers
 * in their own processes writing as fast as they can, CPU-bound
 * processes beside them, and every packet accounted for.
 *
 *   libfaro producers   TrackEvent slices (begin + end), then report
 *                       what libfaro says it dropped
 *   raw producers       test packets through tt_producer, each writer
 *                       registered only after its first commits (as an
 *                       SDK app whose RegisterTraceWriter is late)
 *   early producers     raw producers registered before the session is
 *                       enabled, which then starts them all at once;
 *                       they model an app on upstream's SDK v14, whose
 *                       categories go on at SetupDataSource and whose
 *                       writes are dropped, uncounted, until it has
 *                       handled StartDataSource: each turn of their
 *                       loop ending between the two counts as one such
 *                       silent loss (written, never found)
 *   hogs                spin until the end
 *
 * The trace is read back and counted per producer (trusted_pid):
 * slices found, raw packets found (each seq_value once), against what
 * was written and what each producer said it lost.
 */
#ifndef FARO_TT_LOAD_H
#define FARO_TT_LOAD_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

struct tt_traced;

#define TT_LOAD_MAX_PRODUCERS	128

struct tt_load_opts {
	int		 nfaro;		/* libfaro producer processes */
	int		 nraw;		/* raw producers */
	int		 nearly;	/* early producers */
	int		 nhogs;		/* CPU-bound processes */
	uint32_t	 slices;	/* per libfaro producer */
	uint32_t	 packets;	/* per raw producer */
	uint32_t	 buffer_kb;
	int		 ring;		/* else discard */
	uint32_t	 smb_kb;	/* libfaro's SMB hint, 0: the service's */
	int		 stall;		/* libfaro: stall policy, else drop */
	int		 args;		/* debug annotations per slice, 0..3 */
};

struct tt_load_producer {
	pid_t		 pid;
	int		 raw;		/* raw or early */
	int		 early;
	uint64_t	 written;	/* events (libfaro) or packets (raw) */
	uint64_t	 dropped;	/* what the producer says it lost */
	uint64_t	 found;		/* in the trace */
};

struct tt_load_result {
	int		 nproducers;
	struct tt_load_producer p[TT_LOAD_MAX_PRODUCERS];
	uint64_t	 written, dropped, found;	/* totals */
	uint64_t	 duplicates;	/* raw packets seen twice */
	uint64_t	 bad_trusted;	/* producer packets without a pid */
	/* The buffer's stats (TraceStats.buffer_stats[0]). */
	uint64_t	 chunks_written, chunks_read, chunks_overwritten;
	uint64_t	 chunks_discarded, chunks_rewritten;
	uint64_t	 chunks_committed_out_of_order;
	uint64_t	 writer_loss_marks;	/* trace_writer_packet_loss */
	uint64_t	 trace_chunks_discarded;	/* rejected commits */
	uint64_t	 trace_bytes;
	double		 write_s;	/* first event to last producer done */
	double		 total_s;	/* start to trace read */
	double		 traced_cpu_s;	/* during the run */
	long		 traced_rss_kb;	/* at the end */
};

/* Runs one load against td; 0, or -1 with err set. */
int	tt_load_run(struct tt_traced *td, const struct tt_load_opts *,
	    struct tt_load_result *, char *err, size_t errlen);

#endif
